#!/usr/bin/env python3
"""End-to-end partition_fn time, remat beside functorch 1.13's min-cut, on the joints of nanoGPT
block stacks (python/tests/models.py, d=64, context 32, dropout): functorch's aot_module captures
each joint once, then each partitioner runs on its own copy, best of `--repeat` runs.

    PYTHONPATH=build/python /usr/bin/python3 bench/python_partition.py [--blocks 1 8 32 128]

remat's time is split into export (Python: fxgraph-json of the live graph), partition (C++: read,
DCE + CSE, min-cut, report) and modules (Python: the two GraphModules, which torch.fx builds and
compiles to Python code).
"""
import argparse
import copy
import os
import sys
import time
import warnings

warnings.filterwarnings("ignore")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
sys.path.insert(0, os.path.join(ROOT, "python", "tests"))

try:
    import torch
    from functorch.compile import aot_module, default_partition, min_cut_rematerialization_partition
except ImportError:
    print("python3-torch is not installed; nothing to compare")
    sys.exit(0)
import remat  # noqa: E402
from remat import _core  # noqa: E402
from models import NanoGPT  # noqa: E402


def joint_of(blocks):
    torch.manual_seed(0)
    model = NanoGPT(layers=blocks, d=64, context=32)
    seen = {}

    def capture(joint, joint_inputs, **kwargs):
        seen["joint"], seen["inputs"] = copy.deepcopy(joint), joint_inputs
        return default_partition(joint, joint_inputs, **kwargs)

    compiled = aot_module(model, lambda g, _: g, lambda g, _: g, partition_fn=capture)
    compiled(*model.batch(torch.Generator().manual_seed(1))).backward()
    return seen["joint"], seen["inputs"]


def best_of(repeat, fn):
    times = []
    for _ in range(repeat):
        times.append(fn())
    return min(times, key=lambda t: t[0])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blocks", type=int, nargs="+", default=[1, 8, 32, 128])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"torch {torch.__version__}, remat {_core.__version__}")
    print("| blocks | joint nodes | functorch 1.13 min-cut | remat partition_fn | ratio | export | partition (C++) "
          "| modules | export share |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for blocks in args.blocks:
        joint, inputs = joint_of(blocks)

        def functorch_run():
            j = copy.deepcopy(joint)
            start = time.perf_counter()
            min_cut_rematerialization_partition(j, inputs)
            return (time.perf_counter() - start,)

        def remat_run():
            j = copy.deepcopy(joint)
            start = time.perf_counter()
            remat.partition_fn(j, inputs)
            return time.perf_counter() - start, dict(remat.last_report().timings)

        theirs = best_of(args.repeat, functorch_run)[0]
        ours, parts = best_of(args.repeat, remat_run)
        ms = {k: v * 1e3 for k, v in parts.items()}
        print(f"| {blocks} | {len(joint.graph.nodes):,} | {theirs * 1e3:,.0f} ms | {ours * 1e3:,.0f} ms | "
              f"{theirs / ours:.1f}x | {ms['export']:,.0f} ms | {ms['partition']:,.0f} ms | {ms['modules']:,.0f} ms | "
              f"{parts['export'] / ours:.0%} |", flush=True)


if __name__ == "__main__":
    main()
