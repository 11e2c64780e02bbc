#include "remat/print/meta_text.h"

#include <algorithm>
#include <cctype>

#include "remat/fxtext/recompute_tags.h"
#include "remat/fxtext/traceback.h"
#include "remat/support/float_repr.h"
#include "remat/support/json_text.h"
#include "remat/support/python_repr.h"

namespace remat {
namespace {

std::string color(bool on, std::string_view code, const std::string& s) {
  return on ? std::string(code) + s + "\033[0m" : s;
}

std::string dims_text(std::span<const SymInt> dims) {
  return "[" + join_dims(dims) + "]";
}

std::string abbr(DType d) {
  std::string_view a = dtype_abbr(d);
  if (!a.empty()) return std::string(a);
  std::string_view name = dtype_name(d);
  return std::string(name.starts_with("torch.") ? name.substr(6) : name);
}

/// Python repr() of a plain value (meta["custom"] and friends).
std::string value_repr(const Argument& a) {
  switch (a.kind()) {
    case ArgKind::None:
      return "None";
    case ArgKind::Bool:
      return a.as_bool() ? "True" : "False";
    case ArgKind::Int:
      return std::to_string(a.as_int());
    case ArgKind::Float:
      return python_float_repr(a.as_float());
    case ArgKind::String:
      return python_str_repr(a.as_text());
    case ArgKind::List:
    case ArgKind::Tuple: {
      bool list = a.is(ArgKind::List);
      std::string out = list ? "[" : "(";
      auto items = a.elements();
      for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + value_repr(items[i]);
      return out + (list ? "]" : items.size() == 1 ? ",)" : ")");
    }
    case ArgKind::Dict: {
      std::string out = "{";
      bool first = true;
      for (const DictEntry& e : a.dict_entries()) {
        out += (first ? "" : ", ") + python_str_repr(e.key) + ": " + value_repr(e.value);
        first = false;
      }
      return out + "}";
    }
    case ArgKind::SymInt:
    case ArgKind::Op:
    case ArgKind::Enum:
    case ArgKind::Device:
      return std::string(a.as_text());
    default:
      return std::string(arg_kind_name(a.kind()));
  }
}

/// Python str(): strings as they are, everything else as repr().
std::string value_str(const Argument& a) {
  return a.is(ArgKind::String) ? std::string(a.as_text()) : value_repr(a);
}

size_t utf8_length(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string utf8_prefix(std::string_view s, size_t code_points) {
  size_t i = 0, n = 0;
  while (i < s.size()) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) {
      if (n == code_points) break;
      ++n;
    }
    ++i;
  }
  return std::string(s.substr(0, i));
}

/// ` Annotation: {...}` with current torch.fx's 40-character truncation of long values.
std::string annotation_text(const Argument& custom, bool truncate) {
  if (custom.is(ArgKind::Repr)) return " Annotation: " + std::string(custom.repr_text());
  if (!custom.is(ArgKind::Dict) || custom.dict_entries().empty()) return "";
  std::string out = " Annotation: {";
  bool first = true;
  for (const DictEntry& e : custom.dict_entries()) {
    std::string text = value_str(e.value);
    std::string v = truncate && utf8_length(text) > 40
                        ? python_str_repr(utf8_prefix(text, 40) + "...")
                        : value_repr(e.value);
    out += (first ? "" : ", ") + python_str_repr(e.key) + ": " + v;
    first = false;
  }
  return out + "}";
}

/// The innermost user frame of a Python traceback: `File: f.py:9 in fn, code: x = y`
/// (docs/spec/readable-text.md §4.1). Without `in fn` before 2024 (`names_function` false).
std::optional<std::string> stack_frame_text(std::string_view trace, bool names_function) {
  std::optional<fxtext::TracebackFrame> line = fxtext::innermost_frame(trace);
  if (!line) return std::nullopt;
  const fxtext::TracebackFrame& f = *line;
  std::string out = "File: " + std::string(f.file) + ":" + std::string(f.line);
  if (names_function) out += " in " + std::string(f.function);
  return out + ", code: " + std::string(f.code);
}

/// str(meta[key]) for the keys remat types; unknown keys from their JSON text.
std::optional<std::string> meta_value_str(const Node& n, const std::string& key) {
  const Meta& m = n.meta;
  if (key == "seq_nr" && m.seq_nr()) return std::to_string(*m.seq_nr());
  if (key == "ac_graph_id" && m.ac_graph_id()) return std::to_string(*m.ac_graph_id());
  if (key == "recompute" && m.recompute)
    return "CheckpointPolicy." + std::string(policy_name(*m.recompute));
  if (key == "partitioner_tag" && m.partitioner_tag)
    return std::string(partitioner_tag_name(*m.partitioner_tag));
  if (key == "stack_trace" && !m.stack_trace.is_null()) return m.stack_trace.str();
  if (key == "desc" && !m.desc().is_none()) return value_str(m.desc());
  if (key == "custom" && !m.custom().is_none()) return value_repr(m.custom());
  for (const RawJsonField& f : m.extras()) {
    if (f.key != key) continue;
    // Approximate str() of a JSON value: strings unquoted, literals in Python spelling.
    std::string j = f.json;
    if (j.size() >= 2 && j.front() == '"' && j.back() == '"') return j.substr(1, j.size() - 2);
    if (j == "true") return "True";
    if (j == "false") return "False";
    if (j == "null") return "None";
    return j;
  }
  return std::nullopt;
}

std::string tensor_str(const TensorMeta& t, ValueKey key) {
  std::string sizes = join_dims(t.sizes());
  if (key == ValueKey::TensorMeta) {
    std::string strides;
    if (auto s = t.strides()) strides = join_dims(*s);
    if (t.rank() == 1) strides += ",";
    auto flag = [](std::optional<bool> b) { return b.value_or(false) ? "True" : "False"; };
    std::string_view mf = memory_format_name(t.memory_format);
    return "TensorMetadata(shape=torch.Size([" + sizes +
           "]), dtype=" + std::string(dtype_name(t.dtype)) +
           ", requires_grad=" + flag(t.requires_grad) + ", stride=(" + strides +
           "), memory_format=" + std::string(mf.empty() ? "None" : mf) +
           ", is_quantized=" + flag(t.is_quantized) + ", qparams={})";
  }
  if (t.rank() == 1) sizes += ",";
  std::string out = "FakeTensor(..., device='" + t.device.str() + "', size=(" + sizes + ")";
  if (t.dtype != DType::Float32) out += ", dtype=" + std::string(dtype_name(t.dtype));
  return out + ")";
}

/// `ac_graph_id: 2 - PREFER_RECOMPUTE` style text of the node's tags, without the leading `# `.
std::optional<std::string> tag_text(const Meta& meta) {
  return fxtext::format_tags({meta.recompute, meta.ac_graph_id()});
}

}  // namespace

