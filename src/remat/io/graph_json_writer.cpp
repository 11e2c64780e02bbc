// fxgraph-json/1 graph writer: one node per line, fixed key order, unknown keys kept.
#include <cmath>

#include "remat/io/graph_json.h"
#include "remat/support/file_io.h"
#include "remat/support/json_text.h"

namespace remat {
namespace {

class GraphWriter {
 public:
  explicit GraphWriter(std::string& out) : out_(out) {}
  void write_module(const GraphModule& m, int indent, bool top_level);

 private:
  void key(std::string_view k, int indent, bool& first);
  void write_argument(const Argument& a);
  void write_plain(const Argument& a);
  /// `{"k": v, ...}` with each value written by `write_value`.
  void write_entries(std::span<const DictEntry> entries,
                     void (GraphWriter::*write_value)(const Argument&));
  void write_dims(std::span<const SymInt> dims);
  void write_tensor_meta(const TensorMeta& t);
  void write_meta(const Meta& m);
  void write_node(const Node& n);
  void write_strings(const std::vector<std::string>& names);
  void write_extras(const RawJsonFields& extras, bool& first);

  std::string& out_;
};

void GraphWriter::key(std::string_view k, int indent, bool& first) {
  out_ += first ? "\n" : ",\n";
  first = false;
  out_.append(static_cast<size_t>(indent), ' ');
  json::append_string(out_, k);
  out_ += ": ";
}

void GraphWriter::write_strings(const std::vector<std::string>& names) {
  out_ += '[';
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) out_ += ", ";
    json::append_string(out_, names[i]);
  }
  out_ += ']';
}

void GraphWriter::write_extras(const RawJsonFields& extras, bool& first) {
  for (const RawJsonField& f : extras) {
    if (!first) out_ += ", ";
    first = false;
    json::append_string(out_, f.key);
    out_ += ": ";
    out_ += f.json;
  }
}

void write_float_value(std::string& out, double d) {
  if (std::isnan(d))
    out += "\"nan\"";
  else if (std::isinf(d))
    out += d > 0 ? "\"inf\"" : "\"-inf\"";
  else
    json::append_double(out, d);
}

void GraphWriter::write_argument(const Argument& a) {
  auto tagged_text = [&](std::string_view tag, std::string_view text) {
    out_ += "{";
    json::append_string(out_, tag);
    out_ += ": ";
    json::append_string(out_, text);
    out_ += "}";
  };
  auto sequence = [&](std::string_view tag, std::span<const Argument> items) {
    out_ += "{";
    json::append_string(out_, tag);
    out_ += ": [";
    for (size_t i = 0; i < items.size(); ++i) {
      if (i) out_ += ", ";
      write_argument(items[i]);
    }
    out_ += "]}";
  };
  switch (a.kind()) {
    case ArgKind::None:
      out_ += "null";
      break;
    case ArgKind::Node:
      tagged_text("node", a.as_node()->name());
      break;
    case ArgKind::Int:
      json::append_int(out_, a.as_int());
      break;
    case ArgKind::Float:
      out_ += "{\"float\": ";
      write_float_value(out_, a.as_float());
      out_ += "}";
      break;
    case ArgKind::Bool:
      out_ += a.as_bool() ? "true" : "false";
      break;
    case ArgKind::String:
      json::append_string(out_, a.as_text());
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
      out_ += "{\"dict\": ";
      write_entries(a.dict_entries(), &GraphWriter::write_argument);
      out_ += "}";
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
      out_ += "{\"complex\": [";
      write_float_value(out_, re);
      out_ += ", ";
      write_float_value(out_, im);
      out_ += "]}";
      break;
    }
    case ArgKind::TensorConstant:
      out_ += "{\"tensor_constant\": {\"dtype\": ";
      json::append_string(out_, dtype_name(a.tensor_constant_dtype()));
      out_ += ", \"shape\": ";
      write_dims(a.tensor_constant_shape());
      out_ += "}}";
      break;
    case ArgKind::Repr:
      out_ += "{\"repr\": ";
      json::append_string(out_, a.repr_text());
      out_ += ", \"type\": ";
      json::append_string(out_, a.repr_type());
      out_ += "}";
      break;
  }
}

/// Plain JSON (meta["custom"]): no tags; floats keep a fraction or exponent so they stay floats.
void GraphWriter::write_plain(const Argument& a) {
  switch (a.kind()) {
    case ArgKind::None:
      out_ += "null";
      break;
    case ArgKind::Bool:
      out_ += a.as_bool() ? "true" : "false";
      break;
    case ArgKind::Int:
      json::append_int(out_, a.as_int());
      break;
    case ArgKind::Float:
      write_float_value(out_, a.as_float());
      break;
    case ArgKind::String:
      json::append_string(out_, a.as_text());
      break;
    case ArgKind::List:
    case ArgKind::Tuple: {
      out_ += '[';
      auto items = a.elements();
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) out_ += ", ";
        write_plain(items[i]);
      }
      out_ += ']';
      break;
    }
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
  out_ += '{';
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i) out_ += ", ";
    json::append_string(out_, entries[i].key);
    out_ += ": ";
    (this->*write_value)(entries[i].value);
  }
  out_ += '}';
}

