#!/usr/bin/env python3
"""Captures real joint graphs and PyTorch's own partitions of them, for remat's tests.

  /usr/bin/python3 tools/capture_torch_joints.py OUT_DIR [MODEL ...]

Runs each model below through functorch's aot_module on the CPU (Debian's python3-torch), and
writes, per model <m>: <m>_joint.json (the joint graph handed to the partitioner),
<m>_default_fw.json / _bw.json and <m>_mincut_fw.json / _bw.json (PyTorch's partitions) and
<m>_partition.json (what each partitioner saved, with bytes). The graphs are fxgraph-json/1,
written by remat's exporter (python/remat/export.py), each with a .txt twin: the graph's
print_readable() text as this PyTorch prints it.
"""

import contextlib
import copy
import io
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from functorch.compile import aot_module, default_partition, min_cut_rematerialization_partition  # noqa: E402

from remat.export import graph_object  # noqa: E402

torch.manual_seed(0)


class LayerNormMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.ln, self.fc2 = nn.Linear(16, 32), nn.LayerNorm(32), nn.Linear(32, 8)

    def forward(self, x):
        return self.fc2(F.gelu(self.ln(self.fc1(x)))).sum()


class BatchNormConv(nn.Module):  # train mode: running statistics are updated in the op
    def __init__(self):
        super().__init__()
        self.conv, self.bn = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x))).mean()


class CrossEntropyClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb, self.fc = nn.Embedding(50, 16), nn.Linear(16, 10)

    def forward(self, tokens, target):
        return F.cross_entropy(self.fc(torch.tanh(self.emb(tokens))).flatten(0, 1), target.flatten())


class NormStack(nn.Module):  # all three together, as a transformer-ish head would use them
    def __init__(self):
        super().__init__()
        self.ln, self.bn, self.fc = nn.LayerNorm(8), nn.BatchNorm1d(8), nn.Linear(8, 4)

    def forward(self, x, target):
        return F.cross_entropy(self.fc(self.bn(self.ln(x))), target)


class DropoutMLP(nn.Module):  # 1.13 traces dropout as bernoulli_ on an empty_like, in place
    def __init__(self):
        super().__init__()
        self.fc1, self.drop, self.fc2 = nn.Linear(8, 16), nn.Dropout(0.25), nn.Linear(16, 4)

    def forward(self, x):
        return self.fc2(self.drop(torch.relu(self.fc1(x)))).sum()


MODELS = {
    "layernorm_mlp": (LayerNormMLP, lambda: (torch.randn(4, 16),)),
    "batchnorm_conv": (BatchNormConv, lambda: (torch.randn(2, 3, 6, 6),)),
    "cross_entropy": (CrossEntropyClassifier, lambda: (torch.randint(0, 50, (2, 5)), torch.randint(0, 10, (2, 5)))),
    "norm_stack": (NormStack, lambda: (torch.randn(6, 8), torch.randint(0, 4, (6,)))),
    "dropout_mlp": (DropoutMLP, lambda: (torch.randn(4, 8),)),
}


def nbytes(node):
    tm = node.meta.get("tensor_meta")
    if tm is None or not hasattr(tm, "shape"):
        return 0
    numel = 1
    for d in tm.shape:
        numel *= int(d)
    return numel * torch.empty((), dtype=tm.dtype).element_size()


def readable(gm):
    """What gm.print_readable() prints (1.13's prints and returns nothing)."""
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        text = gm.print_readable()
    return text if isinstance(text, str) else buffer.getvalue()


def summary(fw, bw, num_fwd_outputs):
    fw_out = [n for n in fw.graph.nodes if n.op == "output"][0].args[0]
    saved = [n.name for n in fw_out[num_fwd_outputs:]]
    by_name = {n.name: n for n in fw.graph.nodes}
    sizes = {s: nbytes(by_name[s]) for s in saved}
    fw_calls = {n.name for n in fw.graph.nodes if n.op == "call_function"}
    return {
        "saved_values": saved,
        "saved_values_bytes": sizes,
        "saved_bytes_total": sum(sizes.values()),
        "bw_placeholders": [n.name for n in bw.graph.nodes if n.op == "placeholder"],
        "fw_num_nodes": len(fw.graph.nodes),
        "bw_num_nodes": len(bw.graph.nodes),
        "recomputed_in_bw": [n.name for n in bw.graph.nodes if n.op == "call_function" and n.name in fw_calls],
    }


def capture(name, out_dir):
    cls, make_inputs = MODELS[name]
    result, texts = {}, {}

    def partition(joint, joint_inputs, **kwargs):
        # 1.13 passes no num_fwd_outputs (it reads the joint's output spec); later releases do.
        num_fwd_outputs = kwargs.get("num_fwd_outputs", None)
        if num_fwd_outputs is None:
            num_fwd_outputs = joint._out_spec.children_specs[0].num_leaves
        primals = sum(1 for n in joint.graph.nodes if n.op == "placeholder" and n.name.startswith("primals"))
        tangents = sum(1 for n in joint.graph.nodes if n.op == "placeholder" and n.name.startswith("tangents"))
        extra = {
            "model": name,
            "which": "joint",
            "num_fwd_outputs": num_fwd_outputs,
            "num_primals": primals,
            "num_tangents": tangents,
        }
        result["joint"] = graph_object(joint, f"{name}_joint", "cpu", extra)
        texts["joint"] = readable(joint)
        strategies = {}
        for label, fn in (("default", default_partition), ("mincut", min_cut_rematerialization_partition)):
            fw, bw = fn(copy.deepcopy(joint), joint_inputs, **kwargs)
            s = summary(fw, bw, num_fwd_outputs)
            strategies["min_cut" if label == "mincut" else label] = s
            result[f"{label}_fw"] = graph_object(
                fw,
                f"{name}_{label}_fw",
                "cpu",
                {
                    "model": name,
                    "which": f"{label}_fw",
                    "num_real_outputs": num_fwd_outputs,
                    "saved_values": s["saved_values"],
                },
            )
            result[f"{label}_bw"] = graph_object(
                bw, f"{name}_{label}_bw", "cpu", {"model": name, "which": f"{label}_bw"}
            )
            texts[f"{label}_fw"] = readable(fw)
            texts[f"{label}_bw"] = readable(bw)
        result["partition"] = {
            "schema": "fxgraph-json/1#partition",
            "model": name,
            "torch_version": torch.__version__,
            **strategies,
        }
        return default_partition(joint, joint_inputs, **kwargs)

    model = aot_module(cls(), fw_compiler=lambda g, _: g, bw_compiler=lambda g, _: g, partition_fn=partition)
    model(*make_inputs()).backward()
    for which, obj in result.items():
        path = os.path.join(out_dir, f"{name}_{which}.json")
        with open(path, "w") as f:
            json.dump(obj, f, indent=1, allow_nan=False)
            f.write("\n")
        print(path)
    for which, text in texts.items():
        with open(os.path.join(out_dir, f"{name}_{which}.txt"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    import warnings

    warnings.filterwarnings("ignore", message=".*boxed arguments.*")
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    for m in sys.argv[2:] or MODELS:
        capture(m, sys.argv[1])
