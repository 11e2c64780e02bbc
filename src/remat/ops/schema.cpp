#include "remat/ops/schema.h"

#include <cctype>
#include <charconv>

namespace remat {
namespace {

SchemaBaseType base_type_of(std::string_view word) {
  static constexpr std::pair<std::string_view, SchemaBaseType> kTypes[] = {
      {"Tensor", SchemaBaseType::Tensor},
      {"int", SchemaBaseType::Int},
      {"SymInt", SchemaBaseType::SymInt},
      {"float", SchemaBaseType::Float},
      {"bool", SchemaBaseType::Bool},
      {"str", SchemaBaseType::Str},
      {"Scalar", SchemaBaseType::Scalar},
      {"ScalarType", SchemaBaseType::ScalarType},
      {"Layout", SchemaBaseType::Layout},
      {"Device", SchemaBaseType::Device},
      {"MemoryFormat", SchemaBaseType::MemoryFormat},
      {"Generator", SchemaBaseType::Generator},
  };
  for (auto [w, t] : kTypes) {
    if (w == word) return t;
  }
  return SchemaBaseType::Other;
}

class SchemaParser {
 public:
  explicit SchemaParser(std::string_view text) : text_(text) {}

  Expected<OpSchema> parse() {
    OpSchema s;
    size_t colons = text_.find("::");
    size_t paren = text_.find('(');
    if (colons == std::string_view::npos || paren == std::string_view::npos || colons > paren) {
      return error(0, "expected `namespace::name(`");
    }
    s.ns = std::string(text_.substr(0, colons));
    std::string_view full = text_.substr(colons + 2, paren - colons - 2);
    if (size_t dot = full.find('.'); dot != std::string_view::npos) {
      s.name = std::string(full.substr(0, dot));
      s.overload = std::string(full.substr(dot + 1));
    } else {
      s.name = std::string(full);
    }
    if (s.name.empty()) return error(colons + 2, "missing operator name");
    pos_ = paren + 1;
    bool kwarg_only = false;
    while (true) {
      skip_spaces();
      if (peek() == ')') {
        ++pos_;
        break;
      }
      if (peek() == '*') {
        ++pos_;
        kwarg_only = true;
        if (!consume_separator()) return error(pos_, "expected `,` or `)` after `*`");
        continue;
      }
      auto arg = parse_arg(/*is_return=*/false);
      REMAT_TRY(arg);
      arg->kwarg_only = kwarg_only;
      s.arguments.push_back(std::move(*arg));
      if (!consume_separator()) return error(pos_, "expected `,` or `)` after argument");
    }
    skip_spaces();
    if (text_.substr(pos_, 2) != "->") return error(pos_, "expected `->`");
    pos_ += 2;
    skip_spaces();
    if (peek() == '(') {
      s.returns_tuple = true;
      ++pos_;
      while (true) {
        skip_spaces();
        if (peek() == ')') {
          ++pos_;
          break;
        }
        auto ret = parse_arg(/*is_return=*/true);
        REMAT_TRY(ret);
        s.returns.push_back(std::move(*ret));
        if (!consume_separator()) return error(pos_, "expected `,` or `)` after return");
      }
    } else {
      auto ret = parse_arg(/*is_return=*/true);
      REMAT_TRY(ret);
      s.returns.push_back(std::move(*ret));
    }
    skip_spaces();
    if (pos_ != text_.size()) return error(pos_, "unexpected text after the returns");
    return s;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;

  [[nodiscard]] char peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void skip_spaces() {
    while (pos_ < text_.size() && text_[pos_] == ' ') ++pos_;
  }
  // After an argument: `,` (consumed) or `)` (left for the caller).
  bool consume_separator() {
    skip_spaces();
    if (peek() == ',') {
      ++pos_;
      return true;
    }
    return peek() == ')';
  }
  Diagnostic error(size_t col, std::string message) const {
    Diagnostic d;
    d.line = 1;
    d.col = static_cast<int>(col) + 1;
    d.message = "schema: " + std::move(message);
    d.source_line = std::string(text_);
    return d;
  }

  Expected<SchemaArg> parse_arg(bool is_return) {
    SchemaArg a;
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    if (pos_ == start) return error(pos_, "expected a type");
    a.base = base_type_of(text_.substr(start, pos_ - start));
    // Suffixes in any order c10 writes them: (alias), [N], ?
    while (true) {
      char c = peek();
      if (c == '(') {
        size_t close = text_.find(')', pos_);
        if (close == std::string_view::npos) return error(pos_, "unclosed alias annotation");
        std::string_view alias = text_.substr(pos_ + 1, close - pos_ - 1);
        if (size_t arrow = alias.find(" -> "); arrow != std::string_view::npos) {
          alias = alias.substr(0, arrow);
        }
        if (!alias.empty() && alias.back() == '!') {
          a.is_write = true;
          alias.remove_suffix(1);
        }
        a.alias_set = std::string(alias);
        pos_ = close + 1;
      } else if (c == '[') {
        size_t close = text_.find(']', pos_);
        if (close == std::string_view::npos) return error(pos_, "unclosed `[`");
        a.is_list = true;
        std::string_view n = text_.substr(pos_ + 1, close - pos_ - 1);
        if (!n.empty()) {
          int v = 0;
          auto [p, ec] = std::from_chars(n.data(), n.data() + n.size(), v);
          if (ec != std::errc() || p != n.data() + n.size())
            return error(pos_ + 1, "bad list size");
          a.fixed_size = v;
        }
        pos_ = close + 1;
      } else if (c == '?') {
        a.is_optional = true;
        ++pos_;
      } else {
        break;
      }
    }
    a.type_text = std::string(text_.substr(start, pos_ - start));
    skip_spaces();
    size_t name_start = pos_;
    while (pos_ < text_.size() &&
           (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) {
      ++pos_;
    }
    a.name = std::string(text_.substr(name_start, pos_ - name_start));
    if (a.name.empty() && !is_return) return error(pos_, "expected an argument name");
    if (!is_return && peek() == '=') {
      ++pos_;
      size_t def_start = pos_;
      int depth = 0;
      bool in_string = false;
      for (; pos_ < text_.size(); ++pos_) {
        char c = text_[pos_];
        if (in_string) {
          if (c == '"') in_string = false;
        } else if (c == '"') {
          in_string = true;
        } else if (c == '[' || c == '(') {
          ++depth;
        } else if (c == ']' || (c == ')' && depth > 0)) {
          --depth;
        } else if (depth == 0 && (c == ',' || c == ')')) {
          break;
        }
      }
      if (pos_ == def_start) return error(pos_, "expected a default value");
      a.default_text = std::string(text_.substr(def_start, pos_ - def_start));
    }
    return a;
  }
};

void append_arg(std::string& out, const SchemaArg& a) {
  out += a.type_text;
  if (!a.name.empty()) {
    out += ' ';
    out += a.name;
  }
  if (a.default_text) {
    out += '=';
    out += *a.default_text;
  }
}

}  // namespace

Expected<OpSchema> parse_schema(std::string_view text) {
  return SchemaParser(text).parse();
}

std::string OpSchema::target() const {
  return ns + "." + name + "." + (overload.empty() ? "default" : overload);
}

std::string OpSchema::to_string() const {
  std::string out = ns + "::" + name;
  if (!overload.empty()) out += "." + overload;
  out += '(';
  bool kwarg_marker_done = false;
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (i > 0) out += ", ";
    if (arguments[i].kwarg_only && !kwarg_marker_done) {
      out += "*, ";
      kwarg_marker_done = true;
    }
    append_arg(out, arguments[i]);
  }
  out += ") -> ";
  if (returns_tuple) out += '(';
  for (size_t i = 0; i < returns.size(); ++i) {
    if (i > 0) out += ", ";
    append_arg(out, returns[i]);
  }
  if (returns_tuple) out += ')';
  return out;
}

int OpSchema::find_argument(std::string_view arg_name) const {
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].name == arg_name) return static_cast<int>(i);
  }
  return -1;
}

bool OpSchema::returns_alias() const {
  for (const SchemaArg& r : returns) {
    if (!r.alias_set.empty() && !r.is_write) return true;
  }
  return false;
}

}  // namespace remat
