// torch.fx's python_code / print_readable, rule by rule (docs: fx-readable spec §1-§8).
#include "remat/print/printer.h"

#include <algorithm>
#include <array>
#include <optional>
#include <unordered_map>

#include <absl/container/flat_hash_map.h>

#include "remat/ir/naming.h"
#include "remat/ir/target.h"
#include "remat/print/meta_text.h"
#include "remat/print/python_repr.h"
#include "remat/support/float_repr.h"

namespace remat {
namespace {

// ANSI colors of torch.fx's colored output (§7).
std::string wrap(std::string_view code, std::string_view s) {
  return std::string(code) + std::string(s) + "\033[0m";
}
constexpr std::string_view kRed = "\033[31m";
constexpr std::string_view kBlue = "\033[34m";
constexpr std::string_view kDim = "\033[2m";
constexpr std::string_view kDimBlue = "\033[2m\033[34m";
constexpr std::string_view kDimGreen = "\033[2m\033[32m";

struct MagicMethod {
  std::string_view name;
  std::string_view pattern;  // {0}, {1}, {2} stand for the rendered args
};

constexpr std::array<MagicMethod, 24> kMagic{{
    {"add", "{0} + {1}"},     {"sub", "{0} - {1}"},
    {"mul", "{0} * {1}"},     {"floordiv", "{0} // {1}"},
    {"truediv", "{0} / {1}"}, {"div", "{0} / {1}"},
    {"mod", "{0} % {1}"},     {"pow", "{0} ** {1}"},
    {"lshift", "{0} << {1}"}, {"rshift", "{0} >> {1}"},
    {"and_", "{0} & {1}"},    {"or_", "{0} | {1}"},
    {"xor", "{0} ^ {1}"},     {"matmul", "{0} @ {1}"},
    {"eq", "{0} == {1}"},     {"ne", "{0} != {1}"},
    {"lt", "{0} < {1}"},      {"gt", "{0} > {1}"},
    {"le", "{0} <= {1}"},     {"ge", "{0} >= {1}"},
    {"getitem", "{0}[{1}]"},  {"pos", "+{0}"},
    {"neg", "-{0}"},          {"invert", "~{0}"},
}};

constexpr std::array<MagicMethod, 14> kInplace{{
    {"iadd", "{0} += {1}"},
    {"iand", "{0} &= {1}"},
    {"ifloordiv", "{0} //= {1}"},
    {"ilshift", "{0} <<= {1}"},
    {"imod", "{0} %= {1}"},
    {"imul", "{0} *= {1}"},
    {"imatmul", "{0} @= {1}"},
    {"ior", "{0} |= {1}"},
    {"ipow", "{0} **= {1}"},
    {"irshift", "{0} >>= {1}"},
    {"isub", "{0} -= {1}"},
    {"itruediv", "{0} /= {1}"},
    {"ixor", "{0} ^= {1}"},
    {"setitem", "{0}[{1}] = {2}"},
}};

const MagicMethod* find_method(std::span<const MagicMethod> table, std::string_view name) {
  for (const MagicMethod& m : table)
    if (m.name == name) return &m;
  return nullptr;
}

std::string apply_pattern(std::string_view pattern, const std::vector<std::string>& args) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '{' && i + 2 < pattern.size() && pattern[i + 2] == '}') {
      size_t k = static_cast<size_t>(pattern[i + 1] - '0');
      if (k < args.size()) out += args[k];
      i += 2;
    } else {
      out += pattern[i];
    }
  }
  return out;
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
  /// Appends `s`, which may span several lines, all belonging to `n`.
  void add_multiline(std::string_view s, const Node* n) {
    size_t start = 0;
    while (true) {
      size_t nl = s.find('\n', start);
      add(s.substr(start, nl == std::string_view::npos ? nl : nl - start), n);
      if (nl == std::string_view::npos) break;
      start = nl + 1;
    }
  }
};

/// Appends each line of `lines` to `out`, after `indent`.
void append_lines(const Lines& lines, size_t first, std::string_view indent, PrintedCode& out) {
  size_t start = 0;
  for (size_t i = 0; i < lines.nodes.size(); ++i) {
    size_t end = lines.text.find('\n', start);
    if (i >= first) {
      if (!out.text.empty() || !out.line_nodes.empty()) out.text += '\n';
      out.text.append(indent);
      out.text.append(lines.text, start, end - start);
      out.line_nodes.push_back(lines.nodes[i]);
    }
    start = end + 1;
  }
}

/// One python_code() call: a fresh namespace, the body and the free variables.
class CodeGen {
 public:
  CodeGen(const GraphModule& m, const PrintOptions& o, bool verbose)
      : m_(m), o_(o), verbose_(verbose), meta_text_(o) {
    // torch.fx pre-registers its custom builtins, so nodes named `torch`, `inf`... get `_1`.
    for (std::string_view b : {"inf", "nan", "NoneType", "torch", "device", "fx_pytree", "pytree"})
      ns_.create_name(b, /*is_that_builtin=*/true);
  }

