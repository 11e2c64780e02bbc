// torch.fx's python_code / print_readable, rule by rule (docs: docs/spec/readable-text.md §1-§8).
#include "remat/print/printer.h"

#include <algorithm>
#include <array>
#include <optional>
#include <unordered_map>

#include <absl/container/flat_hash_map.h>
#include <absl/container/flat_hash_set.h>

#include "remat/fxtext/python_operators.h"
#include "remat/ir/naming.h"
#include "remat/ir/node_set.h"
#include "remat/ir/target.h"
#include "remat/print/meta_text.h"
#include "remat/support/append_int.h"
#include "remat/support/float_repr.h"
#include "remat/support/python_repr.h"

namespace remat {
namespace {

// ANSI colors of torch.fx's colored output (§7).
std::string wrap(std::string_view code, std::string_view s) {
  return std::string(code) + std::string(s) + "\033[0m";
}
constexpr std::string_view kBlue = "\033[34m";
constexpr std::string_view kDim = "\033[2m";

void apply_pattern(std::string& out, std::string_view pattern, std::span<const std::string> args) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '{' && i + 2 < pattern.size() && pattern[i + 2] == '}') {
      size_t k = static_cast<size_t>(pattern[i + 1] - '0');
      if (k < args.size()) out += args[k];
      i += 2;
    } else {
      out += pattern[i];
    }
  }
}

