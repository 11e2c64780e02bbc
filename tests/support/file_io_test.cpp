#include "remat/support/file_io.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace remat {
namespace {

namespace fs = std::filesystem;

TEST(FileIo, WritesAtomicallyAndReadsBack) {
  fs::path dir = fs::temp_directory_path() / "remat_file_io_test";
  fs::create_directories(dir);
  std::string path = (dir / "out.txt").string();
  ASSERT_TRUE(write_file_atomic(path, "hello\n").ok());
  Expected<std::string> back = read_file(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, "hello\n");
  for (const auto& entry : fs::directory_iterator(dir))
    EXPECT_EQ(entry.path().filename(), "out.txt") << "temporary file left behind";
  fs::remove_all(dir);
}

TEST(FileIo, MissingFileIsADiagnostic) {
  Expected<std::string> r = read_file("/nonexistent/remat/file.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors()[0].file, "/nonexistent/remat/file.json");
  EXPECT_NE(r.errors()[0].message.find("cannot open"), std::string::npos);
}

TEST(FileIo, UnwritableTargetLeavesNothing) {
  Status s = write_file_atomic("/nonexistent-dir/x/out.json", "data");
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(fs::exists("/nonexistent-dir/x/out.json"));
}

}  // namespace
}  // namespace remat
