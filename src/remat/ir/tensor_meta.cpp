#include "remat/ir/tensor_meta.h"

#include "remat/support/saturating_math.h"

#include <mutex>
#include <unordered_set>

#include "remat/support/assert.h"

namespace remat {
namespace detail {

struct DimsRecord {
  bool has_strides = false;
  uint32_t rank = 0;
  std::vector<SymInt> data;  // sizes, then strides when has_strides
  std::optional<int64_t>
      numel;  // the sizes' product, worked out once; none when a size is symbolic
  std::optional<int64_t> numel_hint;  // symbolic sizes: numel under the live graph's hints

  // numel follows from the sizes.
  friend bool operator==(const DimsRecord& a, const DimsRecord& b) {
    return a.has_strides == b.has_strides && a.rank == b.rank && a.data == b.data &&
           a.numel_hint == b.numel_hint;
  }
};

}  // namespace detail

namespace {

struct DimsHash {
  size_t operator()(const detail::DimsRecord& r) const noexcept {
    uint64_t h = 1469598103934665603ULL ^ (r.rank * 2 + (r.has_strides ? 1 : 0));
    for (SymInt d : r.data) h = (h ^ d.raw_bits()) * 1099511628211ULL;
    if (r.numel_hint) h = (h ^ static_cast<uint64_t>(*r.numel_hint)) * 1099511628211ULL;
    return static_cast<size_t>(h);
  }
};

struct DimsPool {
  std::mutex mutex;
  std::unordered_set<detail::DimsRecord, DimsHash> records;  // node-based: stable addresses
};

DimsPool& dims_pool() {
  static DimsPool* pool = new DimsPool();  // never destroyed, like the string pool
  return *pool;
}

const detail::DimsRecord* intern_dims(std::span<const SymInt> sizes,
                                      std::optional<std::span<const SymInt>> strides,
                                      std::optional<int64_t> numel_hint = std::nullopt) {
  if (sizes.empty() && !strides) return nullptr;
  detail::DimsRecord key;
  key.rank = static_cast<uint32_t>(sizes.size());
  key.has_strides = strides.has_value();
  key.data.assign(sizes.begin(), sizes.end());
  if (strides) key.data.insert(key.data.end(), strides->begin(), strides->end());
  key.numel = 1;
  for (SymInt s : sizes) {
    if (s.is_symbolic()) {
      key.numel.reset();
      break;
    }
    key.numel = sat_mul(*key.numel, s.value());
  }
  if (!key.numel) key.numel_hint = numel_hint;
  DimsPool& pool = dims_pool();
  std::lock_guard<std::mutex> lock(pool.mutex);
  return &*pool.records.insert(std::move(key)).first;
}

}  // namespace

TensorMeta::TensorMeta(DType dtype_, std::span<const SymInt> sizes,
                       std::optional<std::span<const SymInt>> strides, InternedString device_)
    : dtype(dtype_), device(device_) {
  set_shape(sizes, strides);
}

size_t TensorMeta::rank() const {
  return dims_ ? dims_->rank : 0;
}

std::span<const SymInt> TensorMeta::sizes() const {
  if (!dims_) return {};
  return {dims_->data.data(), dims_->rank};
}

std::optional<std::span<const SymInt>> TensorMeta::strides() const {
  if (!dims_ || !dims_->has_strides) return std::nullopt;
  return std::span<const SymInt>(dims_->data.data() + dims_->rank, dims_->rank);
}

void TensorMeta::set_shape(std::span<const SymInt> sizes,
                           std::optional<std::span<const SymInt>> strides) {
  REMAT_ASSERT(!strides || strides->size() == sizes.size())
      << "rank " << sizes.size() << " with " << strides->size() << " strides";
  dims_ = intern_dims(sizes, strides);
}

std::optional<std::string> TensorMeta::shape_problem(
    std::span<const SymInt> sizes, std::optional<std::span<const SymInt>> strides) {
  int64_t numel = 1;
  for (SymInt s : sizes) {
    if (s.is_symbolic()) continue;
    if (s.value() < 0) return "negative size " + std::to_string(s.value());
    numel = sat_mul(numel, s.value());
  }
  if (numel > kMaxTensorElements)
    return "more than 2^40 elements (" +
           (numel == kSaturated ? std::string("over 2^63") : std::to_string(numel)) +
           "): no tensor remat weighs is this large";
  for (SymInt s : strides.value_or(std::span<const SymInt>())) {
    if (s.is_symbolic()) continue;
    if (s.value() < 0) return "negative stride " + std::to_string(s.value());
    if (s.value() > kMaxTensorElements)
      return "stride " + std::to_string(s.value()) + " beyond 2^40";
  }
  return std::nullopt;
}

std::vector<SymInt> TensorMeta::contiguous_strides(std::span<const SymInt> sizes) {
  std::vector<SymInt> strides(sizes.size());
  SymInt running(1);
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = running;
    SymInt s = sizes[i];
    if (!running.is_symbolic() && !s.is_symbolic()) {
      int64_t dim = s.value() < 1 ? 1 : s.value();
      running = SymInt(sat_mul(running.value(), dim));
    } else {
      bool unit = !running.is_symbolic() && running.value() == 1;
      running = unit ? s : SymInt::symbolic(s.to_string() + "*" + running.to_string());
    }
  }
  return strides;
}

