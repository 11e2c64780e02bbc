#include "remat/support/json_writer.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

namespace remat::json {
namespace {

TEST(JsonWriter, InlineContainers) {
  std::string out;
  JsonWriter w(out);
  w.begin_object()
      .field("name", "a\"b")
      .field("n", 3)
      .field("ok", true)
      .key("dims")
      .array(std::vector<int64_t>{4, 5})
      .key("none")
      .null()
      .end_object();
  EXPECT_EQ(out, R"({"name": "a\"b", "n": 3, "ok": true, "dims": [4, 5], "none": null})");
  EXPECT_TRUE(w.complete());
}

TEST(JsonWriter, BlocksIndentPerOpenBlockOnly) {
  // fxgraph-json's shape: a block object, a block array of inline records, and a block object
  // nested inside an inline one (a submodule's graph), which indents one unit past the blocks
  // around it, not past the inline record.
  std::string out;
  JsonWriter w(out, 1);
  w.begin_object(Layout::Block).field("schema", "x").key("nodes").begin_array(Layout::Block);
  w.begin_object().field("name", "a").end_object();
  w.begin_object().field("name", "b").key("graph").begin_object(Layout::Block);
  w.field("k", 1).end_object().end_object();
  w.end_array().end_object();
  EXPECT_EQ(out,
            "{\n"
            " \"schema\": \"x\",\n"
            " \"nodes\": [\n"
            "  {\"name\": \"a\"},\n"
            "  {\"name\": \"b\", \"graph\": {\n"
            "   \"k\": 1\n"
            "  }}\n"
            " ]\n"
            "}");
}

TEST(JsonWriter, EmptyBlocksNumbersAndRaw) {
  std::string out;
  JsonWriter w(out);
  w.begin_object(Layout::Block)
      .key("empty")
      .begin_array(Layout::Block)
      .end_array()
      .field("max", std::numeric_limits<uint64_t>::max())
      .field("min", std::numeric_limits<int64_t>::min())
      .field("half", 0.5)
      .field("inf", std::numeric_limits<double>::infinity())
      .key("kept")
      .raw("{\"x\": [1]}")
      .end_object();
  EXPECT_EQ(out,
            "{\n  \"empty\": [],\n  \"max\": 18446744073709551615,\n"
            "  \"min\": -9223372036854775808,\n  \"half\": 0.5,\n  \"inf\": null,\n"
            "  \"kept\": {\"x\": [1]}\n}");
}

TEST(JsonWriter, TopLevelValuesAndIncompleteDocuments) {
  std::string out;
  JsonWriter w(out);
  w.begin_array();
  EXPECT_FALSE(w.complete());
  w.value("x").end_array();
  EXPECT_EQ(out, R"(["x"])");
  EXPECT_TRUE(w.complete());
}

TEST(JsonWriterDeathTest, ClosingWhatIsNotOpenIsABug) {
  std::string out;
  JsonWriter w(out);
  EXPECT_DEATH(w.end_object(), "not open");
}

}  // namespace
}  // namespace remat::json
