#include "remat/passes/pass_pipeline.h"

#include <gtest/gtest.h>

#include "remat/passes/pass_registry.h"

namespace remat::passes {
namespace {

// x -> sin -> cos (unused) ; x -> relu -> output
GraphModule small_module() {
  GraphModule m;
  Graph& g = m.graph();
  Node* x = g.placeholder("x");
  Node* s = g.call_function("aten.sin.default", {Argument::node(x)});
  g.call_function("aten.cos.default", {Argument::node(s)});
  Node* r = g.call_function("aten.relu.default", {Argument::node(x)});
  g.output(Argument::tuple({Argument::node(r)}));
  return m;
}

PassInfo graph_pass(std::string name, std::function<bool(GraphModule&)> body) {
  PassInfo p;
  p.name = std::move(name);
  p.on_graph = [body = std::move(body)](GraphModule& m) -> Expected<PassResult> {
    PassResult r;
    r.changed = body(m);
    return r;
  };
  return p;
}

TEST(PassPipeline, RunsInOrderTimesEachAndShowsEachGraph) {
  GraphModule m = small_module();
  std::vector<std::string> order, seen;
  std::vector<size_t> sizes_seen;
  PassOptions options;
  options.after_each = [&](const PassRun& run, std::string_view graph, const GraphModule& g) {
    EXPECT_TRUE(graph.empty());
    seen.push_back(run.name + (run.result.changed ? " changed" : ""));
    sizes_seen.push_back(g.graph().size());
  };
  PassInfo nothing = graph_pass("nothing", [&](GraphModule&) {
    order.push_back("nothing");
    return false;
  });
  PassPipeline pipeline(options);
  pipeline.add("dce").add(nothing);
  StageTimer timer;
  auto runs = pipeline.run(m, timer);
  ASSERT_TRUE(runs.ok()) << format_all(runs.errors());
  EXPECT_EQ(seen, (std::vector<std::string>{"dce changed", "nothing"}));
  EXPECT_EQ(sizes_seen, (std::vector<size_t>{3, 3}));  // x, relu, output
  ASSERT_EQ(runs->size(), 2U);
  EXPECT_EQ((*runs)[0].result.statistic("erased"), 2);
  ASSERT_EQ((*runs)[0].result.remarks.size(), 2U);
  EXPECT_EQ((*runs)[0].result.remarks[0].node, "sin");
  EXPECT_EQ(result_of(*runs, "dce"), &(*runs)[0].result);
  EXPECT_EQ(result_of(*runs, "cse"), nullptr);
  ASSERT_EQ(timer.stages().size(), 2U);
  EXPECT_EQ(timer.stages()[0].name, "dce");
  EXPECT_EQ(timer.stages()[1].name, "nothing");
}

TEST(PassPipeline, VerifyEachNamesThePassThatBrokeTheGraph) {
  GraphModule m = small_module();
  bool ran_after = false;
  PassOptions verify_each;
  verify_each.verify_each = true;
  PassInfo fine = graph_pass("fine", [](GraphModule&) { return false; });
  // relu now comes before the placeholder it reads: used before it is defined.
  PassInfo reorder = graph_pass("reorder", [](GraphModule& g) {
    g.graph().move_before(g.graph().find("relu"), g.graph().find("x"));
    return true;
  });
  PassInfo after = graph_pass("after", [&](GraphModule&) { return ran_after = true; });
  PassPipeline pipeline(verify_each);
  pipeline.add(fine).add(reorder).add(after);
  StageTimer timer;
  auto runs = pipeline.run(m, timer);
  ASSERT_FALSE(runs.ok());
  EXPECT_NE(runs.errors().front().message.find("after the pass 'reorder'"), std::string::npos)
      << runs.errors().front().message;
  EXPECT_FALSE(ran_after) << "the pipeline stops at the broken graph";
  // Without verify_each the same pipeline runs to the end.
  GraphModule m2 = small_module();
  PassPipeline unchecked;
  unchecked.add(reorder).add(after);
  EXPECT_TRUE(unchecked.run(m2, timer).ok());
  EXPECT_TRUE(ran_after);
}

TEST(PassPipeline, APairPassNeedsAPartition) {
  GraphModule m = small_module();
  PassPipeline pipeline;
  pipeline.add("rng-functionalization");
  StageTimer timer;
  auto runs = pipeline.run(m, timer);
  ASSERT_FALSE(runs.ok());
  EXPECT_NE(format_all(runs.errors()).find("needs a partition's forward and backward"),
            std::string::npos);
  // Over a partition, a graph pass runs on each graph, and says which.
  ForwardBackward graphs{small_module(), small_module(), {}, {}, {}};
  PassPipeline dce;
  dce.add("dce");
  auto both = dce.run(graphs, timer);
  ASSERT_TRUE(both.ok());
  ASSERT_EQ(both->size(), 2U);
  EXPECT_EQ((*both)[0].graph, "forward");
  EXPECT_EQ((*both)[1].graph, "backward");
  EXPECT_EQ(graphs.backward.graph().size(), 3U);
}

TEST(PassRegistry, FindsEachPassByNameAndNamesTheUnknown) {
  std::vector<std::string> names;
  for (const PassInfo& p : registered_passes()) {
    names.push_back(p.name);
    EXPECT_EQ(find_pass(p.name), &p);
    EXPECT_FALSE(p.summary.empty()) << p.name;
    EXPECT_NE(static_cast<bool>(p.on_graph), static_cast<bool>(p.on_pair)) << p.name;
  }
  EXPECT_EQ(names, (std::vector<std::string>{"dce", "cse", "tag-cleanup", "tag-cleanup-default",
                                             "autograd-order", "raise-getitems",
                                             "rng-functionalization"}));
  auto list = parse_pass_list("dce,cse");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2U);
  EXPECT_EQ((*list)[1]->name, "cse");
  auto none = parse_pass_list("");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  auto bad = parse_pass_list("dce,dead-code,");
  ASSERT_FALSE(bad.ok());
  ASSERT_EQ(bad.errors().size(), 2U);
  EXPECT_NE(bad.errors()[0].message.find("no pass named 'dead-code' in 'dce,dead-code,' (the "
                                         "passes: dce, cse, "),
            std::string::npos)
      << bad.errors()[0].message;
  EXPECT_NE(bad.errors()[1].message.find("an empty pass name"), std::string::npos);
}

}  // namespace
}  // namespace remat::passes
