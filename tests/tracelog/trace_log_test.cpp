// The trace-log line format: headers, compile ids, MD5, writing then reading back, and real
// PyTorch logs (tlparse's test inputs) read with the counts tlparse reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "remat/support/file_io.h"
#include "remat/tracelog/md5.h"
#include "remat/tracelog/trace_reader.h"
#include "remat/tracelog/trace_writer.h"
#include "testing/golden.h"

namespace remat::tracelog {
namespace {

std::unique_ptr<TraceReader> open_log(const std::string& path) {
  auto r = TraceReader::open(path);
  EXPECT_TRUE(r.ok()) << path;
  return r.ok() ? std::move(*r) : nullptr;
}

std::vector<TraceRecord> read_all(TraceReader& reader) {
  std::vector<TraceRecord> out;
  TraceRecord r;
  while (reader.next(r)) out.push_back(r);
  return out;
}

TEST(TraceLog, Md5OfKnownStrings) {
  EXPECT_EQ(md5_hex(""), "d41d8cd98f00b204e9800998ecf8427e");
  EXPECT_EQ(md5_hex("The quick brown fox jumps over the lazy dog"),
            "9e107d9d372bb6826bd81d3542a419d6");
}

TEST(TraceLog, GlogHeaderAsPyTorchWritesIt) {
  GlogHeader h;
  size_t json = 0;
  std::string line =
      "V1206 15:18:20.253000 1500233 torch/_logging/structured.py:22] {\"str\": [\"a\", 0]}";
  ASSERT_TRUE(parse_glog_header(line, h, json));
  EXPECT_EQ(h.level, 'V');
  EXPECT_EQ(h.month, 12);
  EXPECT_EQ(h.day, 6);
  EXPECT_EQ(h.second, 20);
  EXPECT_EQ(h.microsecond, 253000);
  EXPECT_EQ(h.thread, 1500233u);
  EXPECT_EQ(h.pathname, "torch/_logging/structured.py");
  EXPECT_EQ(h.lineno, 22u);
  EXPECT_EQ(line.substr(json), "{\"str\": [\"a\", 0]}");
  EXPECT_EQ(format_glog_header(h), line.substr(0, json));
  EXPECT_EQ(h.iso_timestamp(2024), "2024-12-06T15:18:20.253000Z");
  for (std::string bad :
       {"", "X1206 15:18:20.253000 1 a.py:1] {}", "V1206 15:18:20.2530 1 a.py:1] {}",
        "V1206 15:18:20.253000 x a.py:1] {}", "V1206 15:18:20.253000 1 a.py] {}",
        "V1206 15:18:20.253000 1 a.py:1] ", "\tpayload"}) {
    EXPECT_FALSE(parse_glog_header(bad, h, json)) << bad;
  }
}

TEST(TraceLog, CompileIdsDisplayAsTlparseShowsThem) {
  CompileId id{std::nullopt, 0, 0, 0};
  EXPECT_EQ(id.display(), "[0/0]");
  EXPECT_EQ(id.directory_name(), "-_0_0_0");
  CompileId retry{std::nullopt, 0, 1, 1};
  EXPECT_EQ(retry.display(), "[0/1_1]");
  CompileId ca{3, 0, 1, 0};
  EXPECT_EQ(ca.display(), "[!3/0/1]");
  EXPECT_EQ(ca.directory_name(), "3_0_1_0");
  CompileId old{std::nullopt, 2, 0, std::nullopt};
  EXPECT_EQ(old.normalized().directory_name(), "-_2_0_0");
}

TEST(TraceLog, WrittenLogsReadBack) {
  std::string dir = ::testing::TempDir() + "/remat_trace_writer";
  std::filesystem::remove_all(dir);
  auto w = TraceWriter::create(dir);
  ASSERT_TRUE(w.ok());
  TraceWriter& writer = **w;
  EXPECT_TRUE(std::filesystem::path(writer.path())
                  .filename()
                  .string()
                  .starts_with("dedicated_log_torch_trace_"));
  CompileId id{std::nullopt, 0, 0, 0};
  std::string stack = writer.stack_json({{"/src/model.cpp", 12, "main"},
                                         {"/src/model.cpp", 40, "forward"},
                                         {"/src/lib.cpp", 3, "f"}});
  writer.write("dynamo_start", "{\"stack\": " + stack + "}", id);
  writer.write("aot_joint_graph", "{}", id,
               std::string_view("class inner_f(torch.nn.Module):\n    def forward(self):\n"));
  writer.artifact("remat_partition", "json", id, "{\"saved_values\": []}");
  writer.write("empty_payload_event", "{}", std::nullopt, std::string_view(""));
  auto closed = writer.close();
  ASSERT_TRUE(closed.ok());

  auto text = read_file(*closed);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("\tclass inner_f(torch.nn.Module):\n\t    def forward(self):\n\t\n"),
            std::string::npos)
      << *text;
  auto reader = open_log(*closed);
  std::vector<TraceRecord> records = read_all(*reader);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(reader->stats().failures(), 0u);
  EXPECT_EQ(reader->stats().str, 2u);  // two distinct files
  ASSERT_EQ(reader->string_table().size(), 2u);
  EXPECT_EQ(*reader->string_table()[1], "/src/lib.cpp");
  EXPECT_EQ(records[0].event, "dynamo_start");
  EXPECT_EQ(records[0].compile_id->display(), "[0/0]");
  EXPECT_EQ(records[1].event, "aot_joint_graph");
  EXPECT_EQ(records[1].payload, "class inner_f(torch.nn.Module):\n    def forward(self):\n");
  EXPECT_TRUE(records[1].payload_md5_ok);
  EXPECT_EQ(records[2].metadata, "{\"name\":\"remat_partition\",\"encoding\":\"json\"}");
  EXPECT_EQ(records[2].payload, "{\"saved_values\": []}");
  EXPECT_EQ(records[3].payload, "");
  EXPECT_FALSE(records[3].compile_id.has_value());
  EXPECT_EQ(reader->stats().unknown, 1u);  // empty_payload_event is not an event of the format
}

TEST(TraceLog, PyTorchsSimpleLog) {
  // tlparse's simple.log: 14 records besides 50 chromium events and 12 strings, no failures.
  auto reader = open_log(testing::data_path("tlparse-logs/simple.log"));
  std::vector<TraceRecord> records = read_all(*reader);
  size_t chromium = 0;
  for (const TraceRecord& r : records) chromium += r.event == "chromium_event";
  EXPECT_EQ(chromium, 50u);
  EXPECT_EQ(records.size() - chromium, 14u);
  EXPECT_EQ(reader->stats().str, 12u);
  EXPECT_EQ(reader->stats().failures(), 0u) << reader->stats().summary();
  EXPECT_EQ(reader->string_table().size(), 12u);
  EXPECT_EQ(reader->bytes_read(), reader->file_size());
  const TraceRecord* output_code = nullptr;
  for (const TraceRecord& r : records) {
    if (r.event == "inductor_output_code") output_code = &r;
  }
  ASSERT_NE(output_code, nullptr);
  EXPECT_TRUE(output_code->payload_md5_ok);
  EXPECT_EQ(output_code->compile_id->directory_name(), "-_0_0_0");
}

TEST(TraceLog, BlankLinesInsideAPayloadDoNotEndIt) {
  // export.log's exported program has empty lines (a shipper dropped their tabs) between its
  // 18 payload lines: all 18 belong to it, and its MD5 no longer matches (as for tlparse).
  auto reader = open_log(testing::data_path("tlparse-logs/export.log"));
  std::vector<TraceRecord> records = read_all(*reader);
  const TraceRecord* program = nullptr;
  for (const TraceRecord& r : records)
    if (r.event == "exported_program") program = &r;
  ASSERT_NE(program, nullptr);
  EXPECT_EQ(std::count(program->payload.begin(), program->payload.end(), '\n'), 17);
  EXPECT_NE(program->payload.find("ExportedProgram:"), std::string::npos);
  EXPECT_NE(program->payload.find("Range constraints:"), std::string::npos) << program->payload;
  EXPECT_FALSE(program->payload_md5_ok);
  EXPECT_EQ(program->lineno, 60u);
  EXPECT_EQ(program, &records.back());       // the payload runs to the end of the file
  EXPECT_EQ(reader->stats().fail_glog, 0u);  // no payload line was taken for a record
}

TEST(TraceLog, CorruptedPayloadIsCountedNotFatal) {
  // simple_corrupted_json.log lost one payload line of a chromium event: one MD5 failure, every
  // record still read.
  auto reader = open_log(testing::data_path("tlparse-logs/simple_corrupted_json.log"));
  std::vector<TraceRecord> records = read_all(*reader);
  EXPECT_EQ(records.size(), 64u);
  EXPECT_EQ(reader->stats().fail_payload_md5, 1u);
  EXPECT_EQ(reader->stats().failures(), 1u);
  EXPECT_EQ(reader->stats().summary(), "Stats { ok: 64, fail_payload_md5: 1 }");
}

TEST(TraceLog, BadLinesAreCountedAndSkipped) {
  std::string path = ::testing::TempDir() + "/remat_bad.log";
  std::string good_payload = "abc";
  std::string text =
      "V1206 15:18:20.253000 1 a.py:1] {\"dynamo_start\": {}, \"frame_id\": 0, "
      "\"frame_compile_id\": 0, \"attempt\": 0}\n"
      "not a glog line\n"
      "V1206 15:18:20.253000 1 a.py:1] {not json\n"
      "\tpayload of the bad record\n"
      "\n"
      "V1206 15:18:20.253000 1 a.py:1] {\"artifact\": {\"name\": \"x\", \"encoding\": \"string\"}, "
      "\"has_payload\": \"" +
      md5_hex(good_payload) +
      "\"}\n\tabc\n"
      "V1206 15:18:20.253000 1 a.py:1] {\"artifact\": {}, \"has_payload\": \"00\"}\n\tx\n"
      "V1206 15:18:20.253000 1 a.py:1] {\"aot_joint_graph\": {}, \"rank\": 1}\n"
      "V1206 15:18:20.253000 1 a.py:1] {\"aot_joint_graph\": {}, \"rank\": 0}\n"
      // As in tlparse: once a rank is seen, records without one belong to another rank too.
      "V1206 15:18:20.253000 1 a.py:1] {\"aot_joint_graph\": {}}";
  ASSERT_TRUE(write_file_atomic(path, text).ok());
  auto reader = open_log(path);
  std::vector<TraceRecord> records = read_all(*reader);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[1].payload, "abc");
  EXPECT_EQ(records[1].lineno, 6u);
  EXPECT_EQ(reader->stats().fail_glog, 1u);
  EXPECT_EQ(reader->stats().fail_json, 1u);
  EXPECT_EQ(reader->stats().other_rank, 2u);
  EXPECT_EQ(reader->stats().fail_payload_md5, 1u);
  EXPECT_FALSE(records[2].payload_md5_ok);
  EXPECT_EQ(records[3].rank, 1);
}

