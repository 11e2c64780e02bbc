"""The forward and backward GraphModules for a saved set, each node copied once (PyTorch 2.13).

After its min-cut chooses, PyTorch builds the two modules in steps that each copy nodes again
(torch._functorch.partitioners): `_extract_fwd_bwd_modules` extracts the backward once to learn
which saved values it reads, then the forward and the backward again, each a copy of every joint
node it can compute followed by dead-code elimination; `reordering_to_mimic_autograd_engine`
copies the backward once more and generates its Python code; `raise_getitems` moves getitems and
generates it again. On a 4,600-node joint that is three times what copying the joint once costs
(bench/python_partition.py).

Here the same decisions are taken on the joint's own nodes, without building anything: which
nodes each graph can compute (tags and mutable ops pin some to one side), which of them are live
(dead-code elimination keeps impure ones), which saved values the backward reads, the symbols it
must bind, the saved values without version-counter checks last, the order the autograd engine
would run the backward in, every getitem right after its producer. Then each node is copied once,
into its final place. The modules are node for node what PyTorch's steps build for the same saved
set: `check_same` compares them, partition_fn(verify=True) runs it on every call, and the tests run
it on every test model and on the transformers corpus.

What these steps do not cover raises Unsupported (its reason is reported) and the caller uses
PyTorch's own steps: random ops recomputed with replayed RNG state, activation offloading or
quantization, a forward output that only the backward computes, a joint with call_module nodes,
and any PyTorch other than 2.13, whose steps these follow.
"""

import copy
import operator

import torch
from torch import fx

try:
    from torch._functorch import partitioners as _steps
except ImportError:  # PyTorch 1.13 (functorch._src): the builder follows 2.13's steps only
    _steps = None

__all__ = ["Unsupported", "build_modules", "check_same", "supported_torch"]


class Unsupported(Exception):
    """A configuration the builder leaves to PyTorch's steps; str() says which."""


def supported_torch():
    """True on the PyTorch whose steps the builder reproduces."""
    return _steps is not None and torch.__version__.split("+")[0].startswith("2.13.")


class _Output:
    """Stands for a graph's output node in the backward's order (it is placed last)."""


class _Joint:
    """What the steps ask of the joint's nodes, each answer computed once per target."""

    def __init__(self, joint_module):
        self.nodes = list(joint_module.graph.nodes)
        for n in self.nodes:
            if n.op in ("call_module", "call_method"):
                raise Unsupported(f"{n.op} node {n.name}")
        self._mutable = {}
        self._impure = {}
        self.pins = {n: pin for n in self.nodes if (pin := self._pinned(n)) is not None}
        # Dead-code elimination inside torch.compile keeps random ops only under fallback_random.
        self.impure_random = True
        if torch._guards.TracingContext.try_get():
            self.impure_random = torch._inductor.config.fallback_random

    def _is_mutable(self, target):
        answer = self._mutable.get(target)
        if answer is None:
            answer = self._mutable[target] = isinstance(target, torch._ops.OpOverload) and target._schema.is_mutable
        return answer

    def _pinned(self, node):
        """'forward', 'backward' or None: the side a tag or a mutation pins the node to."""
        tag = node.meta.get("partitioner_tag")
        if tag == "must_be_in_forward":
            return "forward"
        if tag == "must_be_in_backward":
            return "backward"
        if not self._is_mutable(node.target):
            return None
        return "backward" if tag == "is_backward" else "forward"

    def is_impure(self, node):
        target = node.target
        if not isinstance(target, torch._ops.OpOverload):
            return node.is_impure(self.impure_random)  # higher-order ops may look at their arguments
        answer = self._impure.get(target)
        if answer is None:
            answer = self._impure[target] = node.is_impure(self.impure_random)
        return answer


