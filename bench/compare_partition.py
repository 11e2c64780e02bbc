#!/usr/bin/env python3
"""Times functorch's min-cut partitioner (Debian's python3-torch and python3-networkx) on GPT-2 joint graphs of the
same shape as bench_partition's, and prints remat's time beside it when build/bench/bench_partition
exists:  /usr/bin/python3 bench/compare_partition.py [layers ...]
"""

import json
import os
import subprocess
import sys
import time

try:
    import torch
    from functorch.compile import aot_function, min_cut_rematerialization_partition

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gpt2_reference import block, params
except ImportError:
    print("python3-torch is not installed; nothing to compare")
    sys.exit(0)

HIDDEN, SEQ, BATCH, HEADS = 32, 8, 2, 4  # the zoo's gpt2 defaults


def functorch_ms(layers):
    ps = [params(HIDDEN, requires_grad=True) for _ in range(layers)]
    flat = [t for p in ps for t in p]
    mask = torch.triu(torch.ones(SEQ, SEQ, dtype=torch.bool), 1)
    timing = {}

    def model(x, *flat_params):
        for i in range(layers):
            x = block(x, flat_params[12 * i : 12 * i + 12], mask, HEADS)
        return x

    def partition(joint, joint_inputs, **kwargs):
        start = time.perf_counter()
        result = min_cut_rematerialization_partition(joint, joint_inputs, **kwargs)
        timing["ms"] = (time.perf_counter() - start) * 1e3
        timing["nodes"] = len(joint.graph.nodes)
        return result

    f = aot_function(model, fw_compiler=lambda g, _: g, bw_compiler=lambda g, _: g, partition_fn=partition)
    f(torch.randn(BATCH, SEQ, HIDDEN, requires_grad=True), *flat)
    return timing["nodes"], timing["ms"]


def remat_ms(layers):
    exe = os.path.join(os.path.dirname(__file__), "..", "build", "bench", "bench_partition")
    if not os.path.exists(exe):
        return None
    out = subprocess.run(
        [exe, f"--benchmark_filter=BM_MinCutGpt2/{layers}/", "--benchmark_format=json"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    runs = json.loads(out)["benchmarks"]
    return (runs[0]["nodes"], runs[0]["real_time"]) if runs else None


for layers in [int(a) for a in sys.argv[1:]] or [1, 4, 16]:
    nodes, ms = functorch_ms(layers)
    line = f"gpt2 layers={layers}: functorch 1.13 {nodes} nodes {ms:.1f} ms"
    ours = remat_ms(layers)
    if ours:
        line += f" | remat {int(ours[0])} nodes {ours[1]:.2f} ms | {ms / ours[1]:.0f}x"
    print(line)
