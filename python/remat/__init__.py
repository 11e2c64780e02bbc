"""remat from Python.

remat.export(gm)            fxgraph-json of a torch.fx graph (python3 -m remat export FILE.py:NAME)
remat.print_readable(gm)    torch.fx's print_readable text, by remat's printer, with recompute tags
remat.partition_fn          AOTAutograd partition_fn: remat's min-cut decides what is saved
remat.Settings(strategy=..., budget=..., time_limit=...)   the partition settings, spelled once
remat.partition_fn_for(settings)  a partition_fn with these settings (or their fields)
remat.inductor_partitioner(settings)  torch.compile(m, options={"custom_partitioner_fn": remat.inductor_partitioner()})
remat.last_report()         why the latest partition saved and recomputed what it did
remat.checkpoint_policy()   a checkpoint policy under which PyTorch itself saves what remat chose

`import remat` works without torch; the functions that take graphs import it when called.
"""

from remat.export import ExportError, export, graph_object
from remat.partition import (
    PartitionError,
    PartitionReport,
    RematFallbackWarning,
    last_report,
    partition_fn,
    partition_fn_for,
    trace_log_path,
)
from remat.settings import Settings
from remat.policy import CheckpointPolicyModule, checkpoint_policy
from remat.readable import print_readable


def inductor_partitioner(strategy="min-cut", budget=None, *, on_report=None, **fields):
    """remat's partitioner for torch.compile's default backend (Inductor): see
    remat.inductor.inductor_partitioner (imported when called: it needs torch._inductor)."""
    from remat.inductor import inductor_partitioner as make

    return make(strategy, budget, on_report=on_report, **fields)


__all__ = [
    "export",
    "graph_object",
    "ExportError",
    "print_readable",
    "partition_fn",
    "partition_fn_for",
    "Settings",
    "inductor_partitioner",
    "last_report",
    "PartitionReport",
    "PartitionError",
    "RematFallbackWarning",
    "trace_log_path",
    "checkpoint_policy",
    "CheckpointPolicyModule",
]
