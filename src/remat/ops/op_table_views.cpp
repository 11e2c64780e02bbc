// Views (outputs alias the input and keep its strides), the copies that change layout, and the
// views' inverses that write a change of a view back to its base.
#include <algorithm>
#include <numeric>

#include "remat/ops/detail/op_tables.h"
#include "remat/ops/detail/table_helpers.h"

namespace remat::detail {
namespace {

InferredOutputs view_of(const ConcreteTensor& x, const Dims& sizes, const Dims& strides) {
  return one(meta(sizes, strides, x.dtype, x.device));
}

Expected<InferredOutputs> same_view(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  return view_of(x, x.sizes, x.strides);
}

Expected<InferredOutputs> transpose_dims(const ConcreteTensor& x, int64_t d0, int64_t d1) {
  Dims sizes = x.sizes, strides = x.strides;
  if (x.rank() == 0) return view_of(x, sizes, strides);
  d0 = shape_rules::wrap_dim(d0, x.rank());
  d1 = shape_rules::wrap_dim(d1, x.rank());
  std::swap(sizes[d0], sizes[d1]);
  std::swap(strides[d0], strides[d1]);
  return view_of(x, sizes, strides);
}

Expected<InferredOutputs> t(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  if (x.rank() > 2)
    fail("t() expects a tensor with <= 2 dimensions, but self is " + std::to_string(x.rank()) +
         "D");
  return transpose_dims(x, 0, x.rank() == 2 ? 1 : 0);
}

Expected<InferredOutputs> transpose(const BoundCall& c) {
  return transpose_dims(arg_tensor(c, 0), c.integer(1), c.integer(2));
}

Expected<InferredOutputs> permute(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  Dims dims = *c.int_list(1);
  if (static_cast<int64_t>(dims.size()) != x.rank())
    fail(
        "permute(sparse_coo): number of dimensions in the tensor input does not match the length "
        "of the desired ordering of dimensions i.e. input.dim() = " +
        std::to_string(x.rank()) + " is not equal to len(dims) = " + std::to_string(dims.size()));
  Dims sizes(dims.size()), strides(dims.size());
  std::vector<bool> seen(dims.size(), false);
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t d = shape_rules::wrap_dim(dims[i], x.rank());
    if (seen[d]) fail("permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = x.sizes[d];
    strides[i] = x.strides[d];
  }
  return view_of(x, sizes, strides);
}

Expected<InferredOutputs> view(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  Dims sizes = shape_rules::infer_size(*c.int_list(1), x.numel());
  auto strides = shape_rules::view_strides(x, sizes);
  if (!strides)
    fail(
        "view size is not compatible with input tensor's size and stride (at least one dimension "
        "spans across two contiguous subspaces). Use .reshape(...) instead.");
  return view_of(x, sizes, *strides);
}

Expected<InferredOutputs> reshape(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  Dims sizes = shape_rules::infer_size(*c.int_list(1), x.numel());
  auto strides = shape_rules::view_strides(x, sizes);
  return view_of(x, sizes, strides ? *strides : shape_rules::contiguous_strides(sizes));
}

Expected<InferredOutputs> unsafe_view(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  Dims sizes = shape_rules::infer_size(*c.int_list(1), x.numel());
  return one(contiguous(sizes, x.dtype, x.device));
}

Expected<InferredOutputs> expand(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  Dims target = *c.int_list(1);
  if (target.size() < x.sizes.size())
    fail("expand: the number of sizes provided (" + std::to_string(target.size()) +
         ") must be greater or equal to the number of dimensions in the tensor (" +
         std::to_string(x.rank()) + ")");
  size_t offset = target.size() - x.sizes.size();
  Dims sizes(target.size()), strides(target.size());
  for (size_t i = target.size(); i-- > 0;) {
    if (i < offset) {
      if (target[i] < 0) fail("expand: -1 is not allowed in a leading, non-existing dimension");
      sizes[i] = target[i];
      strides[i] = 0;
      continue;
    }
    int64_t have = x.sizes[i - offset];
    int64_t want = target[i] == -1 ? have : target[i];
    if (have != want) {
      if (have != 1)
        fail("The expanded size of the tensor (" + std::to_string(want) +
             ") must match the existing size (" + std::to_string(have) +
             ") at non-singleton dimension " + std::to_string(i) +
             ".  Target sizes: " + shape_rules::shape_text(target) +
             ".  Tensor sizes: " + shape_rules::shape_text(x.sizes));
      sizes[i] = want;
      strides[i] = 0;
    } else {
      sizes[i] = have;
      strides[i] = x.strides[i - offset];
    }
  }
  return view_of(x, sizes, strides);
}

Expected<InferredOutputs> unsqueeze(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  int64_t d = shape_rules::wrap_dim(c.integer(1), x.rank() + 1);
  Dims sizes = x.sizes, strides = x.strides;
  int64_t stride = d >= x.rank() ? 1 : x.sizes[d] * x.strides[d];
  sizes.insert(sizes.begin() + d, 1);
  strides.insert(strides.begin() + d, stride);
  return view_of(x, sizes, strides);
}

Expected<InferredOutputs> squeeze_dim(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  if (x.rank() == 0) return view_of(x, x.sizes, x.strides);
  int64_t d = shape_rules::wrap_dim(c.integer(1), x.rank());
  Dims sizes = x.sizes, strides = x.strides;
  if (sizes[d] == 1) {
    sizes.erase(sizes.begin() + d);
    strides.erase(strides.begin() + d);
  }
  return view_of(x, sizes, strides);
}

Expected<InferredOutputs> squeeze_all(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  Dims sizes, strides;
  for (size_t i = 0; i < x.sizes.size(); ++i) {
    if (x.sizes[i] == 1) continue;
    sizes.push_back(x.sizes[i]);
    strides.push_back(x.strides[i]);
  }
  return view_of(x, sizes, strides);
}

// Python slice semantics for one dim: clamped start/end, positive step.
Expected<InferredOutputs> slice(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  if (x.rank() == 0) fail("slice() cannot be applied to a 0-dim tensor.");
  int64_t d = shape_rules::wrap_dim(c.integer(1), x.rank());
  int64_t size = x.sizes[d];
  int64_t start = c.optional_integer(2).value_or(0);
  int64_t end = c.optional_integer(3).value_or(std::numeric_limits<int64_t>::max());
  int64_t step = c.integer(4);
  if (step <= 0) fail("slice step must be positive");
  if (start < 0) start += size;
  if (end < 0) end += size;
  start = std::clamp<int64_t>(start, 0, size);
  end = std::clamp<int64_t>(end, start, size);
  Dims sizes = x.sizes, strides = x.strides;
  sizes[d] = (end - start + step - 1) / step;
  strides[d] *= step;
  return view_of(x, sizes, strides);
}

Expected<InferredOutputs> select(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  if (x.rank() == 0) fail("select() cannot be applied to a 0-dim tensor.");
  int64_t d = shape_rules::wrap_dim(c.integer(1), x.rank());
  int64_t index = c.integer(2);
  if (index < -x.sizes[d] || index >= x.sizes[d])
    fail("select(): index " + std::to_string(index) + " out of range for tensor of size " +
         shape_rules::shape_text(x.sizes) + " at dimension " + std::to_string(d));
  Dims sizes = x.sizes, strides = x.strides;
  sizes.erase(sizes.begin() + d);
  strides.erase(strides.begin() + d);
  return view_of(x, sizes, strides);
}

InferredOutputs split_into(const ConcreteTensor& x, int64_t d, const Dims& lengths) {
  InferredOutputs out;
  out.is_tuple = true;
  for (int64_t len : lengths) {
    Dims sizes = x.sizes;
    sizes[d] = len;
    out.values.emplace_back(meta(sizes, x.strides, x.dtype, x.device));
  }
  return out;
}

Expected<InferredOutputs> split(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  if (x.rank() == 0) fail("split expects at least a 1-dimensional tensor");
  int64_t d = shape_rules::wrap_dim(c.integer(2), x.rank());
  int64_t size = c.integer(1), total = x.sizes[d];
  if (size < 0)
    fail("split expects split_size be non-negative, but got split_size=" + std::to_string(size));
  if (size == 0 && total != 0)
    fail("split_size can only be 0 if dimension size is 0, but got dimension size of " +
         std::to_string(total));
  Dims lengths;
  int64_t chunks = size == 0 ? 1 : std::max<int64_t>((total + size - 1) / size, 1);
  for (int64_t i = 0; i < chunks; ++i) lengths.push_back(std::min(size, total - i * size));
  return split_into(x, d, lengths);
}

Expected<InferredOutputs> split_with_sizes(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  int64_t d = shape_rules::wrap_dim(c.integer(2), x.rank());
  Dims lengths = *c.int_list(1);
  int64_t sum = std::accumulate(lengths.begin(), lengths.end(), int64_t{0});
  if (sum != x.sizes[d])
    fail("split_with_sizes expects split_sizes to sum exactly to " + std::to_string(x.sizes[d]) +
         " (input tensor's size at dimension " + std::to_string(d) +
         "), but got split_sizes=" + shape_rules::shape_text(lengths));
  return split_into(x, d, lengths);
}

// clone / _to_copy: memory_format None or preserve keeps a dense input's strides.
Dims copy_strides(const ConcreteTensor& x, const Argument& memory_format) {
  if (memory_format.is_none() || memory_format.as_memory_format() == MemoryFormat::Preserve) {
    return shape_rules::preserve_format_strides(x);
  }
  return shape_rules::contiguous_strides(x.sizes);
}

Expected<InferredOutputs> clone(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  return one(meta(x.sizes, copy_strides(x, c[1]), x.dtype, x.device));
}

Expected<InferredOutputs> to_copy(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0);
  DType dtype = c.dtype(1).value_or(x.dtype);
  InternedString device = c[3].is_none() ? x.device : InternedString(c.text(3));
  return one(meta(x.sizes, copy_strides(x, c[6]), dtype, device));
}

// The views' inverses and copy: functionalization writes an in-place change of a view back to
// its base with them (`x[:, 0] = v` is select, copy and select_scatter). Each makes a new tensor
// like `self` (copy: laid out like src).
InferredOutputs like_self(const ConcreteTensor& x) {
  return one(meta(x.sizes, shape_rules::preserve_format_strides(x), x.dtype, x.device));
}

Expected<InferredOutputs> copy(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0), src = arg_tensor(c, 1);
  if (shape_rules::broadcast_shapes(x.sizes, src.sizes) != x.sizes)
    fail("copy: src's shape " + shape_rules::shape_text(src.sizes) +
         " does not broadcast to self's " + shape_rules::shape_text(x.sizes));
  // Laid out as TensorIterator lays out src broadcast to self's shape, in self's dtype.
  const ConcreteTensor* inputs[] = {&src};
  return one(
      meta(x.sizes, shape_rules::pointwise_output_strides(x.sizes, inputs), x.dtype, x.device));
}