TEST(TraceLog, ALineLongerThanTheReaderTakesIsSkippedWithBoundedMemory) {
  // A file without newlines (a 500 MB one took all its size in memory before): the reader drops
  // the line once it passes its limit and reads on; here a 64 KB limit stands for 256 MiB.
  std::string path = ::testing::TempDir() + "/remat_long_line.log";
  std::string record =
      "V1206 15:18:20.253000 1 a.py:1] {\"dynamo_start\": {}, \"frame_id\": 0, "
      "\"frame_compile_id\": 0, \"attempt\": 0}\n";
  ASSERT_TRUE(
      write_file_atomic(path, std::string(1 << 20, 'x') + "\n" + record + "\xEF\xBB\xBF").ok());
  auto reader = open_log(path);
  reader->set_max_line_bytes(64 << 10);
  std::vector<TraceRecord> records = read_all(*reader);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].lineno, 2u);
  EXPECT_EQ(reader->stats().fail_glog, 2u);  // the long line, and the stray bytes at the end
  EXPECT_NE(reader->problems()[0].find("longer than the reader takes"), std::string::npos);
}

TEST(TraceLog, AByteOrderMarkDoesNotCostTheFirstRecord) {
  std::string path = ::testing::TempDir() + "/remat_bom.log";
  ASSERT_TRUE(write_file_atomic(path,
                                "\xEF\xBB\xBFV1206 15:18:20.253000 1 a.py:1] {\"dynamo_start\": "
                                "{}, \"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 0}\n")
                  .ok());
  auto reader = open_log(path);
  EXPECT_EQ(read_all(*reader).size(), 1u);
  EXPECT_EQ(reader->stats().failures(), 0u);
}

TEST(TraceLog, AStringTableEntryFarAheadIsABadLine) {
  std::string path = ::testing::TempDir() + "/remat_str.log";
  ASSERT_TRUE(write_file_atomic(path,
                                "V1206 15:18:20.253000 1 a.py:1] {\"str\": [\"a.py\", 0]}\n"
                                "V1206 15:18:20.253000 1 a.py:1] {\"str\": [\"b.py\", 16777215]}\n")
                  .ok());
  auto reader = open_log(path);
  read_all(*reader);
  EXPECT_EQ(reader->string_table().size(), 1u);
  EXPECT_EQ(reader->stats().fail_json, 1u);
}

}  // namespace
}  // namespace remat::tracelog
