"""fxgraph-json/1 from a live torch.fx.GraphModule (docs/file-formats.md).

Works with any PyTorch that has torch.fx (1.13 through current): it reads what a node carries
(target, args, kwargs, meta) and writes the interchange format remat reads; nothing is inferred.
"""

import enum
import json
import math
import numbers

__all__ = ["export", "graph_object", "ExportError"]


class ExportError(ValueError):
    """A value in the graph that fxgraph-json cannot describe; names the node."""


_torch_module = None
_itemsizes = {}


def _torch():
    global _torch_module
    if _torch_module is None:
        import torch  # imported late: `import remat` must work without torch

        _torch_module = torch
    return _torch_module


def _itemsize(dtype):
    """Bytes per element (1.13's dtypes have no .itemsize; asking a tensor costs ~5 us)."""
    size = _itemsizes.get(dtype)
    if size is None:
        size = _itemsizes[dtype] = getattr(dtype, "itemsize", None) or _torch().empty((), dtype=dtype).element_size()
    return size


def target_string(target):
    """The canonical target string: `aten.sin.default`, `operator.getitem`, `primals_1`."""
    torch = _torch()
    if isinstance(target, str):
        return target
    if isinstance(target, torch._ops.OpOverload):
        packet = target.overloadpacket
        ns = getattr(target, "namespace", None) or packet._qualified_op_name.split("::")[0]
        return f"{ns}.{packet.__name__}.{target._overloadname}"
    if isinstance(target, torch._ops.OpOverloadPacket):
        ns, name = target._qualified_op_name.split("::")
        return f"{ns}.{name}"
    if not callable(target):
        raise ExportError(f"cannot name target {target!r}")
    # torch.fx's own naming (`torch.relu`, not `torch._VariableFunctionsClass.relu`), with the
    # format's spelling of operator and builtin callables.
    name = torch.fx.node._get_qualified_name(target)
    if name.startswith("_operator."):
        return "operator." + name[len("_operator.") :]
    if "." not in name:
        return "builtins." + name
    return name


_target_fields_of = {}


def _target_fields(target):
    """The target's fields, worked out once per target (a joint calls a few dozen targets
    thousands of times each)."""
    try:
        return _target_fields_of[target]
    except KeyError:
        pass
    except TypeError:  # an unhashable target
        return _new_target_fields(target)
    fields = _target_fields_of[target] = _new_target_fields(target)
    return fields


def _new_target_fields(target):
    torch = _torch()
    fields = {
        "target": target_string(target),
        "target_str": str(target),
        "target_repr": repr(target),
        "target_kind": type(target).__name__,
    }
    if isinstance(target, torch._ops.OpOverload):
        name = fields["target"]
        fields["overload_packet"], fields["overload"] = name.rsplit(".", 1)
    return fields


def _float(x):
    if math.isnan(x):
        return {"float": "nan"}
    if math.isinf(x):
        return {"float": "inf" if x > 0 else "-inf"}
    return {"float": x}


def _sym(x):
    return {"sym": str(x.node.expr) if hasattr(x, "node") and hasattr(x.node, "expr") else str(x)}


