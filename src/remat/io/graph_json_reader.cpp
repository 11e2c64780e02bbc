// fxgraph-json/1 graph reader: simdjson DOM into a GraphModule, first error with its JSON path.
#include <algorithm>
#include <array>
#include <optional>

#include "remat/io/graph_json.h"
#include "remat/support/file_io.h"
#include "remat/support/json_reader.h"

namespace remat {
namespace {

using json::JsonPath;
using json::JsonReader;
using json::dom::array;
using json::dom::element;
using json::dom::element_type;
using json::dom::object;

/// Interns strings that repeat from node to node (targets, devices, stack traces, kwarg
/// names) without hashing on a hit: a direct-mapped cache compared by content.
class InternCache {
 public:
  InternedString get(std::string_view s) {
    size_t slot = (s.size() * 31 + (s.empty() ? 0
                                              : static_cast<unsigned char>(s.back()) * 7 +
                                                    static_cast<unsigned char>(s[s.size() / 2]))) %
                  kSlots;
    if (!slots_[slot].is_null() && slots_[slot].view() == s) return slots_[slot];
    return slots_[slot] = InternedString(s);
  }

 private:
  static constexpr size_t kSlots = 64;
  std::array<InternedString, kSlots> slots_;
};

class GraphReader {
 public:
  explicit GraphReader(JsonReader& r) : r_(r) {}

  bool read_module(object obj, const JsonPath& path, GraphModule& m);

 private:
  struct Scope {
    Graph* graph;
    array nodes;  // the file's nodes, searched only to explain a failed lookup
    // The module's shared tables ("stack_traces", "tensor_metas", "meta_keys"), which nodes'
    // meta refer to by index.
    std::vector<InternedString> stack_traces;
    std::vector<TensorMeta> tensor_metas;
    std::vector<std::vector<std::string>> meta_keys;
    std::vector<std::pair<Node*, std::vector<std::string>>> listed_users;  // in node order
  };

  bool read_node(object obj, const JsonPath& path, Scope& scope);
  bool check_users(const JsonPath& nodes_path, Scope& scope);
  bool read_argument(element e, const JsonPath& path, const Scope& scope, Argument& out);
  /// null, booleans, integers and strings, which stand for themselves in every context;
  /// nullopt for other JSON types.
  std::optional<bool> read_scalar(element e, const JsonPath& path, Argument& out);
  /// Untagged JSON (meta["custom"]): numbers with a fraction are floats, arrays lists.
  bool read_plain(element e, const JsonPath& path, Argument& out);
  bool read_meta(object obj, const JsonPath& path, const Scope& scope, Meta& meta);
  bool read_value_meta(element e, const JsonPath& path, Meta& meta, ValueKey key);
  bool read_tensor_meta(element e, const JsonPath& path, TensorMeta& out);
  bool read_dims(element e, const JsonPath& path, std::vector<SymInt>& out);
  bool read_names_or_null(element e, const JsonPath& path, std::vector<std::string>& out);