class _Extraction:
    """What `_extract_graph_with_inputs_outputs` would copy: the nodes computable from `inputs`
    (none pinned to the other side), minus those dead code elimination removes, in joint order."""

    def __init__(self, joint, inputs, outputs, side, same_as=None):
        """same_as: an extraction from the same set of inputs (in another order), whose
        decisions hold here too."""
        if len(set(inputs)) != len(inputs):
            raise Unsupported(f"a value is twice among the {side}'s inputs")
        self.inputs, self.outputs = inputs, outputs
        input_set = set(inputs)
        if same_as is not None and same_as.outputs == outputs and set(same_as.inputs) == input_set:
            self.computed, self.live, self.body = same_as.computed, same_as.live, same_as.body
            self.readers = same_as.readers
            return
        available = set(inputs)
        computed = []
        pins = joint.pins
        other_side = "forward" if side == "backward" else "backward"
        for n in joint.nodes:
            if n in input_set or n.op not in ("call_function", "get_attr"):
                continue
            if pins.get(n) == other_side:
                continue
            if n.op == "get_attr" or all(x in available for x in n._input_nodes):
                available.add(n)
                computed.append(n)
        output_nodes = [x for x in outputs if isinstance(x, fx.Node)]
        for x in output_nodes:
            if x not in available:
                raise Unsupported(f"the {side} output {x.name} is not computable from its inputs")
        live = set()
        stack = output_nodes + [n for n in computed if n.op == "call_function" and joint.is_impure(n)]
        while stack:
            n = stack.pop()
            if n in live:
                continue
            live.add(n)
            if n not in input_set:
                stack.extend(n._input_nodes)
        self.computed, self.live = computed, live
        self.body = [n for n in computed if n in live]
        # Who reads each input once dead code is gone (the output node counts).
        self.readers = {n: [] for n in inputs}
        for n in self.body:
            for x in n._input_nodes:
                if x in input_set:
                    self.readers[x].append(n)
        for x in output_nodes:
            if x in input_set:
                self.readers[x].append(_Output)

    def live_users(self, node):
        body = set(self.body)
        return [u for u in node.users if u in body]


def _drop_unread(saved_values, saved_sym_nodes, saved_opaque_nodes, backward_state_inputs, extraction):
    """Saved values the backward does not read leave the lists (as PyTorch's first extraction
    of the backward finds them)."""
    wait = getattr(getattr(torch.ops, "_c10d_functional", None), "wait_tensor", None)
    wait = getattr(wait, "default", None)
    distributed = torch.distributed.is_available()
    for node in extraction.inputs:
        readers = extraction.readers[node]
        if not readers or (
            distributed
            and all(
                r is not _Output and r.target is wait and not extraction.live_users(r) and r not in extraction.outputs
                for r in readers
            )
        ):
            for values in (saved_values, saved_sym_nodes, saved_opaque_nodes):
                if node in values:
                    values.remove(node)
        elif _steps._is_backward_state(node):
            if node in saved_values:
                saved_values.remove(node)
            if not backward_state_inputs:
                raise Unsupported("a backward state among the saved values without a backward state input")


def _bind_symbols(joint_module, saved_values, saved_sym_nodes, tangent_inputs):
    """The saved symbolic sizes with a node binding every symbol the backward's inputs mention
    first, in PyTorch's order."""
    saved_symbols = set()
    binding, derived = [], []
    for node in saved_sym_nodes:
        symbol = _steps.is_symbol_binding_fx_node(node)
        if symbol:
            saved_symbols.add(symbol)
            binding.append(node)
        else:
            derived.append(node)
    bindings = None
    for node in (*derived, *saved_values, *tangent_inputs):
        if "val" not in node.meta:
            continue
        new_symbols = _steps.free_symbols(node.meta["val"]) - saved_symbols
        if new_symbols and bindings is None:
            bindings = _steps.find_symbol_binding_fx_nodes(joint_module.graph)
        for s in sorted(new_symbols, key=lambda s: s.name):
            if s in bindings:
                binding.append(bindings[s])
        saved_symbols |= new_symbols
    return binding + derived


def _autograd_order(inputs, body, outputs):
    """`body` in the order reordering_to_mimic_autograd_engine leaves it, or None where it leaves
    the graph as it is (no node reads a tangent). From the first node that reads a tangent on,
    each node is preceded by the inputs it needs not yet placed, in their order; nodes before it
    that nothing placed are dropped, but for copy_ (its side effect is the point)."""
    output_inputs = [x for x in outputs if isinstance(x, fx.Node)]
    nodes = [*inputs, *body, _Output]
    order = {n: i for i, n in enumerate(nodes)}
    tangents = set(filter(_steps._is_tangent, inputs))
    first = next((n for n in body if any(x in tangents for x in n._input_nodes)), None)
    if first is None:
        if not any(x in tangents for x in output_inputs):
            return None
        first = _Output
    placed = set(inputs)
    final = []

    def place(node):
        found = set()
        stack = [node]
        while stack:
            n = stack.pop()
            if n in found or n in placed:
                continue
            found.add(n)
            stack.extend(output_inputs if n is _Output else n._input_nodes)
        for n in sorted(found, key=order.__getitem__):
            placed.add(n)
            final.append(n)

    start = order[first]
    copy_ = torch.ops.aten.copy_.default
    for n in nodes[len(inputs) : start]:
        if n.op == "call_function" and n.target is copy_:
            place(n)
    for n in nodes[start:]:
        place(n)
    return final[:-1]  # the output comes last