std::string MetaText::annotation(const Meta& meta) const {
  std::string out;
  append_annotation(out, meta);
  return out;
}

void MetaText::append_annotation(std::string& out, const Meta& meta) const {
  switch (meta.value_kind()) {
    case ValueKind::Tensor: {
      const TensorMeta& t = *meta.tensor();
      const char* q = o_.quoted_annotations ? "\"" : "";
      if (meta.value_key() == ValueKey::TensorMeta) {  // ShapeProp's TensorMetadata: no extras
        out += ": ";
        out += q;
        out += abbr(t.dtype);
        out += '[';
        append_dims(out, t.sizes());
        out += ']';
        out += q;
        return;
      }
      auto [it, fresh] = tensor_annotations_.try_emplace(&t);
      if (fresh) {
        std::string shape = dims_text(t.sizes());
        std::string stride, device;
        if (o_.include_stride)
          if (auto s = t.strides()) stride = dims_text(*s);
        if (o_.include_device) device = t.device.str();
        bool c = o_.colored;
        it->second = ": " + (q + color(c, "\033[31m", abbr(t.dtype))) +
                     color(c, "\033[34m", shape) + color(c, "\033[2m\033[34m", stride) +
                     color(c, "\033[2m\033[32m", device) + q;
      }
      out += it->second;
      return;
    }
    case ValueKind::SymInt: {
      SymInt s = *meta.sym_value();
      if (!s.is_symbolic()) return;  // a plain int value gets no annotation
      const char* q = o_.quoted_annotations ? "\"" : "";
      out += ": ";
      out += q;
      out += "Sym(";
      out += s.expression();
      out += ')';
      out += q;
      return;
    }
    default:
      return;
  }
}