  /// Appends `src` (without the blank lines it starts with) to `out`, each line after `indent`.
  void run(std::string_view indent, PrintedCode& out);

 private:
  const std::string& name_of(const Node* n);
  std::string add_global(std::string_view target);
  std::string repr(const Argument& a, bool colored);
  std::string format_args(std::span<const Argument> args, std::span<const Kwarg> kwargs);
  std::string annotation(const Node& n);
  /// The node's inputs, each once, args first (torch.fx's _input_nodes), in a reused buffer.
  const std::vector<Node*>& inputs_of(const Node& n);
  void compute_last_uses();
  std::string deletions(const Node& n);
  void emit(const Node& n);
  void emit_output(const Node& n);
  void add_lines(const std::string& text, const Node* n) { body_.add_multiline(text, n); }
  std::vector<std::string> prologue();

  const GraphModule& m_;
  const PrintOptions& o_;
  bool verbose_;
  MetaText meta_text_;
  Namespace ns_;
  absl::flat_hash_map<const Node*, std::string> names_;
  std::unordered_map<std::string, std::string> globals_;            // target -> printed global name
  absl::flat_hash_map<const std::string*, std::string> callables_;  // by interned target
  absl::flat_hash_map<const Node*, const Node*> last_user_;
  std::vector<Node*> inputs_;
  std::vector<std::string> free_vars_;
  Lines body_;
};

const std::string& CodeGen::name_of(const Node* n) {
  auto it = names_.find(n);
  if (it == names_.end()) it = names_.emplace(n, ns_.create_name(n->name())).first;
  return it->second;
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
  std::string name = ns_.create_name(hint, builtin);
  globals_.emplace(std::string(target), name);
  return name;
}

std::string CodeGen::repr(const Argument& a, bool colored) {
  auto constant = [&](std::string s) { return colored ? wrap(kBlue, s) : s; };
  switch (a.kind()) {
    case ArgKind::Node:
      return name_of(a.as_node());
    case ArgKind::None:
      return constant("None");
    case ArgKind::Int:
      return constant(std::to_string(a.as_int()));
    case ArgKind::Float:
      return constant(python_float_repr(a.as_float()));
    case ArgKind::Bool:
      return constant(a.as_bool() ? "True" : "False");
    case ArgKind::String:
      return constant(python_str_repr(a.as_text()));
    case ArgKind::DType:
      return constant(std::string(dtype_name(a.as_dtype())));
    case ArgKind::Device:
      return constant(python_device_repr(a.as_text()));
    case ArgKind::Layout:
      return constant(std::string(layout_name(a.as_layout())));
    case ArgKind::MemoryFormat:
      return constant(std::string(memory_format_name(a.as_memory_format())));
    case ArgKind::Complex: {
      auto [re, im] = a.as_complex();
      return constant(python_complex_repr(re, im));
    }
    case ArgKind::SymInt:
      return constant(std::string(a.as_text()));
    case ArgKind::Repr:
      return constant(std::string(a.repr_text()));
    case ArgKind::Op:
      return add_global(a.as_text());
    case ArgKind::Enum: {
      std::string_view q = a.as_text();
      size_t member = q.rfind('.');
      // `torch.float32` and a bare global such as `torch` print as they read.
      if (q.starts_with("torch.") || member == std::string_view::npos) return std::string(q);
      std::string_view cls = q.substr(0, member);
      size_t cls_dot = cls.rfind('.');
      std::string_view cls_name = cls_dot == std::string_view::npos ? cls : cls.substr(cls_dot + 1);
      auto [it, fresh] = globals_.try_emplace(std::string(cls));
      if (fresh) it->second = ns_.create_name(cls_name);  // the class becomes a global
      return it->second + std::string(q.substr(member));
    }
    case ArgKind::TensorConstant: {
      std::string dims = join_dims(a.tensor_constant_shape());
      std::string_view dt = dtype_name(a.tensor_constant_dtype());
      if (dt.starts_with("torch.")) dt.remove_prefix(6);
      return "torch.Tensor(size=[" + dims + "], dtype=" + std::string(dt) + ")";
    }
    case ArgKind::Tuple: {
      auto items = a.elements();
      std::string out = "(";
      for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + repr(items[i], colored);
      return out + (items.size() == 1 ? ",)" : ")");
    }
    case ArgKind::List: {
      auto items = a.elements();
      std::string out = "[";
      for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + repr(items[i], colored);
      return out + "]";
    }
    case ArgKind::Slice: {
      auto p = a.elements();
      return "slice(" + repr(p[0], colored) + ", " + repr(p[1], colored) + ", " +
             repr(p[2], colored) + ")";
    }
    case ArgKind::Dict: {
      // Plain repr(dict): one constant, nodes inside show their names.
      std::string out = "{";
      bool first = true;
      for (const DictEntry& e : a.dict_entries()) {
        out += (first ? "" : ", ") + python_str_repr(e.key) + ": " + repr(e.value, false);
        first = false;
      }
      return constant(out + "}");
    }
  }
  return "";
}

