"""The partition settings, spelled once (issue 42).

    settings = remat.Settings(strategy="optimal", budget=0.5, time_limit=30)
    aot_autograd(..., partition_fn=remat.partition_fn_for(settings))
    torch.compile(model, options={"custom_partitioner_fn": remat.inductor_partitioner(settings)})

partition_fn_for, inductor_partitioner (RematPartitioner) and the keyword arguments of
partition_fn read these fields; a new option is added here and nowhere else. `add_arguments` and
`from_args` give a Python command line the same options under the names `remat partition` uses.
"""

import argparse
import dataclasses

__all__ = ["Settings"]

_STRATEGIES = ("min-cut", "default", "optimal")


@dataclasses.dataclass(frozen=True)
class Settings:
    """strategy: "min-cut" (PyTorch's), "default" (save what the backward reads) or "optimal"
    (the least recomputed FLOPs within the budget: an integer program, docs/partitioner.md).
    budget: activation memory budget, a fraction in [0, 1] of the min-cut's activation memory or
    bytes as a string ("24MB", "1.5GiB"); None: PyTorch's own (torch._functorch.config or a
    region's annotation). time_limit (seconds) and gap (relative, 0.01 = 1%): when the optimum's
    solver stops, with the best found. within_regions (optimal): decide inside checkpoint
    regions only, the optimum remat.checkpoint_policy can make PyTorch reproduce. fallback: on a
    graph remat cannot partition, warn and let PyTorch partition it. verify: check remat's
    invariants and that its module builder built what PyTorch's steps build. charts: put the
    numbers of the report's pictures in the logged record (None: when TORCH_TRACE is set)."""

    strategy: str = "min-cut"
    budget: float | str | None = None
    time_limit: float = 60.0
    gap: float = 0.0
    within_regions: bool = False
    fallback: bool = False
    verify: bool = False
    charts: bool | None = None

    def __post_init__(self):
        if self.strategy not in _STRATEGIES:
            raise ValueError(f"strategy must be 'min-cut', 'default' or 'optimal', not {self.strategy!r}")
        if self.within_regions and self.strategy != "optimal":
            raise ValueError(f"within_regions applies to strategy 'optimal', not {self.strategy!r}")
        if isinstance(self.budget, str):
            from remat import _core

            try:
                _core.parse_memory_budget(self.budget)
            except _core.Error as e:
                raise ValueError(f"budget: {e}") from None
            if self.strategy == "default":
                raise ValueError("a budget applies to strategy 'min-cut' or 'optimal', not 'default'")
        elif self.budget is not None and (
            isinstance(self.budget, bool) or not isinstance(self.budget, (int, float)) or not 0.0 <= self.budget <= 1.0
        ):
            raise ValueError(f"budget must be a fraction in [0, 1] or bytes such as '24MB', not {self.budget!r}")
        if not (isinstance(self.time_limit, (int, float)) and self.time_limit > 0):
            raise ValueError(f"time_limit must be a positive number of seconds, not {self.time_limit!r}")
        if not (isinstance(self.gap, (int, float)) and 0.0 <= self.gap <= 1.0):
            raise ValueError(f"gap must be a fraction in [0, 1] (0.01 = 1%), not {self.gap!r}")

    def replace(self, **changes):
        """A copy with some fields changed (checked again)."""
        return dataclasses.replace(self, **changes)

    def describe(self):
        """The settings that differ from the defaults, as keyword arguments would spell them."""
        default = Settings()
        changed = [f for f in dataclasses.fields(self) if getattr(self, f.name) != getattr(default, f.name)]
        return ", ".join(f"{f.name}={getattr(self, f.name)!r}" for f in changed)

    @staticmethod
    def add_arguments(parser):
        """The options of `remat partition` that are settings, on an argparse parser."""
        parser.add_argument("--strategy", choices=_STRATEGIES, default="min-cut")
        parser.add_argument("--budget", help="a fraction in [0, 1] or bytes such as 24MB (default: PyTorch's)")
        parser.add_argument("--time-limit", type=float, default=60.0, help="optimal: seconds the solver may take")
        parser.add_argument("--gap", type=float, default=0.0, help="optimal: stop within this many percent")
        parser.add_argument("--within-regions", action="store_true", help="optimal: inside checkpoint regions only")
        parser.add_argument("--fallback", action="store_true", help="let PyTorch partition what remat cannot")
        parser.add_argument("--verify", action="store_true", help="check the partition and the modules")
        return parser

    @classmethod
    def from_args(cls, args):
        """Settings from parsed arguments (add_arguments' names; --gap in percent, as the CLI)."""
        if isinstance(args, (list, tuple)):
            args = cls.add_arguments(argparse.ArgumentParser()).parse_args(args)
        budget = args.budget
        if isinstance(budget, str):
            try:
                budget = float(budget)
            except ValueError:
                pass  # bytes: "24MB"
        return cls(
            strategy=args.strategy,
            budget=budget,
            time_limit=args.time_limit,
            gap=args.gap / 100,
            within_regions=args.within_regions,
            fallback=args.fallback,
            verify=args.verify,
        )
