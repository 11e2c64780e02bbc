// The readable parser's annotations (`"f32[4, 4][4, 1]cuda:0"`, `Sym(s0)`, types) and comments
// (stack traces of every era, recompute tags, `Annotation: {...}`, shown meta keys).
#include <algorithm>

#include "remat/fxtext/recompute_tags.h"
#include "remat/fxtext/tensor_annotation.h"
#include "remat/fxtext/text_scan.h"
#include "remat/print/detail/readable_parser_state.h"
#include "remat/print/meta_text.h"
#include "remat/support/json_text.h"
#include "remat/support/python_repr.h"

namespace remat::print_detail {

using fxtext::find_outside_quotes;
using fxtext::split_top_level;
using fxtext::trim;

namespace {

/// Annotation dimensions as SymInts; false when an integer is beyond what a SymInt holds.
bool to_symints(const std::vector<fxtext::DimText>& dims, std::vector<SymInt>& out) {
  out.clear();
  for (const fxtext::DimText& d : dims) {
    if (d.value && !SymInt::fits(*d.value)) return false;
    out.push_back(d.value ? SymInt(*d.value) : SymInt::symbolic(d.text));
  }
  return true;
}

/// A dotted name such as `torch.Tensor` or `float`: what type_repr prints for a plain type.
bool is_type_expression(std::string_view a) {
  if (a.empty()) return false;
  size_t start = 0;
  while (start <= a.size()) {
    size_t dot = a.find('.', start);
    if (!is_python_identifier(a.substr(start, dot == std::string_view::npos ? dot : dot - start)))
      return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
  return false;
}

/// A frame's function as tracebacks name it: `forward`, `Block.forward`, `<lambda>`, `<module>`.
bool is_function_name(std::string_view s) {
  if (s.size() > 2 && s.front() == '<' && s.back() == '>')
    return std::all_of(s.begin() + 1, s.end() - 1, [](char c) { return c >= 'a' && c <= 'z'; });
  return is_type_expression(s);  // dotted identifiers
}

/// Parses the part after the comment's main `#`: ` Annotation: {...}`, a tag, then the stack
/// trace summary. Returns false when `s` is not in that shape.
bool parse_summary_rest(std::string_view s, GroupMeta& g,
                        const std::function<bool(std::string_view, Argument&)>& parse_dict) {
  if (s.starts_with(" Annotation: {")) {
    // The dict ends at the matching brace.
    size_t end = find_outside_quotes(
        s, 13, [](char c, size_t, int depth) { return c == '}' && depth == 0; });
    if (end == std::string_view::npos) return false;
    Argument custom;
    std::string_view dict = s.substr(13, end - 12);
    // A dict whose values do not read back as Python literals is kept as its text.
    g.custom = parse_dict(dict, custom) ? std::move(custom) : Argument::repr(dict, "dict");
    if (g.custom.is(ArgKind::Dict)) {
      // 2026 cuts values at 40 characters (`'...'` after them); a longer value shows it did not.
      for (const DictEntry& e : g.custom.dict_entries()) {
        if (!e.value.is(ArgKind::String)) continue;
        std::string_view v = e.value.as_text();
        size_t chars = std::count_if(v.begin(), v.end(), [](char c) {
          return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        });
        if (chars > 43 || (chars > 40 && !v.ends_with("...")))
          g.truncated = false;
        else if (chars == 43 && v.ends_with("...") && !g.truncated)
          g.truncated = true;
      }
    }
    s = s.substr(end + 1);
  }
  if (std::optional<fxtext::InlineTags> inline_tags = fxtext::parse_inline_tags(s)) {
    g.tag_style = inline_tags->style;
    g.recompute = inline_tags->tags.recompute;
    g.ac_graph_id = inline_tags->tags.ac_graph_id;
    s = inline_tags->rest;
  }
  if (s == " No stacktrace found for following nodes") return true;
  if (s.starts_with(" Backward of forward node:")) return true;
  if (!s.starts_with(" File: ")) return false;
  std::string_view f = s.substr(7);
  size_t code = f.find(", code: ");
  if (code == std::string_view::npos) return false;
  std::string_view where = f.substr(0, code), text = f.substr(code + 8);
  // ` in fn` only when what follows is a function's name (`forward`, `<lambda>`): a path may hold
  // " in " too.
  size_t in = where.rfind(" in ");
  if (in != std::string_view::npos && !is_function_name(where.substr(in + 4)))
    in = std::string_view::npos;
  g.names_function = in != std::string_view::npos;
  std::string_view fn =
      in == std::string_view::npos ? std::string_view("<unknown>") : where.substr(in + 4);
  std::string_view file_line = in == std::string_view::npos ? where : where.substr(0, in);
  size_t colon = file_line.rfind(':');
  if (colon == std::string_view::npos) return false;
  std::string_view line = file_line.substr(colon + 1);
  if (line.empty() ||
      !std::all_of(line.begin(), line.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return false;  // `path:N`: a line number, or not a frame
  g.stack_trace = InternedString("  File \"" + std::string(file_line.substr(0, colon)) +
                                 "\", line " + std::string(file_line.substr(colon + 1)) + ", in " +
                                 std::string(fn) + "\n    " + std::string(text) + "\n");
  return true;
}

}  // namespace

bool ReadableParser::parse_annotation_text(std::string_view text, Meta& meta, size_t column) {
  std::string_view a = trim(text);
  if (auto hit = tensor_annotations_.find(a); hit != tensor_annotations_.end()) {
    const CachedAnnotation& t = hit->second;
    seen_.quoted = t.quoted;
    if (t.strides) seen_.stride = true;
    if (t.device) seen_.device = true;
    meta.set_tensor(t.meta);
    meta.set_value_key(ValueKey::Val);
    return true;
  }
  const std::string_view whole = a;
  bool quoted = a.size() >= 2 && (a.front() == '"' || a.front() == '\'') && a.back() == a.front();
  if (quoted) a = a.substr(1, a.size() - 2);
  if (a.starts_with("Sym(") && a.ends_with(")")) {
    // A SymInt/SymBool/SymFloat expression (`s0 + 1`, `Eq(s0, 4)`, `1.5*s0`): balanced
    // parentheses, no brackets, quotes or statement punctuation.
    int depth = 0;
    for (char c : a.substr(4, a.size() - 5)) {
      if (!std::isalnum(static_cast<unsigned char>(c)) &&
          std::string_view("_ +-*/%(),.<>=!~&|^").find(c) == std::string_view::npos)
        return fail(*line_, column, "malformed Sym(...) annotation");
      depth += c == '(' ? 1 : c == ')' ? -1 : 0;
      if (depth < 0) return fail(*line_, column, "malformed Sym(...) annotation");
    }
    if (depth != 0) return fail(*line_, column, "malformed Sym(...) annotation");
    seen_.quoted = quoted;
    meta.set_sym_value(SymInt::symbolic(a.substr(4, a.size() - 5)));
    meta.set_value_key(ValueKey::Val);
    return true;
  }
  // A quoted annotation remat does not model (subclass wrappers `TwoTensor(f32[3, 4])`, DTensor,
  // types): kept as its text and printed again where no metadata annotates the node.
  auto keep = [&] {
    bool plain = !a.empty() && std::all_of(a.begin(), a.end(), [](char c) {
      return static_cast<unsigned char>(c) >= 0x20 && c != '"' && c != '\\';
    });
    if (!plain) return fail(*line_, column, "malformed annotation");
    meta.mutable_node_fields().push_back({"annotation", json::quoted(a)});
    seen_.quoted = true;  // a quoted annotation, modelled or not: no 1.13 text (nor 2023's)
    return true;
  };
  fxtext::TensorAnnotation parsed;
  switch (fxtext::parse_tensor_annotation(a, parsed)) {
    case fxtext::AnnotationError::None:
      break;
    case fxtext::AnnotationError::NoShape:
      // Unquoted, it is node.type as torch.fx prints it (`L_x_ : torch.Tensor`): kept, and
      // printed again where no metadata annotates the node.
      if (quoted) return keep();
      if (!is_type_expression(a)) return fail(*line_, column, "malformed annotation");
      meta.mutable_node_fields().push_back({"type", json::quoted(a)});
      return true;
    case fxtext::AnnotationError::UnknownDType:
      if (quoted && a.find('(') != std::string_view::npos) return keep();
      return fail(*line_, column,
                  "unknown dtype abbreviation '" + std::string(parsed.dtype_text) + "'");
    case fxtext::AnnotationError::MalformedShape:
      return fail(*line_, column, "malformed shape in annotation");
    case fxtext::AnnotationError::MalformedStrides:
      return fail(*line_, column, "malformed strides in annotation");
    case fxtext::AnnotationError::MalformedDevice:
      return fail(*line_, column, "malformed device in annotation");
  }
  std::vector<SymInt> sizes, strides;
  if (!to_symints(parsed.sizes, sizes))
    return fail(*line_, column, "malformed shape in annotation");
  bool has_strides = parsed.strides.has_value();
  if (has_strides && !to_symints(*parsed.strides, strides))
    return fail(*line_, column, "malformed strides in annotation");
  if (std::optional<std::string> why = TensorMeta::shape_problem(
          sizes, has_strides ? std::optional<std::span<const SymInt>>(strides) : std::nullopt))
    return fail(*line_, column, "annotation: " + *why);
  std::string_view device = parsed.device;
  seen_.quoted = quoted;
  if (has_strides) seen_.stride = true;
  if (!device.empty()) seen_.device = true;
  TensorMeta t(parsed.dtype, sizes,
               has_strides ? std::optional<std::span<const SymInt>>(strides) : std::nullopt,
               device.empty() ? InternedString() : InternedString(device));
  tensor_annotations_.emplace(whole, CachedAnnotation{t, quoted, has_strides, !device.empty()});
  meta.set_tensor(t);
  meta.set_value_key(ValueKey::Val);
  return true;
}

bool ReadableParser::parse_comment(std::string_view c) {
  // A seed-style tag line belongs to the next statement only.
  if (c.starts_with("# ")) {
    if (std::optional<fxtext::RecomputeTags> tag = fxtext::parse_tags(c.substr(2))) {
      seed_recompute_ = tag->recompute;
      seed_ac_graph_id_ = tag->ac_graph_id;
      seed_tag_pending_ = true;
      seen_.tags = TagStyle::Seed;
      return true;
    }
  }
  auto parse_dict = [this](std::string_view text, Argument& out) {
    std::vector<Token> saved = std::move(toks_);
    size_t saved_tok = tok_;
    size_t col = 0;
    std::string message;
    std::vector<Token> toks;
    bool ok = false;
    if (tokenize_python(text, toks, col, message)) {
      toks_ = std::move(toks);
      tok_ = 0;
      std::optional<Diagnostic> saved_error = error_;
      ok = parse_value(out) && out.is(ArgKind::Dict) && peek().kind == TokenKind::End;
      error_ = saved_error;  // an unparsable annotation is kept out of meta, not an error
    }
    toks_ = std::move(saved);
    tok_ = saved_tok;
    return ok;
  };
  // `<M>#<ANN><TAG> <ST>`: try without an additional_meta prefix, then at each " #".
  auto take = [this](GroupMeta g) {
    if (g.names_function) seen_.names_function = g.names_function;
    if (g.tag_style) seen_.tags = g.tag_style;
    if (g.truncated && seen_.truncate_annotations != false)
      seen_.truncate_annotations = g.truncated;
    group_ = std::move(g);
  };
  GroupMeta g;
  if (c.starts_with("#") && parse_summary_rest(c.substr(1), g, parse_dict)) {
    take(std::move(g));
    return true;
  }
  for (size_t p = c.find(" #"); p != std::string_view::npos; p = c.find(" #", p + 1)) {
    GroupMeta with_prefix;
    if (!c.starts_with("# ") || !parse_summary_rest(c.substr(p + 2), with_prefix, parse_dict))
      continue;
    size_t key_pos = 0;
    for (std::string_view item : split_top_level(c.substr(2, p - 2), ", ")) {
      size_t colon = item.find(": ");
      if (colon == std::string_view::npos) continue;
      std::string_view key = item.substr(0, colon), value = item.substr(colon + 2);
      // Keys in an order every comment agrees with: a new key goes after the comment's previous.
      std::vector<std::string>& keys = seen_.additional_meta;
      auto at = std::find(keys.begin(), keys.end(), key);
      if (at == keys.end()) {
        at = keys.insert(keys.begin() + static_cast<std::ptrdiff_t>(key_pos), std::string(key));
      } else if (static_cast<size_t>(at - keys.begin()) < key_pos) {
        std::string moved = *at;  // seen before the key this comment puts first: move it after
        keys.erase(at);
        at = keys.insert(keys.begin() + static_cast<std::ptrdiff_t>(key_pos - 1), std::move(moved));
      }
      key_pos = static_cast<size_t>(at - keys.begin()) + 1;
      int64_t v = std::strtoll(std::string(value).c_str(), nullptr, 10);
      if (key == "seq_nr")
        with_prefix.seq_nr = v;
      else if (key == "ac_graph_id")
        with_prefix.ac_graph_id = v;
      else if (key == "partitioner_tag")
        with_prefix.partitioner_tag = parse_partitioner_tag(value);
      else if (key == "recompute")
        with_prefix.recompute = parse_policy(value);
    }
    take(std::move(with_prefix));
    return true;
  }
  // 2022: `# File "f.py", line 3, in fn, code`.
  group_ = GroupMeta();
  if (c.starts_with("# File \"")) {
    std::string_view f = c.substr(8);
    size_t q = f.find("\", line ");
    size_t in = q == std::string_view::npos ? q : f.find(", in ", q + 8);
    if (in != std::string_view::npos) {
      size_t comma = f.find(", ", in + 5);
      std::string_view fn =
          f.substr(in + 5, comma == std::string_view::npos ? comma : comma - in - 5);
      std::string_view code =
          comma == std::string_view::npos ? std::string_view() : f.substr(comma + 2);
      group_.stack_trace = InternedString("  File \"" + std::string(f.substr(0, q)) + "\", line " +
                                          std::string(f.substr(q + 8, in - q - 8)) + ", in " +
                                          std::string(fn) + "\n    " + std::string(code) + "\n");
    }
  }
  // PyTorch 1.13: `# <context lines>, File: f.py:N, code: ...`, or the context alone. The
  // group's trace is one that 1.13's printer summarizes to the same comment.
  std::string_view text = trim(c.substr(1));
  // Only 1.13 wrote comments 2.x cannot (context lines, a trailing space after "No stacktrace
  // found..."), and it wrote no annotations.
  if (group_.stack_trace.is_null() && !text.empty() && !seen_.quoted) seen_.torch_1_13 = true;
  if (seen_.torch_1_13 && group_.stack_trace.is_null() &&
      text != "No stacktrace found for following nodes") {
    size_t file = text.find(", File: ");
    GroupMeta frame;
    std::string trace(text);
    if (file != std::string_view::npos &&
        parse_summary_rest(" " + std::string(text.substr(file + 2)), frame, parse_dict) &&
        !frame.stack_trace.is_null())
      trace = std::string(text.substr(0, file)) + "\n" + frame.stack_trace.str();
    // Only a trace that prints the same comment again, and not as a tag line or a 2.x comment
    // (`File: f.py:N in fn`, 2025's `# File: ...`, one inside the context), which would read back
    // as another trace; anything else keeps no trace.
    std::string_view context = text.substr(0, file);  // all of it when no `, File: ` follows
    if (!text.empty() && MetaText::summary_1_13(trace) == text && !fxtext::parse_tags(text) &&
        context.find("File") == std::string_view::npos)
      group_.stack_trace = InternedString(trace);
  }
  // Anything else starts a group without metadata remat can use.
  return true;
}

}  // namespace remat::print_detail