def _graph(inputs, body, outputs, output_meta, backward, share_input_meta, live=None):
    """An fx.Graph of copies of `body` after placeholders for `inputs`, returning `outputs`.
    output_meta: the output node's meta, or a function of the output values that makes it.
    live: when given, only these nodes of `body` are copied; the others only take their names,
    as the nodes PyTorch's extraction creates and dead-code elimination erases do (an erased
    node's name stays taken, so the names of nodes made later, by RNG functionalization or
    by Inductor's passes, are the same as in PyTorch's graph)."""
    graph = fx.Graph()
    env = {}
    for n in inputs:
        p = graph.placeholder(n.name)
        p.meta = n.meta if share_input_meta else copy.copy(n.meta)
        env[n] = p
    lookup = env.__getitem__
    names = graph._graph_namespace
    for n in body:
        if live is not None and n not in live:
            names.create_name(n.name, None)
            continue
        c = env[n] = graph.node_copy(n, lookup)
        if backward:
            c.meta["autograd_backward"] = True
    values = tuple(env[x] if isinstance(x, fx.Node) else x for x in outputs)
    out = graph.output(values)
    if callable(output_meta):
        output_meta = output_meta(values)
    out.meta = copy.copy(output_meta)
    return graph


def _extraction_output_meta(descs):
    """The meta the extraction gives its output node: the descriptions, and each output's stack
    trace as it was before later passes could strip them."""

    def meta(values):
        traces = [v.meta.get("stack_trace") if isinstance(v, fx.Node) else None for v in values]
        return {"desc": descs, "output_stack_traces": traces}

    return meta


def _raise_getitems(graph):
    """raise_getitems on a graph: every getitem right after its producer, their order kept."""
    for n in reversed(graph.find_nodes(op="call_function", target=operator.getitem)):
        inputs_of = n.all_input_nodes
        if len(inputs_of) != 1:
            raise Unsupported(f"getitem {n.name} reads {len(inputs_of)} nodes")
        inputs_of[0].append(n)
    return graph