/// `_format_target`: `self.layers.0.weight` -> `getattr(self.layers, "0").weight`.
std::string format_target(std::string base, std::string_view target) {
  size_t start = 0;
  while (start <= target.size()) {
    size_t dot = target.find('.', start);
    std::string_view part = target.substr(start, dot == std::string_view::npos ? dot : dot - start);
    if (is_python_identifier(part))
      base += "." + std::string(part);
    else
      base = "getattr(" + base + ", \"" + std::string(part) + "\")";
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return base;
}

/// Lines of text in one buffer, each with the node it belongs to.
struct Lines {
  std::string text;  // every line ends with '\n'
  std::vector<const Node*> nodes;

  void add(std::string_view line, const Node* n) {
    text.append(line);
    text += '\n';
    nodes.push_back(n);
  }
};

/// Appends each line of `lines` to `out`, after `indent`.
void append_lines(const Lines& lines, std::string_view indent, PrintedCode& out) {
  size_t start = 0;
  for (const Node* n : lines.nodes) {
    size_t end = lines.text.find('\n', start);
    if (!out.text.empty() || !out.line_nodes.empty()) out.text += '\n';
    out.text.append(indent);
    out.text.append(lines.text, start, end - start);
    out.line_nodes.push_back(n);
    start = end + 1;
  }
}

/// The body of forward() as it is printed: each line is `\n`, the indent and its text, and
/// belongs to a node. torch.fx strips the body's leading blank lines (1.13 kept them).
class Body {
 public:
  Body(std::string indent, bool keep_leading_blanks)
      : indent_(std::move(indent)), started_(keep_leading_blanks) {}

  /// Starts a line of `n` and returns the buffer its text (one line) is appended to.
  std::string& line(const Node* n) {
    started_ = true;
    text_ += '\n';
    text_ += indent_;
    nodes_.push_back(n);
    return text_;
  }
  /// Appends `s`, which may span several lines, all belonging to `n`.
  void add(std::string_view s, const Node* n) {
    size_t start = 0;
    while (true) {
      size_t nl = s.find('\n', start);
      std::string_view piece = s.substr(start, nl == std::string_view::npos ? nl : nl - start);
      if (started_ || !piece.empty()) line(n).append(piece);
      if (nl == std::string_view::npos) break;
      start = nl + 1;
    }
  }
  void reserve(size_t bytes, size_t lines) {
    text_.reserve(bytes);
    nodes_.reserve(lines);
  }
  void append_to(PrintedCode& out) const {
    out.text += text_;
    out.line_nodes.insert(out.line_nodes.end(), nodes_.begin(), nodes_.end());
  }

 private:
  std::string indent_;
  bool started_;
  std::string text_;
  std::vector<const Node*> nodes_;
};

/// One python_code() call: a fresh namespace, the body and the free variables.
class CodeGen {
 public:
  /// `indent`: the columns before `def forward`.
  CodeGen(const GraphModule& m, const PrintOptions& o, bool verbose, std::string_view indent)
      : m_(m),
        o_(o),
        verbose_(verbose),
        indent_(indent),
        meta_text_(o),
        body_(indent_ + "    ", o.dialect == Dialect::Torch113),
        name_state_(m.graph(), 0),
        last_user_(m.graph(), nullptr) {
    // torch.fx pre-registers its custom builtins, so nodes named `torch`, `inf`... get `_1`.
    for (std::string_view b : {"inf", "nan", "NoneType", "torch", "device", "fx_pytree", "pytree"})
      create_global_name(b, /*is_that_builtin=*/true);
  }

  /// Appends the code to `out`.
  void run(PrintedCode& out);

 private:
  /// How a call_function target prints, found once per target.
  struct Callable {
    const fxtext::PythonOperator* magic = nullptr;    // an operator printed as an expression
    const fxtext::PythonOperator* inplace = nullptr;  // one printed as a statement of its own
    std::optional<std::string> global;                // the callable's name, made on first use
  };

  std::string_view name_of(const Node* n);
  /// True when `name` is printed for something already; `unnamed`: the node being named.
  [[nodiscard]] bool taken(std::string_view name, std::string_view unnamed) const;
  std::string create_global_name(std::string_view hint, bool is_that_builtin = false);
  std::string add_global(std::string_view target);
  Callable& callable(const std::string& target);
  void repr(std::string& out, const Argument& a, bool colored);
  std::string repr(const Argument& a, bool colored) {
    std::string out;
    repr(out, a, colored);
    return out;
  }
  void format_args(std::string& out, std::span<const Argument> args, std::span<const Kwarg> kwargs);
  void annotation(std::string& out, const Node& n);
  /// The node's inputs, each once, args first (torch.fx's _input_nodes), in a reused buffer.
  const std::vector<Node*>& inputs_of(const Node& n);
  void compute_last_uses();
  void deletions(std::string& out, const Node& n);
  void emit(const Node& n);
  void emit_output(const Node& n);
  void emit_comment(const Node& n);
  std::vector<std::string> prologue();

  const GraphModule& m_;
  const PrintOptions& o_;
  bool verbose_;
  std::string indent_;
  MetaText meta_text_;
  Body body_;

  // torch.fx gives each node, global and builtin a unique name in a fresh namespace. A node's
  // name is nearly always its own (the graph's names are unique), so the taken names are the
  // nodes named so far under their own name (found through the graph's index) plus `others_`,
  // and a node's printed name is stored only when it differs.
  NameCounter counter_;
  NodeMap<uint32_t> name_state_;  // 0: not named yet, 1: its own name, k + 2: renamed_[k]
  std::vector<std::string> renamed_;
  absl::flat_hash_set<std::string, StringViewHash, StringViewEq> others_;

  std::unordered_map<std::string, std::string> globals_;         // target -> printed global name
  absl::flat_hash_map<const std::string*, Callable> callables_;  // by interned target
  NodeMap<const Node*> last_user_;
  std::vector<Node*> inputs_;
  std::vector<std::string> operands_;  // an operator's rendered operands, reused
  std::vector<std::string> free_vars_;
  std::string scratch_;  // a statement that may span lines, reused

  // The stack-trace comment depends only on these when no extra meta keys are shown and the node
  // has no custom annotation: a node with the previous node's key prints no comment.
  struct CommentKey {
    const void* trace = nullptr;
    std::optional<CheckpointPolicy> recompute;
    std::optional<int64_t> ac_graph_id;
    friend bool operator==(const CommentKey&, const CommentKey&) = default;
  };
  std::optional<CommentKey> previous_key_;
  std::optional<std::string> previous_summary_;
  std::optional<std::string_view> previous_trace_;  // 1.13 compared the traces, not the comments
};

std::string_view CodeGen::name_of(const Node* n) {
  uint32_t state = name_state_.get(n);
  if (state == 0) {
    std::string_view own = n->name();
    std::string name = counter_.create(own, [&](std::string_view c) { return taken(c, own); });
    if (name == own) {
      state = 1;
    } else {
      others_.insert(name);
      renamed_.push_back(std::move(name));
      state = static_cast<uint32_t>(renamed_.size() + 1);
    }
    name_state_[n] = state;
  }
  return state == 1 ? std::string_view(n->name()) : std::string_view(renamed_[state - 2]);
}

bool CodeGen::taken(std::string_view name, std::string_view unnamed) const {
  if (others_.contains(name)) return true;
  if (name == unnamed) return false;  // the graph's only node of that name, not named yet
  const Node* holder = m_.graph().find(name);
  return holder != nullptr && name_state_.get(holder) == 1;
}

std::string CodeGen::create_global_name(std::string_view hint, bool is_that_builtin) {
  std::string name = counter_.create(
      hint, [&](std::string_view c) { return taken(c, {}); }, is_that_builtin);
  others_.insert(name);
  return name;
}

std::string CodeGen::add_global(std::string_view target) {
  // Callables from torch print under their qualified name; others become sanitized globals.
  switch (classify_callable(target)) {
    case CallableKind::OpOverload:
    case CallableKind::HigherOrderOp:
      return "torch.ops." + std::string(target);
    case CallableKind::TorchCallable:
      if (target != "torch.device") return std::string(target);
      break;
    default:
      break;
  }
  auto it = globals_.find(std::string(target));
  if (it != globals_.end()) return it->second;
  std::string hint;
  bool builtin = classify_callable(target) == CallableKind::Builtin;
  if (builtin)
    hint = callable_short_name(target);
  else if (target.starts_with("operator."))
    hint = "_" + std::string(target);
  else
    hint = target;
  std::string name = create_global_name(hint, builtin);
  globals_.emplace(std::string(target), name);
  return name;
}

CodeGen::Callable& CodeGen::callable(const std::string& target) {
  auto [it, fresh] = callables_.try_emplace(&target);
  if (fresh && classify_callable(target) == CallableKind::Operator) {
    std::string_view op = callable_short_name(target);
    it->second.magic = fxtext::expression_operator(op);
    if (it->second.magic == nullptr) it->second.inplace = fxtext::statement_operator(op);
  }
  return it->second;
}

void CodeGen::repr(std::string& out, const Argument& a, bool colored) {
  if (a.kind() == ArgKind::Node) {
    out += name_of(a.as_node());
    return;
  }
  if (a.kind() == ArgKind::Op) {
    out += add_global(a.as_text());
    return;
  }
  // Constants print in blue when colored.
  bool constant = a.kind() != ArgKind::Enum && a.kind() != ArgKind::TensorConstant &&
                  a.kind() != ArgKind::Tuple && a.kind() != ArgKind::List &&
                  a.kind() != ArgKind::Slice;
  if (constant && colored) out += kBlue;
  switch (a.kind()) {
    case ArgKind::Node:
    case ArgKind::Op:
      break;
    case ArgKind::None:
      out += "None";
      break;
    case ArgKind::Int:
      append_int(out, a.as_int());
      break;
    case ArgKind::Float:
      out += python_float_repr(a.as_float());
      break;
    case ArgKind::Bool:
      out += a.as_bool() ? "True" : "False";
      break;
    case ArgKind::String:
      out += python_str_repr(a.as_text());
      break;
    case ArgKind::DType:
      out += dtype_name(a.as_dtype());
      break;
    case ArgKind::Device:
      out += python_device_repr(a.as_text());
      break;
    case ArgKind::Layout:
      out += layout_name(a.as_layout());
      break;
    case ArgKind::MemoryFormat:
      out += memory_format_name(a.as_memory_format());
      break;
    case ArgKind::Complex: {
      auto [re, im] = a.as_complex();
      out += python_complex_repr(re, im);
      break;
    }
    case ArgKind::SymInt:
      out += a.as_text();
      break;
    case ArgKind::Repr:
      out += a.repr_text();
      break;
    case ArgKind::Enum: {
      std::string_view q = a.as_text();
      size_t member = q.rfind('.');
      // `torch.float32` and a bare global such as `torch` print as they read.
      if (q.starts_with("torch.") || member == std::string_view::npos) {
        out += q;
        break;
      }
      std::string_view cls = q.substr(0, member);
      size_t cls_dot = cls.rfind('.');
      std::string_view cls_name = cls_dot == std::string_view::npos ? cls : cls.substr(cls_dot + 1);
      auto [it, fresh] = globals_.try_emplace(std::string(cls));
      if (fresh) it->second = create_global_name(cls_name);  // the class becomes a global
      out += it->second;
      out += q.substr(member);
      break;
    }
    case ArgKind::TensorConstant: {
      std::string_view dt = dtype_name(a.tensor_constant_dtype());
      if (dt.starts_with("torch.")) dt.remove_prefix(6);
      out += "torch.Tensor(size=[";
      append_dims(out, a.tensor_constant_shape());
      out += "], dtype=";
      out += dt;
      out += ')';
      break;
    }
    case ArgKind::Tuple:
    case ArgKind::List: {
      bool list = a.kind() == ArgKind::List;
      auto items = a.elements();
      out += list ? '[' : '(';
      for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += ", ";
        repr(out, items[i], colored);
      }
      out += list ? "]" : items.size() == 1 ? ",)" : ")";
      break;
    }
    case ArgKind::Slice: {
      auto p = a.elements();
      out += "slice(";
      repr(out, p[0], colored);
      out += ", ";
      repr(out, p[1], colored);
      out += ", ";
      repr(out, p[2], colored);
      out += ')';
      break;
    }
    case ArgKind::Dict: {
      // Plain repr(dict): one constant, nodes inside show their names.
      out += '{';
      bool first = true;
      for (const DictEntry& e : a.dict_entries()) {
        if (!first) out += ", ";
        out += python_str_repr(e.key);
        out += ": ";
        repr(out, e.value, false);
        first = false;
      }
      out += '}';
      break;
    }
  }
  if (constant && colored) out += "\033[0m";
}

