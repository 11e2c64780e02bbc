#include "remat/ir/meta.h"

namespace remat {
namespace {

const Argument kNoneArgument;
const std::vector<std::string> kNoKeys;
const RawJsonFields kNoExtras;

}  // namespace

void Meta::set_tensor(const TensorMeta& t) {
  clear_value();
  tensor_ = TensorMeta::intern(t);
  value_kind_ = ValueKind::Tensor;
}

const std::vector<std::optional<TensorMeta>>* Meta::tensor_tuple() const {
  return value_kind_ == ValueKind::TensorTuple ? &cold_->tuple : nullptr;
}

void Meta::set_tensor_tuple(std::vector<std::optional<TensorMeta>> elements) {
  clear_value();
  cold_.mutate().tuple = std::move(elements);
  value_kind_ = ValueKind::TensorTuple;
}

std::optional<SymInt> Meta::sym_value() const {
  if (value_kind_ != ValueKind::SymInt) return std::nullopt;
  return cold_->sym;
}

void Meta::set_sym_value(SymInt v) {
  clear_value();
  cold_.mutate().sym = v;
  value_kind_ = ValueKind::SymInt;
}

void Meta::clear_value() {
  tensor_ = nullptr;
  if (cold_ && (!cold_->tuple.empty() || !(cold_->sym == SymInt()))) {
    Cold& cold = cold_.mutate();
    cold.tuple.clear();
    cold.sym = SymInt();
  }
  value_kind_ = ValueKind::None;
}

const Argument& Meta::desc() const {
  return cold_ ? cold_->desc : kNoneArgument;
}
const Argument& Meta::custom() const {
  return cold_ ? cold_->custom : kNoneArgument;
}
const std::vector<std::string>& Meta::source_keys() const {
  return cold_ ? cold_->keys : kNoKeys;
}
const RawJsonFields& Meta::extras() const {
  return cold_ ? cold_->extras : kNoExtras;
}
const RawJsonFields& Meta::node_fields() const {
  return cold_ ? cold_->node_fields : kNoExtras;
}

bool operator==(const Meta& a, const Meta& b) {
  if (a.value_kind_ != b.value_kind_ || a.value_key_ != b.value_key_) return false;
  switch (a.value_kind_) {
    case ValueKind::Tensor:
      if (a.tensor_ != b.tensor_) return false;  // interned: same value, same pointer
      break;
    case ValueKind::TensorTuple:
      if (*a.tensor_tuple() != *b.tensor_tuple()) return false;
      break;
    case ValueKind::SymInt:
      if (a.sym_value() != b.sym_value()) return false;
      break;
    case ValueKind::None:
      break;
  }
  return a.recompute == b.recompute && a.partitioner_tag == b.partitioner_tag &&
         a.ac_graph_id_ == b.ac_graph_id_ && a.seq_nr_ == b.seq_nr_ &&
         a.stack_trace == b.stack_trace && a.desc() == b.desc() && a.custom() == b.custom() &&
         a.source_keys() == b.source_keys() && a.extras() == b.extras() &&
         a.node_fields() == b.node_fields();
}

}  // namespace remat
