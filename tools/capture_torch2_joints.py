#!/usr/bin/env python3
"""Captures joint graphs PyTorch 2.x makes under torch.compile, and its own min-cut partition of
each, for remat's C++ tests (tests/data/torch-2.13/).

  python3 tools/capture_torch2_joints.py OUT_DIR [MODEL ...]

For each model of python/tests/compile_models.py (default: attention batch_norm dropout
tensor_constants in_place hidden_in_place group_masked
assigned_keys chunked_delta) writes
<m>_joint.json (the joint graph handed to the partitioner, with the keyword arguments PyTorch
passed), <m>_fw.json and <m>_bw.json (what PyTorch's min_cut_rematerialization_partition made of
it), in fxgraph-json/1 by remat's exporter (python/remat/export.py).
"""

import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "python"), os.path.join(HERE, "..", "python", "tests")]

import torch  # noqa: E402
from functorch.compile import make_boxed_func, min_cut_rematerialization_partition  # noqa: E402
from torch._dynamo.backends.common import aot_autograd  # noqa: E402

from compile_models import MODELS, copy_of_joint  # noqa: E402
from remat.export import export  # noqa: E402


def capture(name, out):
    def partition(joint, joint_inputs, **kwargs):
        extra = {"num_fwd_outputs": kwargs["num_fwd_outputs"]}
        if kwargs.get("static_lifetime_input_indices") is not None:
            extra["static_lifetime_input_indices"] = list(kwargs["static_lifetime_input_indices"])
        graphs = {"joint": export(joint, extra=extra)}
        fw, bw = min_cut_rematerialization_partition(copy_of_joint(joint), joint_inputs, **kwargs)
        graphs.update(fw=export(fw), bw=export(bw))
        for kind, text in graphs.items():
            with open(os.path.join(out, f"{name}_{kind}.json"), "w") as f:
                f.write(text)
        return fw, bw

    torch._dynamo.reset()
    torch.manual_seed(0)
    model = MODELS[name]()
    backend = aot_autograd(fw_compiler=lambda gm, _: make_boxed_func(gm), partition_fn=partition)
    torch.compile(model, backend=backend)(*model.batch(torch.Generator().manual_seed(1), 4))
    print(f"{name}: {out}/{name}_joint.json, _fw.json, _bw.json")


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    warnings.simplefilter("ignore")
    for name in sys.argv[2:] or [
        "attention",
        "batch_norm",
        "dropout",
        "tensor_constants",
        "in_place",
        "hidden_in_place",
        "group_masked",
        "assigned_keys",
        "chunked_delta",
    ]:
        capture(name, sys.argv[1])
    return 0


if __name__ == "__main__":
    sys.exit(main())
