// BackgroundWriter: files rendered and written on its thread, in folders made as needed, every
// one there once finish() returns; a file it cannot write is the error finish() reports.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

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
  // One thread: with more, a file another thread already took is still written.
  BackgroundWriter files(dir.string(), size_t{64} << 20, 1);
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

TEST(BackgroundWriter, WhatRendersLeaveIsReadAfterFinishAndMoreMayFollow) {
  // The report's partition pages make a record beside their page, read once finish() returned.
  fs::path dir = scratch("results");
  BackgroundWriter files(dir.string(), 1024, 3);
  std::vector<std::shared_ptr<int>> results;
  for (int i = 0; i < 50; ++i) {
    auto result = std::make_shared<int>(-1);
    results.push_back(result);
    files.write(
        "page_" + std::to_string(i) + ".html",
        [i, result] {
          *result = i * i;
          return std::to_string(i);
        },
        8);
  }
  ASSERT_TRUE(files.finish().ok());
  for (int i = 0; i < 50; ++i) EXPECT_EQ(*results[i], i * i) << i;
  files.write("after.txt", "more");
  ASSERT_TRUE(files.finish().ok());
  EXPECT_EQ(*read_file((dir / "after.txt").string()), "more");
  EXPECT_EQ(*read_file((dir / "page_49.html").string()), "49");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace remat