def build_modules(joint_module, saved_values, saved_sym_nodes, num_fwd_outputs, rng_recompute=False):
    """(forward, backward) GraphModules for saved values and saved symbolic sizes (joint nodes,
    in joint order) as PyTorch 2.13's steps after its min-cut build them; Unsupported where
    those steps do more than this reproduces. rng_recompute: recomputed random ops replay the
    forward's RNG state (PyTorch's functionalize_rng_ops runs between extraction and the
    backward's reordering, which then copies the backward once more)."""
    if _steps.inductor_config.post_grad_fusion_options.get("activation_quantization_aten_pass") is not None:
        raise Unsupported("activation quantization")
    if getattr(_steps.config, "enable_activation_offloading", False):
        raise Unsupported("activation offloading")
    joint = _Joint(joint_module)
    saved_values, saved_sym_nodes, saved_opaque_nodes = list(saved_values), list(saved_sym_nodes), []
    fwd_outputs, bwd_outputs, fwd_descs, bwd_descs = _steps._extract_fwd_bwd_outputs(
        joint_module, num_fwd_outputs=num_fwd_outputs
    )
    placeholders = joint_module.graph.find_nodes(op="placeholder")
    primal_inputs = [*filter(_steps._is_primal, placeholders)]
    tangent_inputs = [*filter(_steps._is_tangent, placeholders)]
    fwd_seed_offset_inputs = [*filter(_steps._is_fwd_seed_offset, placeholders)]
    bwd_seed_offset_inputs = [*filter(_steps._is_bwd_seed_offset, placeholders)]
    backward_state_inputs = [*filter(_steps._is_backward_state, placeholders)]

    first = _Extraction(
        joint,
        saved_sym_nodes + saved_opaque_nodes + saved_values + tangent_inputs + bwd_seed_offset_inputs,
        bwd_outputs,
        "backward",
    )
    _drop_unread(saved_values, saved_sym_nodes, saved_opaque_nodes, backward_state_inputs, first)
    saved_sym_nodes = _bind_symbols(joint_module, saved_values, saved_sym_nodes, tangent_inputs)

    # Saved tensors without version-counter checks last, opaque objects after the tensors.
    with_check, without_check, opaque = [], [], []
    for node in saved_values:
        if isinstance(node.meta.get("val"), _steps.FakeScriptObject):
            opaque.append(node)
        elif node.meta.get("saved_tensor_with_no_vc_check", False):
            without_check.append(node)
        else:
            with_check.append(node)
    saved_values = with_check + without_check
    no_check_start = len(with_check)
    saved_count = len(saved_values) + len(opaque) + len(saved_opaque_nodes) + len(saved_sym_nodes)
    fwd_saved_descs = [
        _steps.SavedForBackwardsNoVcCheckAOTOutput(i)
        if no_check_start <= i < len(saved_values)
        else _steps.SavedForBackwardsAOTOutput(i)
        for i in range(saved_count)
    ]

    forward = _Extraction(
        joint,
        primal_inputs + fwd_seed_offset_inputs,
        fwd_outputs + saved_values + opaque + saved_opaque_nodes + saved_sym_nodes,
        "forward",
    )
    backward = _Extraction(
        joint,
        saved_sym_nodes
        + saved_values
        + opaque
        + saved_opaque_nodes
        + tangent_inputs
        + bwd_seed_offset_inputs
        + backward_state_inputs,
        bwd_outputs,
        "backward",
        same_as=first,
    )
    make = fx._lazy_graph_module._make_graph_module
    fw_graph = _graph(
        forward.inputs,
        forward.computed,
        forward.outputs,
        _extraction_output_meta(fwd_descs + fwd_saved_descs),
        backward=False,
        share_input_meta=True,
        live=forward.live,
    )
    bw_meta = _extraction_output_meta(bwd_descs)
    if rng_recompute:
        # As PyTorch: the extracted graphs, functionalized, then the backward copied into the
        # autograd engine's order.
        extracted = _graph(backward.inputs, backward.computed, backward.outputs, bw_meta, True, True, backward.live)
        bw = make(joint_module, extracted)
        fw, bw = _steps.functionalize_rng_ops(joint_module, make(joint_module, fw_graph), bw, len(saved_sym_nodes))
        inputs = bw.graph.find_nodes(op="placeholder")
        body = [n for n in bw.graph.nodes if n.op not in ("placeholder", "output")]
        output = next(iter(bw.graph.find_nodes(op="output")))
        ordered = _autograd_order(inputs, body, output.args[0])
        if ordered is not None:
            # A copy of the functionalized graph: its nodes' meta as they are.
            bw = make(bw, _graph(inputs, ordered, output.args[0], output.meta, False, False))
        _raise_getitems(fw.graph)
        _raise_getitems(bw.graph)
        fw.recompile()
        bw.recompile()
    else:
        ordered = _autograd_order(backward.inputs, backward.body, backward.outputs)
        # Left as extracted, the backward's placeholders share the joint's meta; reordered, PyTorch
        # copied them once more.
        bw_graph = _graph(
            backward.inputs,
            backward.computed if ordered is None else ordered,
            backward.outputs,
            bw_meta,
            backward=True,
            share_input_meta=ordered is None,
            live=backward.live if ordered is None else None,
        )
        fw = make(joint_module, _raise_getitems(fw_graph))
        bw = make(joint_module, _raise_getitems(bw_graph))
    fw = _steps.thread_graphsafe_rng_from_hops(fw, is_backward=False)
    bw = _steps.thread_graphsafe_rng_from_hops(bw, is_backward=True)
    return fw, bw


def check_same(ours, theirs, which):
    """None when two modules are the same program with the same calling convention (code,
    placeholders, what each output is), else the first difference."""
    if ours.code != theirs.code:
        import difflib

        diff = difflib.unified_diff(
            theirs.code.splitlines(), ours.code.splitlines(), "PyTorch's steps", "remat", lineterm="", n=1
        )
        return f"the {which}'s code differs:\n" + "\n".join(list(diff)[:40])
    a = [(n.name, n.op, str(n.target)) for n in ours.graph.nodes]
    b = [(n.name, n.op, str(n.target)) for n in theirs.graph.nodes]
    if a != b:
        return f"the {which}'s nodes differ"
    out_a = next(iter(ours.graph.find_nodes(op="output")))
    out_b = next(iter(theirs.graph.find_nodes(op="output")))
    if [str(d) for d in out_a.meta.get("desc", [])] != [str(d) for d in out_b.meta.get("desc", [])]:
        return f"the {which}'s output descriptions differ"
    names_a, names_b = ours.graph._graph_namespace, theirs.graph._graph_namespace
    if names_a._used_names != names_b._used_names or names_a._base_count != names_b._base_count:
        return f"the {which}'s graph has taken other names (the names of nodes made later would differ)"
    for x, y in zip(ours.graph.nodes, theirs.graph.nodes):
        if set(x.meta) != set(y.meta):
            return f"the {which}'s node {x.name} has meta keys {sorted(x.meta)}, PyTorch's {sorted(y.meta)}"
    return None
