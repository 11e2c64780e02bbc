#!/usr/bin/env python3
"""Times PyTorch's make_fx on the zoo's gpt2 (same shapes as bench_trace) and prints nodes/s.

Run with Debian's python3-torch (/usr/bin/python3 bench/compare_trace.py); compare with
build/bench/bench_trace's items_per_second.
"""
import math
import sys
import time

try:
    import torch
    import torch.utils.checkpoint
    from functorch import make_fx
except ImportError:
    print("python3-torch is not installed; nothing to compare")
    sys.exit(0)

HIDDEN, SEQ, BATCH, HEADS = 64, 16, 2, 4


def block(x, p, mask):
    B, T, C = x.shape
    D = C // HEADS
    h = torch.nn.functional.layer_norm(x, (C,), p[0], p[1])
    qkv = torch.nn.functional.linear(h, p[2], p[3])
    q, k, v = qkv.split(C, 2)
    q = q.view(B, T, HEADS, D).transpose(1, 2)
    k = k.view(B, T, HEADS, D).transpose(1, 2)
    v = v.view(B, T, HEADS, D).transpose(1, 2)
    att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(D))
    att = att.masked_fill(mask, float("-inf")).softmax(-1)
    y = (att @ v).transpose(1, 2).contiguous().view(B, T, C)
    x = x + torch.nn.functional.linear(y, p[4], p[5])
    h = torch.nn.functional.layer_norm(x, (C,), p[6], p[7])
    h = torch.nn.functional.gelu(torch.nn.functional.linear(h, p[8], p[9]))
    return x + torch.nn.functional.linear(h, p[10], p[11])


def params(c):
    shapes = [(c,), (c,), (3 * c, c), (3 * c,), (c, c), (c,), (c,), (c,), (4 * c, c), (4 * c,), (c, 4 * c), (c,)]
    return [torch.randn(s) for s in shapes]


for layers in (4, 16, 64):
    ps = [params(HIDDEN) for _ in range(layers)]

    def model(x):
        mask = torch.triu(torch.ones(SEQ, SEQ, dtype=torch.bool), 1)
        for p in ps:
            x = torch.utils.checkpoint.checkpoint(block, x, p, mask, use_reentrant=False)
        return x

    x = torch.randn(BATCH, SEQ, HIDDEN)
    start = time.perf_counter()
    gm = make_fx(model)(x)
    elapsed = time.perf_counter() - start
    nodes = len(gm.graph.nodes)
    print(f"make_fx gpt2 layers={layers}: {nodes} nodes in {elapsed * 1e3:.1f} ms = {nodes / elapsed:,.0f} nodes/s")