def value(v, where):
    """One argument value in the format's tagged form; `where` names the node for errors."""
    torch = _torch()
    fx = torch.fx
    if isinstance(v, fx.Node):
        return {"node": v.name}
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, enum.Enum):
        cls = type(v)
        return {"enum": f"{cls.__module__}.{cls.__qualname__}.{v.name}"}
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        return _float(v)
    if isinstance(v, complex):
        return {"complex": [v.real, v.imag]}
    if isinstance(v, (list, fx.immutable_collections.immutable_list)):
        return {"list": [value(x, where) for x in v]}
    if isinstance(v, tuple):
        return {"tuple": [value(x, where) for x in v]}
    if isinstance(v, dict):
        return {"dict": {str(k): value(x, where) for k, x in v.items()}}
    if isinstance(v, slice):
        return {"slice": [value(v.start, where), value(v.stop, where), value(v.step, where)]}
    if isinstance(v, torch.dtype):
        return {"dtype": str(v)}
    if isinstance(v, torch.device):
        return {"device": str(v)}
    if isinstance(v, torch.layout):
        return {"layout": str(v)}
    if isinstance(v, torch.memory_format):
        return {"memory_format": str(v)}
    if isinstance(v, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return {"op": target_string(v)}
    sym_types = tuple(
        t
        for t in (getattr(torch, "SymInt", None), getattr(torch, "SymFloat", None), getattr(torch, "SymBool", None))
        if t is not None
    )
    if sym_types and isinstance(v, sym_types):
        return _sym(v)
    if isinstance(v, torch.Tensor):
        return {"tensor_constant": {"dtype": str(v.dtype), "shape": list(v.shape)}}
    if isinstance(v, numbers.Integral):
        return int(v)
    if isinstance(v, numbers.Real):
        return _float(float(v))
    return {"repr": repr(v), "type": type(v).__name__}


def _dims(dims, where):
    out = []
    for d in dims:
        out.append(int(d) if isinstance(d, int) or type(d).__name__ == "int" else value(d, where))
    return out


_tensor_metas = {}


def _tensor_meta(tm, device, where):
    """TensorMetadata (tensor_meta) or a fake tensor (val) as the format's tensor_meta object.
    A fake tensor's object is worked out once per (shape, stride, dtype, device, flags) and
    shared: a joint repeats a few dozen of them thousands of times, and asking a tensor which
    memory format it is contiguous in costs more than the rest."""
    torch = _torch()
    if not isinstance(tm, torch.Tensor):
        return _new_tensor_meta(tm, device, where)
    try:
        key = (tm.shape, tm.stride(), tm.dtype, tm.device, tm.requires_grad, tm.is_quantized)
        meta = _tensor_metas.get(key)
    except TypeError:  # symbolic sizes do not hash
        return _new_tensor_meta(tm, device, where)
    if meta is None:
        if len(_tensor_metas) > 100_000:  # a long process of many shapes: start over
            _tensor_metas.clear()
        meta = _tensor_metas[key] = _new_tensor_meta(tm, device, where)
    return meta


def _new_tensor_meta(tm, device, where):
    torch = _torch()
    if isinstance(tm, torch.Tensor):
        shape, stride, dtype = list(tm.shape), list(tm.stride()), tm.dtype
        requires_grad, is_quantized = tm.requires_grad, tm.is_quantized
        device = str(tm.device)
        memory_format = None
        for fmt in (torch.contiguous_format, torch.channels_last, torch.channels_last_3d):
            try:
                if tm.is_contiguous(memory_format=fmt):
                    memory_format = str(fmt)
                    break
            except Exception:  # symbolic shapes may refuse the question
                break
    else:
        shape, stride, dtype = list(tm.shape), list(tm.stride), tm.dtype
        requires_grad, is_quantized = tm.requires_grad, tm.is_quantized
        memory_format = str(tm.memory_format) if tm.memory_format is not None else None
    meta = {"dtype": str(dtype), "shape": _dims(shape, where), "stride": _dims(stride, where)}
    if device is not None:
        meta["device"] = device
    meta["requires_grad"] = bool(requires_grad)
    meta["memory_format"] = memory_format
    meta["is_quantized"] = bool(is_quantized)
    if all(isinstance(d, int) for d in meta["shape"]):
        numel = math.prod(meta["shape"])
        meta["numel"] = numel
        meta["nbytes"] = numel * _itemsize(dtype)
    else:
        hint = _numel_hint(shape)
        if hint is not None:
            meta["numel_hint"] = hint
    return meta


def _numel_hint(shape):
    """A symbolic shape's element count under its size hints, as PyTorch's partitioner sizes it
    (optimization_hint(numel, fallback=4096)); None where the hints cannot be had."""
    try:
        from torch.fx.experimental.symbolic_shapes import optimization_hint
    except ImportError:
        optimization_hint = None
    numel = math.prod(shape)
    try:
        if optimization_hint is not None:
            return int(optimization_hint(numel, fallback=4096))
        from torch.fx.experimental.symbolic_shapes import hint_int

        return int(hint_int(numel, fallback=4096))
    except Exception:  # a shape without a shape environment (symbolic_trace) has no hints
        return None


def _is_tensor_like(v):
    torch = _torch()
    return isinstance(v, torch.Tensor) or type(v).__name__ == "TensorMetadata"


class _Tables:
    """The graph's shared tables (docs/file-formats.md): each distinct stack trace, tensor
    metadata object and list of meta keys written once, nodes referring to it by index. A joint
    repeats a few of each thousands of times: they were two thirds of its text."""

    def __init__(self):
        self.stack_traces, self.tensor_metas, self.meta_keys = {}, [], []
        self._by_id = {}  # id of a shared tensor metadata object or key list -> index

    def stack_trace(self, text):
        index = self.stack_traces.get(text)
        if index is None:
            index = self.stack_traces[text] = len(self.stack_traces)
        return index

    def shared(self, table, obj):
        # The objects are the exporter's shared ones, alive in its caches: ids stay theirs.
        index = self._by_id.get(id(obj))
        if index is None:
            index = self._by_id[id(obj)] = len(table)
            table.append(obj)
        return index

    def write(self, obj):
        obj["stack_traces"] = list(self.stack_traces)
        obj["tensor_metas"] = self.tensor_metas
        obj["meta_keys"] = self.meta_keys


_sorted_keys = {}  # meta's keys as a node has them -> the sorted list the format records
_POLICY_NAMES = {"MUST_SAVE", "PREFER_SAVE", "MUST_RECOMPUTE", "PREFER_RECOMPUTE"}


def _meta(node, device, tables=None):
    """The node's meta object; with `tables` (_Tables), stack traces, a tensor's metadata and
    the list of keys are written as indices into the graph's tables."""
    torch = _torch()
    m = node.meta
    where = node.name
    keys = tuple(m)
    sorted_keys = _sorted_keys.get(keys)
    if sorted_keys is None:
        sorted_keys = _sorted_keys[keys] = sorted(str(k) for k in keys)
    out = {"keys": sorted_keys} if tables is None else {"keys_ref": tables.shared(tables.meta_keys, sorted_keys)}
    tm = m.get("tensor_meta")
    val = m.get("val")
    # As torch.fx's printer looks: the (fake) tensor value first ("val", which prints strides and
    # device), then ShapeProp's TensorMetadata ("tensor_meta", which prints neither).
    if val is not None and isinstance(val, torch.Tensor):
        out["tensor_meta"] = None
        meta = _tensor_meta(val, device, where)
        if tables is None:
            out["val"] = meta
        else:
            out["val_ref"] = tables.shared(tables.tensor_metas, meta)
    elif tm is not None and _is_tensor_like(tm):
        out["tensor_meta"] = _tensor_meta(tm, device, where)
    else:
        out["tensor_meta"] = None
        many = val if isinstance(val, (list, tuple)) else tm if isinstance(tm, (list, tuple)) else None
        if many and all(_is_tensor_like(x) for x in many):
            out["val"] = [_tensor_meta(x, device, where) for x in many]
        elif isinstance(val, (int, float, bool)) or type(val).__name__ in ("SymInt", "SymFloat", "SymBool"):
            out["val"] = value(val, where)
    trace = m.get("stack_trace")
    if tables is None or trace is None:
        out["stack_trace"] = trace
    else:
        out["stack_trace_ref"] = tables.stack_trace(trace)
    recompute = m.get("recompute")
    if recompute is not None:
        name = getattr(recompute, "name", str(recompute))
        if name not in _POLICY_NAMES:
            raise ExportError(f"node {where}: meta['recompute'] is {recompute!r}, not a CheckpointPolicy")
        out["recompute"] = name
    if m.get("ac_graph_id") is not None:
        out["ac_graph_id"] = int(m["ac_graph_id"])
    if m.get("partitioner_tag") is not None:
        out["partitioner_tag"] = str(m["partitioner_tag"])
    if m.get("desc") is not None:
        desc = m["desc"]
        out["desc"] = [str(d) for d in desc] if isinstance(desc, (list, tuple)) else str(desc)
    if m.get("custom"):
        out["custom"] = value(dict(m["custom"]), where)["dict"]
    if m.get("seq_nr") is not None:
        out["seq_nr"] = int(m["seq_nr"])
    if m.get("original_aten") is not None:  # the op a checkpoint policy saw (a decomposition's nodes share it)
        out["original_aten"] = str(m["original_aten"])
    return out


# Constants up to this many elements carry their values (remat check runs them); larger ones
# are described by their metadata alone.
_CONSTANT_VALUES_LIMIT = 4096


def _constant_values(gm, target):
    """{"values": [...]} of a small tensor attribute (a lifted constant), flattened; else None."""
    torch = _torch()
    value = gm
    for part in str(target).split("."):
        value = getattr(value, part, None)
    if not isinstance(value, torch.Tensor) or value.numel() > _CONSTANT_VALUES_LIMIT or value.is_complex():
        return None
    try:
        from torch.utils._mode_utils import no_dispatch

        with no_dispatch():  # partition_fn runs under the compile's fake-tensor mode
            flat = value.detach().to("cpu").reshape(-1).tolist()
    except Exception:  # a fake or meta tensor has no values
        return None
    return {"values": [_constant_number(x) for x in flat]}


def _constant_number(x):
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, float) and not math.isfinite(x):
        return _float(x)["float"]  # "inf", "-inf", "nan"
    return x


