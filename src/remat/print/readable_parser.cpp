// Readable FX code back into a GraphModule: the structure of a module (classes, def, body,
// statements) here; expressions in readable_expressions.cpp, annotations and comments in
// readable_comments.cpp, the state they share in detail/readable_parser_state.h.
#include "remat/print/readable_parser.h"

#include <algorithm>
#include <cstring>

#include "remat/fxtext/python_operators.h"
#include "remat/fxtext/text_scan.h"
#include "remat/ir/naming.h"
#include "remat/print/detail/readable_parser_state.h"
#include "remat/print/meta_text.h"
#include "remat/print/print_options.h"
#include "remat/support/json_text.h"
#include "remat/support/python_repr.h"

namespace remat {
namespace print_detail {
namespace {

using fxtext::comment_start;
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

}  // namespace

TextStyle StyleEvidence::style() const {
  TextStyle s;
  std::string_view era = torch_1_13 && !quoted                        ? "torch-1.13"
                         : quoted == false || names_function == false ? "torch-2.1"
                         : deep_comments == true                      ? "torch-2.5-2.9"
                         : tags == TagStyle::Inline2025               ? "torch-2.10"
                         : indent_blank_lines == false                ? "torch-2.13"
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
  set(s.indent_blank_lines, indent_blank_lines);
  if (tags) s.tag_style = *tags;
  s.colored = colored;
  s.show_meta = show_meta;
  s.additional_meta = additional_meta;
  return s;
}

TextStyle ReadableParser::style_read() {
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

ReadableParser::ReadableParser(std::string_view text, std::string file) : file_(std::move(file)) {
  int number = 0;
  size_t start = 0;
  while (start <= text.size()) {
    size_t nl = text.find('\n', start);
    std::string_view line = text.substr(start, nl == std::string_view::npos ? nl : nl - start);
    if (line.find('\033') != std::string_view::npos) {
      std::string_view plain = stripped_.emplace_back(strip_ansi(line));
      seen_.colored = seen_.colored || plain.size() < line.size();  // a color code, not a stray ESC
      line = plain;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t indent = line.find_first_not_of(' ');
    lines_.push_back({line, ++number, indent == std::string::npos ? line.size() : indent});
    if (nl == std::string_view::npos) break;
    start = nl + 1;
  }
}

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
    if (in_place_op.empty() && toks_.size() > 2 && toks_[0].kind == TokenKind::Name &&
        toks_[1].kind == TokenKind::Op && toks_[1].text == "[") {
      // `a[i] = v;  setitem = a;  ...`: operator.setitem (T5's `ids[..., 1:] = ...`).
      Argument target, index, value;
      if (!parse_value(target) || !expect_op("[") || !parse_value(index) || !expect_op("]") ||
          !expect_op("=") || !parse_value(value))
        return false;
      if (peek().kind != TokenKind::End) return fail_at(peek(), "expected the end of setitem");
      in_place_op = "setitem";
      in_place_args = {std::move(target), std::move(index), std::move(value)};
      stmt_offset += parts[0].size() + 3;
      stmt = parts[1];
      tokenized = false;
    } else if (!in_place_op.empty()) {
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
  // `;  a = b = None` last: does it free the node itself (era evidence once we know its
  // users)?
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
  // What the body has shown since the def or the pytree prologue: nothing, blank lines
  // only, or more. 1.13 kept the body's leading newline: blank lines, then the first
  // comment.
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
    // The body's first blocks are the placeholders', in order; one more is this node's. A
    // block below a placeholder's rename line belongs to a later placeholder.
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

void ReadableParser::note_blank_lines(size_t from, size_t to) {
  // Up to 2.12 every line of the module carried its indentation, blank ones included; 2.13
  // leaves them empty. A file may add an empty line at its end, so spaces win.
  for (size_t i = from; i < to && i < lines_.size(); ++i) {
    if (!lines_[i].blank()) continue;
    if (!lines_[i].text.empty()) {
      seen_.indent_blank_lines = true;
      return;
    }
    seen_.indent_blank_lines = false;
  }
}

Expected<GraphModule> ReadableParser::parse() {
  // Log wrappers (`TRACED GRAPH`, `===== name =====`) may come first: start at the class
  // line.
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
  size_t class_line = pos_;
  GraphModule m;
  if (!parse_module(m)) return *error_;
  skip_blank();
  note_blank_lines(class_line, pos_);
  if (pos_ < lines_.size() && lines_[pos_].body().starts_with("# graph id: ")) {
    // Inductor's trailer. The printed module ends with a whitespace-only line (the first
    // blank line after its code); the trailer is every line after that one: `# graph id:
    // DIGITS` lines and blank lines, nothing else (anything else would not read back the
    // same).
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
}  // namespace print_detail

Expected<GraphModule> parse_readable(std::string_view text, const std::string& file) {
  return print_detail::ReadableParser(text, file).parse();
}

bool looks_like_readable(std::string_view text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] != '{';
}

}  // namespace remat
