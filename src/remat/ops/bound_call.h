// BoundCall: an op's arguments matched to its schema, defaults filled in, with typed accessors.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "remat/ir/argument.h"
#include "remat/ir/node.h"
#include "remat/ir/tensor_meta.h"
#include "remat/ops/schema.h"
#include "remat/support/expected.h"

namespace remat {

/// The arguments of one call, one per schema argument. Tensor arguments are nodes whose
/// meta holds their TensorMeta. Accessors assume a successful bind() and check types with
/// REMAT_ASSERT; inference functions use them.
class BoundCall {
 public:
  BoundCall(const OpSchema& schema, std::vector<Argument> values)
      : schema_(&schema), values_(std::move(values)) {}

  [[nodiscard]] const OpSchema& schema() const { return *schema_; }
  [[nodiscard]] const Argument& operator[](size_t i) const { return values_[i]; }
  [[nodiscard]] size_t size() const { return values_.size(); }

  /// The tensor metadata of argument i; a number there throws shape_rules::InferError.
  [[nodiscard]] const TensorMeta& tensor(size_t i) const;
  /// nullptr when argument i is None.
  [[nodiscard]] const TensorMeta* optional_tensor(size_t i) const;
  [[nodiscard]] std::vector<const TensorMeta*> tensor_list(size_t i) const;
  [[nodiscard]] int64_t integer(size_t i) const;
  [[nodiscard]] std::optional<int64_t> optional_integer(size_t i) const;
  [[nodiscard]] double number(size_t i) const;  ///< Int or Float (a Scalar)
  [[nodiscard]] bool boolean(size_t i) const;
  [[nodiscard]] std::optional<bool> optional_boolean(size_t i) const;
  /// An int list; a single int counts as a one-element list. nullopt for None.
  [[nodiscard]] std::optional<std::vector<int64_t>> int_list(size_t i) const;
  [[nodiscard]] std::vector<bool> bool_list(size_t i) const;
  [[nodiscard]] std::optional<DType> dtype(size_t i) const;
  [[nodiscard]] std::string_view text(size_t i) const;

 private:
  const OpSchema* schema_;
  std::vector<Argument> values_;
};

/// Matches positional `args` and `kwargs` to `schema`: too many or unknown arguments, a missing
/// required one, or a value of the wrong kind (e.g. a list where a Tensor goes) is an error.
Expected<BoundCall> bind(const OpSchema& schema, std::span<const Argument> args,
                         std::span<const Kwarg> kwargs);

/// The default value of a schema argument as an Argument (`None`, `1`, `[]`, `"none"`, `False`).
Argument default_value(const SchemaArg& arg);

}  // namespace remat
