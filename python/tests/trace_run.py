#!/usr/bin/env python3
"""Trains models of compile_models.py under torch.compile with remat.partition_fn (or, with
--pytorch, PyTorch's own min-cut) while TORCH_TRACE is set, so that PyTorch writes its own
structured log (with remat's partition records in it, unless --pytorch).

    TORCH_TRACE=DIR python3 python/tests/trace_run.py [--inductor] [--dynamic] MODEL ...

MODEL is a name of compile_models.py, or `hf:ARCH:KIND[:checkpointed]` for a transformers
architecture of the real-model corpus (transformers_corpus.py), e.g. `hf:llama:causal-lm`.

The tests run it in a child process (PyTorch opens the log when torch is imported); it also
captured tests/data/torch-2.13/*.log."""

import argparse
import os
import sys
import warnings

import torch
from functorch.compile import make_boxed_func
from torch._dynamo.backends.common import aot_autograd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import remat  # noqa: E402
from compile_models import MODELS, loss_of  # noqa: E402


def boxed(gm, _example_inputs):
    return make_boxed_func(gm)


def corpus_model(spec):
    """(model, keyword inputs) of `hf:ARCH:KIND[:checkpointed]`."""
    import transformers_corpus as corpus

    _, arch, kind, *rest = spec.split(":")
    variant = corpus.Variant(checkpointed=rest == ["checkpointed"], attention="eager")
    model, config = corpus.build(arch, kind, variant)
    return model, corpus.inputs(kind, config)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+", help=f"{', '.join(sorted(MODELS))}, or hf:ARCH:KIND[:checkpointed]")
    parser.add_argument("--inductor", action="store_true", help="Inductor with remat.inductor_partitioner()")
    parser.add_argument("--dynamic", action="store_true", help="torch.compile(dynamic=True)")
    parser.add_argument(
        "--pytorch", action="store_true", help="PyTorch's own min-cut, not remat's: a log remat did not partition"
    )
    parser.add_argument("--steps", type=int, default=2)
    args = parser.parse_args()
    if not os.environ.get("TORCH_TRACE"):
        parser.error("set TORCH_TRACE=DIR: PyTorch writes the log there")
    for name in args.models:
        if name not in MODELS and not name.startswith("hf:"):
            parser.error(f"unknown model {name!r}")
    warnings.simplefilter("ignore")
    for name in args.models:
        torch.manual_seed(0)
        model, batch = (MODELS[name](), None) if name in MODELS else corpus_model(name)
        if args.inductor:
            step = torch.compile(
                model, dynamic=args.dynamic, options={"custom_partitioner_fn": remat.inductor_partitioner()}
            )
        else:
            from torch._functorch.partitioners import min_cut_rematerialization_partition

            partition = min_cut_rematerialization_partition if args.pytorch else remat.partition_fn
            backend = aot_autograd(fw_compiler=boxed, partition_fn=partition)
            step = torch.compile(model, backend=backend, dynamic=args.dynamic)
        generator = torch.Generator().manual_seed(1)
        for _ in range(args.steps):
            if batch is not None:
                step(**batch).loss.backward()
            else:
                loss_of(step(*model.batch(generator, 4))).backward()
        print(f"{name}: {args.steps} steps")


if __name__ == "__main__":
    main()
