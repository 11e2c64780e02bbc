#include "remat/ir/graph.h"

#include <gtest/gtest.h>

#include <random>

#include "remat/ir/graph_equal.h"
#include "remat/ir/graph_module.h"
#include "remat/ir/input_lists.h"
#include "remat/ir/verify.h"
#include "testing/graph_generator.h"

namespace remat {
namespace {

std::vector<std::string> names(std::span<Node* const> nodes) {
  std::vector<std::string> out;
  for (Node* n : nodes) out.push_back(n->name());
  return out;
}

std::vector<std::string> order(const Graph& g) {
  std::vector<std::string> out;
  for (const Node* n : g.nodes()) out.push_back(n->name());
  return out;
}

TEST(Graph, CreatesNodesWithFxNamesAndUsers) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* a = g.call_function("aten.add.Tensor", {Argument::node(x), Argument::node(x)});
  Node* b = g.call_function("aten.add.Tensor", {Argument::node(a), Argument::node(x)});
  Node* s = g.call_function("aten.sum.default", {Argument::node(b)});
  Node* gi = g.call_function("operator.getitem", {Argument::node(s), Argument::integer(0)});
  g.output(Argument::tuple({Argument::node(gi)}));
  EXPECT_EQ(a->name(), "add");
  EXPECT_EQ(b->name(), "add_1");
  EXPECT_EQ(s->name(), "sum_1");
  EXPECT_EQ(gi->name(), "getitem");
  EXPECT_EQ(names(x->users()), (std::vector<std::string>{"add", "add_1"}));
  EXPECT_EQ(g.find("add_1"), b);
  EXPECT_EQ(g.output_node()->name(), "output");
  EXPECT_TRUE(verify(g).empty());
}

TEST(Graph, ReplaceAllUsesAndInputsKeepUsersInSync) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* y = g.placeholder("y");
  Node* a = g.call_function("aten.sin.default", {Argument::node(x)});
  Node* b = g.call_function("aten.mul.Tensor", {Argument::node(x), Argument::node(a)});
  Node* out = g.output(Argument::tuple({Argument::node(b), Argument::node(x)}));
  std::vector<Node*> changed = x->replace_all_uses_with(y);
  EXPECT_EQ(names(changed), (std::vector<std::string>{"sin", "mul", "output"}));
  EXPECT_TRUE(x->users().empty());
  EXPECT_EQ(names(y->users()), (std::vector<std::string>{"sin", "mul", "output"}));
  b->replace_input(a, y);
  EXPECT_TRUE(a->users().empty());
  // torch.fx re-adds every input after an edit, so `mul` moves to the end of y's users.
  EXPECT_EQ(names(y->users()), (std::vector<std::string>{"sin", "output", "mul"}));
  EXPECT_EQ(b->args()[1].as_node(), y);
  EXPECT_EQ(out->args()[0].elements()[1].as_node(), y);
  EXPECT_TRUE(verify(g).empty());
}

TEST(Graph, InsertMoveAndEraseKeepOrder) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* c = g.call_function("aten.cos.default", {Argument::node(x)});
  g.output(Argument::node(c));
  g.set_insert_point(c);
  Node* s = g.call_function("aten.sin.default", {Argument::node(x)});
  g.set_insert_point(nullptr);
  EXPECT_EQ(order(g), (std::vector<std::string>{"x", "sin", "cos", "output"}));
  EXPECT_TRUE(s->is_before(c));
  g.set_insert_point_after(x);
  Node* e1 = g.call_function("aten.exp.default", {Argument::node(x)});
  Node* e2 = g.call_function("aten.exp.default", {Argument::node(e1)});
  g.set_insert_point(nullptr);
  EXPECT_EQ(order(g), (std::vector<std::string>{"x", "exp", "exp_1", "sin", "cos", "output"}));
  g.erase(e2);
  g.erase(e1);
  g.move_after(s, c);
  EXPECT_EQ(order(g), (std::vector<std::string>{"x", "cos", "sin", "output"}));
  EXPECT_TRUE(c->is_before(s));
  g.erase(s);
  EXPECT_EQ(order(g), (std::vector<std::string>{"x", "cos", "output"}));
  EXPECT_EQ(g.find("sin"), nullptr);
  EXPECT_EQ(names(x->users()), (std::vector<std::string>{"cos"}));
  // torch.fx never frees a name: a new sin is sin_1.
  EXPECT_EQ(g.call_function("aten.sin.default", {Argument::node(x)})->name(), "sin_1");
  EXPECT_EQ(g.size(), 4U);
}