void GraphWriter::write_dims(std::span<const SymInt> dims) {
  out_ += '[';
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out_ += ", ";
    if (dims[i].is_symbolic()) {
      out_ += "{\"sym\": ";
      json::append_string(out_, dims[i].expression());
      out_ += '}';
    } else {
      json::append_int(out_, dims[i].value());
    }
  }
  out_ += ']';
}

void GraphWriter::write_tensor_meta(const TensorMeta& t) {
  out_ += "{\"dtype\": ";
  json::append_string(out_, dtype_name(t.dtype));
  out_ += ", \"shape\": ";
  write_dims(t.sizes());
  if (auto strides = t.strides()) {
    out_ += ", \"stride\": ";
    write_dims(*strides);
  }
  if (!t.device.is_null()) {
    out_ += ", \"device\": ";
    json::append_string(out_, t.device.view());
  }
  if (t.requires_grad)
    out_ += *t.requires_grad ? ", \"requires_grad\": true" : ", \"requires_grad\": false";
  if (t.memory_format != MemoryFormat::Unknown) {
    out_ += ", \"memory_format\": ";
    json::append_string(out_, memory_format_name(t.memory_format));
  }
  if (t.is_quantized)
    out_ += *t.is_quantized ? ", \"is_quantized\": true" : ", \"is_quantized\": false";
  if (auto n = t.numel()) {
    out_ += ", \"numel\": ";
    json::append_int(out_, *n);
  }
  if (auto b = t.nbytes()) {
    out_ += ", \"nbytes\": ";
    json::append_int(out_, *b);
  }
  if (const RawJsonFields* extras = t.extras()) {
    bool first = false;
    write_extras(*extras, first);
  }
  out_ += '}';
}

void GraphWriter::write_meta(const Meta& m) {
  out_ += '{';
  bool first = true;
  auto field = [&](std::string_view k) {
    if (!first) out_ += ", ";
    first = false;
    json::append_string(out_, k);
    out_ += ": ";
  };
  if (m.value_kind() != ValueKind::None) {
    field(m.value_key() == ValueKey::Val ? "val" : "tensor_meta");
    switch (m.value_kind()) {
      case ValueKind::Tensor:
        write_tensor_meta(*m.tensor());
        break;
      case ValueKind::TensorTuple: {
        out_ += '[';
        bool first_item = true;
        for (const auto& t : *m.tensor_tuple()) {
          if (!first_item) out_ += ", ";
          first_item = false;
          if (t)
            write_tensor_meta(*t);
          else
            out_ += "null";
        }
        out_ += ']';
        break;
      }
      case ValueKind::SymInt: {
        SymInt s = *m.sym_value();
        if (s.is_symbolic()) {
          out_ += "{\"sym\": ";
          json::append_string(out_, s.expression());
          out_ += '}';
        } else {
          json::append_int(out_, s.value());
        }
        break;
      }
      case ValueKind::None:
        break;
    }
  }
  if (!m.stack_trace.is_null()) {
    field("stack_trace");
    json::append_string(out_, m.stack_trace.view());
  }
  if (m.recompute) {
    field("recompute");
    json::append_string(out_, policy_name(*m.recompute));
  }
  if (auto id = m.ac_graph_id()) {
    field("ac_graph_id");
    json::append_int(out_, *id);
  }
  if (m.partitioner_tag) {
    field("partitioner_tag");
    json::append_string(out_, partitioner_tag_name(*m.partitioner_tag));
  }
  if (auto seq = m.seq_nr()) {
    field("seq_nr");
    json::append_int(out_, *seq);
  }
  if (!m.desc().is_none()) {
    field("desc");
    write_plain(m.desc());
  }
  if (!m.custom().is_none()) {
    field("custom");
    write_plain(m.custom());
  }
  if (!m.source_keys().empty()) {
    field("keys");
    write_strings(m.source_keys());
  }
  write_extras(m.extras(), first);
  out_ += '}';
}

void GraphWriter::write_node(const Node& n) {
  out_ += "{\"name\": ";
  json::append_string(out_, n.name());
  out_ += ", \"op\": ";
  json::append_string(out_, op_kind_name(n.op()));
  out_ += ", \"target\": ";
  json::append_string(out_, n.target().view());
  out_ += ", \"args\": [";
  for (size_t i = 0; i < n.args().size(); ++i) {
    if (i) out_ += ", ";
    write_argument(n.args()[i]);
  }
  out_ += "], \"kwargs\": {";
  for (size_t i = 0; i < n.kwargs().size(); ++i) {
    if (i) out_ += ", ";
    json::append_string(out_, n.kwargs()[i].key.view());
    out_ += ": ";
    write_argument(n.kwargs()[i].value);
  }
  out_ += "}, \"users\": [";
  for (size_t i = 0; i < n.users().size(); ++i) {
    if (i) out_ += ", ";
    json::append_string(out_, n.users()[i]->name());
  }
  out_ += "], \"meta\": ";
  write_meta(n.meta);
  bool first = false;
  write_extras(n.meta.node_fields(), first);
  out_ += '}';
}

