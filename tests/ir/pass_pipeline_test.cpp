#include "remat/ir/pass_pipeline.h"

#include <gtest/gtest.h>

#include "remat/ir/dead_code.h"

namespace remat {
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

TEST(PassPipeline, RunsInOrderTimesEachAndDumpsWhatChanged) {
  GraphModule m = small_module();
  std::vector<std::string> order, dumped;
  std::vector<size_t> sizes_seen;
  PassOptions options;
  options.dump = [&](std::string_view pass, const GraphModule& g) {
    dumped.emplace_back(pass);
    sizes_seen.push_back(g.graph().size());
  };
  PassPipeline pipeline(options);
  pipeline.add("dead code", [&](GraphModule& g) {
    order.push_back("dead code");
    return eliminate_dead_code(g.graph()) > 0;
  });
  pipeline.add("nothing", [&](GraphModule&) {
    order.push_back("nothing");
    return false;
  });
  StageTimer timer;
  ASSERT_TRUE(pipeline.run(m, timer).ok());
  EXPECT_EQ(order, (std::vector<std::string>{"dead code", "nothing"}));
  // Only the pass that changed the graph is dumped, with the graph it left (x, relu, output).
  EXPECT_EQ(dumped, std::vector<std::string>{"dead code"});
  EXPECT_EQ(sizes_seen, std::vector<size_t>{3});
  ASSERT_EQ(pipeline.runs().size(), 2U);
  EXPECT_EQ(pipeline.runs()[0].name, "dead code");
  EXPECT_TRUE(pipeline.runs()[0].changed);
  EXPECT_FALSE(pipeline.runs()[1].changed);
  ASSERT_EQ(timer.stages().size(), 2U);
  EXPECT_EQ(timer.stages()[1].name, "nothing");
  EXPECT_GE(timer.stages()[0].ms, 0);
}

TEST(PassPipeline, VerifyEachNamesThePassThatBrokeTheGraph) {
  GraphModule m = small_module();
  bool ran_after = false;
  PassOptions verify_each;
  verify_each.verify_each = true;
  PassPipeline pipeline(verify_each);
  pipeline.add("fine", [](GraphModule&) { return false; });
  pipeline.add("reorder", [](GraphModule& g) {
    // relu now comes before the placeholder it reads: used before it is defined.
    g.graph().move_before(g.graph().find("relu"), g.graph().find("x"));
    return true;
  });
  pipeline.add("after", [&](GraphModule&) { return ran_after = true; });
  StageTimer timer;
  Status s = pipeline.run(m, timer);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.errors().front().message.find("after the pass 'reorder'"), std::string::npos)
      << s.errors().front().message;
  EXPECT_FALSE(ran_after) << "the pipeline stops at the broken graph";
  // Without verify_each the same pipeline runs to the end.
  GraphModule m2 = small_module();
  PassPipeline unchecked;
  unchecked.add("reorder", [](GraphModule& g) {
    g.graph().move_before(g.graph().find("relu"), g.graph().find("x"));
    return true;
  });
  EXPECT_TRUE(unchecked.run(m2, timer).ok());
}

}  // namespace
}  // namespace remat
