#include "remat/fxtext/python_operators.h"

#include <array>

namespace remat::fxtext {
namespace {

using enum OperatorForm;

constexpr std::array<PythonOperator, 38> kOperators{{
    {"add", "+", "{0} + {1}", Binary},
    {"sub", "-", "{0} - {1}", Binary},
    {"mul", "*", "{0} * {1}", Binary},
    {"floordiv", "//", "{0} // {1}", Binary},
    {"truediv", "/", "{0} / {1}", Binary},
    {"div", "", "{0} / {1}", Binary},  // Python 2's name: printed, never read back
    {"mod", "%", "{0} % {1}", Binary},
    {"pow", "**", "{0} ** {1}", Binary},
    {"lshift", "<<", "{0} << {1}", Binary},
    {"rshift", ">>", "{0} >> {1}", Binary},
    {"and_", "&", "{0} & {1}", Binary},
    {"or_", "|", "{0} | {1}", Binary},
    {"xor", "^", "{0} ^ {1}", Binary},
    {"matmul", "@", "{0} @ {1}", Binary},
    {"eq", "==", "{0} == {1}", Binary},
    {"ne", "!=", "{0} != {1}", Binary},
    {"lt", "<", "{0} < {1}", Binary},
    {"gt", ">", "{0} > {1}", Binary},
    {"le", "<=", "{0} <= {1}", Binary},
    {"ge", ">=", "{0} >= {1}", Binary},
    {"getitem", "", "{0}[{1}]", Subscript},
    {"pos", "+", "+{0}", Unary},
    {"neg", "-", "-{0}", Unary},
    {"invert", "~", "~{0}", Unary},
    {"iadd", "+=", "{0} += {1}", InPlace},
    {"iand", "&=", "{0} &= {1}", InPlace},
    {"ifloordiv", "//=", "{0} //= {1}", InPlace},
    {"ilshift", "<<=", "{0} <<= {1}", InPlace},
    {"imod", "%=", "{0} %= {1}", InPlace},
    {"imul", "*=", "{0} *= {1}", InPlace},
    {"imatmul", "@=", "{0} @= {1}", InPlace},
    {"ior", "|=", "{0} |= {1}", InPlace},
    {"ipow", "**=", "{0} **= {1}", InPlace},
    {"irshift", ">>=", "{0} >>= {1}", InPlace},
    {"isub", "-=", "{0} -= {1}", InPlace},
    {"itruediv", "/=", "{0} /= {1}", InPlace},
    {"ixor", "^=", "{0} ^= {1}", InPlace},
    {"setitem", "", "{0}[{1}] = {2}", SetItem},
}};

bool is_statement(OperatorForm f) {
  return f == InPlace || f == SetItem;
}

}  // namespace

const PythonOperator* expression_operator(std::string_view name) {
  for (const PythonOperator& op : kOperators)
    if (op.name == name && !is_statement(op.form)) return &op;
  return nullptr;
}

const PythonOperator* statement_operator(std::string_view name) {
  for (const PythonOperator& op : kOperators)
    if (op.name == name && is_statement(op.form)) return &op;
  return nullptr;
}

const PythonOperator* operator_by_token(OperatorForm form, std::string_view token) {
  for (const PythonOperator& op : kOperators)
    if (op.form == form && !op.token.empty() && op.token == token) return &op;
  return nullptr;
}

}  // namespace remat::fxtext