void GraphWriter::write_module(const GraphModule& m, int indent, bool top_level) {
  out_ += '{';
  bool first = true;
  if (top_level) {
    key("schema", indent, first);
    json::append_string(out_, kGraphSchema);
  }
  if (!m.graph_name.empty()) {
    key("graph_name", indent, first);
    json::append_string(out_, m.graph_name);
  }
  if (!m.class_name.empty()) {
    key("class_name", indent, first);
    json::append_string(out_, m.class_name);
  }
  if (!m.trailer.empty()) {
    key("trailer", indent, first);
    json::append_string(out_, m.trailer);
  }
  if (m.text_style) {
    const TextStyle& t = *m.text_style;
    key("text_style", indent, first);
    out_ += "{\"dialect\": ";
    json::append_string(out_, dialect_name(t.dialect));
    out_ += ", \"tags\": ";
    json::append_string(out_, tag_style_name(t.tag_style));
    for (auto [name, value] : {std::pair{"include_stride", t.include_stride},
                               {"include_device", t.include_device},
                               {"expanded_def", t.expanded_def},
                               {"colored", t.colored},
                               {"quoted_annotations", t.quoted_annotations},
                               {"comment_names_function", t.comment_names_function},
                               {"deep_comments", t.deep_comments},
                               {"free_dead_results", t.free_dead_results},
                               {"truncate_annotations", t.truncate_annotations}}) {
      out_ += ", \"";
      out_ += name;
      out_ += value ? "\": true" : "\": false";
    }
    if (t.show_meta) out_ += ", \"show_meta\": true";  // only then: older files stay as they were
    if (!t.additional_meta.empty()) {
      out_ += ", \"additional_meta\": ";
      write_strings(t.additional_meta);
    }
    out_ += '}';
  }
  if (m.codegen.kind != CodegenKind::Plain || !m.codegen.in_args.empty()) {
    key("codegen", indent, first);
    out_ += "{\"kind\": ";
    json::append_string(out_, m.codegen.kind == CodegenKind::Pytree ? "pytree" : "plain");
    out_ += ", \"in_args\": ";
    write_strings(m.codegen.in_args);
    if (!m.codegen.in_spec) out_ += ", \"in_spec\": false";
    if (!m.codegen.out_spec) out_ += ", \"out_spec\": false";
    out_ += '}';
  }
  auto count = [&](std::string_view k, const std::optional<int64_t>& v) {
    if (!v) return;
    key(k, indent, first);
    json::append_int(out_, *v);
  };
  count("num_primals", m.num_primals);
  count("num_tangents", m.num_tangents);
  count("num_fwd_outputs", m.num_fwd_outputs);
  count("num_real_outputs", m.num_real_outputs);
  if (m.saved_values) {
    key("saved_values", indent, first);
    write_strings(*m.saved_values);
  }
  std::vector<std::string> placeholders;
  for (const Node* n : m.graph().placeholders()) placeholders.push_back(n->name());
  key("placeholders", indent, first);
  write_strings(placeholders);
  key("outputs", indent, first);
  out_ += '[';
  bool first_output = true;
  for (const Argument& a : m.outputs()) {
    if (!first_output) out_ += ", ";
    first_output = false;
    if (a.is_node())
      json::append_string(out_, a.as_node()->name());
    else
      out_ += "null";
  }
  out_ += ']';
  for (const RawJsonField& f : m.extras) {
    key(f.key, indent, first);
    out_ += f.json;
  }
  if (!m.submodules.empty()) {
    key("submodules", indent, first);
    out_ += '[';
    for (size_t i = 0; i < m.submodules.size(); ++i) {
      out_ += i ? ",\n" : "\n";
      out_.append(static_cast<size_t>(indent + 1), ' ');
      out_ += "{\"name\": ";
      json::append_string(out_, m.submodules[i].name);
      out_ += ", \"graph\": ";
      write_module(*m.submodules[i].module, indent + 2, false);
      out_ += '}';
    }
    out_ += '\n';
    out_.append(static_cast<size_t>(indent), ' ');
    out_ += ']';
  }
  key("nodes", indent, first);
  out_ += '[';
  bool first_node = true;
  for (const Node* n : m.graph().nodes()) {
    out_ += first_node ? "\n" : ",\n";
    first_node = false;
    out_.append(static_cast<size_t>(indent + 1), ' ');
    write_node(*n);
  }
  out_ += '\n';
  out_.append(static_cast<size_t>(indent), ' ');
  out_ += "]\n";
  out_.append(static_cast<size_t>(indent > 0 ? indent - 1 : 0), ' ');
  out_ += '}';
}

}  // namespace

std::string write_graph_json(const GraphModule& module) {
  std::string out;
  GraphWriter writer(out);
  writer.write_module(module, 1, true);
  out += '\n';
  return out;
}

Status save_graph_json(const GraphModule& module, const std::string& path) {
  return write_file_atomic(path, write_graph_json(module));
}

}  // namespace remat