void CodeGen::format_args(std::string& out, std::span<const Argument> args,
                          std::span<const Kwarg> kwargs) {
  bool first = true;
  for (const Argument& a : args) {
    if (!first) out += ", ";
    repr(out, a, o_.colored);
    first = false;
  }
  for (const Kwarg& k : kwargs) {
    if (!first) out += ", ";
    out += k.key.str();
    out += " = ";
    repr(out, k.value, o_.colored);
    first = false;
  }
}

void CodeGen::annotation(std::string& out, const Node& n) {
  // The verbose form annotates from meta (1.13 did not); otherwise node.type, when set.
  if (verbose_ && o_.dialect != Dialect::Torch113) {
    size_t before = out.size();
    meta_text_.append_annotation(out, n.meta);
    if (out.size() != before) return;
    // Always quoted: only quoted annotations are kept as text, and only quoted they read back.
    if (std::optional<std::string> kept = node_type_text(n, "annotation")) {
      out += ": \"";
      out += *kept;
      out += '"';
      return;
    }
  }
  if (std::optional<std::string> type = node_type_text(n)) {
    out += " : ";
    out += *type;
  }
}

const std::vector<Node*>& CodeGen::inputs_of(const Node& n) {
  n.collect_input_nodes(inputs_);
  return inputs_;
}

