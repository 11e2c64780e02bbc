// Readable FX code back into a GraphModule: line structure (classes, def, body) here, Python
// expressions through python_tokens.
#include "remat/print/readable_parser.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <limits>
#include <optional>
#include <unordered_map>

#include <absl/container/flat_hash_map.h>

#include "remat/fxtext/python_operators.h"
#include "remat/fxtext/recompute_tags.h"
#include "remat/fxtext/tensor_annotation.h"
#include "remat/fxtext/text_scan.h"
#include "remat/ir/naming.h"
#include "remat/ir/target.h"
#include "remat/print/meta_text.h"
#include "remat/print/print_options.h"
#include "remat/print/python_repr.h"
#include "remat/print/python_tokens.h"
#include "remat/support/json_text.h"
#include "remat/support/string_hash.h"

namespace remat {
namespace {

using fxtext::comment_start;
using fxtext::find_outside_quotes;
using fxtext::for_each_top_level;
using fxtext::split_top_level;
using fxtext::trim;

// Inductor's trailer line: `# graph id: ` and a decimal number.
bool is_graph_id_line(std::string_view body) {
  constexpr std::string_view kPrefix = "# graph id: ";
  if (!body.starts_with(kPrefix) || body.size() == kPrefix.size()) return false;
  for (char c : body.substr(kPrefix.size()))
    if (c < '0' || c > '9') return false;
  return true;
}

constexpr size_t kMaxNesting = 200;  // brackets inside one expression

struct SourceLine {
  std::string_view text;  // without ANSI color codes (the input, or a stripped copy)
  int number;             // 1-based
  size_t indent;
  [[nodiscard]] std::string_view body() const { return text.substr(indent); }
  [[nodiscard]] bool blank() const { return indent == text.size(); }
};

// `a, b, = fx_pytree.tree_flatten_spec([primals, tangents], self._in_spec)`; a comment that merely
// quotes it (a stack trace, an annotation) is not one.
constexpr std::string_view kFlattenCall = " = fx_pytree.tree_flatten_spec([";
bool is_flatten_statement(std::string_view body) {
  // Asked of every line: memmem skips ahead, where string_view::find stops at every space.
  return !body.starts_with('#') &&
         memmem(body.data(), body.size(), kFlattenCall.data(), kFlattenCall.size()) != nullptr;
}

std::string strip_ansi(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\033' && i + 1 < s.size() && s[i + 1] == '[') {
      size_t j = i + 2;
      while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == ';')) ++j;
      if (j < s.size() && s[j] == 'm') {
        i = j;
        continue;
      }
    }
    out += s[i];
  }
  return out;
}

/// The canonical target of a printed `torch.ops...` path: `aten.mm.default` for an overload or a
/// higher-order op; other paths (packets, odd namespaces) keep their `torch.ops.` prefix so they
/// print back the same.
std::string_view canonical_ops_target(std::string_view printed) {
  std::string_view t = printed.substr(10);
  CallableKind kind = classify_callable(t);
  return kind == CallableKind::OpOverload || kind == CallableKind::HigherOrderOp ? t : printed;
}

