"""remat's partitioner under torch.compile's default backend (Inductor, PyTorch 2.13):

    torch.compile(model, options={"custom_partitioner_fn": remat.inductor_partitioner()})

Inductor runs its joint-graph passes, then hands the joint to this object. Its uuid() is
Inductor's FX-graph cache key for the partitioner: remat's code and settings, so a cached compile
is reused only for the same partitioner. The object pickles as its settings (Inductor pickles its
config into the cache key)."""

import os

from torch._inductor.custom_graph_pass import CustomPartitionerFn, get_hash_for_files

from remat.partition import partition_fn, settings_of
from remat.settings import Settings

__all__ = ["RematPartitioner", "inductor_partitioner"]

_code_hash = None


def _remat_code_hash():
    """remat's Python glue and C++ core, hashed once a process (the core is several MB)."""
    global _code_hash
    if _code_hash is None:
        from remat import _core, modules, partition, settings

        files = (partition.__file__, modules.__file__, settings.__file__, _core.__file__)
        _code_hash = get_hash_for_files(tuple(os.path.abspath(f) for f in files)).hex()
    return _code_hash


class RematPartitioner(CustomPartitionerFn):
    """Inductor's custom_partitioner_fn running remat.partition_fn with these settings (a
    remat.Settings; budget None reads torch._functorch.config as PyTorch does)."""

    def __init__(self, settings=None, *, on_report=None):
        self.settings = settings if settings is not None else Settings()
        if not isinstance(self.settings, Settings):
            raise TypeError(f"settings must be a remat.Settings, not {type(self.settings).__name__}")
        self.on_report = on_report

    def __call__(self, gm, joint_inputs, **kwargs):
        kwargs.pop("compiler", None)  # Inductor's allowlist name; remat's partitioner has its own
        return partition_fn(gm, joint_inputs, settings=self.settings, on_report=self.on_report, **kwargs)

    def uuid(self):
        return f"remat-{_remat_code_hash()}-{self.settings!r}"

    def __getstate__(self):  # the callback is not part of what the partitioner computes
        return {"settings": self.settings, "on_report": None}

    def __repr__(self):
        return f"remat.inductor_partitioner({self.settings.describe()})"


def inductor_partitioner(strategy="min-cut", budget=None, *, on_report=None, **fields):
    """remat's partitioner for torch.compile's default backend (Inductor, PyTorch 2.13):

        torch.compile(model, options={"custom_partitioner_fn": remat.inductor_partitioner()})

    The same arguments as remat.partition_fn_for: a remat.Settings, or its fields."""
    return RematPartitioner(settings_of(strategy, budget, **fields), on_report=on_report)