void CodeGen::compute_last_uses() {
  // Walking backwards, the first user seen of each input is its last use (§5).
  for (const Node* n = m_.graph().last(); n != nullptr; n = n->prev()) {
    for (const Node* input : inputs_of(*n)) {
      const Node*& last = last_user_[input];
      if (last == nullptr) last = n;
    }
  }
}

void CodeGen::deletions(std::string& out, const Node& n) {
  // The inputs that die here, in input order (torch.fx's user_to_last_uses), then the node
  // itself when nothing uses it: `;  a = b = None`.
  const size_t start = out.size();
  out += ";  ";
  if (o_.colored) out += kDim;
  const size_t names = out.size();
  auto add = [&](const Node* d) {
    out += name_of(d);
    out += " = ";
  };
  if (n.op() != OpKind::Placeholder && n.op() != OpKind::Output) {
    for (const Node* input : inputs_of(n))
      if (last_user_.get(input) == &n) add(input);
  }
  if (n.users().empty() && o_.free_dead_results) add(&n);
  if (out.size() == names) {
    out.resize(start);
    return;
  }
  out += "None";
  if (o_.colored) out += "\033[0m";
}

void CodeGen::emit(const Node& n) {
  const std::string& target = n.target().str();
  std::string& s = scratch_;
  s.clear();
  switch (n.op()) {
    case OpKind::Placeholder: {
      std::string free_var = target;
      annotation(free_var, n);
      if (!n.args().empty()) {
        free_var += " = ";
        repr(free_var, n.args()[0], o_.colored);
      }
      if (verbose_ && o_.expanded_def && n.meta.desc().is(ArgKind::String))
        free_var += "  # " + std::string(n.meta.desc().as_text());
      free_vars_.push_back(std::move(free_var));
      std::string raw = target;
      raw.erase(std::remove(raw.begin(), raw.end(), '*'), raw.end());
      if (raw != name_of(&n)) body_.add(std::string(name_of(&n)) + " = " + raw, &n);
      return;
    }
    case OpKind::GetAttr:
      s += name_of(&n);
      annotation(s, n);
      s += " = ";
      s += format_target("self", target);
      deletions(s, n);
      body_.add(s, &n);
      return;
    case OpKind::CallModule:
      s += name_of(&n);
      annotation(s, n);
      s += " = ";
      s += format_target("self", target);
      s += '(';
      format_args(s, n.args(), n.kwargs());
      s += ')';
      deletions(s, n);
      body_.add(s, &n);
      return;
    case OpKind::CallMethod: {
      std::string self = n.args().empty() ? "" : repr(n.args()[0], false);
      s += name_of(&n);
      annotation(s, n);
      s += " = ";
      s += format_target(self, target);
      s += '(';
      format_args(s, n.args().subspan(n.args().empty() ? 0 : 1), n.kwargs());
      s += ')';
      deletions(s, n);
      body_.add(s, &n);
      return;
    }
    case OpKind::Output:
      emit_output(n);
      return;
    case OpKind::CallFunction:
      break;
  }
  Callable& c = callable(target);
  if (c.magic != nullptr || c.inplace != nullptr) {
    operands_.resize(n.args().size());
    for (size_t i = 0; i < n.args().size(); ++i) {
      operands_[i].clear();
      repr(operands_[i], n.args()[i], false);  // plain repr()
    }
    if (c.magic != nullptr) {
      s += name_of(&n);
      annotation(s, n);
      s += " = ";
      apply_pattern(s, c.magic->pattern, operands_);
    } else {
      apply_pattern(s, c.inplace->pattern, operands_);
      s += ";  ";
      s += name_of(&n);
      annotation(s, n);
      s += " = ";
      if (!operands_.empty()) s += operands_[0];
    }
    deletions(s, n);
    body_.add(s, &n);
    return;
  }
  if (!c.global) c.global = add_global(target);
  const std::string& global = *c.global;
  if (global == "getattr" && n.args().size() == 2 && n.args()[1].is(ArgKind::String) &&
      is_python_identifier(n.args()[1].as_text())) {
    s += name_of(&n);
    annotation(s, n);
    s += " = ";
    s += format_target(repr(n.args()[0], false), n.args()[1].as_text());
    deletions(s, n);
    body_.add(s, &n);
    return;
  }
  // The common statement, straight into the body: one line, reprs escape newlines.
  std::string& line = body_.line(&n);
  line += name_of(&n);
  annotation(line, n);
  line += " = ";
  line += global;
  line += '(';
  format_args(line, n.args(), n.kwargs());
  line += ')';
  deletions(line, n);
}

