"""python3 -m remat export FILE.py:NAME [-o OUT.json] [--name GRAPH]

Writes fxgraph-json of NAME from FILE.py: a torch.fx.GraphModule (or Graph) as it is, an
nn.Module instance, an nn.Module class (built with no arguments) or a function, traced with
torch.fx.symbolic_trace. Errors go to stderr with exit code 2, and no output file is left.
"""

import argparse
import importlib.util
import os
import sys
import tempfile

from remat.export import ExportError, export


def _load(spec):
    path, _, name = spec.rpartition(":")
    if not path or not name:
        raise ExportError(f"{spec}: expected FILE.py:NAME")
    if not os.path.isfile(path):
        raise ExportError(f"{path}: no such file")
    module_spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    if not hasattr(module, name):
        raise ExportError(f"{path}: has no {name}")
    return getattr(module, name)


def _graph_of(obj):
    import torch
    import torch.fx

    if isinstance(obj, (torch.fx.GraphModule, torch.fx.Graph)):
        return obj
    if isinstance(obj, type) and issubclass(obj, torch.nn.Module):
        obj = obj()
    if isinstance(obj, torch.nn.Module) or callable(obj):
        return torch.fx.symbolic_trace(obj)
    raise ExportError(f"{type(obj).__name__} is neither a GraphModule, an nn.Module nor a function")


def _write(text, path):
    if path in (None, "-"):
        sys.stdout.write(text)
        return
    folder = os.path.dirname(os.path.abspath(path))
    fd, temp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(path) + ".")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m remat", description="remat from Python")
    commands = parser.add_subparsers(dest="command", required=True)
    exp = commands.add_parser("export", help="write fxgraph-json of a torch.fx graph, module or function")
    exp.add_argument("target", metavar="FILE.py:NAME")
    exp.add_argument("-o", "--output", help="output file (default: stdout)")
    exp.add_argument("--name", help="the graph's name in the file (default: NAME)")
    args = parser.parse_args(argv)
    try:
        obj = _load(args.target)
        text = export(_graph_of(obj), name=args.name or args.target.rpartition(":")[2])
        _write(text, args.output)
    except ExportError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # the user's module failed to import or to trace
        print(f"error: {args.target}: {type(e).__name__}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
