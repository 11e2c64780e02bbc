// Calling ATen operators on IR arguments: the bridge from remat's Argument to c10::IValue.
// Only exec/ and its tests include this header (it pulls in ATen).
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/ivalue.h>

#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "remat/ir/argument.h"
#include "remat/ir/node.h"
#include "remat/support/expected.h"

namespace remat::exec {

/// Resolves a node reference to the value it computed.
using NodeValues = std::function<c10::IValue(const Node*)>;

/// The dispatcher's operator for an FX target (`aten.mm.default`, `aten.add.Tensor`), or nullopt
/// when the installed libtorch does not have it.
std::optional<c10::OperatorHandle> find_aten_op(std::string_view target);

/// The IValue that `arg` denotes where `schema_arg` is expected (ints as doubles for `float`,
/// dtypes as ScalarType, one int for an `int[N]`, ...).
Expected<c10::IValue> to_ivalue(const Argument& arg, const c10::Argument& schema_arg,
                                const NodeValues& values);

/// Calls `op` boxed with `args`/`kwargs` (schema defaults fill the rest) and returns its outputs.
/// With `device`, every device argument becomes it (a graph captured on `cuda:0` runs on the CPU).
/// An ATen error is one line: the first of its message.
Expected<std::vector<c10::IValue>> call_aten(const c10::OperatorHandle& op,
                                             std::span<const Argument> args,
                                             std::span<const Kwarg> kwargs,
                                             const NodeValues& values,
                                             std::optional<c10::Device> device = std::nullopt);

/// torch dtype <-> ScalarType.
std::optional<c10::ScalarType> to_scalar_type(DType d);
DType from_scalar_type(c10::ScalarType s);

}  // namespace remat::exec
