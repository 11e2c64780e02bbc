"""remat's partitioners as AOTAutograd's partition_fn.

    from functorch.compile import aot_module
    import remat
    compiled = aot_module(model, fw_compiler, bw_compiler, partition_fn=remat.partition_fn)

remat decides what the forward saves (its min-cut or default partition, in C++, after its own
dead-code and common-subexpression passes, which are then applied to the caller's joint); the
forward and backward modules are the joint's own nodes, each copied once into its place by
remat's module builder (remat/modules.py), node for node what PyTorch's own steps build for that
saved set (PyTorch's steps themselves where the builder does not cover a graph). Each call records its explanation
(remat.last_report()), and, when TORCH_TRACE is set, writes it to the trace log so that
`remat report DIR` shows why each value was saved or recomputed.
"""

import atexit
import contextlib
import dataclasses
import gc
import inspect
import os
import time
import warnings

from remat.export import ExportError, export

__all__ = [
    "partition_fn",
    "partition_fn_for",
    "last_report",
    "PartitionReport",
    "PartitionError",
    "RematFallbackWarning",
]


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
    (schema remat-partition-report/1); settings (remat.Settings), strategy, budget (the budget
    used: PyTorch's where the settings give none); fallback: True when PyTorch partitioned;
    timings: seconds spent exporting, partitioning (C++) and building the modules; builder: who
    built the modules: "remat" (its module builder, remat/modules.py), or "PyTorch's steps: WHY"
    where the builder does not cover the graph (the text report says so too).
    """

    def __init__(self, result, settings, budget, fallback=False):
        if isinstance(settings, str):  # a strategy's name, as before remat.Settings
            from remat.settings import Settings

            settings = Settings(strategy=settings)
        self.settings, self.budget, self.fallback = settings, budget, fallback
        self.strategy = settings.strategy
        self.saved = list(result.get("saved", []))
        self.saved_symints = list(result.get("saved_symints", []))
        self.stage = result.get("stage")
        for key in ("saved_bytes", "activation_bytes", "recompute_flops", "peak_memory_bytes"):
            setattr(self, key, result.get(key))
        self.text = result.get("report_text", "")
        self.json = result.get("report_json")
        self.timings = {}
        self.builder = "PyTorch's partitioner" if fallback else "remat"
        self.joint_json, self.switches = None, {}  # what remat.checkpoint_policy(report) needs

    def __str__(self):
        return self.text

    def __repr__(self):
        return (
            f"PartitionReport(strategy={self.strategy!r}, stage={self.stage!r}, "
            f"saved={len(self.saved)}, saved_bytes={self.saved_bytes})"
        )


_last = None


def last_report():
    """The PartitionReport of the latest partition_fn call in this process, or None."""
    return _last


def _torch_partitioners():
    """PyTorch's partitioner module: torch._functorch (2.x) or functorch._src (1.13)."""
    try:
        from torch._functorch import partitioners
    except ImportError:
        from functorch._src import partitioners
    return partitioners


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


def _apply_merges(joint_module, merged):
    """remat's common-subexpression merges, applied to the caller's joint (cheap: one edit each)."""
    if not merged:
        return
    by_name = {n.name: n for n in joint_module.graph.nodes}
    for removed, kept in merged:
        by_name[removed].replace_all_uses_with(by_name[kept])
    for removed, _ in reversed(merged):
        joint_module.graph.erase_node(by_name[removed])


def _cut_module(joint_module, by_name, result, which):
    """One of remat's graphs cut out of the joint, as PyTorch 1.13's extraction cuts it: the same
    node objects copied in joint order (meta shared with the joint's), inputs as placeholders."""
    import torch.fx as fx

    graph = fx.Graph()
    env = {}
    for name in result[which + "_inputs"]:
        node = by_name[name]
        env[node] = graph.placeholder(name)
        env[node].meta = node.meta
    body = set(result[which + "_nodes"])
    lookup = env.__getitem__
    for node in joint_module.graph.nodes:
        if node.name in body:
            env[node] = graph.node_copy(node, lookup)
    graph.output([env[by_name[name]] if name is not None else None for name in result[which + "_outputs"]])
    return fx.GraphModule(joint_module, graph)


def _modules(partitioners, joint_module, result, num_fwd_outputs, torch_kwargs, rng_recompute, verify):
    """(fw, bw, builder): cut by remat's node lists where PyTorch's calling convention is 1.13's
    (inputs: primals -> outputs + saved; saved + tangents -> gradients); on 2.13, built by remat's
    module builder (remat/modules.py: each node copied once, node for node what PyTorch's steps
    build); elsewhere, or where the builder does not cover the graph, by PyTorch's own steps after
    its choice. builder says which ("remat", or "PyTorch's steps: why")."""
    by_name = {n.name: n for n in joint_module.graph.nodes}
    extract = partitioners._extract_fwd_bwd_modules
    if not _accepts(extract, "num_fwd_outputs"):
        missing = [
            name
            for key in ("forward_inputs", "forward_nodes", "backward_inputs", "backward_nodes")
            for name in result[key]
            if name not in by_name
        ]
        if missing:
            raise PartitionError(f"remat's graphs have nodes the joint module does not: {', '.join(missing[:10])}")
        fw = _cut_module(joint_module, by_name, result, "forward")
        return fw, _cut_module(joint_module, by_name, result, "backward"), "remat"
    missing = [name for key in ("saved", "saved_symints") for name in result[key] if name not in by_name]
    if missing:
        raise PartitionError(f"remat saves values the joint module does not have: {', '.join(missing[:10])}")
    # In joint order, as PyTorch's min-cut hands them to the extraction.
    order = {n: i for i, n in enumerate(joint_module.graph.nodes)}
    saved = sorted((by_name[name] for name in result["saved"]), key=order.__getitem__)
    saved_symints = sorted((by_name[name] for name in result["saved_symints"]), key=order.__getitem__)
    if result["rng_replayed"]:
        # Random ops remat recomputes without a checkpoint tag (a memory budget, aggressive
        # recomputation): PyTorch's RNG functionalization replays only tagged ones and would
        # draw new numbers in the backward. Tagged, they replay the forward's RNG state.
        from torch.utils.checkpoint import CheckpointPolicy

        for name in result["rng_replayed"]:
            by_name[name].meta["recompute"] = CheckpointPolicy.PREFER_RECOMPUTE
        rng_recompute = True
    rng_recompute = rng_recompute and hasattr(partitioners, "functionalize_rng_ops")
    import torch

    from remat import modules

    why = None if modules.supported_torch() else f"the builder follows PyTorch 2.13, this is {torch.__version__}"
    if why is None:
        try:
            fw, bw = modules.build_modules(joint_module, saved, saved_symints, num_fwd_outputs, rng_recompute)
        except modules.Unsupported as e:
            why = str(e)
        else:
            if verify:
                theirs = _pytorch_steps(
                    partitioners, joint_module, saved, saved_symints, num_fwd_outputs, torch_kwargs, rng_recompute
                )
                for ours, expected, which in ((fw, theirs[0], "forward"), (bw, theirs[1], "backward")):
                    difference = modules.check_same(ours, expected, which)
                    if difference:
                        raise PartitionError(f"remat's module builder and PyTorch's steps disagree: {difference}")
            return fw, bw, "remat"
    fw, bw = _pytorch_steps(
        partitioners, joint_module, saved, saved_symints, num_fwd_outputs, torch_kwargs, rng_recompute
    )
    return fw, bw, f"PyTorch's steps: {why}"


def _pytorch_steps(partitioners, joint_module, saved, saved_symints, num_fwd_outputs, torch_kwargs, rng_recompute):
    """(fw, bw) as PyTorch 2.x builds them after its min-cut chose `saved`: extraction, RNG
    functionalization, the autograd engine's order, offloading, getitems raised."""
    extract = partitioners._extract_fwd_bwd_modules
    saved, saved_symints = list(saved), list(saved_symints)  # the extraction edits its lists
    kwargs = {}
    static_nodes = None
    if _accepts(extract, "static_lifetime_input_nodes"):
        static_nodes = _static_lifetime_inputs(joint_module, torch_kwargs.get("static_lifetime_input_indices"))
        kwargs["static_lifetime_input_nodes"] = static_nodes
    fw, bw = extract(joint_module, saved, saved_sym_nodes=saved_symints, num_fwd_outputs=num_fwd_outputs, **kwargs)
    if rng_recompute:
        fw, bw = partitioners.functionalize_rng_ops(joint_module, fw, bw, len(saved_symints))
    if hasattr(partitioners, "reordering_to_mimic_autograd_engine"):
        bw = partitioners.reordering_to_mimic_autograd_engine(bw)
    config = _functorch_config()
    if getattr(config, "enable_activation_offloading", False):
        from torch._functorch._activation_offloading.activation_offloading import enable_activation_offloading

        enable_activation_offloading(fw, bw, num_fwd_outputs, static_nodes)
    raise_getitems = getattr(partitioners, "raise_getitems", None)
    if raise_getitems is not None:
        fw, bw = raise_getitems(fw), raise_getitems(bw)
    thread_rng = getattr(partitioners, "thread_graphsafe_rng_from_hops", None)
    if thread_rng is not None:
        fw, bw = thread_rng(fw, is_backward=False), thread_rng(bw, is_backward=True)
    return fw, bw


def _static_lifetime_inputs(joint_module, indices):
    """The primals PyTorch calls static-lifetime (parameters, buffers): by index among the primals."""
    from torch.utils._ordered_set import OrderedSet

    wanted = set(indices or ())
    primals = [
        n
        for n in joint_module.graph.nodes
        if n.op == "placeholder" and "tangents" not in str(n.target) and not _is_rng_input(n)
    ]
    return OrderedSet(p for i, p in enumerate(primals) if i in wanted)


def _is_rng_input(node):
    return any(word in str(node.target) for word in ("fwd_seed", "fwd_base_offset", "bwd_seed", "bwd_base_offset"))


def _functorch_config():
    """torch._functorch.config (PyTorch 2.x), or None (1.13 has no partitioner settings)."""
    try:
        from torch._functorch import config
    except ImportError:
        return None
    return config


# torch._functorch.config's switches that change what the min-cut chooses, which remat honours.
_SWITCHES = (
    "cse",
    "ban_recompute_used_far_apart",
    "ban_recompute_long_fusible_chains",
    "ban_recompute_materialized_backward",
    "ban_recompute_not_in_allowlist",
    "ban_recompute_reductions",
    "recompute_views",
    "treat_parameters_as_free_to_save",
)
_SOLVERS = ("dp", "greedy", "ilp", "dynamic_memory_budget_dp")


def _torch_settings(joint_module, num_fwd_outputs):
    """(budget, switches) as PyTorch's min-cut reads them: torch._functorch.config, then a
    memory_budget in a node's meta (MemoryBudgetMode), then a region annotation
    (torch.autograd.graph.region_activation_memory_budget). (None, {}) on PyTorch 1.13."""
    config = _functorch_config()
    if config is None:
        return None, {}
    switches = {name: bool(getattr(config, name)) for name in _SWITCHES if hasattr(config, name)}
    if getattr(config, "aggressive_recomputation", False):
        for name in (
            "ban_recompute_used_far_apart",
            "ban_recompute_long_fusible_chains",
            "ban_recompute_materialized_backward",
            "ban_recompute_not_in_allowlist",
        ):
            switches[name] = False
    solver = getattr(config, "activation_memory_budget_solver", "dp")
    if not isinstance(solver, str) or solver not in _SOLVERS:
        raise PartitionError(
            f"torch._functorch.config.activation_memory_budget_solver={solver!r}: remat solves the "
            f"knapsack with {', '.join(_SOLVERS)} only"
        )
    switches["knapsack"] = solver
    estimator = getattr(config, "activation_memory_budget_runtime_estimator", "flops")
    if estimator != "flops":
        raise PartitionError(
            f"torch._functorch.config.activation_memory_budget_runtime_estimator={estimator!r}: remat "
            "estimates recompute time by FLOPs only"
        )
    budget = float(getattr(config, "activation_memory_budget", 1.0))
    for node in joint_module.graph.nodes:
        if isinstance(node.meta.get("memory_budget"), float):
            budget = node.meta["memory_budget"]
            break
    try:
        from torch.fx.traceback import _get_memory_budget_annotation
    except ImportError:
        return budget, switches
    graphs = [joint_module.graph] + [
        sub.graph
        for _, sub in joint_module.named_modules()
        if isinstance(getattr(sub, "graph", None), type(joint_module.graph)) and sub.graph is not joint_module.graph
    ]
    annotated = {b for g in graphs for b in map(_get_memory_budget_annotation, g.nodes) if b is not None}
    if len(annotated) > 1:
        raise PartitionError(
            f"region_activation_memory_budget: conflicting budgets in one joint graph: {sorted(annotated)}"
        )
    if annotated:
        # As PyTorch: the region must cover every op the forward needs, in HOP bodies too.
        bare = [
            n.name for n in _forward_calls(joint_module, num_fwd_outputs) if _get_memory_budget_annotation(n) is None
        ]
        bare += [
            n.name
            for g in graphs[1:]
            for n in g.nodes
            if n.op == "call_function" and _get_memory_budget_annotation(n) is None
        ]
        if bare:
            raise PartitionError(
                "region_activation_memory_budget must cover the entire forward of a graph (HOP bodies "
                f"included), but {len(bare)} forward op(s) are outside it: {', '.join(bare[:10])}"
                f"{', ...' if len(bare) > 10 else ''}. Wrap the whole forward in one region, or use a "
                "graph break to give different graphs different budgets."
            )
        budget = next(iter(annotated))
    return budget, switches


def _forward_calls(joint_module, num_fwd_outputs):
    """The call_functions the forward outputs are computed from, tangents aside (PyTorch's
    required forward nodes)."""
    import torch.utils._pytree as pytree

    from_tangents = set()
    for node in joint_module.graph.nodes:
        if (node.op == "placeholder" and "tangents" in str(node.target)) or any(
            x in from_tangents for x in node.all_input_nodes
        ):
            from_tangents.add(node)
    output = next(n for n in reversed(joint_module.graph.nodes) if n.op == "output")
    outputs = pytree.tree_leaves(output.args[0], is_leaf=lambda x: x is None)
    stack = [x for x in outputs[:num_fwd_outputs] if hasattr(x, "op")]
    seen = set()
    while stack:
        node = stack.pop()
        if node in seen or node in from_tangents:
            continue
        seen.add(node)
        stack.extend(node.all_input_nodes)
    return [n for n in joint_module.graph.nodes if n in seen and n.op == "call_function"]


def _milp_knapsack(memory, runtime, capacity):
    """PyTorch's "ilp" budget solver's problem, solved as it solves it (SciPy's MILP, HiGHS):
    choose the items to keep saved, maximising their runtime within the memory capacity. An item
    counts as saved only where the solver returns exactly 1, as PyTorch reads the solution."""
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp

    weights = np.array(memory)
    values = np.array(runtime)
    solution = milp(
        c=-values,
        constraints=[LinearConstraint(A=weights, ub=np.array(capacity))],
        integrality=np.ones_like(values),
        bounds=Bounds(0, 1),
    )
    if not solution.success:
        raise PartitionError(f"the memory budget's knapsack (SciPy's milp): {solution.message}")
    return [i for i, x in enumerate(solution.x) if x == 1]


def _has_recomputed_random_ops(joint_module):
    """PyTorch's test for replaying RNG state: a random op that a checkpoint policy recomputes."""
    import torch

    seeded = getattr(torch.Tag, "nondeterministic_seeded", None)
    for node in joint_module.graph.nodes:
        policy = node.meta.get("recompute")
        if (
            getattr(policy, "name", policy) in ("MUST_RECOMPUTE", "PREFER_RECOMPUTE")
            and seeded is not None
            and seeded in getattr(node.target, "tags", ())
        ):
            return True
    return False


@contextlib.contextmanager
def _gc_paused():
    """The joint's thousands of nodes make every garbage collection walk them: pausing it while
    partitioning takes export from ~340 to ~120 ms on a 5,700-node joint (bench/python_partition.py)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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
            trace_structured(
                "artifact",
                metadata_fn=lambda: {"name": "remat_partition", "encoding": "json"},
                payload_fn=lambda: report_json,
            )
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


def partition_fn(joint_module, joint_inputs=None, *, num_fwd_outputs=None, settings=None, on_report=None, **kwargs):
    """AOTAutograd's partition_fn: (joint_module, joint_inputs, *, num_fwd_outputs) -> (fw, bw).

    settings: a remat.Settings (strategy, budget, the optimum's time limit and gap, within_regions,
    fallback, verify, charts; see remat/settings.py); keyword arguments named like its fields
    change it (partition_fn(joint, inputs, strategy="optimal")). on_report: called with the
    PartitionReport. PyTorch's own partitioner settings (ban_recompute_*, the knapsack solver, a
    budget in torch._functorch.config or a region's annotation) are always read. Other keywords
    that newer PyTorch passes (static_lifetime_input_indices...) are accepted, and handed on to
    PyTorch's partitioner on a fallback.
    """
    global _last
    from remat import _core

    settings, torch_kwargs = _split_settings(settings, kwargs)
    partitioners = _torch_partitioners()
    k = _num_fwd_outputs(joint_module, num_fwd_outputs)
    timings = {}
    clock = time.perf_counter
    budget = settings.budget
    with _gc_paused():
        try:
            start = clock()
            extra = {"num_fwd_outputs": k}
            if torch_kwargs.get("static_lifetime_input_indices") is not None:
                extra["static_lifetime_input_indices"] = list(torch_kwargs["static_lifetime_input_indices"])
            joint_json = export(joint_module, extra=extra, device=_device_of(joint_inputs), indent=None, tables=True)
            timings["export"] = clock() - start
            torch_budget, switches = _torch_settings(joint_module, k)
            if budget is None:
                budget = 1.0 if torch_budget is None else torch_budget
            rng_recompute = _has_recomputed_random_ops(joint_module)
            start = clock()
            charts = settings.charts if settings.charts is not None else bool(os.environ.get("TORCH_TRACE"))
            knapsack = _milp_knapsack if switches.get("knapsack") == "ilp" else None
            result = _core.partition(
                joint_json,
                strategy=settings.strategy,
                budget=budget,
                verify=settings.verify,
                charts=charts,
                switches=switches,
                knapsack=knapsack,
                within_regions=settings.within_regions,
                time_limit=settings.time_limit,
                gap=settings.gap,
            )
            timings["partition"] = clock() - start
            if result["violations"]:
                raise PartitionError("remat's partition breaks its invariants:\n" + "\n".join(result["violations"]))
            if result["rng_replayed"] and not _accepts(partitioners._extract_fwd_bwd_modules, "num_fwd_outputs"):
                raise PartitionError(
                    "remat recomputes random ops with saved RNG state, which this PyTorch's runtime "
                    "cannot replay: " + ", ".join(result["rng_replayed"])
                )
            start = clock()
            _apply_merges(joint_module, result["merged"])
            fw_module, bw_module, builder = _modules(
                partitioners, joint_module, result, k, torch_kwargs, rng_recompute, settings.verify
            )
            timings["modules"] = clock() - start
        except (ExportError, _core.Error, PartitionError) as e:
            error = e if isinstance(e, PartitionError) else PartitionError(str(e))
            if not settings.fallback:
                raise error from e
            warnings.warn(
                f"remat could not partition this graph, PyTorch's partitioner will: {error}",
                RematFallbackWarning,
                stacklevel=2,
            )
            _last = PartitionReport(
                {"report_text": f"fallback to PyTorch's partitioner: {error}\n"}, settings, budget, fallback=True
            )
            if on_report is not None:
                on_report(_last)
            return _pytorch_partition(partitioners, settings.strategy, joint_module, joint_inputs, k, torch_kwargs)
    _last = PartitionReport(result, settings, budget)
    _last.timings = timings
    _last.builder = builder
    if builder != "remat":
        _last.text += f"modules: built by {builder}\n"
    _last.joint_json, _last.switches = joint_json, switches
    _trace.write(joint_json, fw_module, bw_module, result["report_json"])
    if on_report is not None:
        on_report(_last)
    return fw_module, bw_module


def _pytorch_partition(partitioners, strategy, joint_module, joint_inputs, k, torch_kwargs):
    # PyTorch has no optimum: its min-cut stands in for remat's.
    fn = partitioners.default_partition if strategy == "default" else partitioners.min_cut_rematerialization_partition
    kwargs = {name: value for name, value in torch_kwargs.items() if _accepts(fn, name)}
    if _accepts(fn, "num_fwd_outputs"):
        kwargs["num_fwd_outputs"] = k
    return fn(joint_module, joint_inputs, **kwargs)


def _split_settings(settings, kwargs):
    """(Settings, the other keyword arguments): fields of remat.Settings among `kwargs` change
    `settings` (default: Settings())."""
    from remat.settings import Settings

    names = {f.name for f in dataclasses.fields(Settings)}
    changes = {key: kwargs.pop(key) for key in list(kwargs) if key in names}
    if settings is None:
        return Settings(**changes), kwargs
    if not isinstance(settings, Settings):
        raise TypeError(f"settings must be a remat.Settings, not {type(settings).__name__}")
    return (settings.replace(**changes) if changes else settings), kwargs


def settings_of(strategy="min-cut", budget=None, **fields):
    """A Settings from partition_fn_for's arguments: a Settings as the first, or its fields."""
    from remat.settings import Settings

    if isinstance(strategy, Settings):
        if budget is not None:
            fields["budget"] = budget
        return strategy.replace(**fields) if fields else strategy
    return Settings(strategy=strategy, budget=budget, **fields)


def partition_fn_for(strategy="min-cut", budget=None, *, on_report=None, **fields):
    """A partition_fn with these settings, for aot_module / aot_autograd(partition_fn=...):
    partition_fn_for(remat.Settings(...)), or the fields themselves
    (partition_fn_for("optimal", 0.5, time_limit=30)); budget None: PyTorch's own."""
    settings = settings_of(strategy, budget, **fields)

    def configured(joint_module, joint_inputs=None, *, num_fwd_outputs=None, **kwargs):
        return partition_fn(
            joint_module,
            joint_inputs,
            num_fwd_outputs=num_fwd_outputs,
            settings=settings,
            on_report=on_report,
            **kwargs,
        )

    configured.__name__ = f"remat_{settings.strategy.replace('-', '_')}_partition"
    configured.settings = settings
    return configured
