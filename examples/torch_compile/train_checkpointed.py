#!/usr/bin/env python3
"""Train a small checkpointed MLP under torch.compile (PyTorch 2.13) with remat choosing what the
forward saves, then print remat's explanation of that choice.

    python3 examples/torch_compile/train_checkpointed.py            # aot_autograd backend
    python3 examples/torch_compile/train_checkpointed.py --inductor # torch.compile's default backend
    TORCH_TRACE=/tmp/trace python3 examples/torch_compile/train_checkpointed.py && remat report /tmp/trace

With `pip install .` remat is importable as is; from a build tree, PYTHONPATH=build/python.
"""

import argparse
import functools

import torch
import torch.nn.functional as F
from functorch.compile import make_boxed_func
from torch import nn
from torch._dynamo.backends.common import aot_autograd
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

import remat


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.ln, self.fc1, self.fc2 = nn.LayerNorm(d), nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(self.ln(x))))


def save_matmuls(_ctx, op, *_args, **_kwargs):
    """Selective checkpointing: keep the matmuls, recompute the rest."""
    return (
        CheckpointPolicy.MUST_SAVE
        if op in (torch.ops.aten.mm.default, torch.ops.aten.addmm.default)
        else CheckpointPolicy.PREFER_RECOMPUTE
    )


class Model(nn.Module):
    def __init__(self, d=64, layers=4):
        super().__init__()
        self.blocks = nn.ModuleList(Block(d) for _ in range(layers))
        self.context_fn = functools.partial(create_selective_checkpoint_contexts, save_matmuls)

    def forward(self, x):
        for block in self.blocks:
            x = checkpoint(block, x, use_reentrant=False, context_fn=self.context_fn)
        return x.pow(2).mean()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inductor", action="store_true", help="compile with Inductor (custom_partitioner_fn)")
    parser.add_argument("--steps", type=int, default=5)
    args = parser.parse_args()

    torch.manual_seed(0)
    model = Model()
    if args.inductor:
        compiled = torch.compile(model, options={"custom_partitioner_fn": remat.inductor_partitioner()})
    else:
        backend = aot_autograd(fw_compiler=lambda gm, _: make_boxed_func(gm), partition_fn=remat.partition_fn)
        compiled = torch.compile(model, backend=backend)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(args.steps):
        opt.zero_grad()
        loss = compiled(torch.randn(32, 64))
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.6f}")
    print()
    print(remat.last_report())


if __name__ == "__main__":
    main()
