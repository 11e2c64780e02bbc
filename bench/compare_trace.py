#!/usr/bin/env python3
"""Times PyTorch's make_fx on the zoo's gpt2 (same shapes as bench_trace) and prints nodes/s.

Run with Debian's python3-torch (/usr/bin/python3 bench/compare_trace.py); compare with
build/bench/bench_trace's items_per_second.
"""

import os
import sys
import time

try:
    import torch
    import torch.utils.checkpoint
    from functorch import make_fx

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from gpt2_reference import block, params
except ImportError:
    print("python3-torch is not installed; nothing to compare")
    sys.exit(0)

HIDDEN, SEQ, BATCH, HEADS = 64, 16, 2, 4


for layers in (4, 16, 64):
    ps = [params(HIDDEN) for _ in range(layers)]

    def model(x):
        mask = torch.triu(torch.ones(SEQ, SEQ, dtype=torch.bool), 1)
        for p in ps:
            x = torch.utils.checkpoint.checkpoint(block, x, p, mask, HEADS, use_reentrant=False)
        return x

    x = torch.randn(BATCH, SEQ, HIDDEN)
    start = time.perf_counter()
    gm = make_fx(model)(x)
    elapsed = time.perf_counter() - start
    nodes = len(gm.graph.nodes)
    print(f"make_fx gpt2 layers={layers}: {nodes} nodes in {elapsed * 1e3:.1f} ms = {nodes / elapsed:,.0f} nodes/s")
