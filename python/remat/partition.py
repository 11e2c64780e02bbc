"""remat's partitioners as AOTAutograd's partition_fn.

    from functorch.compile import aot_module
    import remat
    compiled = aot_module(model, fw_compiler, bw_compiler, partition_fn=remat.partition_fn)

remat decides what the forward saves (its min-cut or default partition, in C++); the forward and
backward modules are then cut out of the joint by PyTorch's own extraction, so they are the
modules PyTorch would build for that saved set. Each call records its explanation
(remat.last_report()), and, when TORCH_TRACE is set, writes it to the trace log so that
`remat report DIR` shows why each value was saved or recomputed.
"""
import atexit
import inspect
import os
import warnings

from remat.export import ExportError, export

__all__ = ["partition_fn", "partition_fn_for", "last_report", "PartitionReport", "PartitionError",
           "RematFallbackWarning"]


class PartitionError(ValueError):
    """remat cannot partition this joint graph (an op it does not know, an unbounded cut...);
    the message names the node."""


class RematFallbackWarning(UserWarning):
    """partition_fn(fallback=True) handed the joint to PyTorch's partitioner."""


class PartitionReport:
    """What one partition saved and recomputed, and why.

    saved: names of the saved values (forward-output order); saved_symints; stage: which step of
    the budget ladder chose the set; saved_bytes, activation_bytes, recompute_flops,
    peak_memory_bytes; text: the readable report (also str(report)); json: its JSON text
    (schema remat-partition-report/1); strategy, budget; fallback: True when PyTorch partitioned.
    """

    def __init__(self, result, strategy, budget, fallback=False):
        self.strategy, self.budget, self.fallback = strategy, budget, fallback
        self.saved = list(result.get("saved", []))
        self.saved_symints = list(result.get("saved_symints", []))
        self.stage = result.get("stage")
        for key in ("saved_bytes", "activation_bytes", "recompute_flops", "peak_memory_bytes"):
            setattr(self, key, result.get(key))
        self.text = result.get("report_text", "")
        self.json = result.get("report_json")

    def __str__(self):
        return self.text

    def __repr__(self):
        return (f"PartitionReport(strategy={self.strategy!r}, stage={self.stage!r}, "
                f"saved={len(self.saved)}, saved_bytes={self.saved_bytes})")


_last = None


def last_report():
    """The PartitionReport of the latest partition_fn call in this process, or None."""
    return _last


def _torch_modules():
    """PyTorch's partitioner module and CSE pass: torch._functorch (2.x) or functorch._src (1.13)."""
    try:
        from torch._functorch import partitioners
        from torch._functorch.compile_utils import fx_graph_cse
    except ImportError:
        from functorch._src import partitioners
        from functorch._src.compile_utils import fx_graph_cse
    return partitioners, fx_graph_cse


def _accepts(fn, name):
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _num_fwd_outputs(joint_module, given):
    if given is not None:
        return int(given)
    spec = getattr(joint_module, "_out_spec", None)
    if spec is not None and getattr(spec, "children_specs", None):
        return spec.children_specs[0].num_leaves  # PyTorch 1.13 passes no count: its (fw, bw) spec
    raise PartitionError("partition_fn: num_fwd_outputs not given and the joint has no (fw, bw) output spec")


def _device_of(joint_inputs):
    for x in _flatten(joint_inputs):
        if hasattr(x, "device") and hasattr(x, "dtype"):
            return str(x.device)
    return None


def _flatten(v):
    if isinstance(v, (list, tuple)):
        for x in v:
            yield from _flatten(x)
    elif v is not None:
        yield v


def _extract(partitioners, joint_module, saved, saved_symints, num_fwd_outputs):
    extract = partitioners._extract_fwd_bwd_modules
    if _accepts(extract, "num_fwd_outputs"):
        return extract(joint_module, saved, saved_sym_nodes=saved_symints, num_fwd_outputs=num_fwd_outputs)
    return extract(joint_module, saved + saved_symints)


class _TraceLog:
    """Where partition records go when TORCH_TRACE is set: PyTorch's own structured log (2.2+),
    else a log of remat's in the TORCH_TRACE folder (PyTorch 1.13 writes none)."""

    def __init__(self):
        self._log = None
        self._frames = 0

    def write(self, joint_json, fw, bw, report_json):
        folder = os.environ.get("TORCH_TRACE")
        if not folder:
            return
        try:
            from torch._logging import trace_structured
        except ImportError:
            trace_structured = None
        if trace_structured is not None:
            trace_structured("artifact", metadata_fn=lambda: {"name": "remat_partition", "encoding": "json"},
                             payload_fn=lambda: report_json)
            return
        from remat import _core

        if self._log is None:
            self._log = _core.TraceLog(folder)
            atexit.register(self._log.close)
        self._log.write_partition(self._frames, joint_json, export(fw), export(bw), report_json)
        self._frames += 1

    def path(self):
        return self._log.path if self._log is not None else None