std::string MetaText::summary(const Node& node) const {
  const Meta& m = node.meta;
  std::string prefix;
  for (const std::string& key : o_.additional_meta) {
    if (std::optional<std::string> v = meta_value_str(node, key))
      prefix += (prefix.empty() ? "" : ", ") + key + ": " + *v;
  }
  if (!prefix.empty()) prefix = "# " + prefix + " ";
  std::string tag;
  if (o_.tag_style == TagStyle::Inline2025 || o_.tag_style == TagStyle::Inline2026) {
    if (std::optional<std::string> t = tag_text(m))
      tag = (o_.tag_style == TagStyle::Inline2025 ? " # " : " ") + *t;
  }
  std::string ann = annotation_text(m.custom(), o_.truncate_annotations);
  const std::optional<std::string>* frame = nullptr;
  std::optional<std::string> none;
  if (!m.stack_trace.is_null()) {
    auto [it, fresh] = frames_.try_emplace(&m.stack_trace.str());
    if (fresh) it->second = stack_frame_text(m.stack_trace.view(), o_.comment_names_function);
    frame = &it->second;
  }
  if (frame == nullptr) frame = &none;
  // 2.5-2.9: a comment with a frame one column deeper (` # File: ...`).
  std::string out = o_.deep_comments && frame->has_value() ? " " + prefix : prefix;
  out += '#';
  out += ann;
  out += tag;
  out += ' ';
  out += frame->has_value() ? **frame : std::string("No stacktrace found for following nodes");
  return out;
}

namespace {

/// Python's str.strip() for ASCII whitespace.
std::string_view py_strip(std::string_view s) {
  constexpr std::string_view kSpace = " \t\n\r\f\v";
  size_t b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(kSpace) - b + 1);
}