void CodeGen::emit_output(const Node& n) {
  const Argument value = n.args().empty() ? Argument() : n.args()[0];
  const Argument& desc = n.meta.desc();
  bool pytree = m_.codegen.kind == CodegenKind::Pytree && m_.codegen.out_spec;
  bool expanded = verbose_ && o_.expanded_def && desc.is(ArgKind::List) && value.is_sequence();
  std::string& s = scratch_;
  if (expanded) {
    bool list = value.is(ArgKind::List);
    s = pytree ? std::string("return pytree.tree_unflatten(") + (list ? "[" : "(")
               : std::string("return ") + (list ? "[" : "(");
    auto items = value.elements();
    auto descs = desc.elements();
    for (size_t i = 0; i < items.size() && i < descs.size(); ++i) {
      s += "\n    ";
      repr(s, items[i], o_.colored);
      s += ",  # ";
      s += descs[i].is(ArgKind::String) ? descs[i].as_text() : "None";
    }
    s += std::string("\n") + (list ? "]" : ")") + (pytree ? ", self._out_spec)" : "");
    body_.add(s, &n);
    return;
  }
  s = pytree ? "return pytree.tree_unflatten(" : "return ";
  repr(s, value, o_.colored);
  if (pytree) s += ", self._out_spec)";
  body_.add(s, &n);
}

