// Argument: the recursive value type of node args and kwargs (every fxgraph-json value kind).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/functional/function_ref.h>

#include "remat/fxtext/dtype.h"
#include "remat/ir/detail/shared_block.h"
#include "remat/ir/layout.h"
#include "remat/ir/symint.h"
#include "remat/support/interned_string.h"

namespace remat {

class Node;

/// The kinds of values fxgraph-json can carry (docs/file-formats.md, "Values").
enum class ArgKind : uint8_t {
  None,
  Node,  ///< a reference to another node of the same graph
  Int,
  Float,  ///< including inf, -inf, nan
  Bool,
  String,
  List,
  Tuple,
  Dict,   ///< string keys, insertion order kept
  Slice,  ///< start, stop, step (each an Argument)
  DType,
  Device,  ///< `cpu`, `cuda:0`
  Layout,
  MemoryFormat,
  Op,  ///< an operator used as a value, canonical target string
  Complex,
  Enum,  ///< a qualified enum member, e.g. `torch.utils.checkpoint.CheckpointPolicy.MUST_SAVE`
  TensorConstant,  ///< dtype and shape of a tensor literal
  SymInt,          ///< a symbolic integer expression, e.g. `s0 + 1`
  Repr,            ///< anything else: its Python repr and type name
};

std::string_view arg_kind_name(ArgKind k);

struct DictEntry;

/// A 16-byte tagged value. Scalars and interned strings live inline; lists, dicts and the
/// other compound kinds live in a shared, reference-counted heap block that the mutable_
/// accessors copy before a change (Note [shared blocks] in argument.cpp).
class Argument {
 public:
  Argument() { payload_.i = 0; }
  ~Argument() { destroy(); }
  Argument(const Argument& other);
  Argument(Argument&& other) noexcept;
  Argument& operator=(const Argument& other);
  Argument& operator=(Argument&& other) noexcept;

  static Argument none() { return {}; }
  static Argument node(Node* n);
  static Argument integer(int64_t v);
  static Argument floating(double v);
  static Argument boolean(bool v);
  static Argument string(std::string_view s);
  static Argument list(std::vector<Argument> elements);
  static Argument tuple(std::vector<Argument> elements);
  static Argument dict(std::vector<DictEntry> entries);
  static Argument slice(Argument start, Argument stop, Argument step);
  static Argument dtype(DType d);
  static Argument device(std::string_view d);
  static Argument layout(Layout l);
  static Argument memory_format(MemoryFormat m);
  static Argument op(std::string_view target);
  static Argument complex(double re, double im);
  static Argument enum_member(std::string_view qualified_name);
  static Argument tensor_constant(DType dtype, std::vector<SymInt> shape);
  static Argument sym(std::string_view expression);
  static Argument repr(std::string_view text, std::string_view type_name);

  [[nodiscard]] ArgKind kind() const { return kind_; }
  [[nodiscard]] bool is(ArgKind k) const { return kind_ == k; }
  [[nodiscard]] bool is_none() const { return kind_ == ArgKind::None; }
  [[nodiscard]] bool is_node() const { return kind_ == ArgKind::Node; }
  /// List or Tuple.
  [[nodiscard]] bool is_sequence() const {
    return kind_ == ArgKind::List || kind_ == ArgKind::Tuple;
  }

  /// False when no node is referenced anywhere inside (O(1): compound values keep a flag).
  [[nodiscard]] bool may_hold_node() const {
    switch (kind_) {
      case ArgKind::Node:
        return true;
      case ArgKind::List:
      case ArgKind::Tuple:
      case ArgKind::Slice:
      case ArgKind::Dict:
        return detail::block_may_hold_node(payload_.heap);
      default:
        return false;
    }
  }
  [[nodiscard]] Node* as_node() const {
    if (kind_ != ArgKind::Node) wrong_kind("as_node()", kind_);
    return payload_.node;
  }
  [[nodiscard]] int64_t as_int() const;
  [[nodiscard]] double as_float() const;
  [[nodiscard]] bool as_bool() const;
  [[nodiscard]] DType as_dtype() const;
  [[nodiscard]] Layout as_layout() const;
  [[nodiscard]] MemoryFormat as_memory_format() const;
  /// The text of String, Device, Op, Enum and SymInt values.
  [[nodiscard]] std::string_view as_text() const;
  /// Elements of List and Tuple; for Slice, its three parts.
  [[nodiscard]] std::span<const Argument> elements() const {
    if (!uses_elements()) wrong_kind("elements()", kind_);
    return detail::block_value<std::vector<Argument>>(payload_.heap);
  }
  [[nodiscard]] std::span<Argument> mutable_elements();
  [[nodiscard]] std::span<const DictEntry> dict_entries() const;
  [[nodiscard]] std::span<DictEntry> mutable_dict_entries();
  [[nodiscard]] std::pair<double, double> as_complex() const;
  [[nodiscard]] DType tensor_constant_dtype() const;
  [[nodiscard]] std::span<const SymInt> tensor_constant_shape() const;
  [[nodiscard]] std::string_view repr_text() const;
  [[nodiscard]] std::string_view repr_type() const;

  /// Deep equality; node references compare by identity.
  friend bool operator==(const Argument& a, const Argument& b);

 private:
  [[noreturn]] static void wrong_kind(const char* accessor, ArgKind kind);
  /// List, Tuple and Slice keep their parts as elements.
  [[nodiscard]] bool uses_elements() const { return is_sequence() || kind_ == ArgKind::Slice; }
  void destroy();
  void copy_from(const Argument& other);

  union Payload {
    Node* node;
    int64_t i;
    double f;
    bool b;
    uint8_t small;            // DType, Layout, MemoryFormat
    const std::string* text;  // interned (String, Device, Op, Enum, SymInt)
    void* heap;               // List, Tuple, Dict, Slice, Complex, TensorConstant, Repr
  } payload_;
  ArgKind kind_ = ArgKind::None;

  Argument(ArgKind kind, Payload payload) : payload_(payload), kind_(kind) {}
};

struct DictEntry {
  std::string key;
  Argument value;
  friend bool operator==(const DictEntry&, const DictEntry&) = default;
};

/// Calls `fn` on every node referenced anywhere inside `arg`, in order (repeats included).
void for_each_node(const Argument& arg, absl::FunctionRef<void(Node*)> fn);
/// Replaces every node reference `n` inside `arg` by `fn(n)`.
void map_nodes(Argument& arg, absl::FunctionRef<Node*(Node*)> fn);

}  // namespace remat
