// Every reason remat's partitioners give has a glossary entry that says what it means and what
// to change; the pages link each reason to it.
#include <gtest/gtest.h>

#include <set>

#include "remat/report/glossary.h"

namespace remat::report {
namespace {

TEST(Glossary, EveryReasonThePartitionersGiveHasAnEntry) {
  // One reason of each kind, as src/remat/partition/ and the report's reading of PyTorch's
  // graphs word them.
  const std::pair<const char*, const char*> reasons[] = {
      {"cheapest cut: saving it costs less than recomputing what needs it", "cheapest-cut"},
      {"cheapest cut: recomputing it is banned", "cheapest-cut-banned"},
      {"marked MUST_SAVE", "must-save"},
      {"the optimum at this budget", "optimum"},
      {"offloaded to host memory: out and back in 3.73 us, the time the device takes for 3.73e+03 "
       "FLOPs, costs less than recomputing it or keeping it within the budget",
       "offloaded"},
      {"a primal the backward reads", "primal"},
      {"boundary between checkpoint regions (tag clean-up made it MUST_SAVE)", "region-boundary"},
      {"checkpoint-region input (tag clean-up made it MUST_SAVE)", "region-input"},
      {"read by a node the backward recomputes", "recompute-input"},
      {"read by the backward", "read-by-backward"},
      {"an input of the backward graph: the forward returns it for the backward", "backward-input"},
      {"tagged PREFER_RECOMPUTE (checkpoint region 2)", "tagged"},
      {"tagged MUST_RECOMPUTE (checkpoint region -)", "tagged"},
      {"cheaper to recompute from saved values than to save", "cheaper-to-recompute"},
      {"a view: recomputing it is free (PyTorch never bans views, MUST_SAVE ones included)",
       "view"},
      {"computed by both the forward and the backward graph", "both-graphs"},
      {"primal input", "primal-input"},
      {"not in the recomputable-ops allowlist (aten.addmm.default)", "allowlist"},
      {"its output is materialized in the backward", "materialized"},
      {"used far apart from triu", "far-apart"},
      {"ends a long chain of fusible ops", "fusible-chain"},
      {"random op", "random"},
      {"compute-intensive op", "compute-intensive"},
      {"outside remat's op registry (aten.foo.default)", "registry"},
      {"reduction op (output under a quarter of its inputs)", "reduction"},
  };
  for (const auto& [reason, id] : reasons) {
    const GlossaryEntry* e = glossary_entry(reason);
    ASSERT_NE(e, nullptr) << reason;
    EXPECT_EQ(e->id, id) << reason;
  }
  EXPECT_EQ(glossary_entry("something new"), nullptr);
  EXPECT_EQ(reason_html("something <new>", "g.html"), "something &lt;new&gt;");
  EXPECT_EQ(reason_html("random op", "../glossary.html"),
            "<a class=\"why\" href=\"../glossary.html#random\">random op</a>");
}

TEST(Glossary, ThePageHasEveryEntryOnceWithWhatToDo) {
  std::string page = glossary_body();
  std::set<std::string_view> ids;
  for (const GlossaryEntry& e : glossary()) {
    EXPECT_TRUE(ids.insert(e.id).second) << e.id;
    std::string anchor = "<dt id=\"" + std::string(e.id) + "\">";
    size_t at = page.find(anchor);
    ASSERT_NE(at, std::string::npos) << e.id;
    EXPECT_EQ(page.find(anchor, at + 1), std::string::npos) << e.id;
    EXPECT_FALSE(e.action.empty()) << e.id;
  }
  EXPECT_LT(page.find("Why a value is saved"), page.find("Why a node is recomputed"));
  EXPECT_LT(page.find("Why a node is recomputed"), page.find("Why recomputing a node is banned"));
}

}  // namespace
}  // namespace remat::report
