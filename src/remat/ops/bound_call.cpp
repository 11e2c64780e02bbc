#include "remat/ops/bound_call.h"

#include <charconv>

#include "remat/ops/shape_rules.h"
#include "remat/support/assert.h"

namespace remat {
namespace {

Argument parse_literal(std::string_view text) {
  if (text == "None") return Argument::none();
  if (text == "True") return Argument::boolean(true);
  if (text == "False") return Argument::boolean(false);
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
    return Argument::string(text.substr(1, text.size() - 2));
  }
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
    std::vector<Argument> elements;
    std::string_view body = text.substr(1, text.size() - 2);
    while (!body.empty()) {
      size_t comma = body.find(',');
      std::string_view item = body.substr(0, comma);
      while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
      elements.push_back(parse_literal(item));
      if (comma == std::string_view::npos) break;
      body.remove_prefix(comma + 1);
    }
    return Argument::list(std::move(elements));
  }
  int64_t i = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), i);
  if (ec == std::errc() && p == text.data() + text.size()) return Argument::integer(i);
  double d = 0;
  auto [pd, ecd] = std::from_chars(text.data(), text.data() + text.size(), d);
  if (ecd == std::errc() && pd == text.data() + text.size()) return Argument::floating(d);
  // MemoryFormat/ScalarType defaults such as `contiguous_format` are kept as text.
  return Argument::string(text);
}

bool accepts(const SchemaArg& a, const Argument& v) {
  if (v.is_none()) return a.is_optional || a.base == SchemaBaseType::Other;
  if (a.is_list) {
    if (v.is_sequence()) return true;
    // `int[2] padding=0` style: one int stands for the whole list.
    return (a.base == SchemaBaseType::Int || a.base == SchemaBaseType::SymInt) &&
           v.is(ArgKind::Int) && a.fixed_size.has_value();
  }
  switch (a.base) {
    case SchemaBaseType::Tensor:
      // Python numbers reach Tensor overloads as wrapped scalars: `aten.mul.Tensor(x, 0.5)`.
      return v.is_node() || v.is(ArgKind::Int) || v.is(ArgKind::Float) || v.is(ArgKind::Bool);
    case SchemaBaseType::Int:
    case SchemaBaseType::SymInt:
      return v.is(ArgKind::Int) || v.is(ArgKind::SymInt) || v.is_node();
    case SchemaBaseType::Float:
      return v.is(ArgKind::Float) || v.is(ArgKind::Int) || v.is_node();
    case SchemaBaseType::Bool:
      return v.is(ArgKind::Bool);
    case SchemaBaseType::Scalar:
      return v.is(ArgKind::Int) || v.is(ArgKind::Float) || v.is(ArgKind::Bool) ||
             v.is(ArgKind::Complex) || v.is_node();
    case SchemaBaseType::ScalarType:
      return v.is(ArgKind::DType);
    case SchemaBaseType::Str:
      return v.is(ArgKind::String);
    case SchemaBaseType::Layout:
      return v.is(ArgKind::Layout);
    case SchemaBaseType::Device:
      return v.is(ArgKind::Device) || v.is(ArgKind::String);
    case SchemaBaseType::MemoryFormat:
      return v.is(ArgKind::MemoryFormat);
    default:
      return true;
  }
}

Diagnostic bind_error(const OpSchema& s, std::string message) {
  return error_message(s.target() + ": " + std::move(message));
}

}  // namespace

Argument default_value(const SchemaArg& arg) {
  REMAT_ASSERT(arg.default_text.has_value()) << arg.name;
  return parse_literal(*arg.default_text);
}

