"""remat's choice, saved by PyTorch itself: the selective-checkpointing policy under which
PyTorch's own partitioner saves what a remat partition saved (`remat policy` on the command line).

    optimum = remat.partition_fn_for("optimal", "64MB", within_regions=True)  # what a policy can reproduce
    compiled = torch.compile(model, backend=aot_autograd(..., partition_fn=optimum))
    ...                                       # one step: remat partitions the joint
    policy = remat.checkpoint_policy()        # of remat.last_report()
    policy.write("policy.py")                 # a module with context_fn, for training without remat
    checkpoint(block, x, use_reentrant=False, context_fn=policy.load().context_fn)

The policy keys each checkpoint region's op calls as selective checkpointing counts them; remat
partitions the joint graph tagged as the policy will tag it, with PyTorch's min-cut, to say what
PyTorch will save: `mismatches` names every value it decides otherwise than the choice, and why
(a value outside every checkpoint region, for one, is PyTorch's to decide).
"""

import json
import types

__all__ = ["checkpoint_policy", "CheckpointPolicyModule"]


class CheckpointPolicyModule:
    """A policy module's text, and what PyTorch's min-cut will save with it.

    text: the Python module; mismatches: [(name, chosen_saved, predicted_saved, why)], empty when
    PyTorch saves exactly the chosen set (exact); predicted: the names PyTorch's min-cut saves;
    regions, calls, saved_calls: the checkpoint regions and op calls it keys, and how many it saves.
    """

    def __init__(self, result):
        self.text = result["text"]
        self.mismatches = [tuple(m) for m in result["mismatches"]]
        self.predicted = list(result["predicted"])
        self.regions, self.calls, self.saved_calls = result["regions"], result["calls"], result["saved_calls"]

    @property
    def exact(self):
        return not self.mismatches

    def write(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.text)

    def load(self, name="remat_policy"):
        """The module itself, without a file: load().context_fn for torch.utils.checkpoint."""
        module = types.ModuleType(name)
        exec(compile(self.text, f"<{name}>", "exec"), module.__dict__)
        return module

    def __repr__(self):
        return (
            f"CheckpointPolicyModule(regions={self.regions}, calls={self.calls}, saved_calls={self.saved_calls}, "
            f"exact={self.exact})"
        )


def checkpoint_policy(report=None):
    """The policy that reproduces `report`'s saved set (a PartitionReport of remat.partition_fn;
    default remat.last_report())."""
    from remat import _core
    from remat.partition import last_report

    report = report if report is not None else last_report()
    if report is None or getattr(report, "joint_json", None) is None:
        raise ValueError("checkpoint_policy: no remat partition to reproduce (partition with remat.partition_fn first)")
    source = f"remat's {report.settings.strategy}" + ("" if report.budget is None else f" at budget {report.budget}")
    recomputed = [r["name"] for r in json.loads(report.json).get("recomputed", [])]
    return CheckpointPolicyModule(
        _core.checkpoint_policy(report.joint_json, report.saved, recomputed, source, report.switches)
    )
