#!/usr/bin/env python3
"""Writes what remat knows of the installed PyTorch's operators, from that PyTorch:

src/remat/partition/data/torch_recomputable_ops.txt: the ops PyTorch's min-cut may recompute (its
allowlist: a fixed list plus every ATen op with a pointwise-tagged overload), one operator packet a
line (`aten.bitwise_not`, `prims.iota`, `operator.add`). remat's partitioner reads it
(partition/op_classes.cpp), so that an op outside remat's own registry is classified as PyTorch
classifies it.

src/remat/partition/data/torch_unrecomputable_ops.txt: the ops PyTorch's min-cut bans from
recomputation when its allowlist is off (under a memory budget), by class, one `CLASS packet` a
line (`random aten.native_dropout`, `compute-intensive aten.mm`): whatever else it may recompute.

src/remat/ops/data/aten_overloads_torch2.txt: the aten/prims overloads this PyTorch has that
Debian's libtorch 1.13 (ops/data/aten_overloads.txt) lacks, one a line
(`aten._scaled_dot_product_flash_attention_for_cpu.default`): remat reads them as real operators,
not misspellings.

src/remat/ops/data/torch_seeded_overloads.txt: the aten/prims overloads this PyTorch tags
nondeterministic_seeded (random numbers drawn from the generator: dropout, rand, CPU attention
with its dropout_p), one a line: the ops whose recomputation PyTorch's RNG functionalization replays
with the forward's RNG state.

    python3 tools/gen_torch_op_lists.py          # rewrite the files from the installed torch
    python3 tools/gen_torch_op_lists.py --check  # exit 1 if a file is not what torch says
"""

import os
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "remat")
RECOMPUTABLE = os.path.join(SRC, "partition", "data", "torch_recomputable_ops.txt")
UNRECOMPUTABLE = os.path.join(SRC, "partition", "data", "torch_unrecomputable_ops.txt")
LIBTORCH_OVERLOADS = os.path.join(SRC, "ops", "data", "aten_overloads.txt")
NEWER_OVERLOADS = os.path.join(SRC, "ops", "data", "aten_overloads_torch2.txt")
SEEDED_OVERLOADS = os.path.join(SRC, "ops", "data", "torch_seeded_overloads.txt")


def packet_name(op):
    qualified = getattr(op, "_qualified_op_name", None)  # OpOverloadPacket: "aten::add"
    if qualified:
        return qualified.replace("::", ".")
    module = {"_operator": "operator"}.get(op.__module__, op.__module__)
    return f"{module}.{op.__name__}" if module == "operator" else None  # Python's operators only


def header():
    import torch

    return f"# PyTorch {torch.__version__.split('+')[0]}: tools/gen_torch_op_lists.py\n"


def recomputable_text():
    from torch._functorch.partitioners import get_default_op_list

    names = sorted({n for n in map(packet_name, get_default_op_list().recomputable_ops) if n})
    return header() + "\n".join(names) + "\n"


def unrecomputable_text():
    from torch._functorch.partitioners import get_default_op_list

    ops = get_default_op_list()
    lines = [f"random {n}" for n in sorted({n for n in map(packet_name, ops.random_ops) if n})]
    lines += [f"compute-intensive {n}" for n in sorted({n for n in map(packet_name, ops.compute_intensive_ops) if n})]
    return header() + "\n".join(lines) + "\n"


def fx_name(name):  # "aten::add.Tensor" -> "aten.add.Tensor", "aten::relu" -> "aten.relu.default"
    ns, rest = name.split("::", 1)
    return f"{ns}.{rest}" if "." in rest else f"{ns}.{rest}.default"


def aten_overloads():
    import torch

    return sorted(fx_name(n) for n in torch._C._dispatch_get_all_op_names() if n.startswith(("aten::", "prims::")))


def newer_overloads_text():
    with open(LIBTORCH_OVERLOADS) as f:
        known = set(f.read().split())
    names = sorted(set(aten_overloads()) - known)
    return header() + "\n".join(names) + "\n"


def seeded_overloads_text():
    import torch

    def seeded(name):
        namespace, packet, overload = name.split(".", 2)
        op = getattr(getattr(getattr(torch.ops, namespace), packet, None), overload, None)
        return op is not None and torch.Tag.nondeterministic_seeded in op.tags

    return header() + "\n".join(filter(seeded, aten_overloads())) + "\n"


def main():
    files = {
        RECOMPUTABLE: recomputable_text(),
        UNRECOMPUTABLE: unrecomputable_text(),
        NEWER_OVERLOADS: newer_overloads_text(),
        SEEDED_OVERLOADS: seeded_overloads_text(),
    }
    status = 0
    for path, text in files.items():
        if "--check" in sys.argv:
            with open(path) as f:
                if f.read() != text:
                    print(f"{path} is not the installed PyTorch's list: run tools/gen_torch_op_lists.py")
                    status = 1
        else:
            with open(path, "w") as f:
                f.write(text)
    return status


if __name__ == "__main__":
    sys.exit(main())
