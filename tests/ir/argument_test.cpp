#include "remat/ir/argument.h"

#include <gtest/gtest.h>

#include <cmath>

#include "remat/ir/graph.h"

namespace remat {
namespace {

TEST(Argument, IsSixteenBytes) {
  EXPECT_EQ(sizeof(Argument), 16U);
}

TEST(Argument, EveryKindHoldsItsValue) {
  Graph g;
  Node* x = g.placeholder("x");
  EXPECT_TRUE(Argument().is_none());
  EXPECT_EQ(Argument::node(x).as_node(), x);
  EXPECT_EQ(Argument::integer(-3).as_int(), -3);
  EXPECT_EQ(Argument::floating(0.5).as_float(), 0.5);
  EXPECT_TRUE(std::isnan(Argument::floating(std::nan("")).as_float()));
  EXPECT_TRUE(Argument::boolean(true).as_bool());
  EXPECT_EQ(Argument::string("BNSD").as_text(), "BNSD");
  EXPECT_EQ(Argument::list({Argument::integer(1), Argument::integer(2)}).elements().size(), 2U);
  EXPECT_EQ(Argument::tuple({}).kind(), ArgKind::Tuple);
  Argument d = Argument::dict({{"k", Argument::node(x)}});
  EXPECT_EQ(d.dict_entries()[0].key, "k");
  Argument s = Argument::slice(Argument::none(), Argument::integer(2), Argument::none());
  EXPECT_EQ(s.elements()[1].as_int(), 2);
  EXPECT_EQ(Argument::dtype(DType::BFloat16).as_dtype(), DType::BFloat16);
  EXPECT_EQ(Argument::device("cuda:0").as_text(), "cuda:0");
  EXPECT_EQ(Argument::layout(Layout::SparseCsr).as_layout(), Layout::SparseCsr);
  EXPECT_EQ(Argument::memory_format(MemoryFormat::Preserve).as_memory_format(),
            MemoryFormat::Preserve);
  EXPECT_EQ(Argument::op("aten.rand.default").as_text(), "aten.rand.default");
  EXPECT_EQ(Argument::complex(1, -2).as_complex(), std::make_pair(1.0, -2.0));
  EXPECT_EQ(Argument::enum_member("a.B.C").as_text(), "a.B.C");
  Argument tc = Argument::tensor_constant(DType::Int64, {SymInt(2), SymInt(3)});
  EXPECT_EQ(tc.tensor_constant_dtype(), DType::Int64);
  EXPECT_EQ(tc.tensor_constant_shape().size(), 2U);
  EXPECT_EQ(Argument::sym("s0").as_text(), "s0");
  Argument r = Argument::repr("<obj>", "Foo");
  EXPECT_EQ(r.repr_text(), "<obj>");
  EXPECT_EQ(r.repr_type(), "Foo");
}

TEST(Argument, CopiesAreDeepAndMovesSteal) {
  Argument a = Argument::list({Argument::list({Argument::integer(1)}), Argument::string("s")});
  Argument b = a;
  EXPECT_TRUE(a == b);
  b.mutable_elements()[0].mutable_elements()[0] = Argument::integer(2);
  EXPECT_FALSE(a == b);
  EXPECT_EQ(a.elements()[0].elements()[0].as_int(), 1);
  Argument c = std::move(b);
  EXPECT_TRUE(b.is_none());  // NOLINT(bugprone-use-after-move): moved-from is None
  EXPECT_EQ(c.elements()[0].elements()[0].as_int(), 2);
  c = c;  // self-assignment is harmless
  EXPECT_EQ(c.elements().size(), 2U);
}

TEST(Argument, CopiesShareABlockUntilOneChanges) {
  // Note [shared blocks]: a copy shares the list; a change copies it first.
  Argument a = Argument::list({Argument::integer(1), Argument::integer(2)});
  Argument b = a;
  EXPECT_EQ(a.elements().data(), b.elements().data());
  map_nodes(b, [](Node* n) { return n; });  // no node inside: nothing to copy
  EXPECT_EQ(a.elements().data(), b.elements().data());
  b.mutable_elements()[1] = Argument::integer(3);
  EXPECT_NE(a.elements().data(), b.elements().data());
  EXPECT_EQ(a.elements()[1].as_int(), 2);
  EXPECT_EQ(b.elements()[1].as_int(), 3);
  Argument only = Argument::dict({});
  EXPECT_FALSE(a.may_hold_node());
  EXPECT_FALSE(only.may_hold_node());
  EXPECT_FALSE(Argument::integer(1).may_hold_node());
  b.mutable_elements()[0] = Argument::integer(1);  // written through: may now hold a node
  EXPECT_TRUE(b.may_hold_node());
  EXPECT_EQ(only.mutable_dict_entries().size(), 0U);  // sole owner: changed in place
}

TEST(Argument, EqualityDistinguishesIntAndFloat) {
  EXPECT_FALSE(Argument::integer(1) == Argument::floating(1.0));
  EXPECT_TRUE(Argument::floating(std::nan("")) == Argument::floating(std::nan("")));
  EXPECT_FALSE(Argument::floating(0.0) == Argument::floating(-0.0));
  EXPECT_FALSE(Argument::list({}) == Argument::tuple({}));
}

TEST(Argument, VisitsAndMapsNestedNodes) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* y = g.placeholder("y");
  Argument a = Argument::tuple(
      {Argument::node(x),
       Argument::dict({{"k", Argument::list({Argument::node(x), Argument::node(y)})}})});
  std::vector<Node*> seen;
  for_each_node(a, [&](Node* n) { seen.push_back(n); });
  EXPECT_EQ(seen, (std::vector<Node*>{x, x, y}));
  EXPECT_TRUE(a.may_hold_node());  // found two levels down
  EXPECT_TRUE(a.elements()[1].may_hold_node());
  map_nodes(a, [&](Node* n) { return n == x ? y : n; });
  seen.clear();
  for_each_node(a, [&](Node* n) { seen.push_back(n); });
  EXPECT_EQ(seen, (std::vector<Node*>{y, y, y}));
}

}  // namespace
}  // namespace remat
