"""remat's partitioner under torch.compile's default backend (Inductor, PyTorch 2.13):

    torch.compile(model, options={"custom_partitioner_fn": remat.inductor_partitioner()})

Inductor runs its joint-graph passes, then hands the joint to this object. Its uuid() is
Inductor's FX-graph cache key for the partitioner: remat's code and settings, so a cached compile
is reused only for the same partitioner. The object pickles as its settings (Inductor pickles its
config into the cache key)."""

import os

from torch._inductor.custom_graph_pass import CustomPartitionerFn, get_hash_for_files

from remat.partition import partition_fn

__all__ = ["RematPartitioner"]

_code_hash = None


def _remat_code_hash():
    """remat's Python glue and C++ core, hashed once a process (the core is several MB)."""
    global _code_hash
    if _code_hash is None:
        from remat import _core, partition

        _code_hash = get_hash_for_files((os.path.abspath(partition.__file__), _core.__file__)).hex()
    return _code_hash


class RematPartitioner(CustomPartitionerFn):
    """Inductor's custom_partitioner_fn running remat.partition_fn with these settings (those of
    remat.partition_fn_for; budget None reads torch._functorch.config as PyTorch does)."""

    def __init__(
        self,
        strategy="min-cut",
        budget=None,
        *,
        fallback=False,
        verify=False,
        on_report=None,
        charts=None,
        within_regions=False,
    ):
        self.settings = {
            "strategy": strategy,
            "budget": budget,
            "fallback": fallback,
            "verify": verify,
            "charts": charts,
            "within_regions": within_regions,
        }
        self.on_report = on_report

    def __call__(self, gm, joint_inputs, **kwargs):
        kwargs.pop("compiler", None)  # Inductor's allowlist name; remat's partitioner has its own
        return partition_fn(gm, joint_inputs, on_report=self.on_report, **self.settings, **kwargs)

    def uuid(self):
        return f"remat-{_remat_code_hash()}-{sorted(self.settings.items())!r}"

    def __getstate__(self):  # the callback is not part of what the partitioner computes
        return {"settings": self.settings, "on_report": None}

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.settings.items())
        return f"remat.inductor_partitioner({args})"