std::string CodeGen::format_args(std::span<const Argument> args, std::span<const Kwarg> kwargs) {
  std::string out;
  for (const Argument& a : args) out += (out.empty() ? "" : ", ") + repr(a, o_.colored);
  for (const Kwarg& k : kwargs)
    out += (out.empty() ? "" : ", ") + k.key.str() + " = " + repr(k.value, o_.colored);
  return out;
}

std::string CodeGen::annotation(const Node& n) {
  // The verbose form annotates from meta (1.13 did not); otherwise node.type, when set.
  if (verbose_ && o_.dialect != Dialect::Torch113) {
    std::string from_meta = meta_text_.annotation(n.meta);
    if (!from_meta.empty()) return from_meta;
    // Always quoted: only quoted annotations are kept as text, and only quoted they read back.
    if (std::optional<std::string> kept = node_type_text(n, "annotation")) return ": \"" + *kept + "\"";
  }
  std::optional<std::string> type = node_type_text(n);
  return type ? " : " + *type : "";
}

const std::vector<Node*>& CodeGen::inputs_of(const Node& n) {
  n.collect_input_nodes(inputs_);
  return inputs_;
}

void CodeGen::compute_last_uses() {
  // Walking backwards, the first user seen of each input is its last use (§5).
  last_user_.reserve(m_.graph().size());
  for (const Node* n = m_.graph().last(); n != nullptr; n = n->prev()) {
    for (const Node* input : inputs_of(*n)) last_user_.try_emplace(input, n);
  }
}

std::string CodeGen::deletions(const Node& n) {
  // The inputs that die here, in input order (torch.fx's user_to_last_uses), then the node
  // itself when nothing uses it.
  std::string text;
  auto add = [&](const Node* d) {
    text += name_of(d);
    text += " = ";
  };
  if (n.op() != OpKind::Placeholder && n.op() != OpKind::Output) {
    for (const Node* input : inputs_of(n)) {
      auto it = last_user_.find(input);
      if (it != last_user_.end() && it->second == &n) add(input);
    }
  }
  if (n.users().empty() && o_.free_dead_results) add(&n);
  if (text.empty()) return "";
  text += "None";
  return ";  " + (o_.colored ? wrap(kDim, text) : text);
}

void CodeGen::emit(const Node& n) {
  const std::string& target = n.target().str();
  switch (n.op()) {
    case OpKind::Placeholder: {
      std::string free_var = target + annotation(n);
      if (!n.args().empty()) free_var += " = " + repr(n.args()[0], o_.colored);
      if (verbose_ && o_.expanded_def && n.meta.desc().is(ArgKind::String))
        free_var += "  # " + std::string(n.meta.desc().as_text());
      free_vars_.push_back(free_var);
      std::string raw = target;
      raw.erase(std::remove(raw.begin(), raw.end(), '*'), raw.end());
      if (raw != name_of(&n)) add_lines(name_of(&n) + " = " + raw, &n);
      return;
    }
    case OpKind::GetAttr:
      add_lines(name_of(&n) + annotation(n) + " = " + format_target("self", target) + deletions(n),
                &n);
      return;
    case OpKind::CallModule:
      add_lines(name_of(&n) + annotation(n) + " = " + format_target("self", target) + "(" +
                    format_args(n.args(), n.kwargs()) + ")" + deletions(n),
                &n);
      return;
    case OpKind::CallMethod: {
      std::string self = n.args().empty() ? "" : repr(n.args()[0], false);
      add_lines(name_of(&n) + annotation(n) + " = " + format_target(self, target) + "(" +
                    format_args(n.args().subspan(n.args().empty() ? 0 : 1), n.kwargs()) + ")" +
                    deletions(n),
                &n);
      return;
    }
    case OpKind::Output:
      emit_output(n);
      return;
    case OpKind::CallFunction:
      break;
  }
  if (classify_callable(target) == CallableKind::Operator) {
    std::string_view op = callable_short_name(target);
    std::vector<std::string> args;
    for (const Argument& a : n.args()) args.push_back(repr(a, false));  // plain repr()
    if (const MagicMethod* m = find_method(kMagic, op)) {
      add_lines(
          name_of(&n) + annotation(n) + " = " + apply_pattern(m->pattern, args) + deletions(n), &n);
      return;
    }
    if (const MagicMethod* m = find_method(kInplace, op)) {
      add_lines(apply_pattern(m->pattern, args) + ";  " + name_of(&n) + annotation(n) + " = " +
                    (args.empty() ? "" : args[0]) + deletions(n),
                &n);
      return;
    }
  }
  auto cached = callables_.find(&target);
  if (cached == callables_.end()) cached = callables_.emplace(&target, add_global(target)).first;
  const std::string& global = cached->second;
  if (global == "getattr" && n.args().size() == 2 && n.args()[1].is(ArgKind::String) &&
      is_python_identifier(n.args()[1].as_text())) {
    add_lines(name_of(&n) + annotation(n) + " = " +
                  format_target(repr(n.args()[0], false), n.args()[1].as_text()) + deletions(n),
              &n);
    return;
  }
  std::string line = name_of(&n);
  line += annotation(n);
  line += " = ";
  line += global;
  line += '(';
  line += format_args(n.args(), n.kwargs());
  line += ')';
  line += deletions(n);
  body_.add(line, &n);  // one line: reprs escape newlines
}