TEST(GraphDeathTest, ErasingANodeWithUsersAborts) {
  Graph g;
  Node* x = g.placeholder("x");
  g.output(Argument::node(x));
  EXPECT_DEATH(g.erase(x), "still has 1 user");
}

TEST(Graph, IsBeforeMatchesListOrderUnderRandomInsertions) {
  // Property (fixed seed): after many insertions at random places, including repeated
  // insertions at one spot that exhaust the gaps, is_before agrees with list order.
  std::mt19937 rng(7);
  Graph g;
  std::vector<Node*> all{g.placeholder("x")};
  for (int i = 0; i < 3000; ++i) {
    Node* where = i % 3 == 0 ? all[1 % all.size()] : all[rng() % all.size()];
    g.set_insert_point(rng() % 5 == 0 ? nullptr : where);
    all.push_back(g.call_function("aten.neg.default", {}));
  }
  std::vector<const Node*> list;
  for (const Node* n : g.nodes()) list.push_back(n);
  for (int i = 0; i < 20000; ++i) {
    size_t a = rng() % list.size(), b = rng() % list.size();
    ASSERT_EQ(list[a]->is_before(list[b]), a < b);
  }
}

TEST(Graph, NodeIdsAreDenseInCreationOrderAndNeverReused) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* a = g.call_function("aten.sin.default", {Argument::node(x)});
  g.set_insert_point(a);  // ids follow creation, not list order
  Node* b = g.call_function("aten.cos.default", {Argument::node(x)});
  EXPECT_EQ(x->id(), 0u);
  EXPECT_EQ(a->id(), 1u);
  EXPECT_EQ(b->id(), 2u);
  EXPECT_EQ(g.id_bound(), 3u);
  g.erase(b);
  g.set_insert_point(nullptr);
  Node* c = g.call_function("aten.neg.default", {Argument::node(a)});  // takes b's memory slot
  EXPECT_EQ(c->id(), 3u);
  EXPECT_EQ(g.id_bound(), 4u);
  EXPECT_EQ(order(g), (std::vector<std::string>{"x", "sin", "neg"}));
}

TEST(Graph, PlaceholdersAnywhereInTheListAreFoundAfterErasures) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* a = g.call_function("aten.sin.default", {Argument::node(x)});
  Node* y = g.placeholder("y");
  Node* z = g.placeholder("z");
  g.move_before(y, nullptr);  // a placeholder after a call
  EXPECT_EQ(names(g.placeholders()), (std::vector<std::string>{"x", "z", "y"}));
  g.erase(z);
  EXPECT_EQ(names(g.placeholders()), (std::vector<std::string>{"x", "y"}));
  g.erase(a);
  g.erase(x);
  EXPECT_EQ(names(g.placeholders()), (std::vector<std::string>{"y"}));
}

TEST(Graph, CopyNodeRemapsReferencesAndKeepsNameAndMeta) {
  Graph src;
  Node* x = src.placeholder("x");
  Node* y = src.placeholder("y");
  Node* cat = src.call_function(
      "aten.cat.default",
      {Argument::list({Argument::node(x), Argument::node(y)}), Argument::integer(1)},
      {Kwarg{InternedString("out"), Argument::node(x)}});
  cat->meta.recompute = CheckpointPolicy::MustSave;
  Graph dst;
  Node* a = dst.placeholder("a");
  Node* copy = dst.copy_node(*cat, [&](Node*) { return a; });
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->name(), "cat");
  EXPECT_EQ(copy->target(), cat->target());
  EXPECT_EQ(copy->args()[0].elements()[1].as_node(), a);
  EXPECT_EQ(copy->kwarg("out")->as_node(), a);
  EXPECT_EQ(copy->meta.recompute, CheckpointPolicy::MustSave);
  EXPECT_EQ(names(a->users()), (std::vector<std::string>{"cat"}));
  EXPECT_EQ(cat->args()[0].elements()[1].as_node(), y);  // the source list is untouched
  EXPECT_EQ(dst.copy_node(*cat, [&](Node*) { return a; }), nullptr);  // the name is taken
  src.output(Argument::node(cat));
  dst.output(Argument::node(copy));
  EXPECT_TRUE(verify(dst).empty());
  EXPECT_TRUE(verify(src).empty());
}