Expected<InferredOutputs> slice_scatter(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0), src = arg_tensor(c, 1);
  if (src.rank() != x.rank())
    fail("slice_scatter: src has " + std::to_string(src.rank()) + " dimensions, self " +
         std::to_string(x.rank()));
  return like_self(x);
}

Expected<InferredOutputs> select_scatter(const BoundCall& c) {
  ConcreteTensor x = arg_tensor(c, 0), src = arg_tensor(c, 1);
  if (x.rank() == 0 || src.rank() + 1 != x.rank())
    fail("select_scatter: src has " + std::to_string(src.rank()) + " dimensions, self " +
         std::to_string(x.rank()) + " (one more expected)");
  return like_self(x);
}

}  // namespace

void add_view_ops(std::vector<OpInfo>& ops) {
  auto add = [&](std::string_view schema, Expected<InferredOutputs> (*fn)(const BoundCall&),
                 OpCategory cats) {
    ops.push_back({schema, cats, fn, nullptr, {}, {}, {}});
  };
  auto zero_flops = [](const BoundCall&, const InferredOutputs&) -> int64_t { return 0; };
  add("aten::t(Tensor(a) self) -> Tensor(a)", t, kView);
  add("aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", transpose,
      OpCategory::None);
  add("aten::permute(Tensor(a) self, int[] dims) -> Tensor(a)", permute, kView);
  add("aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)", view, kView);
  add("aten::reshape(Tensor(a) self, SymInt[] shape) -> Tensor(a)", reshape,
      OpCategory::Recomputable);
  add("aten::_unsafe_view(Tensor self, SymInt[] size) -> Tensor", unsafe_view,
      OpCategory::Recomputable);
  add("aten::expand(Tensor(a) self, SymInt[] size, *, bool implicit=False) -> Tensor(a)", expand,
      kView);
  add("aten::unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", unsqueeze, kView);
  add("aten::squeeze.dim(Tensor(a) self, int dim) -> Tensor(a)", squeeze_dim, kView);
  add("aten::squeeze(Tensor(a) self) -> Tensor(a)", squeeze_all, kView);
  add("aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt "
      "step=1) -> Tensor(a)",
      slice, kView);
  add("aten::select.int(Tensor(a) self, int dim, int index) -> Tensor(a)", select, kView);
  add("aten::split.Tensor(Tensor(a -> *) self, int split_size, int dim=0) -> Tensor(a)[]", split,
      kView);
  add("aten::split_with_sizes(Tensor(a -> *) self, int[] split_sizes, int dim=0) -> Tensor(a)[]",
      split_with_sizes, OpCategory::None);
  add("aten::alias(Tensor(a) self) -> Tensor(a)", same_view, kView);
  add("aten::detach(Tensor(a) self) -> Tensor(a)", same_view, OpCategory::None);
  add("aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", clone,
      OpCategory::Recomputable);
  add("aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? "
      "device=None, bool? pin_memory=None, bool non_blocking=False, MemoryFormat? "
      "memory_format=None) -> Tensor",
      to_copy, OpCategory::Recomputable);
  add("aten::copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor", copy,
      OpCategory::None);
  add("aten::slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? "
      "end=None, SymInt step=1) -> Tensor",
      slice_scatter, OpCategory::None);
  add("aten::select_scatter(Tensor self, Tensor src, int dim, int index) -> Tensor", select_scatter,
      OpCategory::None);
  // Views move no data.
  for (OpInfo& op : ops) {
    if (op.schema_text.find("-> Tensor(a)") != std::string_view::npos) op.flops = zero_flops;
  }
}

}  // namespace remat::detail