Expected<BoundCall> bind(const OpSchema& schema, std::span<const Argument> args,
                         std::span<const Kwarg> kwargs) {
  const auto& params = schema.arguments;
  std::vector<Argument> values(params.size());
  std::vector<bool> given(params.size(), false);
  size_t positional = 0;
  while (positional < params.size() && !params[positional].kwarg_only) ++positional;
  if (args.size() > positional) {
    return bind_error(schema, "takes " + std::to_string(positional) + " positional arguments but " +
                                  std::to_string(args.size()) + " were given");
  }
  for (size_t i = 0; i < args.size(); ++i) {
    values[i] = args[i];
    given[i] = true;
  }
  for (const Kwarg& kw : kwargs) {
    int idx = schema.find_argument(kw.key.view());
    if (idx < 0)
      return bind_error(schema, "unexpected keyword argument '" + std::string(kw.key.view()) + "'");
    if (given[idx])
      return bind_error(schema, "got multiple values for argument '" + params[idx].name + "'");
    values[idx] = kw.value;
    given[idx] = true;
  }
  for (size_t i = 0; i < params.size(); ++i) {
    if (!given[i]) {
      if (!params[i].default_text) {
        return bind_error(schema, "missing required argument '" + params[i].name + "'");
      }
      values[i] = default_value(params[i]);
    } else if (!accepts(params[i], values[i])) {
      return bind_error(schema, "argument '" + params[i].name + "' must be " + params[i].type_text +
                                    ", not " + std::string(arg_kind_name(values[i].kind())));
    }
  }
  return BoundCall(schema, std::move(values));
}

const TensorMeta& BoundCall::tensor(size_t i) const {
  const TensorMeta* t = optional_tensor(i);
  REMAT_ASSERT(t != nullptr) << schema_->target() << " argument " << i << " is not a tensor";
  return *t;
}

const TensorMeta* BoundCall::optional_tensor(size_t i) const {
  const Argument& v = values_.at(i);
  if (v.is_none()) return nullptr;
  if (!v.is_node()) {
    // Only pointwise ops take wrapped numbers; they read such operands as scalars.
    shape_rules::fail("argument '" + schema_->arguments.at(i).name + "' must be a Tensor, not " +
                      std::string(arg_kind_name(v.kind())));
  }
  const TensorMeta* t = v.as_node()->meta.tensor();
  REMAT_ASSERT(t != nullptr) << "node " << v.as_node()->name() << " has no tensor metadata";
  return t;
}

std::vector<const TensorMeta*> BoundCall::tensor_list(size_t i) const {
  std::vector<const TensorMeta*> out;
  for (const Argument& e : values_.at(i).elements()) {
    REMAT_ASSERT(e.is_node() && e.as_node()->meta.tensor()) << schema_->target();
    out.push_back(e.as_node()->meta.tensor());
  }
  return out;
}

int64_t BoundCall::integer(size_t i) const {
  const Argument& v = values_.at(i);
  REMAT_ASSERT(v.is(ArgKind::Int))
      << schema_->target() << " argument " << i << " is " << arg_kind_name(v.kind());
  return v.as_int();
}

std::optional<int64_t> BoundCall::optional_integer(size_t i) const {
  if (values_.at(i).is_none()) return std::nullopt;
  return integer(i);
}

double BoundCall::number(size_t i) const {
  const Argument& v = values_.at(i);
  if (v.is(ArgKind::Int)) return static_cast<double>(v.as_int());
  if (v.is(ArgKind::Bool)) return v.as_bool() ? 1.0 : 0.0;
  REMAT_ASSERT(v.is(ArgKind::Float)) << schema_->target() << " argument " << i;
  return v.as_float();
}

bool BoundCall::boolean(size_t i) const {
  return values_.at(i).as_bool();
}

std::optional<bool> BoundCall::optional_boolean(size_t i) const {
  if (values_.at(i).is_none()) return std::nullopt;
  return boolean(i);
}

std::optional<std::vector<int64_t>> BoundCall::int_list(size_t i) const {
  const Argument& v = values_.at(i);
  if (v.is_none()) return std::nullopt;
  if (v.is(ArgKind::Int)) {
    size_t n = schema_->arguments.at(i).fixed_size.value_or(1);
    return std::vector<int64_t>(n, v.as_int());
  }
  std::vector<int64_t> out;
  for (const Argument& e : v.elements()) {
    REMAT_ASSERT(e.is(ArgKind::Int))
        << schema_->target() << " argument " << i << " holds a non-integer";
    out.push_back(e.as_int());
  }
  return out;
}

std::vector<bool> BoundCall::bool_list(size_t i) const {
  std::vector<bool> out;
  for (const Argument& e : values_.at(i).elements()) out.push_back(e.as_bool());
  return out;
}

std::optional<DType> BoundCall::dtype(size_t i) const {
  const Argument& v = values_.at(i);
  if (v.is_none()) return std::nullopt;
  return v.as_dtype();
}

std::string_view BoundCall::text(size_t i) const {
  return values_.at(i).as_text();
}

}  // namespace remat
