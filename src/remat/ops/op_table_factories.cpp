// Factories: tensors made from sizes and options alone (full, zeros, ones, ...), and *_like.
#include "remat/ops/detail/op_tables.h"
#include "remat/ops/detail/table_helpers.h"

namespace remat::detail {
namespace {

// Options at schema positions [dtype, layout, device, pin_memory] starting at `first`.
InternedString device_option(const BoundCall& c, size_t device_index, InternedString fallback) {
  return c[device_index].is_none() ? fallback : InternedString(c.text(device_index));
}

Dims sizes_arg(const BoundCall& c, size_t i) {
  Dims sizes = *c.int_list(i);
  for (int64_t s : sizes) {
    if (s < 0)
      fail("Trying to create tensor with negative dimension " + std::to_string(s) + ": " +
           shape_rules::shape_text(sizes));
  }
  return sizes;
}

Expected<InferredOutputs> sized(const BoundCall& c, size_t options) {
  return one(contiguous(sizes_arg(c, 0), c.dtype(options).value_or(DType::Float32),
                        device_option(c, options + 2, InternedString("cpu"))));
}
Expected<InferredOutputs> zeros(const BoundCall& c) {
  return sized(c, 1);
}

// full infers its dtype from the fill value when none is given.
Expected<InferredOutputs> full(const BoundCall& c) {
  const Argument& v = c[1];
  DType dtype = c.dtype(2).value_or(shape_rules::scalar_dtype_of(
      v.is(ArgKind::Bool), v.is(ArgKind::Int), v.is(ArgKind::Complex)));
  return one(contiguous(sizes_arg(c, 0), dtype, device_option(c, 4, InternedString("cpu"))));
}

Expected<InferredOutputs> scalar_tensor(const BoundCall& c) {
  return one(contiguous({}, c.dtype(1).value_or(DType::Float32),
                        device_option(c, 3, InternedString("cpu"))));
}

// *_like: options at [dtype, layout, device, pin_memory, memory_format] from `options`.
Expected<InferredOutputs> like(const BoundCall& c, size_t options) {
  ConcreteTensor x = arg_tensor(c, 0);
  const Argument& format = c[options + 4];
  bool preserve = format.is_none() || format.as_memory_format() == MemoryFormat::Preserve;
  Dims strides =
      preserve ? shape_rules::preserve_format_strides(x) : shape_rules::contiguous_strides(x.sizes);
  return one(meta(x.sizes, strides, c.dtype(options).value_or(x.dtype),
                  device_option(c, options + 2, x.device)));
}
Expected<InferredOutputs> zeros_like(const BoundCall& c) {
  return like(c, 1);
}
Expected<InferredOutputs> full_like(const BoundCall& c) {
  return like(c, 2);
}

Expected<InferredOutputs> new_zeros(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  return one(
      contiguous(sizes_arg(c, 1), c.dtype(2).value_or(x.dtype), device_option(c, 4, x.device)));
}

int64_t no_flops(const BoundCall&, const InferredOutputs&) {
  return 0;
}

}  // namespace

void add_factory_ops(std::vector<OpInfo>& ops) {
  constexpr OpCategory kFactory = OpCategory::Factory | OpCategory::Recomputable;
  auto add = [&](std::string_view schema, Expected<InferredOutputs> (*fn)(const BoundCall&)) {
    ops.push_back({schema, kFactory, fn, no_flops, {}, {}, {}});
  };
  add("aten::full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype=None, Layout? "
      "layout=None, Device? device=None, bool? pin_memory=None) -> Tensor",
      full);
  add("aten::zeros(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? "
      "device=None, bool? pin_memory=None) -> Tensor",
      zeros);
  add("aten::ones(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? "
      "device=None, bool? pin_memory=None) -> Tensor",
      zeros);
  add("aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
      "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
      zeros);
  add("aten::scalar_tensor(Scalar s, *, ScalarType? dtype=None, Layout? layout=None, Device? "
      "device=None, bool? pin_memory=None) -> Tensor",
      scalar_tensor);
  add("aten::zeros_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? "
      "device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
      zeros_like);
  add("aten::ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? "
      "device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
      zeros_like);
  add("aten::full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype=None, Layout? "
      "layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) "
      "-> Tensor",
      full_like);
  add("aten::new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
      "Device? device=None, bool? pin_memory=None) -> Tensor",
      new_zeros);
}

}  // namespace remat::detail
