// The readable parser's Python expressions: values, calls, attribute paths and the right-hand
// side of a statement, over the tokens of one line.
#include <algorithm>
#include <cmath>
#include <limits>

#include "remat/fxtext/python_operators.h"
#include "remat/ir/naming.h"
#include "remat/ir/target.h"
#include "remat/print/detail/readable_parser_state.h"
#include "remat/support/python_repr.h"

namespace remat::print_detail {
namespace {

constexpr size_t kMaxNesting = 200;  // brackets inside one expression

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

}  // namespace

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
      if (n == "Ellipsis" &&
          node_named(n) == nullptr) {  // `x[..., None]` prints `x[(Ellipsis, None)]`
        ++tok_;
        out = Argument::repr("Ellipsis", "ellipsis");  // as remat.export writes Python's `...`
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

}  // namespace remat::print_detail
