#include "remat/fxtext/python_operators.h"

#include <gtest/gtest.h>

namespace remat::fxtext {
namespace {

TEST(PythonOperators, PrintedAndReadFormsAgree) {
  const PythonOperator* add = expression_operator("add");
  ASSERT_NE(add, nullptr);
  EXPECT_EQ(add->pattern, "{0} + {1}");
  EXPECT_EQ(operator_by_token(OperatorForm::Binary, "+"), add);
  EXPECT_EQ(operator_by_token(OperatorForm::Unary, "+")->name, "pos");
  EXPECT_EQ(operator_by_token(OperatorForm::Binary, "/")->name, "truediv");
  EXPECT_EQ(expression_operator("div")->pattern, "{0} / {1}");  // printed, read back as truediv
  EXPECT_EQ(expression_operator("getitem")->form, OperatorForm::Subscript);
  EXPECT_EQ(expression_operator("iadd"), nullptr);
  EXPECT_EQ(statement_operator("iadd")->pattern, "{0} += {1}");
  EXPECT_EQ(operator_by_token(OperatorForm::InPlace, "//=")->name, "ifloordiv");
  EXPECT_EQ(statement_operator("setitem")->form, OperatorForm::SetItem);
  EXPECT_EQ(operator_by_token(OperatorForm::Binary, "+="), nullptr);
}

TEST(PythonOperators, EveryTokenReadsBackAsItsOperator) {
  for (OperatorForm form : {OperatorForm::Binary, OperatorForm::Unary, OperatorForm::InPlace}) {
    for (std::string_view name :
         {"add",  "sub",     "mul", "floordiv", "truediv", "mod",  "pow",       "lshift",  "rshift",
          "and_", "or_",     "xor", "matmul",   "eq",      "ne",   "lt",        "gt",      "le",
          "ge",   "pos",     "neg", "invert",   "iadd",    "iand", "ifloordiv", "ilshift", "imod",
          "imul", "imatmul", "ior", "ipow",     "irshift", "isub", "itruediv",  "ixor"}) {
      const PythonOperator* op =
          form == OperatorForm::InPlace ? statement_operator(name) : expression_operator(name);
      if (op == nullptr || op->form != form) continue;
      EXPECT_EQ(operator_by_token(form, op->token), op) << name;
    }
  }
}

}  // namespace
}  // namespace remat::fxtext
