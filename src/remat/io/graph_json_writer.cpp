// fxgraph-json/1 graph writer: one node per line, fixed key order, unknown keys kept.
#include <cmath>

#include "remat/io/graph_json.h"
#include "remat/support/file_io.h"
#include "remat/support/json_writer.h"

namespace remat {
namespace {

class GraphWriter {
 public:
  explicit GraphWriter(std::string& out) : w_(out, 1) {}
  void write_module(const GraphModule& m, bool top_level);

 private:
  void write_argument(const Argument& a);
  void write_plain(const Argument& a);
  /// `{"k": v, ...}` with each value written by `write_value`.
  void write_entries(std::span<const DictEntry> entries,
                     void (GraphWriter::*write_value)(const Argument&));
  void write_float(double d);
  void write_sym(const SymInt& s);
  void write_dims(std::span<const SymInt> dims);
  void write_tensor_meta(const TensorMeta& t);
  void write_meta(const Meta& m);
  void write_node(const Node& n);
  void write_extras(const RawJsonFields& extras);

  json::JsonWriter w_;
};

void GraphWriter::write_extras(const RawJsonFields& extras) {
  for (const RawJsonField& f : extras) w_.key(f.key).raw(f.json);
}

void GraphWriter::write_float(double d) {
  if (std::isnan(d))
    w_.value("nan");
  else if (std::isinf(d))
    w_.value(d > 0 ? "inf" : "-inf");
  else
    w_.value(d);
}

void GraphWriter::write_sym(const SymInt& s) {
  if (s.is_symbolic())
    w_.begin_object().field("sym", s.expression()).end_object();
  else
    w_.value(s.value());
}

void GraphWriter::write_argument(const Argument& a) {
  auto tagged_text = [&](std::string_view tag, std::string_view text) {
    w_.begin_object().field(tag, text).end_object();
  };
  auto sequence = [&](std::string_view tag, std::span<const Argument> items) {
    w_.begin_object().key(tag).begin_array();
    for (const Argument& item : items) write_argument(item);
    w_.end_array().end_object();
  };
  switch (a.kind()) {
    case ArgKind::None:
      w_.null();
      break;
    case ArgKind::Node:
      tagged_text("node", a.as_node()->name());
      break;
    case ArgKind::Int:
      w_.value(a.as_int());
      break;
    case ArgKind::Float:
      w_.begin_object().key("float");
      write_float(a.as_float());
      w_.end_object();
      break;
    case ArgKind::Bool:
      w_.value(a.as_bool());
      break;
    case ArgKind::String:
      w_.value(a.as_text());
      break;
    case ArgKind::List:
      sequence("list", a.elements());
      break;
    case ArgKind::Tuple:
      sequence("tuple", a.elements());
      break;
    case ArgKind::Slice:
      sequence("slice", a.elements());
      break;
    case ArgKind::Dict:
      w_.begin_object().key("dict");
      write_entries(a.dict_entries(), &GraphWriter::write_argument);
      w_.end_object();
      break;
    case ArgKind::DType:
      tagged_text("dtype", dtype_name(a.as_dtype()));
      break;
    case ArgKind::Device:
      tagged_text("device", a.as_text());
      break;
    case ArgKind::Layout:
      tagged_text("layout", layout_name(a.as_layout()));
      break;
    case ArgKind::MemoryFormat:
      tagged_text("memory_format", memory_format_name(a.as_memory_format()));
      break;
    case ArgKind::Op:
      tagged_text("op", a.as_text());
      break;
    case ArgKind::Enum:
      tagged_text("enum", a.as_text());
      break;
    case ArgKind::SymInt:
      tagged_text("sym", a.as_text());
      break;
    case ArgKind::Complex: {
      auto [re, im] = a.as_complex();
      w_.begin_object().key("complex").begin_array();
      write_float(re);
      write_float(im);
      w_.end_array().end_object();
      break;
    }
    case ArgKind::TensorConstant:
      w_.begin_object().key("tensor_constant").begin_object();
      w_.field("dtype", dtype_name(a.tensor_constant_dtype())).key("shape");
      write_dims(a.tensor_constant_shape());
      w_.end_object().end_object();
      break;
    case ArgKind::Repr:
      w_.begin_object().field("repr", a.repr_text()).field("type", a.repr_type()).end_object();
      break;
  }
}

/// Plain JSON (meta["custom"]): no tags; floats keep a fraction or exponent so they stay floats.
void GraphWriter::write_plain(const Argument& a) {
  switch (a.kind()) {
    case ArgKind::None:
      w_.null();
      break;
    case ArgKind::Bool:
      w_.value(a.as_bool());
      break;
    case ArgKind::Int:
      w_.value(a.as_int());
      break;
    case ArgKind::Float:
      write_float(a.as_float());
      break;
    case ArgKind::String:
      w_.value(a.as_text());
      break;
    case ArgKind::List:
    case ArgKind::Tuple:
      w_.begin_array();
      for (const Argument& item : a.elements()) write_plain(item);
      w_.end_array();
      break;
    case ArgKind::Dict:
      write_entries(a.dict_entries(), &GraphWriter::write_plain);
      break;
    default:
      write_argument(a);
      break;  // tagged kinds keep their tags
  }
}

void GraphWriter::write_entries(std::span<const DictEntry> entries,
                                void (GraphWriter::*write_value)(const Argument&)) {
  w_.begin_object();
  for (const DictEntry& e : entries) {
    w_.key(e.key);
    (this->*write_value)(e.value);
  }
  w_.end_object();
}

void GraphWriter::write_dims(std::span<const SymInt> dims) {
  w_.begin_array();
  for (const SymInt& d : dims) write_sym(d);
  w_.end_array();
}

void GraphWriter::write_tensor_meta(const TensorMeta& t) {
  w_.begin_object().field("dtype", dtype_name(t.dtype)).key("shape");
  write_dims(t.sizes());
  if (auto strides = t.strides()) {
    w_.key("stride");
    write_dims(*strides);
  }
  if (!t.device.is_null()) w_.field("device", t.device.view());
  if (t.requires_grad) w_.field("requires_grad", *t.requires_grad);
  if (t.memory_format != MemoryFormat::Unknown)
    w_.field("memory_format", memory_format_name(t.memory_format));
  if (t.is_quantized) w_.field("is_quantized", *t.is_quantized);
  if (auto n = t.numel()) w_.field("numel", *n);
  if (auto b = t.nbytes()) w_.field("nbytes", *b);
  if (auto hint = t.numel_hint()) w_.field("numel_hint", *hint);
  if (const RawJsonFields* extras = t.extras()) write_extras(*extras);
  w_.end_object();
}

void GraphWriter::write_meta(const Meta& m) {
  w_.begin_object();
  if (m.value_kind() != ValueKind::None) {
    w_.key(m.value_key() == ValueKey::Val ? "val" : "tensor_meta");
    switch (m.value_kind()) {
      case ValueKind::Tensor:
        write_tensor_meta(*m.tensor());
        break;
      case ValueKind::TensorTuple:
        w_.begin_array();
        for (const auto& t : *m.tensor_tuple()) {
          if (t)
            write_tensor_meta(*t);
          else
            w_.null();
        }
        w_.end_array();
        break;
      case ValueKind::SymInt:
        write_sym(*m.sym_value());
        break;
      case ValueKind::None:
        break;
    }
  }
  if (!m.stack_trace.is_null()) w_.field("stack_trace", m.stack_trace.view());
  if (m.recompute) w_.field("recompute", policy_name(*m.recompute));
  if (auto id = m.ac_graph_id()) w_.field("ac_graph_id", *id);
  if (m.partitioner_tag) w_.field("partitioner_tag", partitioner_tag_name(*m.partitioner_tag));
  if (auto seq = m.seq_nr()) w_.field("seq_nr", *seq);
  if (!m.desc().is_none()) {
    w_.key("desc");
    write_plain(m.desc());
  }
  if (!m.custom().is_none()) {
    w_.key("custom");
    write_plain(m.custom());
  }
  if (!m.source_keys().empty()) w_.key("keys").array(m.source_keys());
  write_extras(m.extras());
  w_.end_object();
}

void GraphWriter::write_node(const Node& n) {
  w_.begin_object()
      .field("name", n.name())
      .field("op", op_kind_name(n.op()))
      .field("target", n.target().view())
      .key("args")
      .begin_array();
  for (const Argument& a : n.args()) write_argument(a);
  w_.end_array().key("kwargs").begin_object();
  for (const Kwarg& k : n.kwargs()) {
    w_.key(k.key.view());
    write_argument(k.value);
  }
  w_.end_object().key("users").begin_array();
  for (const Node* user : n.users()) w_.value(user->name());
  w_.end_array().key("meta");
  write_meta(n.meta);
  write_extras(n.meta.node_fields());
  w_.end_object();
}

void GraphWriter::write_module(const GraphModule& m, bool top_level) {
  w_.begin_object(json::Layout::Block);
  if (top_level) w_.field("schema", kGraphSchema);
  if (!m.graph_name.empty()) w_.field("graph_name", m.graph_name);
  if (!m.class_name.empty()) w_.field("class_name", m.class_name);
  if (!m.trailer.empty()) w_.field("trailer", m.trailer);
  if (m.text_style) {
    const TextStyle& t = *m.text_style;
    w_.key("text_style")
        .begin_object()
        .field("dialect", dialect_name(t.dialect))
        .field("tags", tag_style_name(t.tag_style));
    for (auto [name, value] : {std::pair{"include_stride", t.include_stride},
                               {"include_device", t.include_device},
                               {"expanded_def", t.expanded_def},
                               {"colored", t.colored},
                               {"quoted_annotations", t.quoted_annotations},
                               {"comment_names_function", t.comment_names_function},
                               {"deep_comments", t.deep_comments},
                               {"free_dead_results", t.free_dead_results},
                               {"truncate_annotations", t.truncate_annotations}})
      w_.field(name, value);
    // Only when set: older files stay as they were.
    if (t.show_meta) w_.field("show_meta", true);
    if (!t.indent_blank_lines) w_.field("indent_blank_lines", false);
    if (!t.additional_meta.empty()) w_.key("additional_meta").array(t.additional_meta);
    w_.end_object();
  }
  if (m.codegen.kind != CodegenKind::Plain || !m.codegen.in_args.empty()) {
    w_.key("codegen")
        .begin_object()
        .field("kind", m.codegen.kind == CodegenKind::Pytree ? "pytree" : "plain")
        .key("in_args")
        .array(m.codegen.in_args);
    if (!m.codegen.in_spec) w_.field("in_spec", false);
    if (!m.codegen.out_spec) w_.field("out_spec", false);
    w_.end_object();
  }
  for (auto [name, count] : {std::pair{"num_primals", m.num_primals},
                             {"num_tangents", m.num_tangents},
                             {"num_fwd_outputs", m.num_fwd_outputs},
                             {"num_real_outputs", m.num_real_outputs}})
    if (count) w_.field(name, *count);
  if (m.static_lifetime_input_indices)
    w_.key("static_lifetime_input_indices").array(*m.static_lifetime_input_indices);
  if (m.saved_values) w_.key("saved_values").array(*m.saved_values);
  w_.key("placeholders").begin_array();
  for (const Node* n : m.graph().placeholders()) w_.value(n->name());
  w_.end_array().key("outputs").begin_array();
  for (const Argument& a : m.outputs()) {
    if (a.is_node())
      w_.value(a.as_node()->name());
    else
      w_.null();
  }
  w_.end_array();
  write_extras(m.extras);
  if (!m.submodules.empty()) {
    w_.key("submodules").begin_array(json::Layout::Block);
    for (const auto& sub : m.submodules) {
      w_.begin_object().field("name", sub.name).key("graph");
      write_module(*sub.module, false);
      w_.end_object();
    }
    w_.end_array();
  }
  w_.key("nodes").begin_array(json::Layout::Block);
  for (const Node* n : m.graph().nodes()) write_node(*n);
  w_.end_array().end_object();
}

}  // namespace

std::string write_graph_json(const GraphModule& module) {
  std::string out;
  GraphWriter writer(out);
  writer.write_module(module, true);
  out += '\n';
  return out;
}

Status save_graph_json(const GraphModule& module, const std::string& path) {
  return write_file_atomic(path, write_graph_json(module));
}

}  // namespace remat
