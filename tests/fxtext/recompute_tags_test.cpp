#include "remat/fxtext/recompute_tags.h"

#include <gtest/gtest.h>

namespace remat::fxtext {
namespace {

TEST(RecomputeTags, FormatAndParseRoundTrip) {
  const RecomputeTags all[] = {
      {CheckpointPolicy::PreferRecompute, 2},
      {CheckpointPolicy::MustSave, std::nullopt},
      {std::nullopt, 7},
      {CheckpointPolicy::MustCpuOffload, 0},
  };
  for (const RecomputeTags& t : all) {
    std::optional<std::string> text = format_tags(t);
    ASSERT_TRUE(text);
    EXPECT_EQ(parse_tags(*text), t) << *text;
  }
  EXPECT_EQ(format_tags({CheckpointPolicy::PreferRecompute, 2}),
            "ac_graph_id: 2 - PREFER_RECOMPUTE");
  EXPECT_EQ(format_tags({CheckpointPolicy::MustSave, std::nullopt}), "recompute: MUST_SAVE");
  EXPECT_FALSE(format_tags({}));
}

TEST(RecomputeTags, ParseRejectsNearMisses) {
  for (const char* text : {"ac_graph_id: ", "ac_graph_id: x", "ac_graph_id: 2 - SOMETIMES",
                           "ac_graph_id: 2 -PREFER_SAVE", "recompute: prefer_save",
                           "ac_graph_id: 99999999999999999999", "graph id: 2"}) {
    EXPECT_FALSE(parse_tags(text)) << text;
  }
}

TEST(RecomputeTags, InlineTagsIn2025And2026Comments) {
  auto t2025 = parse_inline_tags(" # ac_graph_id: 1 - MUST_SAVE File: m.py:3 in f, code: x");
  ASSERT_TRUE(t2025);
  EXPECT_EQ(t2025->style, TagStyle::Inline2025);
  EXPECT_EQ(t2025->tags, (RecomputeTags{CheckpointPolicy::MustSave, 1}));
  EXPECT_EQ(t2025->rest, " File: m.py:3 in f, code: x");
  auto t2026 = parse_inline_tags(" recompute: PREFER_SAVE No stacktrace found for following nodes");
  ASSERT_TRUE(t2026);
  EXPECT_EQ(t2026->style, TagStyle::Inline2026);
  EXPECT_EQ(t2026->rest, " No stacktrace found for following nodes");
  EXPECT_FALSE(parse_inline_tags(" File: m.py:3 in f, code: x"));
  EXPECT_FALSE(parse_inline_tags(" ac_graph_id: 1 - MUST_SAVE"));  // no stack-trace part
}

TEST(RecomputeTags, CommentTagsInEveryPlacement) {
  auto seed = comment_tags("# ac_graph_id: 2 - PREFER_RECOMPUTE");
  ASSERT_TRUE(seed);
  EXPECT_TRUE(seed->standalone);
  EXPECT_EQ(seed->tags, (RecomputeTags{CheckpointPolicy::PreferRecompute, 2}));

  auto annotated = comment_tags(
      "# Annotation: {'stage': '# ac_graph_id: 9'} # ac_graph_id: 3 - MUST_RECOMPUTE File: a.py:1 "
      "in f, code: y");
  ASSERT_TRUE(annotated);
  EXPECT_FALSE(annotated->standalone);
  EXPECT_EQ(annotated->tags, (RecomputeTags{CheckpointPolicy::MustRecompute, 3}));

  auto keys = comment_tags("# seq_nr: 4, ac_graph_id: 5, recompute: PREFER_SAVE # File: a.py:1");
  ASSERT_TRUE(keys);
  EXPECT_FALSE(keys->standalone);
  EXPECT_EQ(keys->tags, (RecomputeTags{CheckpointPolicy::PreferSave, 5}));

  // Tags quoted in code, or a comment that is no stack-trace comment, tag nothing.
  EXPECT_FALSE(comment_tags("# File: a.py:1 in f, code: x = {'ac_graph_id: 2': 1}"));
  EXPECT_FALSE(comment_tags("# No stacktrace found for following nodes"));
  EXPECT_FALSE(comment_tags("# seq_nr: 4 # File: a.py:1"));
  EXPECT_FALSE(comment_tags("ac_graph_id: 2"));
}

TEST(TagStyle, NamesRoundTrip) {
  for (TagStyle s : {TagStyle::Seed, TagStyle::Inline2025, TagStyle::Inline2026, TagStyle::None})
    EXPECT_EQ(parse_tag_style(tag_style_name(s)), s);
  EXPECT_FALSE(parse_tag_style("inline"));
}

}  // namespace
}  // namespace remat::fxtext
