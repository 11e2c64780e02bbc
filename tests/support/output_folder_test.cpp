#include "remat/support/output_folder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "remat/support/safe_path.h"

namespace remat {
namespace {
namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class OutputFolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("remat_output_folder_" + std::to_string(getpid()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  fs::path root_;
};

TEST_F(OutputFolderTest, NothingAppearsUntilCommitAndTheOldFolderStaysUntilThen) {
  std::string dir = (root_ / "site").string();
  {
    auto out = OutputFolder::start(dir, false);
    ASSERT_TRUE(out) << format_all(out.errors());
    std::ofstream(out->staging() + "/a.txt") << "first";
    EXPECT_FALSE(fs::exists(dir));
    ASSERT_TRUE(out->commit().ok());
  }
  EXPECT_EQ(slurp(root_ / "site" / "a.txt"), "first");
  EXPECT_TRUE(fs::exists(root_ / "site" / std::string(kOutputMarker)));
  {
    auto again = OutputFolder::start(dir, true);
    ASSERT_TRUE(again) << format_all(again.errors());
    std::ofstream(again->staging() + "/b.txt") << "second";
    EXPECT_EQ(slurp(root_ / "site" / "a.txt"), "first");  // not yet replaced
    // A failed run (no commit): the old folder stays, the staging folder goes.
  }
  EXPECT_EQ(slurp(root_ / "site" / "a.txt"), "first");
  auto third = OutputFolder::start(dir, true);
  ASSERT_TRUE(third);
  std::ofstream(third->staging() + "/c.txt") << "third";
  ASSERT_TRUE(third->commit().ok());
  EXPECT_FALSE(fs::exists(root_ / "site" / "a.txt"));  // replaced as a whole
  EXPECT_EQ(slurp(root_ / "site" / "c.txt"), "third");
  std::set<std::string> left;
  for (const auto& e : fs::directory_iterator(root_)) left.insert(e.path().filename().string());
  EXPECT_EQ(left, std::set<std::string>({"site"}));
}

TEST_F(OutputFolderTest, MessagesNameTheFolderNotTheStagingOne) {
  std::string dir = (root_ / "out").string();
  auto out = OutputFolder::start(dir, false);
  ASSERT_TRUE(out);
  Diagnostics errors = {file_error(out->staging() + "/x/page.html", "write error: No space left")};
  Diagnostics renamed = out->rename_in(errors);
  EXPECT_EQ(renamed[0].file, dir + "/x/page.html");
  EXPECT_EQ(out->final_path(out->staging() + "/log.txt"), dir + "/log.txt");
  EXPECT_EQ(out->staging().find(dir), std::string::npos) << "the staging folder is beside DIR";
}

TEST_F(OutputFolderTest, RefusesWhatItMustNotReplace) {
  fs::create_directories(root_ / "mine");
  std::ofstream(root_ / "mine" / "notes.txt") << "the user's";
  auto plain = OutputFolder::start((root_ / "mine").string(), false);
  ASSERT_FALSE(plain);
  EXPECT_NE(plain.errors()[0].message.find("already exists"), std::string::npos);
  auto over = OutputFolder::start((root_ / "mine").string(), true);
  ASSERT_FALSE(over);
  EXPECT_NE(over.errors()[0].message.find("holds files remat did not write"), std::string::npos);
  auto input = OutputFolder::start(root_.string(), true, {(root_ / "mine" / "notes.txt").string()});
  ASSERT_FALSE(input);
  EXPECT_NE(input.errors()[0].message.find("holds the input"), std::string::npos);
  fs::path cwd = fs::current_path();
  fs::current_path(root_ / "mine");
  auto here = OutputFolder::start(".", true);
  auto above = OutputFolder::start("..", true);
  fs::current_path(cwd);
  ASSERT_FALSE(here);
  ASSERT_FALSE(above);
  EXPECT_NE(above.errors()[0].message.find("current folder"), std::string::npos);
  std::ofstream(root_ / "file") << "x";
  auto file = OutputFolder::start((root_ / "file").string(), true);
  ASSERT_FALSE(file);
  EXPECT_NE(file.errors()[0].message.find("not a folder"), std::string::npos);
  EXPECT_EQ(slurp(root_ / "mine" / "notes.txt"), "the user's");
}

TEST_F(OutputFolderTest, ASecondRunIntoTheSameFolderIsRefusedWhileTheFirstHoldsIt) {
  std::string dir = (root_ / "out").string();
  auto first = OutputFolder::start(dir, false);
  ASSERT_TRUE(first);
  auto second = OutputFolder::start(dir, false);
  ASSERT_FALSE(second);
  EXPECT_NE(second.errors()[0].message.find("another remat is writing"), std::string::npos);
  ASSERT_TRUE(first->commit().ok());
  auto third = OutputFolder::start(dir, true);  // the lock was let go
  EXPECT_TRUE(third) << format_all(third.errors());
}

TEST(SafePath, KeepsSafeNamesAndHashesTheOthersApart) {
  EXPECT_EQ(safe_file_stem("inductor_output_code_c3x"), "inductor_output_code_c3x");
  std::string climb = safe_file_stem("../../x/PWNED");
  EXPECT_TRUE(is_safe_relative_path(climb)) << climb;
  EXPECT_EQ(climb.find('/'), std::string::npos);
  EXPECT_NE(safe_file_stem("a/b"), safe_file_stem("a_b"));  // changed names get a hash
  EXPECT_NE(safe_file_stem("a/b"), safe_file_stem("a\\b"));
  EXPECT_LE(safe_file_stem(std::string(10000, 'x')).size(), 89u);
  EXPECT_EQ(safe_file_stem("").front(), '_');
  EXPECT_NE(safe_file_stem(".hidden").front(), '.');
  EXPECT_EQ(safe_file_stem(std::string("a\0b", 3)).find('\0'), std::string::npos);
  for (std::string_view bad : {"", "/abs", "a/../b", "a//b", "./a", "a\\b", "a/b/", "a b"})
    EXPECT_FALSE(is_safe_relative_path(bad)) << bad;
  EXPECT_TRUE(is_safe_relative_path("-_0_0_0/remat_partition_4.json"));
}

}  // namespace
}  // namespace remat
