#include "remat/exec/aten_call.h"

#include "remat/exec/newer_aten_ops.h"

#include <ATen/ATen.h>

#include "remat/support/assert.h"

namespace remat::exec {
namespace {

std::optional<c10::MemoryFormat> to_memory_format(MemoryFormat m) {
  switch (m) {
    case MemoryFormat::Contiguous:
      return c10::MemoryFormat::Contiguous;
    case MemoryFormat::ChannelsLast:
      return c10::MemoryFormat::ChannelsLast;
    case MemoryFormat::ChannelsLast3d:
      return c10::MemoryFormat::ChannelsLast3d;
    case MemoryFormat::Preserve:
      return c10::MemoryFormat::Preserve;
    default:
      return std::nullopt;
  }
}

c10::Scalar to_scalar(const Argument& a) {
  switch (a.kind()) {
    case ArgKind::Int:
      return c10::Scalar(a.as_int());
    case ArgKind::Bool:
      return c10::Scalar(a.as_bool());
    case ArgKind::Complex: {
      auto [re, im] = a.as_complex();
      return c10::Scalar(c10::complex<double>(re, im));
    }
    default:
      return c10::Scalar(a.as_float());
  }
}

}  // namespace

std::optional<c10::ScalarType> to_scalar_type(DType d) {
  switch (d) {
    case DType::Bool:
      return c10::ScalarType::Bool;
    case DType::UInt8:
      return c10::ScalarType::Byte;
    case DType::Int8:
      return c10::ScalarType::Char;
    case DType::Int16:
      return c10::ScalarType::Short;
    case DType::Int32:
      return c10::ScalarType::Int;
    case DType::Int64:
      return c10::ScalarType::Long;
    case DType::Float16:
      return c10::ScalarType::Half;
    case DType::BFloat16:
      return c10::ScalarType::BFloat16;
    case DType::Float32:
      return c10::ScalarType::Float;
    case DType::Float64:
      return c10::ScalarType::Double;
    case DType::Complex32:
      return c10::ScalarType::ComplexHalf;
    case DType::Complex64:
      return c10::ScalarType::ComplexFloat;
    case DType::Complex128:
      return c10::ScalarType::ComplexDouble;
    default:
      return std::nullopt;
  }
}

DType from_scalar_type(c10::ScalarType s) {
  switch (s) {
    case c10::ScalarType::Bool:
      return DType::Bool;
    case c10::ScalarType::Byte:
      return DType::UInt8;
    case c10::ScalarType::Char:
      return DType::Int8;
    case c10::ScalarType::Short:
      return DType::Int16;
    case c10::ScalarType::Int:
      return DType::Int32;
    case c10::ScalarType::Long:
      return DType::Int64;
    case c10::ScalarType::Half:
      return DType::Float16;
    case c10::ScalarType::BFloat16:
      return DType::BFloat16;
    case c10::ScalarType::Float:
      return DType::Float32;
    case c10::ScalarType::Double:
      return DType::Float64;
    case c10::ScalarType::ComplexHalf:
      return DType::Complex32;
    case c10::ScalarType::ComplexFloat:
      return DType::Complex64;
    case c10::ScalarType::ComplexDouble:
      return DType::Complex128;
    default:
      return DType::Unknown;
  }
}

std::optional<c10::OperatorHandle> find_aten_op(std::string_view target) {
  register_newer_aten_ops();
  if (target.starts_with("torch.ops.")) target.remove_prefix(10);
  size_t first = target.find('.');
  if (first == std::string_view::npos) return std::nullopt;
  size_t last = target.rfind('.');
  std::string name =
      std::string(target.substr(0, first)) + "::" +
      std::string(target.substr(first + 1, (last == first ? target.size() : last) - first - 1));
  std::string overload = last == first ? "" : std::string(target.substr(last + 1));
  if (overload == "default") overload.clear();
  auto handle = c10::Dispatcher::singleton().findSchema({name, overload});
  if (!handle) return std::nullopt;
  return *handle;
}

Expected<c10::IValue> to_ivalue(const Argument& arg, const c10::Argument& schema_arg,
                                const NodeValues& values) {
  if (arg.is_none()) return c10::IValue();
  if (arg.is_node()) return values(arg.as_node());
  c10::TypePtr type = schema_arg.type();
  if (auto opt = type->cast<c10::OptionalType>()) type = opt->getElementType();
  switch (type->kind()) {
    case c10::TypeKind::TensorType: {
      // A Python number in a Tensor position: a wrapped-number tensor, as Python passes it.
      if (!arg.is(ArgKind::Int) && !arg.is(ArgKind::Float) && !arg.is(ArgKind::Bool)) break;
      at::Tensor t = at::scalar_tensor(
          to_scalar(arg), at::TensorOptions().dtype(arg.is(ArgKind::Bool)  ? at::kBool
                                                    : arg.is(ArgKind::Int) ? at::kLong
                                                                           : at::kDouble));
      t.unsafeGetTensorImpl()->set_wrapped_number(true);
      return c10::IValue(t);
    }
    case c10::TypeKind::FloatType:
      return c10::IValue(arg.is(ArgKind::Int) ? static_cast<double>(arg.as_int()) : arg.as_float());
    case c10::TypeKind::NumberType:
      return c10::IValue(to_scalar(arg));
    case c10::TypeKind::IntType:
    case c10::TypeKind::SymIntType:
      if (arg.is(ArgKind::DType)) {
        return c10::IValue(static_cast<int64_t>(*to_scalar_type(arg.as_dtype())));
      }
      if (arg.is(ArgKind::MemoryFormat)) {
        auto f = to_memory_format(arg.as_memory_format());
        if (!f) return error_message("unsupported memory format");
        return c10::IValue(static_cast<int64_t>(*f));
      }
      if (arg.is(ArgKind::Layout)) return c10::IValue(static_cast<int64_t>(c10::Layout::Strided));
      return c10::IValue(arg.as_int());
    case c10::TypeKind::BoolType:
      return c10::IValue(arg.as_bool());
    case c10::TypeKind::StringType:
      return c10::IValue(std::string(arg.as_text()));
    case c10::TypeKind::DeviceObjType:
      return c10::IValue(c10::Device(std::string(arg.as_text())));
    case c10::TypeKind::ListType: {
      c10::TypePtr element = type->castRaw<c10::ListType>()->getElementType();
      if (arg.is(ArgKind::Int)) {  // `int[2] padding=0`: one int for the whole list
        size_t n = schema_arg.N().value_or(1);
        return c10::IValue(std::vector<int64_t>(n, arg.as_int()));
      }
      if (!arg.is_sequence()) return error_message("expected a list for " + schema_arg.name());
      if (element->kind() == c10::TypeKind::BoolType) {
        c10::List<bool> v;
        for (const Argument& e : arg.elements()) v.push_back(e.as_bool());
        if (schema_arg.N() && static_cast<int64_t>(v.size()) != *schema_arg.N())
          return error_message("expected " + std::to_string(*schema_arg.N()) + " booleans for " +
                               schema_arg.name());
        return c10::IValue(v);
      }
      if (element->kind() == c10::TypeKind::IntType ||
          element->kind() == c10::TypeKind::SymIntType) {
        std::vector<int64_t> v;
        for (const Argument& e : arg.elements()) {
          if (e.is_node())
            v.push_back(values(e.as_node()).toInt());
          else
            v.push_back(e.as_int());
        }
        return c10::IValue(v);
      }
      if (element->kind() == c10::TypeKind::TensorType) {
        std::vector<at::Tensor> v;
        for (const Argument& e : arg.elements()) v.push_back(values(e.as_node()).toTensor());
        return c10::IValue(v);
      }
      if (element->kind() == c10::TypeKind::OptionalType) {
        c10::List<c10::optional<at::Tensor>> v;
        for (const Argument& e : arg.elements()) {
          if (e.is_none())
            v.push_back(c10::nullopt);
          else
            v.push_back(values(e.as_node()).toTensor());
        }
        return c10::IValue(v);
      }
      return error_message("unsupported list type " + type->str() + " for " + schema_arg.name());
    }
    default:
      break;
  }
  if (arg.is(ArgKind::DType))
    return c10::IValue(static_cast<int64_t>(*to_scalar_type(arg.as_dtype())));
  if (arg.is(ArgKind::Int)) return c10::IValue(arg.as_int());
  if (arg.is(ArgKind::Float)) return c10::IValue(arg.as_float());
  if (arg.is(ArgKind::Bool)) return c10::IValue(arg.as_bool());
  return error_message("cannot pass a " + std::string(arg_kind_name(arg.kind())) + " as " +
                       type->str() + " " + schema_arg.name());
}

Expected<std::vector<c10::IValue>> call_aten(const c10::OperatorHandle& op,
                                             std::span<const Argument> args,
                                             std::span<const Kwarg> kwargs,
                                             const NodeValues& values,
                                             std::optional<c10::Device> device) {
  const c10::FunctionSchema& schema = op.schema();
  const auto& params = schema.arguments();
  if (args.size() > params.size()) return error_message(schema.name() + ": too many arguments");
  std::vector<c10::IValue> stack;
  stack.reserve(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    const Argument* given = i < args.size() ? &args[i] : nullptr;
    if (!given) {
      for (const Kwarg& kw : kwargs) {
        if (kw.key.view() == params[i].name()) given = &kw.value;
      }
    }
    if (!given) {
      if (!params[i].default_value())
        return error_message(schema.name() + ": missing argument " + params[i].name());
      stack.push_back(*params[i].default_value());
      continue;
    }
    auto v = to_ivalue(*given, params[i], values);
    REMAT_TRY(v);
    if (device && v->isDevice()) *v = c10::IValue(*device);
    stack.push_back(std::move(*v));
  }
  try {
    op.callBoxed(&stack);
  } catch (const c10::Error& e) {
    // The dispatcher's messages run to dozens of lines (every backend it knows); the first says it.
    std::string message = e.what_without_backtrace();
    message = message.substr(0, message.find('\n'));
    if (message.size() > 200 && message.find(". ") != std::string::npos)
      message = message.substr(0, message.find(". ") + 1);
    return error_message(schema.name() + ": " + message);
  }
  return stack;
}

}  // namespace remat::exec