def _output_names(graph):
    out = [n for n in graph.nodes if n.op == "output"]
    if not out:
        return []
    flat = []

    def walk(v):
        if isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        else:
            flat.append(v.name if hasattr(v, "name") and hasattr(v, "op") else None)

    walk(out[0].args[0] if out[0].args else [])
    return flat


def _type_text(t):
    """node.type as torch.fx prints it (`float`, `torch.Tensor`); None for no type, and for
    generic types (`List[int]`), which torch.fx spells through its globals table."""
    if t is None or hasattr(t, "__origin__"):
        return None
    return _torch().fx.graph._type_repr(t)


def _codegen(graph):
    """Pytree codegen (`def forward(self, primals, tangents)` then a flatten line), or None."""
    info = getattr(getattr(graph, "_codegen", None), "pytree_info", None)
    if info is None:
        return None
    codegen = {"kind": "pytree", "in_args": list(info.orig_args)}
    # Either spec may be None: then that side prints as a plain def or return.
    if getattr(info, "in_spec", True) is None:
        codegen["in_spec"] = False
    if getattr(info, "out_spec", True) is None:
        codegen["out_spec"] = False
    return codegen


def graph_object(gm, name=None, device=None, extra=None, tables=False):
    """The fxgraph-json object (a dict) of `gm`: a GraphModule or a torch.fx.Graph.
    tables: stack traces, tensor metadata and meta key lists written once each, in the graph's
    tables, and referred to by index from the nodes (see _Tables)."""
    torch = _torch()
    graph = gm.graph if hasattr(gm, "graph") else gm
    nodes = []
    shared = _Tables() if tables else None
    for n in graph.nodes:
        try:
            entry = {"name": n.name, "op": n.op}
            entry.update(_target_fields(n.target) if n.op == "call_function" else _new_target_fields(n.target))
            entry["args"] = [value(a, n.name) for a in n.args]
            entry["kwargs"] = {k: value(a, n.name) for k, a in n.kwargs.items()}
            entry["users"] = [u.name for u in n.users]
            type_text = _type_text(n.type)
            if type_text is not None:
                entry["type"] = type_text
            entry["meta"] = _meta(n, device, shared)
            if n.op == "get_attr" and hasattr(gm, "graph"):
                constant = _constant_values(gm, n.target)
                if constant is not None:
                    entry["attr_value"] = constant
        except ExportError:
            raise
        except Exception as e:  # anything unexpected still names the node
            raise ExportError(f"node {n.name} ({n.op} {n.target}): {e}") from e
        nodes.append(entry)
    obj = {"schema": "fxgraph-json/1", "graph_name": name or type(gm).__name__, "torch_version": torch.__version__}
    if device is not None:
        obj["capture_device"] = device
    obj["num_nodes"] = len(nodes)
    obj["num_call_function"] = sum(1 for n in nodes if n["op"] == "call_function")
    if hasattr(gm, "graph"):
        obj["class_name"] = gm._get_name()  # what print_readable's `class X` line shows
    codegen = _codegen(graph)
    if codegen:
        obj["codegen"] = codegen
    obj["placeholders"] = [n.name for n in graph.nodes if n.op == "placeholder"]
    obj["outputs"] = _output_names(graph)
    if extra:
        obj.update(extra)
    if shared is not None:
        shared.write(obj)
    obj["nodes"] = nodes
    return obj


def export(gm, name=None, device=None, extra=None, indent=1, tables=False):
    """fxgraph-json/1 text of a torch.fx.GraphModule (or Graph).

    device: fills tensor metadata that records none (PyTorch 1.13's), e.g. "cpu".
    extra: further top-level keys, e.g. {"num_fwd_outputs": 1} for a joint graph.
    tables: shared tables for what nodes repeat, referred to by index (see graph_object).
    """
    obj = graph_object(gm, name, device, extra, tables)
    return json.dumps(obj, indent=indent, allow_nan=False) + "\n"
