#!/usr/bin/env python3
"""remat.partition_fn end to end beside PyTorch's own min-cut, in the same process, on the joints
torch.compile makes of a stack of checkpointed SwiGLU blocks (RMSNorm, gate/up/down projections,
a residual; each block under non-reentrant torch.utils.checkpoint). The joint is captured once;
each partitioner then runs on its own deep copy with the keyword arguments PyTorch passed, best of
`--repeat` runs taken in turns (a full collection before each), garbage collection as PyTorch
leaves it (remat pauses it while it partitions), and with torch.fx's lazy recompilation on
as inside torch.compile (torch._dynamo.config.use_lazy_graph_module: a module's Python code is
generated when it first runs, not when the partitioner builds it).

    PYTHONPATH=build/python python3 bench/python_partition.py [--blocks 64 256 640] [--repeat 3]

64 blocks make a joint of about 5,000 nodes, 640 about 50,000. remat's time is split into
export (Python: fxgraph-json of the live graph), partition (C++: read, DCE + CSE, min-cut,
report) and modules (Python: remat's module builder, remat/modules.py, which copies each node once
into the two GraphModules; the builder column says who built them). Under PyTorch 1.13 (no torch.compile) functorch's aot_module captures the joint.

The floor, measured in the same run: what any partitioner pays at least once to hand
torch.compile its modules, whatever it decides - every node of the joint copied into a fresh
torch.fx.Graph with node_copy, then a GraphModule of it and its Python code. The ratios say how far
each partitioner is from it (issue 41's target: remat within 1.5x).
"""

import argparse
import contextlib
import copy
import gc
import os
import sys
import time
import warnings

warnings.filterwarnings("ignore")

try:
    import torch
    import torch.nn.functional as F
    from torch import nn
    from torch.utils.checkpoint import checkpoint
    from functorch.compile import min_cut_rematerialization_partition
except ImportError:
    print("torch is not installed; nothing to compare")
    sys.exit(0)
import remat  # noqa: E402
from remat import _core  # noqa: E402


class SwiGLU(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.Parameter(torch.ones(d))
        self.gate, self.up, self.down = (
            nn.Linear(d, 4 * d, bias=False),
            nn.Linear(d, 4 * d, bias=False),
            nn.Linear(4 * d, d, bias=False),
        )

    def forward(self, x):
        h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.norm
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


class Stack(nn.Module):
    def __init__(self, blocks, d=64):
        super().__init__()
        self.blocks = nn.ModuleList(SwiGLU(d) for _ in range(blocks))

    def forward(self, x):
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False)
        return x.pow(2).mean()


def joint_of(blocks):
    """The joint graph, its inputs and the keyword arguments the partitioner is called with."""
    torch.manual_seed(0)
    model = Stack(blocks)
    x = torch.randn(8, 16, 64, requires_grad=True)
    seen = {}

    def capture(joint, joint_inputs, **kwargs):
        seen.update(joint=copy.deepcopy(joint), inputs=joint_inputs, kwargs=kwargs)
        return min_cut_rematerialization_partition(joint, joint_inputs, **kwargs)

    if hasattr(torch, "compile"):
        from functorch.compile import make_boxed_func
        from torch._dynamo.backends.common import aot_autograd

        def boxed(gm, _):
            return make_boxed_func(gm)

        torch._dynamo.reset()
        torch._dynamo.config.cache_size_limit = 64
        backend = aot_autograd(fw_compiler=boxed, bw_compiler=boxed, partition_fn=capture)
        torch.compile(model, backend=backend)(x)
    else:
        from functorch.compile import aot_module

        aot_module(model, lambda g, _: g, lambda g, _: g, partition_fn=capture)(x)
    return seen["joint"], seen["inputs"], seen["kwargs"]


def as_in_torch_compile():
    """torch.compile partitions under lazy recompilation (PyTorch 2.x); 1.13 has none."""
    try:
        from torch.fx._lazy_graph_module import _use_lazy_graph_module
    except ImportError:
        return contextlib.nullcontext()
    return _use_lazy_graph_module(True)


def floor_of(joint):
    """The floor's time on one copy of the joint: node_copy of every node, GraphModule, code;
    with garbage collection paused, as a partitioner may pause it (remat does)."""
    j = copy.deepcopy(joint)
    gc.disable()
    try:
        start = time.perf_counter()
        graph = torch.fx.Graph()
        env = {}
        for node in j.graph.nodes:
            env[node] = graph.node_copy(node, lambda n: env[n])
        module = torch.fx.GraphModule(j, graph)
        assert module.code  # generated here even under lazy recompilation
        return (time.perf_counter() - start,)
    finally:
        gc.enable()


def best_of_interleaved(repeat, runs):
    """Each run `repeat` times, taking turns, each after a full collection (so that none pays
    for the garbage of the one before): the best result of each."""
    best = [None] * len(runs)
    for _ in range(repeat):
        for i, run in enumerate(runs):
            gc.collect()
            result = run()
            if best[i] is None or result[0] < best[i][0]:
                best[i] = result
    return best


def saved(fw, k):
    output = next(n for n in fw.graph.nodes if n.op == "output")
    return [getattr(a, "name", a) for a in output.args[0][k:]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blocks", type=int, nargs="+", default=[64, 256, 640])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"torch {torch.__version__}, remat {_core.__version__}; checkpointed SwiGLU blocks, d=64")
    print(
        "| blocks | joint nodes | PyTorch min-cut | remat partition_fn | ratio | export | partition (C++) "
        "| modules | floor | PyTorch / floor | remat / floor | same saved set | builder |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|:---|")
    for blocks in args.blocks:
        joint, inputs, kwargs = joint_of(blocks)
        k = kwargs.get("num_fwd_outputs", 1)
        results = {}

        def pytorch_run():
            j = copy.deepcopy(joint)
            start = time.perf_counter()
            fw, _ = min_cut_rematerialization_partition(j, inputs, **kwargs)
            elapsed = time.perf_counter() - start
            results["pytorch"] = saved(fw, k)
            return (elapsed,)

        def remat_run():
            j = copy.deepcopy(joint)
            start = time.perf_counter()
            fw, _ = remat.partition_fn(j, inputs, **kwargs)
            elapsed = time.perf_counter() - start
            results["remat"] = saved(fw, k)
            report = remat.last_report()
            results["builder"] = report.builder
            return elapsed, dict(report.timings)

        with as_in_torch_compile():
            (theirs,), (ours, parts), (floor,) = best_of_interleaved(
                args.repeat, [pytorch_run, remat_run, lambda: floor_of(joint)]
            )
        ms = {key: value * 1e3 for key, value in parts.items()}
        same = "yes" if results["pytorch"] == results["remat"] else "NO"
        print(
            f"| {blocks} | {len(joint.graph.nodes):,} | {theirs * 1e3:,.0f} ms | {ours * 1e3:,.0f} ms | "
            f"{theirs / ours:.1f}x | {ms['export']:,.0f} ms | {ms['partition']:,.0f} ms | {ms['modules']:,.0f} ms | "
            f"{floor * 1e3:,.0f} ms | {theirs / floor:.1f}x | {ours / floor:.1f}x | {same} | {results['builder']} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