void CodeGen::emit_comment(const Node& n) {
  if (o_.dialect == Dialect::Torch113) {
    std::string_view trace = n.meta.stack_trace.is_null() ? "" : n.meta.stack_trace.view();
    if (!trace.empty() && trace != previous_trace_) {
      body_.add("", &n);
      body_.add("# " + MetaText::summary_1_13(trace), &n);
    } else if (trace.empty() && previous_trace_ != "") {
      body_.add("", &n);
      body_.add("# No stacktrace found for following nodes ", &n);
    }
    previous_trace_ = trace;
    return;
  }
  std::optional<CommentKey> key;
  if (o_.additional_meta.empty() && n.meta.custom().is_none())
    key = CommentKey{n.meta.stack_trace.is_null() ? nullptr : &n.meta.stack_trace.str(),
                     n.meta.recompute, n.meta.ac_graph_id()};
  if (key && key == previous_key_) return;
  previous_key_ = key;
  std::string summary = meta_text_.summary(n);
  if (summary == previous_summary_) return;
  body_.add("", &n);
  body_.add(o_.colored ? wrap(kDim, summary) : summary, &n);
  previous_summary_ = std::move(summary);
}

/// `def forward(...)`, plus the pytree flattening lines (§1.4).
std::vector<std::string> CodeGen::prologue() {
  auto def = [&](std::vector<std::string> params) {
    if (params.empty() || params[0] != "self") params.insert(params.begin(), "self");
    if (!(verbose_ && o_.expanded_def)) {
      std::string joined;
      for (const std::string& p : params) joined += (joined.empty() ? "" : ", ") + p;
      return std::vector<std::string>{"def forward(" + joined + "):"};
    }
    std::vector<std::string> lines{"def forward("};
    for (const std::string& p : params) {
      size_t hash = p.find('#');
      if (hash == std::string::npos) {
        lines.push_back("    " + p + ",");
        continue;
      }
      std::string before = p.substr(0, hash), after = p.substr(hash + 1);
      before.erase(before.find_last_not_of(' ') + 1);
      after.erase(0, after.find_first_not_of(' '));
      lines.push_back("    " + before + ",  # " + after);
    }
    lines.push_back("):");
    return lines;
  };
  if (m_.codegen.kind != CodegenKind::Pytree || !m_.codegen.in_spec) return def(free_vars_);
  std::vector<std::string> lines = def(m_.codegen.in_args);
  if (free_vars_.empty()) return lines;
  std::vector<std::string> annotated;
  std::string names;
  for (const std::string& v : free_vars_) {
    if (v.find(':') != std::string::npos) annotated.push_back(v);
    std::string name = v.substr(0, v.find(':'));
    name = name.substr(0, name.find('#'));
    // torch.fx keeps the spaces before a descriptor here (`x  , =`), but only for a placeholder
    // with a descriptor and no annotation, which no release writes: the name alone reads back.
    name.erase(name.find_last_not_of(' ') + 1);
    names += name + ", ";
  }
  if (!annotated.empty()) {
    if (verbose_ && o_.expanded_def) {
      for (const std::string& v : annotated) lines.push_back("    " + v);
    } else {
      std::string line = "    ";
      for (const std::string& v : annotated) line += v + "; ";
      lines.push_back(line);
      lines.push_back("");
    }
  }
  std::string args;
  for (const std::string& a : m_.codegen.in_args) args += (args.empty() ? "" : ", ") + a;
  lines.push_back("    " + names + "= fx_pytree.tree_flatten_spec([" + args + "], self._in_spec)");
  return lines;
}

