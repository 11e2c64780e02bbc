"""remat from Python.

remat.export(gm)            fxgraph-json of a torch.fx graph (python3 -m remat export FILE.py:NAME)
remat.print_readable(gm)    torch.fx's print_readable text, by remat's printer, with recompute tags
remat.partition_fn          AOTAutograd partition_fn: remat's min-cut decides what is saved
remat.partition_fn_for(strategy=..., budget=..., fallback=...)
remat.inductor_partitioner(...)  torch.compile(m, options={"custom_partitioner_fn": remat.inductor_partitioner()})
remat.last_report()         why the latest partition saved and recomputed what it did
remat.checkpoint_policy()   a checkpoint policy under which PyTorch itself saves what remat chose

`import remat` works without torch; the functions that take graphs import it when called.
"""

from remat.export import ExportError, export, graph_object
from remat.partition import (
    PartitionError,
    PartitionReport,
    RematFallbackWarning,
    inductor_partitioner,
    last_report,
    partition_fn,
    partition_fn_for,
    trace_log_path,
)
from remat.policy import CheckpointPolicyModule, checkpoint_policy
from remat.readable import print_readable

__all__ = [
    "export",
    "graph_object",
    "ExportError",
    "print_readable",
    "partition_fn",
    "partition_fn_for",
    "inductor_partitioner",
    "last_report",
    "PartitionReport",
    "PartitionError",
    "RematFallbackWarning",
    "trace_log_path",
    "checkpoint_policy",
    "CheckpointPolicyModule",
]