TEST(Graph, AppendedCopiesNameLikeEagerCopies) {
  // append_copy defers the name index and the suffix counter (Note [deferred names]): after
  // erasing a copy and creating new nodes, names come out as they do after copy_node.
  Graph src;
  Node* x = src.placeholder("x");
  Node* add = src.call_function("aten.add.Tensor", {Argument::node(x), Argument::node(x)});
  Node* add_7 =
      src.call_function("aten.add.Tensor", {Argument::node(add), Argument::node(x)}, {}, "add_7");
  ASSERT_EQ(add_7->name(), "add_7");
  auto run = [&](bool deferred) {
    Graph dst;
    std::vector<Node*> copies(src.id_bound(), nullptr);
    auto remap = [&](Node* n) { return copies[n->id()]; };
    for (const Node* n : src.nodes())
      copies[n->id()] = deferred ? dst.append_copy(*n, remap) : dst.copy_node(*n, remap);
    dst.erase(copies[add_7->id()]);
    std::vector<std::string> made;
    made.push_back(dst.call_function("aten.add.Tensor", {Argument::node(copies[x->id()])})->name());
    made.push_back(dst.create_name("add_7"));
    EXPECT_EQ(dst.find("add"), copies[add->id()]);
    EXPECT_EQ(dst.find("add_7"), nullptr);
    EXPECT_TRUE(dst.name_taken("add_7"));  // erased names stay taken
    dst.output(Argument::node(copies[add->id()]));
    EXPECT_TRUE(verify(dst).empty());
    return made;
  };
  EXPECT_EQ(run(true), run(false));
  EXPECT_EQ(run(true), (std::vector<std::string>{"add_8", "add_1"}));
}

TEST(Graph, RenameGivesAFreshUniqueName) {
  Graph g;
  Node* x = g.placeholder("x");
  Node* a = g.call_function("aten.sin.default", {Argument::node(x)});
  g.call_function("aten.cos.default", {Argument::node(x)});
  EXPECT_EQ(g.rename(a, "cos"), "cos_1");
  EXPECT_EQ(g.find("cos_1"), a);
  EXPECT_EQ(g.find("sin"), nullptr);
}

TEST(GraphModule, CloneIsStructurallyEqualAndIndependent) {
  GraphModule m = testing::generate_graph({.seed = 3, .num_nodes = 300});
  ASSERT_TRUE(verify(m).empty());
  GraphModule copy = m.clone();
  EXPECT_EQ(first_difference(m, copy), "");
  Node* first_call = nullptr;
  for (Node* n : copy.graph().nodes())
    if (n->op() == OpKind::CallFunction) {
      first_call = n;
      break;
    }
  ASSERT_NE(first_call, nullptr);
  first_call->meta.set_seq_nr(-1);
  EXPECT_NE(first_difference(m, copy), "");
}

TEST(InputLists, AreEachNodesInputsInCollectOrder) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    GraphModule m = testing::generate_graph({.seed = seed, .num_nodes = 30 + seed * 11});
    m.graph().erase(m.graph().call_function("aten.sin.default", {}));  // ids need not be dense
    const InputLists lists(m.graph());
    std::vector<Node*> want;
    for (const Node* n : m.graph().nodes()) {
      n->collect_input_nodes(want);
      auto got = lists.of(n);
      ASSERT_EQ(std::vector<Node*>(got.begin(), got.end()), want)
          << "seed " << seed << ", " << n->name();
    }
  }
}

TEST(GraphModule, GeneratedGraphsVerify) {
  for (uint64_t seed = 1; seed <= 50; ++seed) {
    GraphModule m = testing::generate_graph({.seed = seed, .num_nodes = 20 + seed * 7});
    Diagnostics problems = verify(m);
    ASSERT_TRUE(problems.empty()) << "seed " << seed << ": " << format_all(problems);
  }
}

}  // namespace
}  // namespace remat
