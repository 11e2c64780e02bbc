#!/usr/bin/env python3
"""Writes src/remat/partition/data/torch_recomputable_ops.txt: the ops PyTorch's min-cut may
recompute (its allowlist: a fixed list plus every ATen op with a pointwise-tagged overload), as
the installed PyTorch computes it, one operator packet a line (`aten.bitwise_not`,
`prims.iota`, `operator.add`). remat's partitioner reads it (partition/op_classes.cpp), so that
an op outside remat's own registry is classified as PyTorch classifies it.

    python3 tools/gen_torch_op_lists.py          # rewrite the file from the installed torch
    python3 tools/gen_torch_op_lists.py --check  # exit 1 if the file is not what torch says
"""
import os
import sys

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "remat", "partition", "data",
                    "torch_recomputable_ops.txt")


def packet_name(op):
    qualified = getattr(op, "_qualified_op_name", None)  # OpOverloadPacket: "aten::add"
    if qualified:
        return qualified.replace("::", ".")
    module = {"_operator": "operator"}.get(op.__module__, op.__module__)
    return f"{module}.{op.__name__}" if module == "operator" else None  # Python's operators only


def current_text():
    import torch
    from torch._functorch.partitioners import get_default_op_list

    names = sorted({n for n in map(packet_name, get_default_op_list().recomputable_ops) if n})
    return f"# PyTorch {torch.__version__.split('+')[0]}: tools/gen_torch_op_lists.py\n" + "\n".join(names) + "\n"


def main():
    text = current_text()
    if "--check" in sys.argv:
        with open(PATH) as f:
            if f.read() != text:
                print(f"{PATH} is not the installed PyTorch's list: run tools/gen_torch_op_lists.py")
                return 1
        return 0
    with open(PATH, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
