#include "remat/tracelog/trace_writer.h"

#include <unistd.h>

#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <random>

#include "remat/support/json_writer.h"
#include "remat/tracelog/md5.h"

namespace remat::tracelog {
namespace {

GlogHeader now() {
  using namespace std::chrono;
  auto t = system_clock::now();
  std::time_t secs = system_clock::to_time_t(t);
  std::tm tm{};
  localtime_r(&secs, &tm);
  GlogHeader h;
  h.month = tm.tm_mon + 1;
  h.day = tm.tm_mday;
  h.hour = tm.tm_hour;
  h.minute = tm.tm_min;
  h.second = tm.tm_sec;
  // PyTorch logs msecs * 1000: the last three digits are zero.
  h.microsecond =
      static_cast<int>(duration_cast<milliseconds>(t.time_since_epoch()).count() % 1000) * 1000;
  h.thread = static_cast<uint64_t>(::getpid());
  return h;
}

void write_compile_id(json::JsonWriter& w, const CompileId& id) {
  for (auto [name, value] : {std::pair{"compiled_autograd_id", id.compiled_autograd_id},
                             {"frame_id", id.frame_id},
                             {"frame_compile_id", id.frame_compile_id},
                             {"attempt", id.attempt}}) {
    w.key(name);
    if (value)
      w.value(*value);
    else
      w.null();
  }
}

}  // namespace

Expected<std::unique_ptr<TraceWriter>> TraceWriter::create(const std::string& dir,
                                                           std::optional<int> rank) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return file_error(dir, "cannot create the log folder: " + ec.message());
  // tempfile's naming: 8 characters from [a-z0-9_].
  static constexpr char kChars[] = "abcdefghijklmnopqrstuvwxyz0123456789_";
  std::random_device device;
  std::mt19937 rng(device());
  for (int tries = 0; tries < 100; ++tries) {
    std::string name = "dedicated_log_torch_trace_";
    if (rank) name += "rank_" + std::to_string(*rank) + "_";
    for (int i = 0; i < 8; ++i) name += kChars[rng() % (sizeof kChars - 1)];
    std::string path = (std::filesystem::path(dir) / (name + ".log")).string();
    std::FILE* f = std::fopen(path.c_str(), "wx");  // exclusive: never reuse a file
    if (f) return std::unique_ptr<TraceWriter>(new TraceWriter(f, path, rank));
    if (errno != EEXIST)
      return file_error(path, std::string("cannot create: ") + std::strerror(errno));
  }
  return file_error(dir, "no free log file name");
}

TraceWriter::TraceWriter(std::FILE* f, std::string path, std::optional<int> rank)
    : rank_(rank), file_(f), path_(std::move(path)), clock_(now) {}

TraceWriter::~TraceWriter() {
  if (file_) std::fclose(file_);
}

void TraceWriter::line(std::string_view json, const std::optional<std::string_view>& payload) {
  GlogHeader h = clock_();
  h.level = 'V';
  h.pathname = source_path_;
  h.lineno = source_line_;
  std::string out = format_glog_header(h);
  out.append(json);
  if (payload) {
    // Every payload line becomes "\n\t<line>"; a trailing newline leaves a final bare tab.
    size_t start = 0;
    for (;;) {
      size_t nl = payload->find('\n', start);
      out += "\n\t";
      out.append(payload->substr(
          start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
      if (nl == std::string_view::npos) break;
      start = nl + 1;
    }
  }
  out += '\n';
  if (std::fwrite(out.data(), 1, out.size(), file_) != out.size()) failed_ = true;
}

int TraceWriter::intern(const std::string& filename) {
  auto [it, fresh] = interned_.try_emplace(filename, static_cast<int>(interned_.size()));
  if (fresh) {
    std::string record;
    json::JsonWriter w(record);
    w.begin_object().key("str").begin_array().value(filename).value(it->second).end_array();
    w.end_object();
    line(record, std::nullopt);
  }
  return it->second;
}

std::string TraceWriter::stack_json(const std::vector<StackFrame>& frames) {
  std::string out;
  json::JsonWriter w(out);
  w.begin_array();
  for (const StackFrame& frame : frames) {
    int index = intern(frame.filename);
    w.begin_object()
        .field("line", frame.line)
        .field("name", frame.name)
        .field("filename", index)
        .end_object();
  }
  w.end_array();
  return out;
}

void TraceWriter::write(std::string_view event, std::string_view metadata,
                        const std::optional<CompileId>& id,
                        const std::optional<std::string_view>& payload) {
  std::string record;
  json::JsonWriter w(record);
  w.begin_object().key(event).raw(metadata);
  if (id) write_compile_id(w, *id);
  if (rank_) w.field("rank", *rank_);
  if (payload) w.field("has_payload", md5_hex(*payload));
  w.end_object();
  line(record, payload);
}

void TraceWriter::artifact(std::string_view name, std::string_view encoding, const CompileId& id,
                           std::string_view payload) {
  std::string metadata;
  json::JsonWriter(metadata)
      .begin_object()
      .field("name", name)
      .field("encoding", encoding)
      .end_object();
  write("artifact", metadata, id, payload);
}

Expected<std::string> TraceWriter::close() {
  if (std::fclose(file_) != 0) failed_ = true;
  file_ = nullptr;
  if (failed_) return file_error(path_, "write failed");
  return path_;
}

}  // namespace remat::tracelog
