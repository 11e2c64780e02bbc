#include "remat/ir/target.h"

#include <algorithm>

namespace remat {

CallableKind classify_callable(std::string_view target) {
  size_t first_dot = target.find('.');
  std::string_view head = target.substr(0, first_dot);
  if (head == "torch") return CallableKind::TorchCallable;
  if (head == "operator" || head == "_operator") return CallableKind::Operator;
  if (head == "builtins") return CallableKind::Builtin;
  if (head == "higher_order") return CallableKind::HigherOrderOp;
  size_t dots = static_cast<size_t>(std::count(target.begin(), target.end(), '.'));
  bool python_module = head == "math" || head == "functools" || head == "__main__";
  if (dots == 2 && !python_module) return CallableKind::OpOverload;
  return CallableKind::PythonCallable;
}

std::string_view callable_short_name(std::string_view target) {
  if (classify_callable(target) == CallableKind::OpOverload) {
    size_t first = target.find('.');
    size_t last = target.rfind('.');
    return target.substr(first + 1, last - first - 1);
  }
  size_t last = target.rfind('.');
  return last == std::string_view::npos ? target : target.substr(last + 1);
}

}  // namespace remat