void CodeGen::run(PrintedCode& out) {
  compute_last_uses();
  body_.reserve(m_.graph().size() * 180, m_.graph().size() * 2);
  for (const Node* n : m_.graph().nodes()) {
    if (verbose_ && n->op() != OpKind::Placeholder && n->op() != OpKind::Output) emit_comment(*n);
    bool meta_block = false;
    if (o_.show_meta) {
      if (std::optional<std::string> kept = node_type_text(*n, "meta_block")) {
        // As read: remat does not model every value such a block shows.
        for (size_t start = 0; start < kept->size();) {
          size_t nl = kept->find('\n', start);
          if (nl == std::string::npos) nl = kept->size();
          body_.add(std::string_view(*kept).substr(start, nl - start), n);
          start = nl + 1;
        }
        meta_block = !kept->empty();
      } else if (!meta_text_.empty(n->meta)) {
        body_.add("\"\"\"", n);
        for (const std::string& line : meta_text_.full_meta_lines(*n)) body_.add(line, n);
        body_.add("\"\"\"", n);
        meta_block = true;
      }
    }
    if (!meta_block && o_.tag_style == TagStyle::Seed) {
      if (std::optional<std::string> tag = meta_text_.seed_tag_line(n->meta)) body_.add(*tag, n);
    }
    emit(*n);
  }
  Lines prologue_lines;
  for (const std::string& p : prologue()) prologue_lines.add(p, nullptr);
  append_lines(prologue_lines, indent_, out);
  out.text.reserve(out.text.size() + m_.graph().size() * 180);
  body_.append_to(out);
  // The body ends with a newline, then the body's indent.
  out.text += '\n';
  out.text += indent_;
  out.text += "    ";
  out.line_nodes.push_back(nullptr);
}

void append_module(const GraphModule& m, const PrintOptions& options, PrintedCode& out,
                   size_t indent) {
  std::string pad(indent, ' ');
  std::string name = options.class_name.empty() ? m.display_class_name() : options.class_name;
  auto push = [&](std::string text, const Node* n) {
    out.line_nodes.push_back(n);
    if (!out.text.empty()) out.text += '\n';
    out.text += text;
  };
  push(pad + "class " + name + "(torch.nn.Module):", nullptr);
  CodeGen(m, options, /*verbose=*/true, pad + "    ").run(out);
  // Nested classes, 4 columns deeper; expanded_def is not passed down. The module's last line
  // (whitespace only) separates it from each of them.
  PrintOptions nested = options;
  nested.expanded_def = false;
  for (const Submodule& s : m.submodules) {
    nested.class_name = s.module->class_name.empty() ? s.name : s.module->class_name;
    append_module(*s.module, nested, out, indent + 4);
  }
}

}  // namespace

PrintedCode print_readable(const GraphModule& module, const PrintOptions& options) {
  PrintedCode out;
  append_module(module, options, out, 0);
  if (!options.indent_blank_lines) {
    // 2.13's _addindent leaves whitespace-only lines empty (the line count is unchanged).
    std::string text;
    text.reserve(out.text.size());
    for (size_t start = 0; start <= out.text.size();) {
      size_t end = out.text.find('\n', start);
      if (end == std::string::npos) end = out.text.size();
      std::string_view line(out.text.data() + start, end - start);
      if (line.find_first_not_of(' ') != std::string_view::npos) text += line;
      if (end < out.text.size()) text += '\n';
      start = end + 1;
    }
    out.text = std::move(text);
  }
  out.text += module.trailer;
  for (char c : module.trailer)
    if (c == '\n') out.line_nodes.push_back(nullptr);
  return out;
}

PrintedCode print_code(const GraphModule& module, const PrintOptions& options) {
  PrintedCode out;
  // gm.code starts with three newlines (empty wrap statements) before `def`.
  out.text = "\n\n";
  out.line_nodes = {nullptr, nullptr, nullptr};
  CodeGen(module, options, /*verbose=*/false, "").run(out);
  return out;
}

}  // namespace remat
