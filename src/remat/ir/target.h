// What a call_function target string names: an ATen-style op overload, a torch callable, ...
#pragma once

#include <string_view>

namespace remat {

/// Kinds of canonical call_function targets (fxgraph-json "Canonical target strings").
enum class CallableKind : uint8_t {
  OpOverload,      ///< `ns.op.overload`: `aten.mm.default`, `prims.sum.default`, `mylib.f.default`
  HigherOrderOp,   ///< `higher_order.tag_activation_checkpoint`
  Operator,        ///< Python's operator module: `operator.getitem`, `operator.add`
  Builtin,         ///< `builtins.getattr`, `builtins.len`
  TorchCallable,   ///< a Python callable under torch: `torch.sin`, `torch.nn.functional.relu`
  PythonCallable,  ///< any other `module.qualname`: `math.sqrt`, `__main__.foo`
};

CallableKind classify_callable(std::string_view target);

/// The last dotted component (`getitem` of `operator.getitem`); for an OpOverload its op
/// (`mm` of `aten.mm.default`).
std::string_view callable_short_name(std::string_view target);

}  // namespace remat