_trace = _TraceLog()


def trace_log_path():
    """The TORCH_TRACE log remat writes in this process (PyTorch before 2.2), or None."""
    return _trace.path()


def partition_fn(joint_module, joint_inputs=None, *, num_fwd_outputs=None, strategy="min-cut", budget=1.0,
                 fallback=False, verify=False, on_report=None, **_ignored):
    """AOTAutograd's partition_fn: (joint_module, joint_inputs, *, num_fwd_outputs) -> (fw, bw).

    strategy: "min-cut" (default) or "default"; budget: activation memory budget in [0, 1] (min-cut).
    fallback: on a graph remat cannot partition, warn and use PyTorch's partitioner instead of
    raising PartitionError. verify: check remat's partition invariants (PartitionError on a
    violation). on_report: called with the PartitionReport. Other keywords that newer PyTorch
    passes (static_lifetime_input_indices...) are accepted and unused.
    """
    global _last
    from remat import _core

    partitioners, fx_graph_cse = _torch_modules()
    k = _num_fwd_outputs(joint_module, num_fwd_outputs)
    try:
        if strategy == "min-cut":
            # What PyTorch's min-cut does first, so that remat names the nodes extraction sees.
            joint_module.graph.eliminate_dead_code()
            joint_module.graph = fx_graph_cse(joint_module.graph)
            joint_module.recompile()
        joint_json = export(joint_module, extra={"num_fwd_outputs": k}, device=_device_of(joint_inputs), indent=None)
        result = _core.partition(joint_json, strategy=strategy, budget=budget, verify=verify)
        if result["violations"]:
            raise PartitionError("remat's partition breaks its invariants:\n" + "\n".join(result["violations"]))
        by_name = {n.name: n for n in joint_module.graph.nodes}
        missing = [name for name in result["saved"] + result["saved_symints"] if name not in by_name]
        if missing:
            raise PartitionError(f"remat saved values the joint module does not have: {', '.join(missing)}")
        saved = [by_name[name] for name in result["saved"]]
        saved_symints = [by_name[name] for name in result["saved_symints"]]
    except (ExportError, _core.Error, PartitionError) as e:
        error = e if isinstance(e, PartitionError) else PartitionError(str(e))
        if not fallback:
            raise error from e
        warnings.warn(f"remat could not partition this graph, PyTorch's partitioner will: {error}",
                      RematFallbackWarning, stacklevel=2)
        _last = PartitionReport({"report_text": f"fallback to PyTorch's partitioner: {error}\n"}, strategy, budget,
                                fallback=True)
        if on_report is not None:
            on_report(_last)
        return _pytorch_partition(partitioners, strategy, joint_module, joint_inputs, k)
    fw_module, bw_module = _extract(partitioners, joint_module, saved, saved_symints, k)
    _last = PartitionReport(result, strategy, budget)
    _trace.write(joint_json, fw_module, bw_module, result["report_json"])
    if on_report is not None:
        on_report(_last)
    return fw_module, bw_module


def _pytorch_partition(partitioners, strategy, joint_module, joint_inputs, k):
    fn = partitioners.min_cut_rematerialization_partition if strategy == "min-cut" else partitioners.default_partition
    if _accepts(fn, "num_fwd_outputs"):
        return fn(joint_module, joint_inputs, num_fwd_outputs=k)
    return fn(joint_module, joint_inputs)


def partition_fn_for(strategy="min-cut", budget=1.0, *, fallback=False, verify=False, on_report=None):
    """A partition_fn with these settings, for aot_module / aot_autograd(partition_fn=...)."""
    if strategy not in ("min-cut", "default"):
        raise ValueError(f"strategy must be 'min-cut' or 'default', not {strategy!r}")
    if not 0.0 <= budget <= 1.0:
        raise ValueError(f"budget must be in [0, 1], not {budget}")

    def configured(joint_module, joint_inputs=None, *, num_fwd_outputs=None, **kwargs):
        return partition_fn(joint_module, joint_inputs, num_fwd_outputs=num_fwd_outputs, strategy=strategy,
                            budget=budget, fallback=fallback, verify=verify, on_report=on_report, **kwargs)

    configured.__name__ = f"remat_{strategy.replace('-', '_')}_partition"
    return configured
