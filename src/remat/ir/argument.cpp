#include "remat/ir/argument.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "remat/support/assert.h"

namespace remat {
namespace {

using Elements = std::vector<Argument>;
using Entries = std::vector<DictEntry>;
using ComplexParts = std::pair<double, double>;

struct TensorConstantData {
  DType dtype;
  std::vector<SymInt> shape;
};

struct ReprData {
  std::string text;
  std::string type;
};

constexpr std::array<std::string_view, 20> kKindNames{
    "none",  "node",    "int",   "float",           "bool",   "string", "list",
    "tuple", "dict",    "slice", "dtype",           "device", "layout", "memory_format",
    "op",    "complex", "enum",  "tensor_constant", "sym",    "repr"};

bool uses_text(ArgKind k) {
  return k == ArgKind::String || k == ArgKind::Device || k == ArgKind::Op || k == ArgKind::Enum ||
         k == ArgKind::SymInt;
}

const std::string* intern(std::string_view s) {
  return &InternedString(s).str();
}

// Note [shared blocks]: a compound value (list, dict, slice, ...) lives in one immutable block
// that every copy of the Argument shares, with a reference count; the mutable_ accessors copy a
// shared block first (copy on write). Copying a graph so copies no shape lists, and a list is
// copied only when it holds nodes that are remapped.
using detail::Block;
using detail::block_value;
using detail::Shared;
template <class T>
void* new_block(T value) {
  return static_cast<Block*>(new Shared<T>(std::move(value)));
}
void share(void* heap) {
  static_cast<Block*>(heap)->refs.fetch_add(1, std::memory_order_relaxed);
}
template <class T>
void drop(void* heap) {
  auto* b = static_cast<Block*>(heap);
  if (b->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete static_cast<Shared<T>*>(b);
}
template <class T>
T& unshared(void*& heap) {
  auto* b = static_cast<Block*>(heap);
  if (b->refs.load(std::memory_order_acquire) != 1) {
    void* copy = new_block<T>(block_value<T>(heap));
    drop<T>(heap);
    heap = copy;
  }
  static_cast<Block*>(heap)->may_hold_node = true;  // the caller may write a node into it
  return static_cast<Shared<T>*>(static_cast<Block*>(heap))->value;
}

// A new block of elements or entries, with may_hold_node worked out from what it holds.
template <class T, class HoldsNode>
void* new_flagged_block(T items, HoldsNode may_hold_node) {
  bool nodes = std::any_of(items.begin(), items.end(), may_hold_node);
  void* heap = new_block(std::move(items));
  static_cast<Block*>(heap)->may_hold_node = nodes;
  return heap;
}
void* new_elements_block(Elements elements) {
  return new_flagged_block(std::move(elements),
                           [](const Argument& e) { return e.may_hold_node(); });
}
void* new_entries_block(Entries entries) {
  return new_flagged_block(std::move(entries),
                           [](const DictEntry& e) { return e.value.may_hold_node(); });
}

}  // namespace

void Argument::wrong_kind(const char* accessor, ArgKind kind) {
  REMAT_ASSERT(false) << accessor << " on " << arg_kind_name(kind);
  std::abort();
}

std::string_view arg_kind_name(ArgKind k) {
  return kKindNames[static_cast<size_t>(k)];
}

void Argument::destroy() {
  switch (kind_) {
    case ArgKind::List:
    case ArgKind::Tuple:
    case ArgKind::Slice:
      drop<Elements>(payload_.heap);
      break;
    case ArgKind::Dict:
      drop<Entries>(payload_.heap);
      break;
    case ArgKind::Complex:
      drop<ComplexParts>(payload_.heap);
      break;
    case ArgKind::TensorConstant:
      drop<TensorConstantData>(payload_.heap);
      break;
    case ArgKind::Repr:
      drop<ReprData>(payload_.heap);
      break;
    default:
      break;
  }
  kind_ = ArgKind::None;
  payload_.i = 0;
}

void Argument::copy_from(const Argument& other) {
  kind_ = other.kind_;
  payload_ = other.payload_;
  switch (kind_) {
    case ArgKind::List:
    case ArgKind::Tuple:
    case ArgKind::Slice:
    case ArgKind::Dict:
    case ArgKind::Complex:
    case ArgKind::TensorConstant:
    case ArgKind::Repr:
      share(payload_.heap);
      break;
    default:
      break;
  }
}

Argument::Argument(const Argument& other) {
  copy_from(other);
}

Argument::Argument(Argument&& other) noexcept : payload_(other.payload_), kind_(other.kind_) {
  other.kind_ = ArgKind::None;
  other.payload_.i = 0;
}

Argument& Argument::operator=(const Argument& other) {
  if (this != &other) {
    Argument copy(other);
    *this = std::move(copy);
  }
  return *this;
}

Argument& Argument::operator=(Argument&& other) noexcept {
  if (this != &other) {
    destroy();
    payload_ = other.payload_;
    kind_ = other.kind_;
    other.kind_ = ArgKind::None;
    other.payload_.i = 0;
  }
  return *this;
}

Argument Argument::node(Node* n) {
  REMAT_ASSERT(n != nullptr) << "null node reference";
  return Argument(ArgKind::Node, Payload{.node = n});
}

Argument Argument::integer(int64_t v) {
  return Argument(ArgKind::Int, Payload{.i = v});
}
Argument Argument::floating(double v) {
  return Argument(ArgKind::Float, Payload{.f = v});
}
Argument Argument::boolean(bool v) {
  return Argument(ArgKind::Bool, Payload{.b = v});
}

Argument Argument::string(std::string_view s) {
  return Argument(ArgKind::String, Payload{.text = intern(s)});
}

Argument Argument::list(std::vector<Argument> elements) {
  return Argument(ArgKind::List, Payload{.heap = new_elements_block(std::move(elements))});
}

Argument Argument::tuple(std::vector<Argument> elements) {
  return Argument(ArgKind::Tuple, Payload{.heap = new_elements_block(std::move(elements))});
}

Argument Argument::dict(std::vector<DictEntry> entries) {
  return Argument(ArgKind::Dict, Payload{.heap = new_entries_block(std::move(entries))});
}

Argument Argument::slice(Argument start, Argument stop, Argument step) {
  Elements parts;
  parts.reserve(3);
  parts.push_back(std::move(start));
  parts.push_back(std::move(stop));
  parts.push_back(std::move(step));
  return Argument(ArgKind::Slice, Payload{.heap = new_elements_block(std::move(parts))});
}

Argument Argument::dtype(DType d) {
  return Argument(ArgKind::DType, Payload{.small = static_cast<uint8_t>(d)});
}

Argument Argument::device(std::string_view d) {
  return Argument(ArgKind::Device, Payload{.text = intern(d)});
}

Argument Argument::layout(Layout l) {
  return Argument(ArgKind::Layout, Payload{.small = static_cast<uint8_t>(l)});
}

Argument Argument::memory_format(MemoryFormat m) {
  return Argument(ArgKind::MemoryFormat, Payload{.small = static_cast<uint8_t>(m)});
}

Argument Argument::op(std::string_view target) {
  return Argument(ArgKind::Op, Payload{.text = intern(target)});
}

Argument Argument::complex(double re, double im) {
  return Argument(ArgKind::Complex, Payload{.heap = new_block(ComplexParts(re, im))});
}

Argument Argument::enum_member(std::string_view qualified_name) {
  return Argument(ArgKind::Enum, Payload{.text = intern(qualified_name)});
}

Argument Argument::tensor_constant(DType dtype, std::vector<SymInt> shape) {
  return Argument(ArgKind::TensorConstant,
                  Payload{.heap = new_block(TensorConstantData{dtype, std::move(shape)})});
}

Argument Argument::sym(std::string_view expression) {
  return Argument(ArgKind::SymInt, Payload{.text = intern(expression)});
}

Argument Argument::repr(std::string_view text, std::string_view type_name) {
  return Argument(ArgKind::Repr,
                  Payload{.heap = new_block(ReprData{std::string(text), std::string(type_name)})});
}

int64_t Argument::as_int() const {
  REMAT_ASSERT(kind_ == ArgKind::Int) << "as_int() on " << arg_kind_name(kind_);
  return payload_.i;
}

double Argument::as_float() const {
  REMAT_ASSERT(kind_ == ArgKind::Float) << "as_float() on " << arg_kind_name(kind_);
  return payload_.f;
}

bool Argument::as_bool() const {
  REMAT_ASSERT(kind_ == ArgKind::Bool) << "as_bool() on " << arg_kind_name(kind_);
  return payload_.b;
}

DType Argument::as_dtype() const {
  REMAT_ASSERT(kind_ == ArgKind::DType) << "as_dtype() on " << arg_kind_name(kind_);
  return static_cast<DType>(payload_.small);
}

Layout Argument::as_layout() const {
  REMAT_ASSERT(kind_ == ArgKind::Layout) << "as_layout() on " << arg_kind_name(kind_);
  return static_cast<Layout>(payload_.small);
}

MemoryFormat Argument::as_memory_format() const {
  REMAT_ASSERT(kind_ == ArgKind::MemoryFormat) << "as_memory_format() on " << arg_kind_name(kind_);
  return static_cast<MemoryFormat>(payload_.small);
}

std::string_view Argument::as_text() const {
  REMAT_ASSERT(uses_text(kind_)) << "as_text() on " << arg_kind_name(kind_);
  return *payload_.text;
}

std::span<Argument> Argument::mutable_elements() {
  REMAT_ASSERT(uses_elements()) << "mutable_elements() on " << arg_kind_name(kind_);
  return unshared<Elements>(payload_.heap);
}

std::span<const DictEntry> Argument::dict_entries() const {
  REMAT_ASSERT(kind_ == ArgKind::Dict) << "dict_entries() on " << arg_kind_name(kind_);
  return block_value<Entries>(payload_.heap);
}

std::span<DictEntry> Argument::mutable_dict_entries() {
  REMAT_ASSERT(kind_ == ArgKind::Dict) << "mutable_dict_entries() on " << arg_kind_name(kind_);
  return unshared<Entries>(payload_.heap);
}

std::pair<double, double> Argument::as_complex() const {
  REMAT_ASSERT(kind_ == ArgKind::Complex) << "as_complex() on " << arg_kind_name(kind_);
  return block_value<ComplexParts>(payload_.heap);
}

DType Argument::tensor_constant_dtype() const {
  REMAT_ASSERT(kind_ == ArgKind::TensorConstant) << "not a tensor constant";
  return block_value<TensorConstantData>(payload_.heap).dtype;
}

std::span<const SymInt> Argument::tensor_constant_shape() const {
  REMAT_ASSERT(kind_ == ArgKind::TensorConstant) << "not a tensor constant";
  return block_value<TensorConstantData>(payload_.heap).shape;
}

std::string_view Argument::repr_text() const {
  REMAT_ASSERT(kind_ == ArgKind::Repr) << "repr_text() on " << arg_kind_name(kind_);
  return block_value<ReprData>(payload_.heap).text;
}

std::string_view Argument::repr_type() const {
  REMAT_ASSERT(kind_ == ArgKind::Repr) << "repr_type() on " << arg_kind_name(kind_);
  return block_value<ReprData>(payload_.heap).type;
}

bool operator==(const Argument& a, const Argument& b) {
  if (a.kind_ != b.kind_) return false;
  switch (a.kind_) {
    case ArgKind::None:
      return true;
    case ArgKind::Node:
      return a.payload_.node == b.payload_.node;
    case ArgKind::Int:
      return a.payload_.i == b.payload_.i;
    case ArgKind::Float:
      // Bitwise, so nan equals nan and 0.0 differs from -0.0: equality means "same value text".
      return std::memcmp(&a.payload_.f, &b.payload_.f, sizeof(double)) == 0;
    case ArgKind::Bool:
      return a.payload_.b == b.payload_.b;
    case ArgKind::DType:
    case ArgKind::Layout:
    case ArgKind::MemoryFormat:
      return a.payload_.small == b.payload_.small;
    case ArgKind::String:
    case ArgKind::Device:
    case ArgKind::Op:
    case ArgKind::Enum:
    case ArgKind::SymInt:
      return a.payload_.text == b.payload_.text;
    case ArgKind::List:
    case ArgKind::Tuple:
    case ArgKind::Slice: {
      auto x = a.elements(), y = b.elements();
      return std::equal(x.begin(), x.end(), y.begin(), y.end());
    }
    case ArgKind::Dict: {
      auto x = a.dict_entries(), y = b.dict_entries();
      return std::equal(x.begin(), x.end(), y.begin(), y.end());
    }
    case ArgKind::Complex: {
      auto x = a.as_complex(), y = b.as_complex();
      return std::memcmp(&x, &y, sizeof x) == 0;
    }
    case ArgKind::TensorConstant: {
      auto x = a.tensor_constant_shape(), y = b.tensor_constant_shape();
      return a.tensor_constant_dtype() == b.tensor_constant_dtype() &&
             std::equal(x.begin(), x.end(), y.begin(), y.end());
    }
    case ArgKind::Repr:
      return a.repr_text() == b.repr_text() && a.repr_type() == b.repr_type();
  }
  return false;
}

void for_each_node(const Argument& arg, absl::FunctionRef<void(Node*)> fn) {
  switch (arg.kind()) {
    case ArgKind::Node:
      fn(arg.as_node());
      break;
    case ArgKind::List:
    case ArgKind::Tuple:
    case ArgKind::Slice:
      for (const Argument& e : arg.elements()) for_each_node(e, fn);
      break;
    case ArgKind::Dict:
      for (const DictEntry& e : arg.dict_entries()) for_each_node(e.value, fn);
      break;
    default:
      break;
  }
}

void map_nodes(Argument& arg, absl::FunctionRef<Node*(Node*)> fn) {
  if (!arg.may_hold_node()) return;  // keep a shared block shared
  switch (arg.kind()) {
    case ArgKind::Node:
      arg = Argument::node(fn(arg.as_node()));
      break;
    case ArgKind::List:
    case ArgKind::Tuple:
    case ArgKind::Slice:
      for (Argument& e : arg.mutable_elements()) map_nodes(e, fn);
      break;
    case ArgKind::Dict:
      for (DictEntry& e : arg.mutable_dict_entries()) map_nodes(e.value, fn);
      break;
    default:
      break;
  }
}

}  // namespace remat
