// The readable parser's state, shared by its three parts: the structure of a module (classes,
// def, body, statements: readable_parser.cpp), Python expressions (readable_expressions.cpp),
// annotations and comments (readable_comments.cpp). Private to print/.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "remat/fxtext/python_lexer.h"
#include "remat/fxtext/recompute_tags.h"
#include "remat/ir/graph_module.h"
#include "remat/support/expected.h"
#include "remat/support/string_hash.h"

namespace remat::print_detail {

using fxtext::Token;
using fxtext::tokenize_python;
using fxtext::TokenKind;

struct SourceLine {
  std::string_view text;  // without ANSI color codes (the input, or a stripped copy)
  int number;             // 1-based
  size_t indent;
  [[nodiscard]] std::string_view body() const { return text.substr(indent); }
  [[nodiscard]] bool blank() const { return indent == text.size(); }
};

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

/// What the text shows of the rules and options it was printed with (docs/spec/readable-text.md
/// §10); nullopt where nothing in the text tells.
struct StyleEvidence {
  bool torch_1_13 = false;  // the body starts with a blank line, then a comment
  std::optional<bool> quoted, stride, device, expanded_def, names_function, deep_comments,
      truncate_annotations;
  std::optional<TagStyle> tags;
  std::optional<bool> free_dead_results;
  std::optional<bool> indent_blank_lines;  // a blank line of the module: spaces, or empty (2.13)
  bool colored = false;
  bool show_meta = false;                    // a `"""` block of FX_GRAPH_SHOW_META
  std::vector<std::string> additional_meta;  // keys in the order comments show them

  /// The era the evidence points to, with each observed rule laid over it.
  [[nodiscard]] TextStyle style() const;
};

class ReadableParser {
 public:
  ReadableParser(std::string_view text, std::string file);

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
  TextStyle style_read();
  /// Style evidence from the module's blank lines (indented, or empty as 2.13 prints them).
  void note_blank_lines(size_t from, size_t to);
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

}  // namespace remat::print_detail
