// Meta: node.meta with typed well-known keys and an open map that keeps every other key.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "remat/fxtext/checkpoint_policy.h"
#include "remat/ir/argument.h"
#include "remat/ir/raw_json.h"
#include "remat/ir/tensor_meta.h"
#include "remat/support/cow_ptr.h"
#include "remat/support/interned_string.h"

namespace remat {

/// What the node's value is, as far as metadata says.
enum class ValueKind : uint8_t {
  None,         ///< no value metadata (or an explicit null)
  Tensor,       ///< one tensor: `tensor()`
  TensorTuple,  ///< a tuple of tensors, for multi-output ops: `tensor_tuple()`
  SymInt,       ///< a symbolic or concrete integer: `sym_value()`
};

/// Which meta key the value metadata came from; kept so files round-trip unchanged.
enum class ValueKey : uint8_t { TensorMeta, Val };

/// node.meta. The hot keys are fields; rarely present keys live in a lazily allocated block.
class Meta {
 public:
  // --- value metadata (`tensor_meta` / `val`) ---
  [[nodiscard]] ValueKind value_kind() const { return value_kind_; }
  [[nodiscard]] ValueKey value_key() const { return value_key_; }
  void set_value_key(ValueKey k) { value_key_ = k; }
  /// The tensor value's metadata, or nullptr. Shared, immutable: change it with set_tensor.
  [[nodiscard]] const TensorMeta* tensor() const { return tensor_; }
  void set_tensor(const TensorMeta& t);
  /// Elements of a tuple value; nullopt elements are None entries.
  [[nodiscard]] const std::vector<std::optional<TensorMeta>>* tensor_tuple() const;
  void set_tensor_tuple(std::vector<std::optional<TensorMeta>> elements);
  [[nodiscard]] std::optional<SymInt> sym_value() const;
  void set_sym_value(SymInt v);
  void clear_value();

  // --- activation checkpointing ---
  std::optional<CheckpointPolicy> recompute;
  std::optional<PartitionerTag> partitioner_tag;
  [[nodiscard]] std::optional<int64_t> ac_graph_id() const { return unpack(ac_graph_id_); }
  void set_ac_graph_id(std::optional<int64_t> id) { ac_graph_id_ = pack(id); }
  [[nodiscard]] std::optional<int64_t> seq_nr() const { return unpack(seq_nr_); }
  void set_seq_nr(std::optional<int64_t> n) { seq_nr_ = pack(n); }

  /// Python traceback text (`  File "f.py", line 3, in fn\n    code\n`); null when absent.
  InternedString stack_trace;

  // --- rarely present keys ---
  /// Descriptor: a String for placeholders (`PlainAOTInput(idx=0)`), a List for the output node.
  [[nodiscard]] const Argument& desc() const;
  void set_desc(Argument d) { cold_.mutate().desc = std::move(d); }
  /// meta["custom"]: user annotations, a Dict (None when absent).
  [[nodiscard]] const Argument& custom() const;
  void set_custom(Argument c) { cold_.mutate().custom = std::move(c); }
  /// meta["keys"]: every meta key the source graph had, in its order (empty when unknown).
  [[nodiscard]] const std::vector<std::string>& source_keys() const;
  void set_source_keys(std::vector<std::string> keys) { cold_.mutate().keys = std::move(keys); }
  /// Keys remat does not interpret, kept verbatim and in order.
  [[nodiscard]] const RawJsonFields& extras() const;
  RawJsonFields& mutable_extras() { return cold_.mutate().extras; }
  /// Unknown keys of the node object itself (beside `meta` in a file), kept for writing back.
  [[nodiscard]] const RawJsonFields& node_fields() const;
  RawJsonFields& mutable_node_fields() { return cold_.mutate().node_fields; }

  friend bool operator==(const Meta& a, const Meta& b);

 private:
  static constexpr int64_t kAbsent = std::numeric_limits<int64_t>::min();
  static int64_t pack(std::optional<int64_t> v) { return v ? *v : kAbsent; }
  static std::optional<int64_t> unpack(int64_t v) {
    return v == kAbsent ? std::nullopt : std::optional<int64_t>(v);
  }

  struct Cold {
    Argument desc;
    Argument custom;
    std::vector<std::string> keys;
    RawJsonFields extras;
    RawJsonFields node_fields;
    std::vector<std::optional<TensorMeta>> tuple;
    SymInt sym;
  };

  const TensorMeta* tensor_ = nullptr;  // interned: equal metadata is stored once per process
  ValueKind value_kind_ = ValueKind::None;
  ValueKey value_key_ = ValueKey::TensorMeta;
  int64_t ac_graph_id_ = kAbsent;
  int64_t seq_nr_ = kAbsent;
  CowPtr<Cold> cold_;  // shared by copies of a node: copying a graph copies no cold block
};

}  // namespace remat