  JsonReader& r_;
  InternCache strings_;
};

bool GraphReader::read_dims(element e, const JsonPath& path, std::vector<SymInt>& out) {
  array arr;
  if (!r_.get_array(e, path, arr)) return false;
  out.clear();
  size_t i = 0;
  for (element d : arr) {
    JsonPath p = path.at(i++);
    if (d.type() == element_type::OBJECT) {
      element sym;
      std::string_view expr;
      if (object(d)["sym"].get(sym) || !r_.get_string(sym, p.field("sym"), expr))
        return r_.failed() ? false : r_.fail(p, "expected an integer or {\"sym\": \"...\"}");
      out.push_back(SymInt::symbolic(expr));
      continue;
    }
    int64_t v;
    if (!r_.get_int(d, p, v)) return false;
    if (!SymInt::fits(v)) return r_.fail(p, "dimension " + std::to_string(v) + " out of range");
    out.emplace_back(v);
  }
  return true;
}

bool GraphReader::read_tensor_meta(element e, const JsonPath& path, TensorMeta& out) {
  object obj;
  if (!r_.get_object(e, path, obj)) return false;
  std::vector<SymInt> sizes, strides;
  bool has_sizes = false, has_strides = false;
  std::optional<int64_t> numel, nbytes, numel_hint;
  for (auto [key, value] : obj) {
    JsonPath p = path.field(key);
    if (key == "dtype") {
      std::string_view s;
      if (!r_.get_string(value, p, s)) return false;
      std::optional<DType> d = parse_dtype(s);
      if (!d) return r_.fail(p, "unknown dtype \"" + std::string(s) + "\"");
      out.dtype = *d;
    } else if (key == "shape") {
      if (!read_dims(value, p, sizes)) return false;
      has_sizes = true;
    } else if (key == "stride") {
      if (value.is_null()) continue;
      if (!read_dims(value, p, strides)) return false;
      has_strides = true;
    } else if (key == "device") {
      if (value.is_null()) continue;
      std::string_view s;
      if (!r_.get_string(value, p, s)) return false;
      out.device = strings_.get(s);
    } else if (key == "requires_grad") {
      bool b;
      if (!r_.get_bool(value, p, b)) return false;
      out.requires_grad = b;
    } else if (key == "is_quantized") {
      bool b;
      if (!r_.get_bool(value, p, b)) return false;
      out.is_quantized = b;
    } else if (key == "memory_format") {
      if (value.is_null()) continue;
      std::string_view s;
      if (!r_.get_string(value, p, s)) return false;
      std::optional<MemoryFormat> m = parse_memory_format(s);
      if (!m) return r_.fail(p, "unknown memory format \"" + std::string(s) + "\"");
      out.memory_format = *m;
    } else if (key == "numel_hint") {
      int64_t v;
      if (!r_.get_int(value, p, v)) return false;
      if (v < 0) return r_.fail(p, "must not be negative");
      numel_hint = v;
    } else if (key == "numel" || key == "nbytes") {
      if (value.is_null()) continue;
      int64_t v;
      if (!r_.get_int(value, p, v)) return false;
      (key == "numel" ? numel : nbytes) = v;
    } else {
      out.mutable_extras().push_back({std::string(key), JsonReader::raw(value)});
    }
  }
  if (out.dtype == DType::Unknown) return r_.fail(path, "tensor metadata without \"dtype\"");
  if (!has_sizes) return r_.fail(path, "tensor metadata without \"shape\"");
  if (has_strides && strides.size() != sizes.size())
    return r_.fail(path.field("stride"), "stride has " + std::to_string(strides.size()) +
                                             " entries but shape has " +
                                             std::to_string(sizes.size()));
  std::optional<std::span<const SymInt>> stride_span =
      has_strides ? std::optional<std::span<const SymInt>>(strides) : std::nullopt;
  if (std::optional<std::string> why = TensorMeta::shape_problem(sizes, stride_span))
    return r_.fail(path.field("shape"), *why);
  out.set_shape(sizes, stride_span);
  if (numel_hint) out.set_numel_hint(numel_hint);
  // numel and nbytes are derived; a file whose values disagree is inconsistent.
  if (numel && out.numel() && *numel != *out.numel())
    return r_.fail(path.field("numel"), "numel " + std::to_string(*numel) +
                                            " does not match the shape (" +
                                            std::to_string(*out.numel()) + ")");
  if (nbytes && out.nbytes() && *nbytes != *out.nbytes())
    return r_.fail(path.field("nbytes"), "nbytes " + std::to_string(*nbytes) +
                                             " does not match shape and dtype (" +
                                             std::to_string(*out.nbytes()) + ")");
  return true;
}

bool GraphReader::read_value_meta(element e, const JsonPath& path, Meta& meta, ValueKey key) {
  switch (e.type()) {
    case element_type::NULL_VALUE:
      meta.clear_value();
      break;
    case element_type::ARRAY: {
      std::vector<std::optional<TensorMeta>> elements;
      size_t i = 0;
      for (element item : array(e)) {
        JsonPath p = path.at(i++);
        if (item.is_null()) {
          elements.emplace_back();
          continue;
        }
        TensorMeta t;
        if (!read_tensor_meta(item, p, t)) return false;
        elements.emplace_back(std::move(t));
      }
      meta.set_tensor_tuple(std::move(elements));
      break;
    }
    case element_type::INT64:
      meta.set_sym_value(SymInt(int64_t(e)));
      break;
    case element_type::OBJECT: {
      element sym;
      if (!object(e)["sym"].get(sym) && object(e).size() == 1) {
        std::string_view expr;
        if (!r_.get_string(sym, path.field("sym"), expr)) return false;
        meta.set_sym_value(SymInt::symbolic(expr));
        break;
      }
      TensorMeta t;
      if (!read_tensor_meta(e, path, t)) return false;
      meta.set_tensor(std::move(t));
      break;
    }
    default:
      return r_.fail(path, "expected tensor metadata, a list of them, or null; got " +
                               std::string(JsonReader::type_name(e)));
  }
  meta.set_value_key(key);
  return true;
}

std::optional<bool> GraphReader::read_scalar(element e, const JsonPath& path, Argument& out) {
  switch (e.type()) {
    case element_type::NULL_VALUE:
      out = Argument::none();
      return true;
    case element_type::BOOL:
      out = Argument::boolean(bool(e));
      return true;
    case element_type::INT64:
      out = Argument::integer(int64_t(e));
      return true;
    case element_type::UINT64:
      return r_.fail(path, "integer " + JsonReader::raw(e) + " is too large (at most 2^63-1)");
    case element_type::STRING:
      out = Argument::string(std::string_view(e));
      return true;
    default:
      return std::nullopt;
  }
}

bool GraphReader::read_plain(element e, const JsonPath& path, Argument& out) {
  if (std::optional<bool> scalar = read_scalar(e, path, out)) return *scalar;
  if (e.type() == element_type::DOUBLE) {
    out = Argument::floating(double(e));
    return true;
  }
  if (e.type() == element_type::ARRAY) {
    std::vector<Argument> items;
    size_t i = 0;
    for (element item : array(e)) {
      Argument a;
      if (!read_plain(item, path.at(i++), a)) return false;
      items.push_back(std::move(a));
    }
    out = Argument::list(std::move(items));
    return true;
  }
  std::vector<DictEntry> entries;
  for (auto [key, value] : object(e)) {
    Argument a;
    if (!read_plain(value, path.field(key), a)) return false;
    entries.push_back({std::string(key), std::move(a)});
  }
  out = Argument::dict(std::move(entries));
  return true;
}

bool GraphReader::read_meta(object obj, const JsonPath& path, const Scope& scope, Meta& meta) {
  bool has_val = false;
  for (auto [key, value] : obj) {
    if (key == "val" || key == "val_ref") has_val = true;
  }
  // An index into one of the module's tables, checked.
  auto table_index = [&](element value, const JsonPath& p, size_t size, const char* table,
                         size_t& out) {
    int64_t index;
    if (!r_.get_int(value, p, index)) return false;
    if (index < 0 || static_cast<uint64_t>(index) >= size)
      return r_.fail(p, "no entry " + std::to_string(index) + " in the graph's \"" + table +
                            "\" (" + std::to_string(size) + " entries)");
    out = static_cast<size_t>(index);
    return true;
  };
  for (auto [key, value] : obj) {
    JsonPath p = path.field(key);
    if (key == "val") {
      if (!read_value_meta(value, p, meta, ValueKey::Val)) return false;
    } else if (key == "tensor_meta" && !has_val) {
      if (!read_value_meta(value, p, meta, ValueKey::TensorMeta)) return false;
    } else if (key == "stack_trace") {
      if (value.is_null()) continue;
      std::string_view s;
      if (!r_.get_string(value, p, s)) return false;
      meta.stack_trace = strings_.get(s);
    } else if (key == "stack_trace_ref") {
      size_t i;
      if (!table_index(value, p, scope.stack_traces.size(), "stack_traces", i)) return false;
      meta.stack_trace = scope.stack_traces[i];
    } else if (key == "val_ref") {
      size_t i;
      if (!table_index(value, p, scope.tensor_metas.size(), "tensor_metas", i)) return false;
      meta.set_tensor(scope.tensor_metas[i]);
      meta.set_value_key(ValueKey::Val);
    } else if (key == "keys_ref") {
      size_t i;
      if (!table_index(value, p, scope.meta_keys.size(), "meta_keys", i)) return false;
      meta.set_source_keys(scope.meta_keys[i]);
    } else if (key == "recompute") {
      if (value.is_null()) continue;
      std::string_view s;
      if (!r_.get_string(value, p, s)) return false;
      std::optional<CheckpointPolicy> policy = parse_policy(s);
      if (!policy) return r_.fail(p, "unknown checkpoint policy \"" + std::string(s) + "\"");
      meta.recompute = *policy;
    } else if (key == "ac_graph_id" || key == "seq_nr") {
      if (value.is_null()) continue;
      int64_t v;
      if (!r_.get_int(value, p, v)) return false;
      if (key == "ac_graph_id")
        meta.set_ac_graph_id(v);
      else
        meta.set_seq_nr(v);
    } else if (key == "partitioner_tag") {
      if (value.is_null()) continue;
      std::string_view s;
      if (!r_.get_string(value, p, s)) return false;
      std::optional<PartitionerTag> tag = parse_partitioner_tag(s);
      if (!tag) return r_.fail(p, "unknown partitioner tag \"" + std::string(s) + "\"");
      meta.partitioner_tag = *tag;
    } else if (key == "desc") {
      if (value.is_null()) continue;
      if (value.type() == element_type::STRING) {
        meta.set_desc(Argument::string(std::string_view(value)));
        continue;
      }
      array arr;
      if (!r_.get_array(value, p, arr)) return false;
      std::vector<Argument> items;
      size_t i = 0;
      for (element item : arr) {
        JsonPath q = p.at(i++);
        if (item.is_null()) {
          items.emplace_back();
          continue;
        }
        std::string_view s;
        if (!r_.get_string(item, q, s)) return false;
        items.push_back(Argument::string(s));
      }
      meta.set_desc(Argument::list(std::move(items)));
    } else if (key == "custom") {
      if (value.is_null()) continue;
      object custom;
      if (!r_.get_object(value, p, custom)) return false;
      Argument a;
      if (!read_plain(value, p, a)) return false;
      meta.set_custom(std::move(a));
    } else if (key == "keys") {
      std::vector<std::string> keys;
      if (!r_.get_string_list(value, p, keys)) return false;
      meta.set_source_keys(std::move(keys));
    } else {
      meta.mutable_extras().push_back({std::string(key), JsonReader::raw(value)});
    }
  }
  return true;
}

bool GraphReader::read_argument(element e, const JsonPath& path, const Scope& scope,
                                Argument& out) {
  if (std::optional<bool> scalar = read_scalar(e, path, out)) return *scalar;
  if (e.type() == element_type::DOUBLE)
    return r_.fail(path, "untagged float " + JsonReader::raw(e) +
                             "; floats are written {\"float\": " + JsonReader::raw(e) + "}");
  if (e.type() == element_type::ARRAY)
    return r_.fail(path, "untagged array; write {\"list\": [...]} or {\"tuple\": [...]}");
  object obj(e);
  auto it = obj.begin();
  if (it == obj.end()) return r_.fail(path, "empty object is not a value; expected a tagged value");
  std::string_view tag = it.key();
  element v = it.value();
  JsonPath p = path.field(tag);
  size_t size = obj.size();
  if (tag == "repr" || tag == "type") {
    element repr, type;
    std::string_view repr_s, type_s;
    if (obj["repr"].get(repr) || obj["type"].get(type) || size != 2)
      return r_.fail(path, "a repr value needs exactly \"repr\" and \"type\"");
    if (!r_.get_string(repr, path.field("repr"), repr_s) ||
        !r_.get_string(type, path.field("type"), type_s))
      return false;
    out = Argument::repr(repr_s, type_s);
    return true;
  }
  if (size != 1)
    return r_.fail(path, "a tagged value has one key, this one has " + std::to_string(size));

  auto read_sequence = [&](std::vector<Argument>& items) {
    array arr;
    if (!r_.get_array(v, p, arr)) return false;
    size_t i = 0;
    for (element item : arr) {
      Argument a;
      if (!read_argument(item, p.at(i++), scope, a)) return false;
      items.push_back(std::move(a));
    }
    return true;
  };

  if (tag == "node") {
    std::string_view name;
    if (!r_.get_string(v, p, name)) return false;
    Node* n = scope.graph->find(name);
    if (n == nullptr) {
      for (element later : scope.nodes) {
        element later_name;
        std::string_view s;
        if (later.type() == element_type::OBJECT && !object(later)["name"].get(later_name) &&
            !later_name.get_string().get(s) && s == name)
          return r_.fail(p, "node '" + std::string(name) + "' is used before its definition");
      }
      return r_.fail(p, "dangling reference to node '" + std::string(name) +
                            "', which the graph does not define");
    }
    out = Argument::node(n);
  } else if (tag == "float") {
    double d;
    if (!r_.get_number(v, p, d)) return false;
    out = Argument::floating(d);
  } else if (tag == "list" || tag == "tuple") {
    std::vector<Argument> items;
    if (!read_sequence(items)) return false;
    out = tag == "list" ? Argument::list(std::move(items)) : Argument::tuple(std::move(items));
  } else if (tag == "dict") {
    object d;
    if (!r_.get_object(v, p, d)) return false;
    std::vector<DictEntry> entries;
    for (auto [key, value] : d) {
      Argument a;
      if (!read_argument(value, p.field(key), scope, a)) return false;
      entries.push_back({std::string(key), std::move(a)});
    }
    out = Argument::dict(std::move(entries));
  } else if (tag == "slice") {
    std::vector<Argument> items;
    if (!read_sequence(items)) return false;
    if (items.size() != 3)
      return r_.fail(
          p, "a slice has 3 parts [start, stop, step], got " + std::to_string(items.size()));
    out = Argument::slice(std::move(items[0]), std::move(items[1]), std::move(items[2]));
  } else if (tag == "dtype") {
    std::string_view s;
    if (!r_.get_string(v, p, s)) return false;
    std::optional<DType> d = parse_dtype(s);
    if (!d) return r_.fail(p, "unknown dtype \"" + std::string(s) + "\"");
    out = Argument::dtype(*d);
  } else if (tag == "device") {
    std::string_view s;
    if (!r_.get_string(v, p, s)) return false;
    out = Argument::device(s);
  } else if (tag == "layout") {
    std::string_view s;
    if (!r_.get_string(v, p, s)) return false;
    std::optional<Layout> l = parse_layout(s);
    if (!l) return r_.fail(p, "unknown layout \"" + std::string(s) + "\"");
    out = Argument::layout(*l);
  } else if (tag == "memory_format") {
    std::string_view s;
    if (!r_.get_string(v, p, s)) return false;
    std::optional<MemoryFormat> m = parse_memory_format(s);
    if (!m) return r_.fail(p, "unknown memory format \"" + std::string(s) + "\"");
    out = Argument::memory_format(*m);
  } else if (tag == "op" || tag == "enum" || tag == "sym") {
    std::string_view s;
    if (!r_.get_string(v, p, s)) return false;
    out = tag == "op"     ? Argument::op(s)
          : tag == "enum" ? Argument::enum_member(s)
                          : Argument::sym(s);
  } else if (tag == "complex") {
    array arr;
    if (!r_.get_array(v, p, arr)) return false;
    if (arr.size() != 2) return r_.fail(p, "a complex value is [re, im]");
    double re, im;
    if (!r_.get_number(arr.at(0).value_unsafe(), p.at(0), re) ||
        !r_.get_number(arr.at(1).value_unsafe(), p.at(1), im))
      return false;
    out = Argument::complex(re, im);
  } else if (tag == "tensor_constant") {
    object tc;
    if (!r_.get_object(v, p, tc)) return false;
    element dtype_e, shape_e;
    if (tc["dtype"].get(dtype_e) || tc["shape"].get(shape_e))
      return r_.fail(p, "a tensor constant needs \"dtype\" and \"shape\"");
    std::string_view s;
    if (!r_.get_string(dtype_e, p.field("dtype"), s)) return false;
    std::optional<DType> d = parse_dtype(s);
    if (!d) return r_.fail(p.field("dtype"), "unknown dtype \"" + std::string(s) + "\"");
    std::vector<SymInt> shape;
    if (!read_dims(shape_e, p.field("shape"), shape)) return false;
    out = Argument::tensor_constant(*d, std::move(shape));
  } else {
    return r_.fail(path, "unknown value tag \"" + std::string(tag) + "\"");
  }
  return true;
}

bool GraphReader::read_names_or_null(element e, const JsonPath& path,
                                     std::vector<std::string>& out) {
  array arr;
  if (!r_.get_array(e, path, arr)) return false;
  size_t i = 0;
  for (element item : arr) {
    if (item.is_null()) {
      out.emplace_back();
      ++i;
      continue;
    }
    std::string_view s;
    if (!r_.get_string(item, path.at(i++), s)) return false;
    out.emplace_back(s);
  }
  return true;
}

bool GraphReader::read_node(object obj, const JsonPath& path, Scope& scope) {
  std::string_view name, op_name, target;
  element args_e, kwargs_e, users_e, meta_e;
  bool has_args = false, has_kwargs = false, has_users = false, has_meta = false;
  bool has_name = false, has_op = false, has_target = false;
  RawJsonFields extras;
  for (auto [key, value] : obj) {
    JsonPath p = path.field(key);
    if (key == "name") {
      if (!r_.get_string(value, p, name)) return false;
      has_name = true;
    } else if (key == "op") {
      if (!r_.get_string(value, p, op_name)) return false;
      has_op = true;
    } else if (key == "target") {
      if (!r_.get_string(value, p, target)) return false;
      has_target = true;
    } else if (key == "args") {
      args_e = value;
      has_args = true;
    } else if (key == "kwargs") {
      kwargs_e = value;
      has_kwargs = true;
    } else if (key == "users") {
      users_e = value;
      has_users = true;
    } else if (key == "meta") {
      meta_e = value;
      has_meta = true;
    } else {
      extras.push_back({std::string(key), JsonReader::raw(value)});
    }
  }
  if (!has_name) return r_.fail(path, "node without \"name\"");
  if (name.empty()) return r_.fail(path.field("name"), "empty node name");
  if (!has_op) return r_.fail(path, "node '" + std::string(name) + "' without \"op\"");
  std::optional<OpKind> op = parse_op_kind(op_name);
  if (!op)
    return r_.fail(path.field("op"), "unknown op kind \"" + std::string(op_name) +
                                         "\" (expected placeholder, get_attr, call_function, "
                                         "call_method, call_module or output)");
  if (!has_target) return r_.fail(path, "node '" + std::string(name) + "' without \"target\"");

  const JsonPath args_path = path.field("args"), kwargs_path = path.field("kwargs");
  std::vector<Argument> args;
  if (has_args) {
    array arr;
    if (!r_.get_array(args_e, path.field("args"), arr)) return false;
    args.reserve(arr.size());
    size_t i = 0;
    for (element a : arr) {
      Argument value;
      if (!read_argument(a, args_path.at(i++), scope, value)) return false;
      args.push_back(std::move(value));
    }
  }
  std::vector<Kwarg> kwargs;
  if (has_kwargs) {
    object kw;
    if (!r_.get_object(kwargs_e, path.field("kwargs"), kw)) return false;
    for (auto [key, value] : kw) {
      Argument a;
      if (!read_argument(value, kwargs_path.field(key), scope, a)) return false;
      kwargs.push_back({strings_.get(key), std::move(a)});
    }
  }
  if (*op == OpKind::Output && args.size() != 1)
    return r_.fail(path.field("args"), "the output node takes exactly one argument, got " +
                                           std::to_string(args.size()));
  Node* n = scope.graph->create_node_exact(*op, strings_.get(target), name, std::move(args),
                                           std::move(kwargs));
  if (n == nullptr)
    return r_.fail(path.field("name"), "duplicate node name '" + std::string(name) + "'");
  if (has_meta) {
    object meta;
    if (!r_.get_object(meta_e, path.field("meta"), meta)) return false;
    if (!read_meta(meta, path.field("meta"), scope, n->meta)) return false;
  }
  if (!extras.empty()) n->meta.mutable_node_fields() = std::move(extras);
  if (has_users) {
    std::vector<std::string> listed;
    if (!r_.get_string_list(users_e, path.field("users"), listed)) return false;
    scope.listed_users.emplace_back(n, std::move(listed));
  }
  return true;
}

bool GraphReader::check_users(const JsonPath& nodes_path, Scope& scope) {
  // Users are derived from args; a file that lists them must agree (order may differ, and is
  // then taken from the file, so a round trip keeps it).
  auto listed_it = scope.listed_users.begin();
  size_t index = 0;
  for (Node* node : scope.graph->nodes()) {
    size_t position = index++;
    if (listed_it == scope.listed_users.end()) break;
    if (listed_it->first != node) continue;
    const std::vector<std::string>& listed = (listed_it++)->second;
    const auto& actual = node->users();
    bool same = listed.size() == actual.size();
    for (size_t i = 0; same && i < listed.size(); ++i) same = listed[i] == actual[i]->name();
    if (same) continue;  // the common case: no lookups

    const JsonPath node_path = nodes_path.at(position);
    const JsonPath p = node_path.field("users");
    std::vector<Node*> order;
    for (const std::string& name : listed) {
      Node* user = scope.graph->find(name);
      if (user == nullptr)
        return r_.fail(p, "lists user '" + name + "', which the graph does not define");
      if (std::find(actual.begin(), actual.end(), user) == actual.end())
        return r_.fail(p, "lists user '" + name + "', which does not use '" + node->name() + "'");
      if (std::find(order.begin(), order.end(), user) != order.end())
        return r_.fail(p, "lists user '" + name + "' twice");
      order.push_back(user);
    }
    for (Node* user : actual)
      if (std::find(order.begin(), order.end(), user) == order.end())
        return r_.fail(
            p, "does not list user '" + user->name() + "', which uses '" + node->name() + "'");
    node->set_users_order(order);
  }
  return true;
}

bool GraphReader::read_module(object obj, const JsonPath& path, GraphModule& m) {
  element nodes_e, placeholders_e, outputs_e;
  bool has_nodes = false, has_placeholders = false, has_outputs = false;
  Scope scope;
  for (auto [key, value] : obj) {
    JsonPath p = path.field(key);
    if (key == "schema") {
      continue;  // checked by the caller for the top level
    } else if (key == "graph_name" || key == "class_name" || key == "trailer") {
      std::string_view s;
      if (!r_.get_string(value, p, s)) return false;
      (key == "graph_name" ? m.graph_name : key == "class_name" ? m.class_name : m.trailer) = s;
    } else if (key == "nodes") {
      nodes_e = value;
      has_nodes = true;
    } else if (key == "placeholders") {
      placeholders_e = value;
      has_placeholders = true;
    } else if (key == "stack_traces") {
      array table;
      if (!r_.get_array(value, p, table)) return false;
      size_t i = 0;
      for (element item : table) {
        std::string_view s;
        if (!r_.get_string(item, p.at(i++), s)) return false;
        scope.stack_traces.push_back(InternedString(s));
      }
    } else if (key == "tensor_metas") {
      array table;
      if (!r_.get_array(value, p, table)) return false;
      size_t i = 0;
      for (element item : table) {
        TensorMeta t;
        if (!read_tensor_meta(item, p.at(i++), t)) return false;
        scope.tensor_metas.push_back(std::move(t));
      }
    } else if (key == "meta_keys") {
      array table;
      if (!r_.get_array(value, p, table)) return false;
      size_t i = 0;
      for (element item : table) {
        std::vector<std::string> keys;
        if (!r_.get_string_list(item, p.at(i++), keys)) return false;
        scope.meta_keys.push_back(std::move(keys));
      }
    } else if (key == "outputs") {
      outputs_e = value;
      has_outputs = true;
    } else if (key == "num_fwd_outputs" || key == "num_primals" || key == "num_tangents" ||
               key == "num_real_outputs") {
      int64_t v;
      if (!r_.get_int(value, p, v)) return false;
      if (v < 0) return r_.fail(p, "must not be negative");
      (key == "num_fwd_outputs" ? m.num_fwd_outputs
       : key == "num_primals"   ? m.num_primals
       : key == "num_tangents"  ? m.num_tangents
                                : m.num_real_outputs) = v;
    } else if (key == "static_lifetime_input_indices") {
      array items;
      if (!r_.get_array(value, p, items)) return false;
      std::vector<int64_t> indices;
      size_t i = 0;
      for (element item : items) {
        int64_t v;
        JsonPath at = p.at(i++);
        if (!r_.get_int(item, at, v)) return false;
        if (v < 0) return r_.fail(at, "must not be negative");
        indices.push_back(v);
      }
      m.static_lifetime_input_indices = std::move(indices);
    } else if (key == "saved_values") {
      std::vector<std::string> names;
      if (!r_.get_string_list(value, p, names)) return false;
      m.saved_values = std::move(names);
    } else if (key == "text_style") {
      object ts;
      if (!r_.get_object(value, p, ts)) return false;
      TextStyle style;
      for (auto [tk, tv] : ts) {
        JsonPath tp = p.field(tk);
        if (tk == "dialect" || tk == "tags") {
          std::string_view name;
          if (!r_.get_string(tv, tp, name)) return false;
          bool known = true;
          if (tk == "dialect") {
            std::optional<Dialect> d = parse_dialect(name);
            if (d) style.dialect = *d;
            known = d.has_value();
          } else {
            std::optional<TagStyle> t = parse_tag_style(name);
            if (t) style.tag_style = *t;
            known = t.has_value();
          }
          if (!known)
            return r_.fail(tp, "unknown " + std::string(tk) + " \"" + std::string(name) + "\"");
          continue;
        }
        if (tk == "additional_meta") {
          if (!r_.get_string_list(tv, tp, style.additional_meta)) return false;
          continue;
        }
        bool* flag = tk == "include_stride"           ? &style.include_stride
                     : tk == "include_device"         ? &style.include_device
                     : tk == "expanded_def"           ? &style.expanded_def
                     : tk == "colored"                ? &style.colored
                     : tk == "quoted_annotations"     ? &style.quoted_annotations
                     : tk == "comment_names_function" ? &style.comment_names_function
                     : tk == "deep_comments"          ? &style.deep_comments
                     : tk == "free_dead_results"      ? &style.free_dead_results
                     : tk == "truncate_annotations"   ? &style.truncate_annotations
                     : tk == "show_meta"              ? &style.show_meta
                     : tk == "indent_blank_lines"     ? &style.indent_blank_lines
                                                      : nullptr;
        if (flag == nullptr) return r_.fail(tp, "unknown text_style key");
        if (!r_.get_bool(tv, tp, *flag)) return false;
      }
      m.text_style = style;
    } else if (key == "codegen") {
      object cg;
      if (!r_.get_object(value, p, cg)) return false;
      for (auto [ck, cv] : cg) {
        if (ck == "kind") {
          std::string_view kind;
          if (!r_.get_string(cv, p.field("kind"), kind)) return false;
          if (kind == "plain")
            m.codegen.kind = CodegenKind::Plain;
          else if (kind == "pytree")
            m.codegen.kind = CodegenKind::Pytree;
          else
            return r_.fail(p.field("kind"), "unknown codegen kind \"" + std::string(kind) +
                                                "\" (expected plain or pytree)");
        } else if (ck == "in_args") {
          if (!r_.get_string_list(cv, p.field("in_args"), m.codegen.in_args)) return false;
        } else if (ck == "in_spec" || ck == "out_spec") {
          if (!r_.get_bool(cv, p.field(ck),
                           ck == "in_spec" ? m.codegen.in_spec : m.codegen.out_spec))
            return false;
        } else {
          return r_.fail(p.field(ck), "unknown codegen key");
        }
      }
    } else if (key == "submodules") {
      array subs;
      if (!r_.get_array(value, p, subs)) return false;
      size_t i = 0;
      for (element sub : subs) {
        JsonPath sp = p.at(i++);
        object so;
        if (!r_.get_object(sub, sp, so)) return false;
        element name_e, graph_e;
        if (so["name"].get(name_e)) return r_.fail(sp, "submodule without \"name\"");
        if (so["graph"].get(graph_e)) return r_.fail(sp, "submodule without \"graph\"");
        std::string_view sub_name;
        if (!r_.get_string(name_e, sp.field("name"), sub_name)) return false;
        object graph_obj;
        if (!r_.get_object(graph_e, sp.field("graph"), graph_obj)) return false;
        auto child = std::make_unique<GraphModule>();
        if (!read_module(graph_obj, sp.field("graph"), *child)) return false;
        m.submodules.push_back({std::string(sub_name), std::move(child)});
      }
    } else {
      m.extras.push_back({std::string(key), JsonReader::raw(value)});
    }
  }
  if (!has_nodes) return r_.fail(path, "graph without \"nodes\"");

  JsonPath nodes_path = path.field("nodes");
  array nodes;
  if (!r_.get_array(nodes_e, nodes_path, nodes)) return false;
  scope.graph = &m.graph();
  scope.nodes = nodes;
  scope.graph->reserve(nodes.size());
  size_t i = 0;
  for (element n : nodes) {
    JsonPath np = nodes_path.at(i++);
    object node_obj;
    if (!r_.get_object(n, np, node_obj)) return false;
    if (!read_node(node_obj, np, scope)) return false;
  }
  if (!check_users(nodes_path, scope)) return false;

  size_t output_nodes = 0;
  for (const Node* n : m.graph().nodes()) output_nodes += n->op() == OpKind::Output ? 1 : 0;
  if (output_nodes != 1)
    return r_.fail(nodes_path, "a graph needs exactly one output node, this one has " +
                                   std::to_string(output_nodes));

  // The summary lists must agree with the nodes they summarize.
  if (has_placeholders) {
    std::vector<std::string> listed;
    if (!r_.get_string_list(placeholders_e, path.field("placeholders"), listed)) return false;
    std::vector<std::string> actual;
    for (const Node* n : m.graph().placeholders()) actual.push_back(n->name());
    if (listed != actual)
      return r_.fail(path.field("placeholders"), "does not match the placeholder nodes in order (" +
                                                     std::to_string(actual.size()) +
                                                     " placeholder nodes)");
  }
  if (has_outputs) {
    std::vector<std::string> listed;
    if (!read_names_or_null(outputs_e, path.field("outputs"), listed)) return false;
    std::vector<std::string> actual;
    for (const Argument& a : m.outputs())
      actual.push_back(a.is_node() ? a.as_node()->name() : std::string());
    if (listed != actual)
      return r_.fail(path.field("outputs"), "does not match the output node's values (" +
                                                std::to_string(actual.size()) + " outputs)");
  }
  if (m.saved_values) {
    size_t k = 0;
    const JsonPath saved_path = path.field("saved_values");
    for (const std::string& name : *m.saved_values) {
      if (m.graph().find(name) == nullptr)
        return r_.fail(saved_path.at(k), "names no node of the graph: '" + name + "'");
      ++k;
    }
  }
  return true;
}

}  // namespace

Expected<GraphModule> read_graph_json(std::string_view text, const std::string& file) {
  JsonReader reader(file);
  std::optional<element> root = reader.parse(text);
  if (!root) return reader.error();
  object obj;
  if (!reader.get_object(*root, JsonPath{}, obj)) return reader.error();
  if (!reader.check_schema(obj, kGraphSchema)) return reader.error();
  GraphModule module;
  GraphReader graph_reader(reader);
  if (!graph_reader.read_module(obj, JsonPath{}, module)) return reader.error();
  return module;
}

Expected<GraphModule> load_graph_json(const std::string& path) {
  Expected<std::string> text = read_file(path);
  REMAT_TRY(text);
  return read_graph_json(*text, display_name(path));
}

}  // namespace remat