void CodeGen::emit_output(const Node& n) {
  const Argument value = n.args().empty() ? Argument() : n.args()[0];
  const Argument& desc = n.meta.desc();
  bool pytree = m_.codegen.kind == CodegenKind::Pytree && m_.codegen.out_spec;
  bool expanded = verbose_ && o_.expanded_def && desc.is(ArgKind::List) && value.is_sequence();
  if (expanded) {
    bool list = value.is(ArgKind::List);
    std::string text = pytree ? std::string("return pytree.tree_unflatten(") + (list ? "[" : "(")
                              : std::string("return ") + (list ? "[" : "(");
    auto items = value.elements();
    auto descs = desc.elements();
    for (size_t i = 0; i < items.size() && i < descs.size(); ++i) {
      std::string d = descs[i].is(ArgKind::String) ? std::string(descs[i].as_text()) : "None";
      text += "\n    " + repr(items[i], o_.colored) + ",  # " + d;
    }
    text += std::string("\n") + (list ? "]" : ")") + (pytree ? ", self._out_spec)" : "");
    add_lines(text, &n);
    return;
  }
  if (pytree) {
    add_lines("return pytree.tree_unflatten(" + repr(value, o_.colored) + ", self._out_spec)", &n);
    return;
  }
  add_lines("return " + repr(value, o_.colored), &n);
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

void CodeGen::run(std::string_view indent, PrintedCode& out) {
  compute_last_uses();
  body_.text.reserve(m_.graph().size() * 160);
  out.text.reserve(out.text.size() + m_.graph().size() * 180);
  std::optional<std::string> previous_summary;
  const bool torch_1_13 = o_.dialect == Dialect::Torch113;
  std::optional<std::string_view> previous_trace;  // 1.13 compared the traces, not the comments
  for (const Node* n : m_.graph().nodes()) {
    bool commented = verbose_ && n->op() != OpKind::Placeholder && n->op() != OpKind::Output;
    if (commented && torch_1_13) {
      std::string_view trace = n->meta.stack_trace.is_null() ? "" : n->meta.stack_trace.view();
      if (!trace.empty() && trace != previous_trace) {
        body_.add("", n);
        body_.add("# " + MetaText::summary_1_13(trace), n);
      } else if (trace.empty() && previous_trace != "") {
        body_.add("", n);
        body_.add("# No stacktrace found for following nodes ", n);
      }
      previous_trace = trace;
    } else if (commented) {
      std::string summary = meta_text_.summary(*n);
      if (summary != previous_summary) {
        body_.add("", n);
        body_.add(o_.colored ? wrap(kDim, summary) : summary, n);
        previous_summary = std::move(summary);
      }
    }
    bool meta_block = false;
    if (o_.show_meta) {
      if (std::optional<std::string> kept = node_type_text(*n, "meta_block")) {
        // As read: remat does not model every value such a block shows.
        for (size_t start = 0; start < kept->size();) {
          size_t nl = kept->find('\n', start);
          if (nl == std::string::npos) nl = kept->size();
          body_.add(kept->substr(start, nl - start), n);
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
  append_lines(prologue_lines, 0, indent, out);
  // torch.fx strips the body's leading newlines: the first comment group has no blank above.
  // 1.13 kept them.
  size_t first = 0;
  for (size_t start = 0; !torch_1_13 && first < body_.nodes.size() && body_.text[start] == '\n'; ++start) ++first;
  std::string body_indent = std::string(indent) + "    ";
  append_lines(body_, first, body_indent, out);
  Lines last;
  last.add("", nullptr);  // the body ends with a newline, then 4 spaces
  append_lines(last, 0, body_indent, out);
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
  CodeGen(m, options, /*verbose=*/true).run(pad + "    ", out);
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
  CodeGen(module, options, /*verbose=*/false).run("", out);
  return out;
}

}  // namespace remat