std::optional<int64_t> TensorMeta::numel() const {
  return dims_ ? dims_->numel : 1;  // no record: rank 0
}

std::optional<int64_t> TensorMeta::nbytes() const {
  std::optional<int64_t> n = numel();
  if (!n || dtype == DType::Unknown) return std::nullopt;
  return sat_mul(*n, dtype_itemsize(dtype));
}

std::optional<int64_t> TensorMeta::numel_hint() const {
  return dims_ ? dims_->numel_hint : std::nullopt;
}

void TensorMeta::set_numel_hint(std::optional<int64_t> hint) {
  dims_ = intern_dims(sizes(), strides(), hint);
}

std::optional<int64_t> TensorMeta::estimated_nbytes() const {
  if (std::optional<int64_t> exact = nbytes()) return exact;
  std::optional<int64_t> hint = numel_hint();
  if (!hint || dtype == DType::Unknown) return std::nullopt;
  return sat_mul(*hint, dtype_itemsize(dtype));
}

size_t TensorMeta::hash() const {
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&](uint64_t v) { h = (h ^ v) * 1099511628211ULL; };
  mix(static_cast<uint64_t>(dtype) | static_cast<uint64_t>(memory_format) << 8 |
      static_cast<uint64_t>(requires_grad.value_or(false) + 2 * requires_grad.has_value()) << 16 |
      static_cast<uint64_t>(is_quantized.value_or(false) + 2 * is_quantized.has_value()) << 20);
  mix(reinterpret_cast<uintptr_t>(&device.str()));
  mix(reinterpret_cast<uintptr_t>(dims_));
  if (extras_)
    for (const RawJsonField& f : *extras_) mix(std::hash<std::string>()(f.key + f.json));
  return static_cast<size_t>(h);
}

namespace {

struct TensorMetaHash {
  size_t operator()(const TensorMeta& t) const noexcept { return t.hash(); }
};

struct TensorMetaPool {
  std::mutex mutex;
  std::unordered_set<TensorMeta, TensorMetaHash> values;  // node-based: stable addresses
};

}  // namespace

const TensorMeta* TensorMeta::intern(const TensorMeta& t) {
  static auto* pool = new TensorMetaPool();  // never destroyed, like the other pools
  std::lock_guard<std::mutex> lock(pool->mutex);
  return &*pool->values.insert(t).first;
}

bool operator==(const TensorMeta& a, const TensorMeta& b) {
  auto extras_equal = [](const RawJsonFields* x, const RawJsonFields* y) {
    if (!x || !y) return (!x || x->empty()) && (!y || y->empty());
    return *x == *y;
  };
  return a.dtype == b.dtype && a.memory_format == b.memory_format &&
         a.requires_grad == b.requires_grad && a.is_quantized == b.is_quantized &&
         a.device == b.device && a.dims_ == b.dims_ && extras_equal(a.extras(), b.extras());
}

}  // namespace remat