bool sym_like_name(std::string_view s) {
  // Symbols of torch's ShapeEnv: s0, s47, u0, ... (and their expressions).
  if (s.size() < 2 || !(s[0] == 's' || s[0] == 'u' || s[0] == 'z' || s[0] == 'q')) return false;
  for (size_t i = 1; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

/// Metadata a stack-trace comment gives to the nodes of its group.
struct GroupMeta {
  InternedString stack_trace;
  Argument custom;
  std::optional<CheckpointPolicy> recompute;
  std::optional<int64_t> ac_graph_id;
  std::optional<int64_t> seq_nr;
  std::optional<PartitionerTag> partitioner_tag;
  // How the comment was written (style evidence, not metadata).
  std::optional<bool> names_function;
  std::optional<TagStyle> tag_style;
  std::optional<bool> truncated;  // an Annotation value over 40 characters: false
};

/// What the text shows of the rules and options it was printed with (fx-readable spec §10);
/// nullopt where nothing in the text tells.
struct StyleEvidence {
  bool torch_1_13 = false;  // the body starts with a blank line, then a comment
  std::optional<bool> quoted, stride, device, expanded_def, names_function, deep_comments,
      truncate_annotations;
  std::optional<TagStyle> tags;
  std::optional<bool> free_dead_results;
  bool colored = false;
  bool show_meta = false;                    // a `"""` block of FX_GRAPH_SHOW_META
  std::vector<std::string> additional_meta;  // keys in the order comments show them

  /// The era the evidence points to, with each observed rule laid over it.
  [[nodiscard]] TextStyle style() const {
    TextStyle s;
    std::string_view era = torch_1_13 && !quoted                        ? "torch-1.13"
                           : quoted == false || names_function == false ? "torch-2.1"
                           : deep_comments == true                      ? "torch-2.5-2.9"
                           : tags == TagStyle::Inline2025               ? "torch-2.10"
                           : tags == TagStyle::Inline2026               ? "torch-2026"
                           : tags == TagStyle::Seed                     ? "seed"
                           : free_dead_results == false                 ? "torch-2.4"
                                                                        : "seed";
    apply_style_name(era, s);
    auto set = [](bool& field, std::optional<bool> seen) {
      if (seen) field = *seen;
    };
    set(s.quoted_annotations, quoted);
    set(s.include_stride, stride);
    set(s.include_device, device);
    set(s.expanded_def, expanded_def);
    set(s.comment_names_function, names_function);
    set(s.deep_comments, deep_comments);
    set(s.free_dead_results, free_dead_results);
    set(s.truncate_annotations, truncate_annotations);
    if (tags) s.tag_style = *tags;
    s.colored = colored;
    s.show_meta = show_meta;
    s.additional_meta = additional_meta;
    return s;
  }
};

class ReadableParser {
 public:
  ReadableParser(std::string_view text, std::string file) : file_(std::move(file)) {
    int number = 0;
    size_t start = 0;
    while (start <= text.size()) {
      size_t nl = text.find('\n', start);
      std::string_view line = text.substr(start, nl == std::string_view::npos ? nl : nl - start);
      if (line.find('\033') != std::string_view::npos) {
        std::string_view plain = stripped_.emplace_back(strip_ansi(line));
        seen_.colored =
            seen_.colored || plain.size() < line.size();  // a color code, not a stray ESC
        line = plain;
      }
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      size_t indent = line.find_first_not_of(' ');
      lines_.push_back({line, ++number, indent == std::string::npos ? line.size() : indent});
      if (nl == std::string_view::npos) break;
      start = nl + 1;
    }
  }

  Expected<GraphModule> parse();

 private:
  // --- diagnostics ---
  bool fail(const SourceLine& l, size_t column, std::string message) {
    if (!error_) {
      Diagnostic d;
      d.file = file_;
      d.line = l.number;
      d.col = static_cast<int>(column) + 1;
      d.source_line = std::string(l.text);
      d.message = std::move(message);
      error_ = std::move(d);
    }
    return false;
  }
  bool fail_at(const Token& t, std::string message) {
    return fail(*line_, line_->indent + t.column, std::move(message));
  }

  // --- structure ---
  bool parse_module(GraphModule& m);
  bool parse_def(size_t indent);
  bool parse_param(std::string_view text, size_t column);
  bool parse_body(GraphModule& m, size_t indent);
  bool parse_comment(std::string_view c);
  bool parse_statement(GraphModule& m);
  bool parse_return(GraphModule& m);
  /// The style the text was written in, from what it showed.
  TextStyle style_read() {
    // In text that shows meta blocks, a node without one showed none: printing must not make one.
    if (seen_.show_meta)
      for (Graph* g : graphs_)
        for (Node* n : g->nodes())
          if (!node_type_text(*n, "meta_block"))
            n->meta.mutable_node_fields().push_back({"meta_block", "\"\""});
    // A result nobody uses shows whether the era freed it on its own line.
    for (auto [node, freed] : freed_itself_)
      if (node->users().empty()) {
        seen_.free_dead_results = freed;
        break;
      }
    return seen_.style();
  }
  void skip_blank() {
    while (pos_ < lines_.size() && lines_[pos_].blank()) ++pos_;
  }

  // --- expressions (over toks_ of the current line) ---
  bool tokenize(std::string_view text, size_t offset);
  const Token& peek(size_t k = 0) const { return toks_[std::min(tok_ + k, toks_.size() - 1)]; }
  bool at_op(std::string_view op, size_t k = 0) const {
    return peek(k).kind == TokenKind::Op && peek(k).text == op;
  }
  bool expect_op(std::string_view op) {
    if (!at_op(op)) return fail_at(peek(), "expected '" + std::string(op) + "'");
    ++tok_;
    return true;
  }
  bool parse_value(Argument& out, size_t depth = 0);
  bool parse_call_args(std::vector<Argument>& args, std::vector<Kwarg>& kwargs, size_t depth);
  bool parse_sym_expression(Argument& out);
  bool parse_dotted(std::string& out);
  bool parse_attr_path(std::string& path, size_t depth);
  bool parse_rhs(Node*& out, std::string_view name);
  bool parse_annotation_text(std::string_view text, Meta& meta, size_t column);
  Node* node_named(std::string_view name) const { return graph_->find(name); }
  Node* make_node(OpKind op, std::string_view target, std::string_view name,
                  std::vector<Argument> args, std::vector<Kwarg> kwargs, const Token& where);

  std::string file_;
  std::deque<std::string> stripped_;  // lines that had color codes, without them
  std::vector<SourceLine> lines_;
  size_t pos_ = 0;
  std::optional<Diagnostic> error_;

  const SourceLine* line_ = nullptr;
  std::vector<Token> toks_;
  size_t tok_ = 0;
  std::vector<std::string_view> statement_parts_;  // reused: one split per statement
  // Tensor annotations read so far, by their text: a graph has few distinct shapes.
  struct CachedAnnotation {
    TensorMeta meta;
    bool quoted, strides, device;  // what the text showed (style evidence)
  };
  absl::flat_hash_map<std::string, CachedAnnotation, StringViewHash, StringViewEq>
      tensor_annotations_;

  Graph* graph_ = nullptr;
  GroupMeta group_;
  std::optional<CheckpointPolicy> seed_recompute_;  // a seed-style tag line for the next node
  std::optional<int64_t> seed_ac_graph_id_;
  bool seed_tag_pending_ = false;
  Meta pending_meta_;  // annotation of the statement being parsed
  struct Param {
    std::string name;
    std::string annotation;
    std::string desc;
    std::string default_text;
    size_t column;
  };
  std::vector<Param> params_;
  std::unordered_map<std::string, Param> pytree_annotations_;
  StyleEvidence seen_;
  size_t depth_ = 0;          // of nested classes
  bool pytree_body_ = false;  // the body being read binds its placeholders by tree_flatten_spec
  std::vector<std::pair<const Node*, bool>> freed_itself_;  // each statement: freed on its line?
  // FX_GRAPH_SHOW_META blocks waiting for the node they belong to, kept as text (remat does not
  // model every value they show). A node's block follows its comment; placeholders' blocks come
  // first in the body, before any comment.
  struct PendingBlock {
    std::string text;          // its lines, `"""` included, relative to the body's indent
    bool after_comment;        // a comment came between the last statement and it
    const Node* after_rename;  // the last placeholder renamed above it (`l_x_ = L_x_`), if any
    const SourceLine* line;
  };
  std::vector<PendingBlock> blocks_;
  bool comment_since_statement_ = false;
  bool ops_started_ = false;            // a node other than a placeholder was made in this body
  const Node* last_renamed_ = nullptr;  // placeholders print their block, then their rename line
  std::vector<Graph*> graphs_;          // every graph read, to mark the nodes that showed no block
  bool read_block(size_t indent);
  bool give_blocks(Node* n);
};

// ------------------------------------------------------------------------------------------
// Expressions
// ------------------------------------------------------------------------------------------

bool ReadableParser::tokenize(std::string_view text, size_t offset) {
  size_t col = 0;
  std::string message;
  if (!tokenize_python(text, toks_, col, message)) return fail(*line_, offset + col, message);
  for (Token& t : toks_) t.column += offset - line_->indent;
  tok_ = 0;
  return true;
}

bool ReadableParser::parse_dotted(std::string& out) {
  if (peek().kind != TokenKind::Name) return fail_at(peek(), "expected a name");
  out = std::string(peek().text);
  ++tok_;
  while (at_op(".") && peek(1).kind == TokenKind::Name) {
    out += "." + std::string(peek(1).text);
    tok_ += 2;
  }
  return true;
}

bool ReadableParser::parse_sym_expression(Argument& out) {
  // A symbolic integer printed as its expression: names, integers, arithmetic, parentheses.
  // Its text is the source between the first and the last token taken.
  const char* begin = peek().text.data();
  const char* end = begin;
  int depth = 0;
  while (peek().kind != TokenKind::End) {
    const Token& t = peek();
    if (t.kind == TokenKind::Op) {
      if (t.text == "(")
        ++depth;
      else if (t.text == ")") {
        if (depth == 0) break;
        --depth;
      } else if ((t.text == "," || t.text == "]" || t.text == "}" || t.text == ";") && depth == 0) {
        break;
      } else if (t.text != "+" && t.text != "-" && t.text != "*" && t.text != "/" &&
                 t.text != "//" && t.text != "%" && t.text != "**") {
        break;
      }
    } else if (t.kind != TokenKind::Name && t.kind != TokenKind::Int) {
      break;
    }
    end = t.text.data() + t.text.size();
    ++tok_;
  }
  if (end == begin) return fail_at(peek(), "expected a value");
  out = Argument::sym(std::string_view(begin, static_cast<size_t>(end - begin)));
  return true;
}

bool ReadableParser::parse_value(Argument& out, size_t depth) {
  if (depth > kMaxNesting) return fail_at(peek(), "expression nested too deeply");
  const Token& t = peek();
  switch (t.kind) {
    case TokenKind::Int: {
      ++tok_;
      errno = 0;
      long long v = std::strtoll(std::string(t.text).c_str(), nullptr, 10);
      if (errno == ERANGE) return fail_at(t, "integer out of range");
      out = Argument::integer(v);
      return true;
    }
    case TokenKind::Float:
      ++tok_;
      out = Argument::floating(std::strtod(std::string(t.text).c_str(), nullptr));
      return true;
    case TokenKind::Imaginary: {
      ++tok_;
      std::string digits(t.text.substr(0, t.text.size() - 1));
      out = Argument::complex(0.0, std::strtod(digits.c_str(), nullptr));
      return true;
    }
    case TokenKind::String:
      ++tok_;
      out = Argument::string(t.value);
      return true;
    case TokenKind::End:
      return fail_at(t, "expected a value");
    case TokenKind::Op:
      break;
    case TokenKind::Name: {
      std::string_view n = t.text;
      if (n == "None" || n == "True" || n == "False" || n == "inf" || n == "nan") {
        ++tok_;
        out = n == "None"    ? Argument::none()
              : n == "True"  ? Argument::boolean(true)
              : n == "False" ? Argument::boolean(false)
              : n == "inf"   ? Argument::floating(std::numeric_limits<double>::infinity())
                             : Argument::floating(std::numeric_limits<double>::quiet_NaN());
        return true;
      }
      if (Node* node = node_named(n); node != nullptr && !at_op(".", 1)) {
        ++tok_;
        out = Argument::node(node);
        return true;
      }
      if ((n == "slice" || n == "device") && at_op("(", 1)) {
        tok_ += 2;
        std::vector<Argument> args;
        std::vector<Kwarg> kwargs;
        if (!parse_call_args(args, kwargs, depth + 1)) return false;
        if (n == "slice") {
          if (args.size() != 3 || !kwargs.empty()) return fail_at(t, "slice() takes 3 arguments");
          out = Argument::slice(std::move(args[0]), std::move(args[1]), std::move(args[2]));
          return true;
        }
        std::string type, index;
        for (const Kwarg& k : kwargs) {
          if (k.key.view() == "type" && k.value.is(ArgKind::String))
            type = k.value.as_text();
          else if (k.key.view() == "index" && k.value.is(ArgKind::Int))
            index = std::to_string(k.value.as_int());
          else
            return fail_at(t, "device() takes type= and index=");
        }
        if (type.empty()) return fail_at(t, "device() without type=");
        // `cuda`, `cpu`, `meta`: repr() puts the index in index=, never in the type.
        if (!is_python_identifier(type))
          return fail_at(t, "device() type must be a device name, not '" + type + "'");
        out = Argument::device(index.empty() ? type : type + ":" + index);
        return true;
      }
      if (n == "torch") {
        std::string dotted;
        if (!parse_dotted(dotted)) return false;
        std::string_view d = dotted;
        if (std::optional<DType> dt = parse_dtype(d))
          out = Argument::dtype(*dt);
        else if (std::optional<Layout> l = parse_layout(d))
          out = Argument::layout(*l);
        else if (std::optional<MemoryFormat> m = parse_memory_format(d))
          out = Argument::memory_format(*m);
        else if (d.starts_with("torch.ops."))
          out = Argument::op(canonical_ops_target(d));
        else if (d == "torch.Tensor" && at_op("(")) {
          ++tok_;
          std::vector<Argument> args;
          std::vector<Kwarg> kwargs;
          if (!parse_call_args(args, kwargs, depth + 1)) return false;
          std::vector<SymInt> shape;
          std::optional<DType> dtype;
          for (const Kwarg& k : kwargs) {
            if (k.key.view() == "size" && k.value.is(ArgKind::List)) {
              for (const Argument& e : k.value.elements()) {
                if (e.is(ArgKind::Int))
                  shape.emplace_back(e.as_int());
                else if (e.is(ArgKind::SymInt))
                  shape.push_back(SymInt::symbolic(e.as_text()));
              }
            } else if (k.key.view() == "dtype" && k.value.is(ArgKind::DType)) {
              dtype = k.value.as_dtype();
            }
          }
          if (!dtype) return fail_at(t, "torch.Tensor(...) without a known dtype");
          out = Argument::tensor_constant(*dtype, std::move(shape));
        } else {
          out = Argument::enum_member(d);  // a torch enum member, e.g. CheckpointPolicy.MUST_SAVE
        }
        return true;
      }
      if (std::optional<DType> bare = parse_dtype("torch." + std::string(n));
          bare && node_named(n) == nullptr) {
        ++tok_;  // `dtype=float32` inside torch.Tensor(size=[...], dtype=float32)
        out = Argument::dtype(*bare);
        return true;
      }
      if (sym_like_name(n) || (node_named(n) == nullptr && at_op("*", 1)))
        return parse_sym_expression(out);
      if (at_op(".", 1) && peek(2).kind == TokenKind::Name && node_named(n) == nullptr) {
        // A non-torch enum member: `Color.RED` (its class is a printed global).
        std::string dotted;
        if (!parse_dotted(dotted)) return false;
        out = Argument::enum_member(dotted);
        return true;
      }
      if (node_named(n) == nullptr) return fail_at(t, "undefined name '" + std::string(n) + "'");
      return fail_at(t, "unexpected attribute access on node '" + std::string(n) + "'");
    }
  }
  // Operators: brackets, unary minus.
  if (t.text == "-" || t.text == "+") {
    ++tok_;
    Argument inner;
    if (!parse_value(inner, depth + 1)) return false;
    double sign = t.text == "-" ? -1 : 1;
    if (inner.is(ArgKind::Int))
      out = Argument::integer(static_cast<int64_t>(sign) * inner.as_int());
    else if (inner.is(ArgKind::Float))
      out = Argument::floating(sign * inner.as_float());
    else if (inner.is(ArgKind::Complex))
      out = Argument::complex(sign * inner.as_complex().first, sign * inner.as_complex().second);
    else
      return fail_at(t, "unary " + std::string(t.text) + " of a non-number");
    return true;
  }
  if (t.text == "[" || t.text == "(") {
    bool list = t.text == "[";
    std::string_view close = list ? "]" : ")";
    ++tok_;
    // (re+imj) and (re-imj): complex numbers.
    if (!list && (peek().kind == TokenKind::Int || peek().kind == TokenKind::Float ||
                  (at_op("-") && peek(1).kind != TokenKind::Op))) {
      size_t save = tok_;
      Argument re;
      if (parse_value(re, depth + 1) && (at_op("+") || at_op("-")) &&
          peek(1).kind == TokenKind::Imaginary && at_op(")", 2)) {
        double sign = at_op("-") ? -1 : 1;
        std::string digits(peek(1).text.substr(0, peek(1).text.size() - 1));
        double im = sign * std::strtod(digits.c_str(), nullptr);
        double r = re.is(ArgKind::Int)     ? static_cast<double>(re.as_int())
                   : re.is(ArgKind::Float) ? re.as_float()
                                           : 0;
        tok_ += 3;
        out = Argument::complex(r, im);
        return true;
      }
      if (error_) return false;
      tok_ = save;
    }
    std::vector<Argument> items;
    bool trailing_comma = false;
    while (!at_op(close)) {
      Argument item;
      if (!parse_value(item, depth + 1)) return false;
      items.push_back(std::move(item));
      trailing_comma = false;
      if (at_op(",")) {
        ++tok_;
        trailing_comma = true;
        continue;
      }
      if (!at_op(close)) return fail_at(peek(), "expected ',' or '" + std::string(close) + "'");
    }
    ++tok_;
    if (!list && items.size() == 1 && !trailing_comma) {
      out = std::move(items[0]);  // parenthesized value
      return true;
    }
    out = list ? Argument::list(std::move(items)) : Argument::tuple(std::move(items));
    return true;
  }
  if (t.text == "{") {
    ++tok_;
    std::vector<DictEntry> entries;
    while (!at_op("}")) {
      if (peek().kind != TokenKind::String) return fail_at(peek(), "dict keys must be strings");
      std::string key = peek().value;
      ++tok_;
      if (!expect_op(":")) return false;
      Argument v;
      if (!parse_value(v, depth + 1)) return false;
      entries.push_back({std::move(key), std::move(v)});
      if (at_op(","))
        ++tok_;
      else if (!at_op("}"))
        return fail_at(peek(), "expected ',' or '}'");
    }
    ++tok_;
    out = Argument::dict(std::move(entries));
    return true;
  }
  return fail_at(t, "unexpected '" + std::string(t.text) + "'");
}

bool ReadableParser::parse_call_args(std::vector<Argument>& args, std::vector<Kwarg>& kwargs,
                                     size_t depth) {
  // After '(' up to and including ')'. Keyword arguments print as `k = v`.
  while (!at_op(")")) {
    if (peek().kind == TokenKind::Name && at_op("=", 1)) {
      InternedString key(peek().text);
      tok_ += 2;
      Argument v;
      if (!parse_value(v, depth + 1)) return false;
      kwargs.push_back({key, std::move(v)});
    } else {
      if (!kwargs.empty()) return fail_at(peek(), "positional argument after keyword argument");
      Argument v;
      if (!parse_value(v, depth + 1)) return false;
      args.push_back(std::move(v));
    }
    if (at_op(","))
      ++tok_;
    else if (!at_op(")"))
      return fail_at(peek(), "expected ',' or ')' after argument");
  }
  ++tok_;
  return true;
}

bool ReadableParser::parse_attr_path(std::string& path, size_t depth) {
  // self.a.b | getattr(<path>, "0").c  ->  "a.b", "a.0.c"
  if (depth > kMaxNesting) return fail_at(peek(), "expression nested too deeply");
  if (peek().kind == TokenKind::Name && peek().text == "self") {
    ++tok_;
    path.clear();
  } else if (peek().kind == TokenKind::Name && peek().text == "getattr" && at_op("(", 1)) {
    tok_ += 2;
    if (!parse_attr_path(path, depth + 1)) return false;
    if (!expect_op(",")) return false;
    if (peek().kind != TokenKind::String) return fail_at(peek(), "expected an attribute name");
    for (char c : peek().value)  // torch.fx prints these parts inside double quotes
      if (c == '"' || c == '.' || c == '\\' || static_cast<unsigned char>(c) < 0x20)
        return fail_at(peek(), "unsupported character in attribute name");
    path += (path.empty() ? "" : ".") + peek().value;
    ++tok_;
    if (!expect_op(")")) return false;
  } else {
    return fail_at(peek(), "expected self");
  }
  while (at_op(".") && peek(1).kind == TokenKind::Name) {
    path += (path.empty() ? "" : ".") + std::string(peek(1).text);
    tok_ += 2;
  }
  return true;
}

Node* ReadableParser::make_node(OpKind op, std::string_view target, std::string_view name,
                                std::vector<Argument> args, std::vector<Kwarg> kwargs,
                                const Token& where) {
  Node* n = graph_->create_node_exact(op, InternedString(target), name, std::move(args),
                                      std::move(kwargs));
  if (n == nullptr) fail_at(where, "'" + std::string(name) + "' is defined twice");
  return n;
}

bool ReadableParser::parse_rhs(Node*& out, std::string_view name) {
  const Token& first = peek();
  std::vector<Argument> args;
  std::vector<Kwarg> kwargs;
  auto finish = [&]() {
    if (peek().kind != TokenKind::End)
      return fail_at(peek(), "unexpected '" + std::string(peek().text) + "' after the expression");
    return true;
  };
  // self.x / getattr(self.x, "0"): get_attr, or call_module when called.
  if (first.kind == TokenKind::Name &&
      (first.text == "self" ||
       (first.text == "getattr" && at_op("(", 1) && peek(2).text == "self"))) {
    std::string path;
    if (!parse_attr_path(path, 0)) return false;
    if (at_op("(")) {
      ++tok_;
      if (!parse_call_args(args, kwargs, 0)) return false;
      out = make_node(OpKind::CallModule, path, name, std::move(args), std::move(kwargs), first);
    } else {
      out = make_node(OpKind::GetAttr, path, name, {}, {}, first);
    }
    return out != nullptr && finish();
  }
  // torch.ops.ns.op.overload(...) and torch callables.
  if (first.kind == TokenKind::Name && first.text == "torch") {
    std::string dotted;
    if (!parse_dotted(dotted)) return false;
    if (!at_op("(")) return fail_at(peek(), "expected '(' after " + dotted);
    ++tok_;
    if (!parse_call_args(args, kwargs, 0)) return false;
    std::string_view target = dotted;
    if (target.starts_with("torch.ops.")) target = canonical_ops_target(target);
    out = make_node(OpKind::CallFunction, target, name, std::move(args), std::move(kwargs), first);
    return out != nullptr && finish();
  }
  // Unary operators.
  const fxtext::PythonOperator* unary =
      first.kind == TokenKind::Op
          ? fxtext::operator_by_token(fxtext::OperatorForm::Unary, first.text)
          : nullptr;
  if (unary != nullptr && peek(1).kind == TokenKind::Name && node_named(peek(1).text) != nullptr) {
    ++tok_;
    Argument v;
    if (!parse_value(v)) return false;
    out = make_node(OpKind::CallFunction, "operator." + std::string(unary->name), name,
                    {std::move(v)}, {}, first);
    return out != nullptr && finish();
  }
  // A global function: builtins, _operator_x, sanitized Python callables.
  if (first.kind == TokenKind::Name && at_op("(", 1) && node_named(first.text) == nullptr &&
      first.text != "slice" && first.text != "device") {
    std::string_view fn = first.text;
    tok_ += 2;
    if (!parse_call_args(args, kwargs, 0)) return false;
    std::string target;
    if (fn.starts_with("_operator_"))
      target = "operator." + std::string(fn.substr(10));
    else if (is_reserved_python_name(fn))
      target = "builtins." + std::string(fn);
    else
      target = fn;
    out = make_node(OpKind::CallFunction, target, name, std::move(args), std::move(kwargs), first);
    return out != nullptr && finish();
  }
  // node.method(...), node.attr, node[index], binary operators.
  Node* receiver = first.kind == TokenKind::Name ? node_named(first.text) : nullptr;
  if (receiver != nullptr && at_op(".", 1) && peek(2).kind == TokenKind::Name) {
    std::string member(peek(2).text);
    tok_ += 3;
    if (at_op("(")) {
      ++tok_;
      args.push_back(Argument::node(receiver));
      if (!parse_call_args(args, kwargs, 0)) return false;
      out = make_node(OpKind::CallMethod, member, name, std::move(args), std::move(kwargs), first);
    } else {
      out = make_node(OpKind::CallFunction, "builtins.getattr", name,
                      {Argument::node(receiver), Argument::string(member)}, {}, first);
    }
    return out != nullptr && finish();
  }
  Argument lhs;
  if (!parse_value(lhs)) return false;
  if (at_op("[")) {
    ++tok_;
    Argument index;
    if (!parse_value(index) || !expect_op("]")) return false;
    out = make_node(OpKind::CallFunction, "operator.getitem", name,
                    {std::move(lhs), std::move(index)}, {}, first);
    return out != nullptr && finish();
  }
  if (peek().kind == TokenKind::Op) {
    if (const fxtext::PythonOperator* binary =
            fxtext::operator_by_token(fxtext::OperatorForm::Binary, peek().text)) {
      ++tok_;
      Argument rhs;
      if (!parse_value(rhs)) return false;
      out = make_node(OpKind::CallFunction, "operator." + std::string(binary->name), name,
                      {std::move(lhs), std::move(rhs)}, {}, first);
      return out != nullptr && finish();
    }
  }
  return fail_at(first,
                 "unknown statement form (expected a call, an attribute, an operator or an index)");
}

// ------------------------------------------------------------------------------------------
// Annotations and comments
// ------------------------------------------------------------------------------------------

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

// ------------------------------------------------------------------------------------------
// Structure
// ------------------------------------------------------------------------------------------

bool ReadableParser::parse_param(std::string_view text, size_t column) {
  Param p;
  p.column = column;
  size_t hash = comment_start(text);
  if (hash != std::string_view::npos) {
    p.desc = std::string(trim(text.substr(hash + 1)));
    text = text.substr(0, hash);
  }
  text = trim(text);
  if (!text.empty() && text.back() == ',') text = trim(text.substr(0, text.size() - 1));
  size_t eq = std::string_view::npos;
  {
    auto parts = split_top_level(text, " = ");
    if (parts.size() > 1) {
      eq = parts[0].size();
      p.default_text = std::string(text.substr(eq + 3));
      text = parts[0];
    }
  }
  size_t colon = text.find(':');
  p.name = std::string(trim(text.substr(0, colon)));
  if (colon != std::string_view::npos) p.annotation = std::string(trim(text.substr(colon + 1)));
  if (!is_python_identifier(p.name) &&
      !(p.name.starts_with("*") &&
        is_python_identifier(std::string_view(p.name).substr(p.name[1] == '*' ? 2 : 1))))
    return fail(*line_, column, "expected a parameter name");
  if (p.name != "self") params_.push_back(std::move(p));
  return true;
}

bool ReadableParser::parse_def(size_t indent) {
  skip_blank();
  if (pos_ >= lines_.size())
    return fail(lines_.back(), 0, "expected 'def forward(' after the class line");
  line_ = &lines_[pos_];
  std::string_view b = line_->body();
  if (line_->indent != indent || !b.starts_with("def ") || b.find('(') == std::string_view::npos)
    return fail(*line_, line_->indent, "expected 'def forward(...):'");
  params_.clear();
  size_t open = b.find('(');
  if (b == "def forward(" || b.substr(open) == "(") {
    // Expanded: one parameter per line, then `):`.
    if (depth_ == 0) seen_.expanded_def = true;  // nested classes never expand
    ++pos_;
    while (pos_ < lines_.size()) {
      line_ = &lines_[pos_];
      if (line_->blank()) {
        ++pos_;
        continue;
      }
      if (line_->body().starts_with("):") || line_->body().starts_with(") ->")) {
        ++pos_;
        return true;
      }
      if (!parse_param(line_->body(), line_->indent)) return false;
      ++pos_;
    }
    return fail(lines_.back(), 0, "unterminated 'def forward('");
  }
  size_t close = b.rfind("):");
  if (close == std::string_view::npos) close = b.rfind(") ->");
  if (close == std::string_view::npos || close < open)
    return fail(*line_, line_->indent + b.size(), "expected '):' at the end of the def line");
  std::string_view inner = b.substr(open + 1, close - open - 1);
  size_t offset = line_->indent + open + 1;
  for (std::string_view part : split_top_level(inner, ", ")) {
    if (!trim(part).empty() && !parse_param(part, offset)) return false;
    offset += part.size() + 2;
  }
  ++pos_;
  return true;
}

bool ReadableParser::parse_return(GraphModule& m) {
  std::string_view b = line_->body();
  bool pytree = b.starts_with("return pytree.tree_unflatten(");
  if (pytree) {
    m.codegen.kind = CodegenKind::Pytree;
    m.codegen.in_spec = pytree_body_;  // unflattened output, plain def: no input spec
  } else if (pytree_body_) {
    m.codegen.out_spec = false;  // flattened inputs, plain return: no output spec
  }
  // A bare `return` returns None.
  std::string_view value_text = pytree ? b.substr(29) : b.size() > 7 ? b.substr(7) : "None";
  std::vector<Argument> descs;
  Argument value;
  if (value_text == "(" || value_text == "[") {
    // Expanded return: one `item,  # desc` per line, then the closer.
    bool list = value_text == "[";
    std::vector<Argument> items;
    ++pos_;
    for (; pos_ < lines_.size(); ++pos_) {
      line_ = &lines_[pos_];
      std::string_view l = line_->body();
      if (line_->blank()) continue;
      if (l.starts_with(list ? "]" : ")")) break;
      size_t hash = comment_start(l);
      std::string_view item = trim(hash == std::string_view::npos ? l : l.substr(0, hash));
      if (item.ends_with(",")) item = item.substr(0, item.size() - 1);
      if (!tokenize(item, line_->indent)) return false;
      Argument a;
      if (!parse_value(a)) return false;
      items.push_back(std::move(a));
      std::string_view d = hash == std::string_view::npos ? "" : trim(l.substr(hash + 1));
      descs.push_back(d == "None" ? Argument::none() : Argument::string(d));
    }
    if (pos_ >= lines_.size()) return fail(lines_.back(), 0, "unterminated return");
    value = list ? Argument::list(std::move(items)) : Argument::tuple(std::move(items));
  } else {
    if (pytree) {
      size_t spec = value_text.rfind(", self._out_spec)");
      if (spec == std::string_view::npos)
        return fail(*line_, line_->indent, "expected ', self._out_spec)'");
      value_text = value_text.substr(0, spec);
    }
    size_t offset = line_->indent + (pytree ? 29 : 7);
    if (!tokenize(value_text, offset)) return false;
    if (!parse_value(value)) return false;
    if (peek().kind != TokenKind::End)
      return fail_at(peek(), "unexpected text after the returned value");
  }
  Node* out = graph_->output(std::move(value));
  if (out->name() != "output") return fail(*line_, line_->indent, "a second return");
  if (!descs.empty()) out->meta.set_desc(Argument::list(std::move(descs)));
  ++pos_;
  return true;
}

bool ReadableParser::parse_statement(GraphModule& m) {
  std::string_view b = line_->body();
  if (b.starts_with("return ") || b == "return") {
    return parse_return(m);
  }
  if (pytree_body_ && is_flatten_statement(b)) {
    size_t spec = b.find(kFlattenCall);
    m.codegen.kind = CodegenKind::Pytree;
    m.codegen.in_args.clear();
    for (const Param& p : params_) m.codegen.in_args.push_back(p.name);
    for (std::string_view name : split_top_level(b.substr(0, spec), ",")) {
      name = trim(name);
      if (name.empty()) continue;
      Node* ph = graph_->placeholder(name);
      if (ph->name() != name)
        return fail(*line_, line_->indent, "placeholder '" + std::string(name) + "' defined twice");
      if (auto it = pytree_annotations_.find(std::string(name)); it != pytree_annotations_.end()) {
        if (!parse_annotation_text(it->second.annotation, ph->meta, it->second.column))
          return false;
        if (!it->second.desc.empty()) ph->meta.set_desc(Argument::string(it->second.desc));
      }
    }
    ++pos_;
    return true;
  }
  // Pytree annotation lines: `a: "f32[2]"; b: "f32[3]"; ` or `a: "f32[2]"  # desc`.
  // AOT-Inductor's `def forward(self):` flattens `[]`: annotation lines without parameters.
  if (m.graph().empty() && (!params_.empty() || pytree_body_) &&
      b.find(": ") != std::string_view::npos && b.find(" = ") == std::string_view::npos) {
    for (std::string_view part : split_top_level(b, "; ")) {
      if (trim(part).empty()) continue;
      size_t before = params_.size();
      if (!parse_param(part, line_->indent)) return false;
      if (params_.size() > before) {
        pytree_annotations_[params_.back().name] = params_.back();
        params_.pop_back();
      }
    }
    ++pos_;
    return true;
  }

  // Statements: `x: "ann" = rhs;  a = b = None`, in-place `a += b;  x = a;  ...`.
  std::vector<std::string_view>& parts = statement_parts_;
  split_top_level(b, ";  ", parts);
  std::string_view stmt = parts[0];
  size_t stmt_offset = line_->indent;
  std::string in_place_op;
  std::vector<Argument> in_place_args;
  bool tokenized = false;  // toks_ holds `stmt`
  if (parts.size() >= 2) {
    // In-place (`a += b`) or setitem (`a[i] = v`) forms come first, the alias next.
    if (!tokenize(stmt, stmt_offset)) return false;
    tokenized = true;
    bool assigning_op = false;  // only `x= `-shaped operators can be in-place ones
    for (size_t k = 0; k + 1 < toks_.size(); ++k)
      assigning_op = assigning_op || (toks_[k].kind == TokenKind::Op && toks_[k].text.size() >= 2 &&
                                      toks_[k].text.back() == '=');
    for (size_t k = 0; assigning_op && k + 1 < toks_.size() && in_place_op.empty(); ++k) {
      if (toks_[k].kind != TokenKind::Op) continue;
      if (const fxtext::PythonOperator* op =
              fxtext::operator_by_token(fxtext::OperatorForm::InPlace, toks_[k].text))
        in_place_op = op->name;
    }
    if (!in_place_op.empty()) {
      Argument lhs, rhs;
      if (!parse_value(lhs)) return false;
      ++tok_;  // the operator
      if (!parse_value(rhs)) return false;
      in_place_args = {std::move(lhs), std::move(rhs)};
      stmt_offset += parts[0].size() + 3;
      stmt = parts[1];
      tokenized = false;
    }
  }
  if (tokenized)
    tok_ = 0;
  else if (!tokenize(stmt, stmt_offset))
    return false;
  if (peek().kind != TokenKind::Name) return fail_at(peek(), "expected a statement");
  const Token name_tok = peek();
  std::string name(name_tok.text);
  ++tok_;
  pending_meta_ = Meta();
  if (at_op(":")) {
    // The annotation runs up to the top-level ` = `.
    size_t ann_start = peek().column + 1;
    size_t eq = std::string_view::npos;
    for (size_t k = tok_; k < toks_.size(); ++k)
      if (toks_[k].kind == TokenKind::Op && toks_[k].text == "=") {
        eq = toks_[k].column;
        tok_ = k;
        break;
      }
    if (eq == std::string_view::npos) return fail_at(peek(), "expected ' = ' after the annotation");
    std::string_view body = line_->body();
    while (ann_start < eq && body[ann_start] == ' ') ++ann_start;
    if (!parse_annotation_text(body.substr(ann_start, eq - ann_start), pending_meta_,
                               line_->indent + ann_start))
      return false;
  }
  if (!expect_op("=")) return false;
  Node* node = nullptr;
  if (!in_place_op.empty()) {
    node = make_node(OpKind::CallFunction, "operator." + in_place_op, name,
                     std::move(in_place_args), {}, name_tok);
    if (node == nullptr) return false;
  } else if (peek().kind == TokenKind::Name && peek(1).kind == TokenKind::End &&
             node_named(name) == nullptr && node_named(peek().text) != nullptr &&
             node_named(peek().text)->op() == OpKind::Placeholder) {
    // `l_x_ = L_x_`: the local name of a placeholder whose target is not its name.
    last_renamed_ = node_named(peek().text);
    graph_->rename_exact(node_named(peek().text), name);
    ++pos_;
    return true;
  } else if (!parse_rhs(node, name)) {
    return false;
  }
  // Meta of the node: annotation, the current group, a pending seed tag line.
  Meta& meta = node->meta;
  meta = pending_meta_;
  meta.stack_trace = group_.stack_trace;
  if (!group_.custom.is_none()) meta.set_custom(group_.custom);
  meta.recompute = group_.recompute;
  meta.set_ac_graph_id(group_.ac_graph_id);
  if (group_.seq_nr) meta.set_seq_nr(group_.seq_nr);
  if (group_.partitioner_tag) meta.partitioner_tag = group_.partitioner_tag;
  if (seed_tag_pending_) {
    meta.recompute = seed_recompute_;
    meta.set_ac_graph_id(seed_ac_graph_id_);
    seed_tag_pending_ = false;
  }
  // `;  a = b = None` last: does it free the node itself (era evidence once we know its users)?
  bool freed = false;
  if (parts.size() >= 2 && parts.back().ends_with(" = None"))
    for_each_top_level(parts.back(), " = ", [&](std::string_view d) {
      freed = trim(d) == name;
      return !freed;
    });
  freed_itself_.emplace_back(node, freed);
  ++pos_;
  return true;
}

bool ReadableParser::parse_body(GraphModule& m, size_t indent) {
  blocks_.clear();
  comment_since_statement_ = ops_started_ = false;
  last_renamed_ = nullptr;
  graphs_.push_back(&m.graph());
  // Placeholders of a plain def come from its parameters; a pytree def binds them later.
  bool plain = true;
  size_t end = pos_;
  for (; end < lines_.size() && (lines_[end].blank() || lines_[end].indent >= indent); ++end)
    if (is_flatten_statement(lines_[end].body())) plain = false;
  m.graph().reserve(end - pos_);  // about a node a line: the name index grows once
  pytree_body_ = !plain;
  if (plain) {
    for (const Param& p : params_) {
      // torch.fx names a `*args` placeholder `args`; its target keeps the star.
      std::string node_name = p.name;
      node_name.erase(std::remove(node_name.begin(), node_name.end(), '*'), node_name.end());
      Node* ph = graph_->create_node_exact(OpKind::Placeholder, InternedString(p.name), node_name);
      if (ph == nullptr) return fail(*line_, p.column, "parameter '" + p.name + "' given twice");
      line_ = &lines_[std::min(pos_, lines_.size() - 1)];
      if (!p.annotation.empty() && !parse_annotation_text(p.annotation, ph->meta, p.column))
        return false;
      if (!p.desc.empty()) ph->meta.set_desc(Argument::string(p.desc));
      if (!p.default_text.empty()) {
        if (!tokenize(p.default_text, p.column)) return false;
        Argument d;
        if (!parse_value(d)) return false;
        ph->set_args({std::move(d)});
      }
    }
  }
  group_ = GroupMeta();
  seed_tag_pending_ = false;
  // What the body has shown since the def or the pytree prologue: nothing, blank lines only,
  // or more. 1.13 kept the body's leading newline: blank lines, then the first comment.
  enum class Lead { Nothing, Blank, More } lead = Lead::Nothing;
  while (pos_ < lines_.size()) {
    line_ = &lines_[pos_];
    if (line_->blank()) {
      if (lead == Lead::Nothing) lead = Lead::Blank;
      ++pos_;
      continue;
    }
    if (line_->indent < indent) break;
    std::string_view b = line_->body();
    if (b == "\"\"\"") {
      lead = Lead::More;
      if (!read_block(indent)) return false;
      continue;
    }
    if (b.starts_with("#")) {
      if (lead == Lead::Blank) seen_.torch_1_13 = true;
      lead = Lead::More;
      bool tag_pending = seed_tag_pending_;
      if (!parse_comment(b)) return false;
      comment_since_statement_ = true;
      // 2.5-2.9: a comment with a stack frame sits one column deeper than the code.
      bool tag_line = seed_tag_pending_ && !tag_pending;
      if (!tag_line && !group_.stack_trace.is_null() && !seen_.torch_1_13)
        seen_.deep_comments = line_->indent == indent + 1;
      ++pos_;
      continue;
    }
    // The pytree prologue's lines come before any placeholder exists.
    bool prologue = m.graph().empty();
    Node* last = m.graph().last();
    if (!parse_statement(m)) return false;
    if (m.graph().last() != last && m.graph().last()->op() != OpKind::Placeholder) {
      if (!give_blocks(m.graph().last())) return false;
      comment_since_statement_ = false;
    }
    lead = prologue ? Lead::Nothing : Lead::More;
  }
  if (!blocks_.empty())
    return fail(*blocks_.front().line, blocks_.front().line->indent,
                "a meta block that no node follows");
  return true;
}

bool ReadableParser::read_block(size_t indent) {
  const SourceLine* open = line_;
  std::string text;
  for (;; ++pos_) {
    if (pos_ >= lines_.size()) return fail(*open, open->indent, "unterminated \"\"\" block");
    const SourceLine& l = lines_[pos_];
    if (l.blank() || l.indent < indent)
      return fail(l, l.indent,
                  "a meta block ends before its closing \"\"\": its lines are indented like the "
                  "body, none blank");
    if (!text.empty()) text += '\n';
    text.append(l.indent - indent, ' ');
    text += l.body();
    if (&l != open && l.body() == "\"\"\"") break;
  }
  ++pos_;
  seen_.show_meta = true;
  blocks_.push_back({std::move(text), comment_since_statement_, last_renamed_, open});
  return true;
}

bool ReadableParser::give_blocks(Node* n) {
  auto keep = [](Node* node, const std::string& text) {
    node->meta.mutable_node_fields().push_back({"meta_block", json::quoted(text)});
  };
  std::vector<const PendingBlock*> before, after;  // before or after the node's comment
  for (const PendingBlock& b : blocks_) (b.after_comment ? after : before).push_back(&b);
  if (after.size() > 1)
    return fail(*after[1]->line, after[1]->line->indent, "a second meta block for one node");
  const PendingBlock* own = after.empty() ? nullptr : after.front();
  size_t next = 0;
  if (!ops_started_) {
    // The body's first blocks are the placeholders', in order; one more is this node's. A block
    // below a placeholder's rename line belongs to a later placeholder.
    std::vector<Node*> placeholders;
    for (Node* p : graph_->nodes())
      if (p->op() == OpKind::Placeholder) placeholders.push_back(p);
    size_t at = 0;
    for (; next < before.size(); ++next) {
      if (const Node* renamed = before[next]->after_rename) {
        auto it = std::find(placeholders.begin(), placeholders.end(), renamed);
        at = std::max(at, static_cast<size_t>(it - placeholders.begin()) + 1);
      }
      if (at >= placeholders.size()) break;
      keep(placeholders[at++], before[next]->text);
    }
  }
  if (next < before.size()) {
    const PendingBlock* extra =
        before.size() - next > 1 || own ? before[own ? next : next + 1] : nullptr;
    if (extra) return fail(*extra->line, extra->line->indent, "a second meta block for one node");
    own = before[next];
  }
  if (own) keep(n, own->text);
  blocks_.clear();
  ops_started_ = true;
  return true;
}

bool ReadableParser::parse_module(GraphModule& m) {
  line_ = &lines_[pos_];
  std::string_view b = line_->body();
  constexpr std::string_view kSuffix = "(torch.nn.Module):";
  if (!b.starts_with("class ") || !b.ends_with(kSuffix))
    return fail(*line_, line_->indent, "expected 'class NAME(torch.nn.Module):'");
  size_t indent = line_->indent;
  size_t class_line = pos_;
  m.class_name = std::string(b.substr(6, b.size() - 6 - kSuffix.size()));
  ++pos_;
  graph_ = &m.graph();
  // `wrap("fn")` statements of fx.wrap'ped functions come before the def.
  while (pos_ < lines_.size() && (lines_[pos_].blank() || lines_[pos_].body().starts_with("wrap(")))
    ++pos_;
  if (!parse_def(indent + 4)) return false;
  if (!parse_body(m, indent + 8)) return false;
  if (m.graph().output_node() == nullptr)
    return fail(lines_[class_line], indent, "class '" + m.class_name + "' has no return statement");
  // Nested classes: the submodules, in order.
  while (true) {
    skip_blank();
    if (pos_ >= lines_.size() || lines_[pos_].indent != indent + 4) break;
    auto child = std::make_unique<GraphModule>();
    ++depth_;
    bool ok = parse_module(*child);
    --depth_;
    if (!ok) return false;
    std::string name = child->class_name;
    child->class_name.clear();  // printed from the attribute name, as torch.fx does
    m.submodules.push_back({std::move(name), std::move(child)});
  }
  graph_ = &m.graph();
  return true;
}

Expected<GraphModule> ReadableParser::parse() {
  // Log wrappers (`TRACED GRAPH`, `===== name =====`) may come first: start at the class line.
  while (pos_ < lines_.size() && !lines_[pos_].body().starts_with("class ")) ++pos_;
  if (pos_ >= lines_.size()) {
    // gm.code: a `def forward(` at the margin, without a class around it.
    for (pos_ = 0; pos_ < lines_.size(); ++pos_) {
      const SourceLine& l = lines_[pos_];
      if (l.blank() || l.body().starts_with("wrap(")) continue;
      if (l.indent == 0 && l.body().starts_with("def forward(")) {
        GraphModule m;
        graph_ = &m.graph();
        size_t def_line = pos_;
        if (!parse_def(0) || !parse_body(m, 4)) return *error_;
        if (m.graph().output_node() == nullptr)
          return (fail(lines_[def_line], 0, "forward() has no return statement"), *error_);
        skip_blank();
        if (pos_ < lines_.size())
          return (fail(lines_[pos_], lines_[pos_].indent, "unexpected text after forward()"),
                  *error_);
        m.text_style = style_read();
        return m;
      }
      break;
    }
    Diagnostic d;
    d.file = file_;
    d.line = 1;
    d.col = 1;
    d.message =
        "no 'class NAME(torch.nn.Module):' or 'def forward(' line: not print_readable() "
        "or gm.code output";
    return d;
  }
  size_t top_indent = lines_[pos_].indent;
  GraphModule m;
  if (!parse_module(m)) return *error_;
  skip_blank();
  if (pos_ < lines_.size() && lines_[pos_].body().starts_with("# graph id: ")) {
    // Inductor's trailer. The printed module ends with a whitespace-only line (the first blank
    // line after its code); the trailer is every line after that one: `# graph id: DIGITS` lines
    // and blank lines, nothing else (anything else would not read back the same).
    for (size_t i = pos_; i < lines_.size(); ++i) {
      if (lines_[i].blank() || is_graph_id_line(lines_[i].body())) continue;
      return (fail(lines_[i], lines_[i].indent, "unexpected text after the module's graph id"),
              *error_);
    }
    size_t first = pos_;
    while (first > 0 && lines_[first - 1].blank()) --first;
    if (first < pos_) ++first;
    for (size_t i = first; i < lines_.size(); ++i) m.trailer += "\n" + std::string(lines_[i].text);
    m.text_style = style_read();
    return m;
  }
  if (pos_ < lines_.size() && lines_[pos_].indent <= top_indent)
    return (fail(lines_[pos_], lines_[pos_].indent, "unexpected text after the module"), *error_);
  m.text_style = style_read();
  return m;
}

}  // namespace

Expected<GraphModule> parse_readable(std::string_view text, const std::string& file) {
  return ReadableParser(text, file).parse();
}

bool looks_like_readable(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] != '{';
}

}  // namespace remat