/// `File "(.+)", line (\d+), in (.+)$` with the greedy file group: the path and line number.
std::optional<std::pair<std::string_view, std::string_view>> match_file_line(
    std::string_view line) {
  constexpr std::string_view kHead = "File \"", kLine = "\", line ";
  if (!line.starts_with(kHead)) return std::nullopt;
  for (size_t at = line.rfind(kLine); at != std::string_view::npos && at > kHead.size();
       at = line.rfind(kLine, at - 1)) {
    size_t digits = at + kLine.size(), end = digits;
    while (end < line.size() && std::isdigit(static_cast<unsigned char>(line[end]))) ++end;
    if (end == digits || !line.substr(end).starts_with(", in ") || end + 5 >= line.size()) continue;
    return std::pair{line.substr(kHead.size(), at - kHead.size()),
                     line.substr(digits, end - digits)};
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> node_type_text(const Node& node, std::string_view field) {
  for (const RawJsonField& f : node.meta.node_fields()) {
    if (f.key != field) continue;
    return json::unquote(f.json);
  }
  return std::nullopt;
}

std::string MetaText::summary_1_13(std::string_view stack_trace) {
  std::vector<std::string_view> lines;
  std::string_view rest = py_strip(stack_trace);
  for (size_t start = 0;;) {
    size_t nl = rest.find('\n', start);
    lines.push_back(rest.substr(start, nl == std::string_view::npos ? nl : nl - start));
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
  size_t idx = 0;
  std::string out;
  for (; idx < lines.size() && !py_strip(lines[idx]).starts_with("File "); ++idx)
    out += (idx ? ", " : "") + std::string(py_strip(lines[idx]));
  if (idx + 1 < lines.size()) {
    if (auto m = match_file_line(py_strip(lines[idx])))
      out += (out.empty() ? "" : ", ") +
             ("File: " + std::string(m->first) + ":" + std::string(m->second));
    out += (out.empty() ? "" : ", ") + ("code: " + std::string(py_strip(lines[idx + 1])));
  }
  return out;
}

std::optional<std::string> MetaText::seed_tag_line(const Meta& meta) const {
  std::optional<std::string> t = tag_text(meta);
  if (!t) return std::nullopt;
  return "# " + *t;
}

bool MetaText::empty(const Meta& m) const {
  return m.value_kind() == ValueKind::None && m.stack_trace.is_null() && !m.recompute &&
         !m.ac_graph_id() && !m.partitioner_tag && !m.seq_nr() && m.desc().is_none() &&
         m.custom().is_none() && m.extras().empty();
}

std::vector<std::string> MetaText::full_meta_lines(const Node& node) const {
  const Meta& m = node.meta;
  std::vector<std::string> keys = m.source_keys();
  auto add = [&](const std::string& k) {
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  };
  for (const char* k :
       {"stack_trace", "recompute", "ac_graph_id", "partitioner_tag", "seq_nr", "desc", "custom"})
    add(k);
  for (const RawJsonField& f : m.extras()) add(f.key);
  if (m.value_kind() != ValueKind::None)
    add(m.value_key() == ValueKey::Val ? "val" : "tensor_meta");

  std::vector<std::string> lines;
  for (const std::string& key : keys) {
    std::optional<std::string> v;
    if ((key == "val" && m.value_key() == ValueKey::Val) ||
        (key == "tensor_meta" && m.value_key() == ValueKey::TensorMeta)) {
      if (const TensorMeta* t = m.tensor())
        v = tensor_str(*t, m.value_key());
      else if (auto s = m.sym_value())
        v = s->to_string();
      else if (const auto* tuple = m.tensor_tuple()) {
        std::string items;
        for (const auto& element : *tuple)
          items += (items.empty() ? "" : ", ") +
                   (element ? tensor_str(*element, m.value_key()) : "None");
        v = "(" + items + (tuple->size() == 1 ? ",)" : ")");
      }
    } else {
      v = meta_value_str(node, key);
    }
    if (!v) continue;
    std::string text = key + ": " + pformat_str(*v);
    size_t start = 0;
    while (true) {
      size_t nl = text.find('\n', start);
      lines.push_back(text.substr(start, nl == std::string::npos ? nl : nl - start));
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
  }
  return lines;
}

std::string pformat_str(const std::string& s) {
  // pprint's _pprint_str at top level: width 80, indent 1 inside the parentheses it adds,
  // one column kept free after the last chunk.
  constexpr size_t kWidth = 80;
  std::string whole = python_str_repr(s);
  if (whole.size() <= kWidth || s.empty()) return whole;
  const size_t indent = 1, allowance = 1, max_width = kWidth - indent;
  std::vector<std::string> lines;  // splitlines(keepends=True)
  size_t start = 0;
  while (start < s.size()) {
    size_t nl = s.find('\n', start);
    size_t end = nl == std::string::npos ? s.size() : nl + 1;
    lines.push_back(s.substr(start, end - start));
    start = end;
  }
  std::vector<std::string> chunks;
  std::string last_rep;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    std::string rep = python_str_repr(line);
    last_rep = rep;
    size_t max_width1 = max_width - (i + 1 == lines.size() ? allowance : 0);
    if (rep.size() <= max_width1) {
      chunks.push_back(rep);
      continue;
    }
    // Words with their trailing whitespace: re.findall(r'\S*\s*', line) minus the final "".
    std::vector<std::string> parts;
    size_t p = 0;
    while (p < line.size()) {
      size_t q = p;
      while (q < line.size() && !std::isspace(static_cast<unsigned char>(line[q]))) ++q;
      while (q < line.size() && std::isspace(static_cast<unsigned char>(line[q]))) ++q;
      parts.push_back(line.substr(p, q - p));
      p = q;
    }
    std::string current;
    for (size_t j = 0; j < parts.size(); ++j) {
      size_t max_width2 =
          max_width - (j + 1 == parts.size() && i + 1 == lines.size() ? allowance : 0);
      std::string candidate = current + parts[j];
      if (python_str_repr(candidate).size() > max_width2) {
        if (!current.empty()) chunks.push_back(python_str_repr(current));
        current = parts[j];
      } else {
        current = candidate;
      }
    }
    if (!current.empty()) chunks.push_back(python_str_repr(current));
  }
  if (chunks.size() == 1) return last_rep;
  std::string out = "(";
  for (size_t i = 0; i < chunks.size(); ++i)
    out += (i ? "\n" + std::string(indent, ' ') : "") + chunks[i];
  return out + ")";
}

}  // namespace remat
