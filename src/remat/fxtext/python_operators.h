// Python's operators as FX code writes them: `operator.add` prints as `a + b`, `operator.iadd`
// as the statement `a += b`, `operator.getitem` as `a[b]`. One table for the printer and the
// parser.
#pragma once

#include <cstdint>
#include <string_view>

namespace remat::fxtext {

enum class OperatorForm : uint8_t {
  Binary,     ///< `{0} + {1}`: an expression
  Unary,      ///< `-{0}`
  Subscript,  ///< `{0}[{1}]`
  InPlace,    ///< `{0} += {1}`: a statement of its own
  SetItem,    ///< `{0}[{1}] = {2}`
};

struct PythonOperator {
  std::string_view name;     ///< the `operator` module's function: `add`, `iadd`, `getitem`
  std::string_view token;    ///< `+`, `+=`; empty for the subscript forms
  std::string_view pattern;  ///< the printed form, `{0}`, `{1}`, `{2}` standing for the arguments
  OperatorForm form;
};

/// The operator printed as an expression (binary, unary or subscript), by name; nullptr if none.
const PythonOperator* expression_operator(std::string_view name);
/// The operator printed as a statement (in-place or setitem), by name; nullptr if none.
const PythonOperator* statement_operator(std::string_view name);
/// The operator of `form` written with `token` (`//`, `<=`, `-`, `+=`); nullptr if none.
const PythonOperator* operator_by_token(OperatorForm form, std::string_view token);

}  // namespace remat::fxtext
