// BackgroundWriter: files rendered and written on its thread, in folders made as needed, every
// one there once finish() returns; a file it cannot write is the error finish() reports.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <unistd.h>

#include "remat/support/background_writer.h"
#include "remat/support/file_io.h"

namespace remat {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  fs::path dir = fs::temp_directory_path() /
                 ("remat_background_writer_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(BackgroundWriter, WritesEveryFileRenderedOrNotBeforeFinishReturns) {
  fs::path dir = scratch("all");
  // A bound of 1 KB: the producer waits for the writer again and again.
  BackgroundWriter files(dir.string(), 1024);
  for (int i = 0; i < 200; ++i) {
    std::string n = std::to_string(i);
    files.write("plain/" + n + ".txt", std::string(100 + i, 'x'));
    files.write(
        "rendered/" + std::to_string(i % 7) + "/" + n + ".html", [n] { return "<p>" + n + "</p>"; },
        16);
  }
  ASSERT_TRUE(files.finish().ok());
  for (int i = 0; i < 200; ++i) {
    std::string n = std::to_string(i);
    auto plain = read_file((dir / "plain" / (n + ".txt")).string());
    ASSERT_TRUE(plain.ok()) << n;
    EXPECT_EQ(*plain, std::string(100 + i, 'x'));
    auto page = read_file((dir / "rendered" / std::to_string(i % 7) / (n + ".html")).string());
    ASSERT_TRUE(page.ok()) << n;
    EXPECT_EQ(*page, "<p>" + n + "</p>");
  }
  fs::remove_all(dir);
}

TEST(BackgroundWriter, AFileItCannotWriteIsTheError) {
  fs::path dir = scratch("error");
  { std::ofstream(dir / "taken") << "a file where a folder should be"; }
  BackgroundWriter files(dir.string());
  files.write("ok.txt", "fine");
  files.write("taken/inside.txt", "cannot be");
  files.write("later.txt", "dropped after the error");
  Status s = files.finish();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.errors()[0].format().find("taken/inside.txt: error: cannot create: Not a directory"),
            std::string::npos)
      << s.errors()[0].format();
  EXPECT_TRUE(fs::exists(dir / "ok.txt"));
  EXPECT_FALSE(fs::exists(dir / "later.txt"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace remat
