#include "remat/tracelog/trace_reader.h"

#include <simdjson.h>

#include <algorithm>
#include <cstring>
#include <iterator>

#include "remat/support/diagnostic.h"

namespace remat::tracelog {
namespace {

constexpr size_t kChunk = 4 << 20;  // bytes read at a time

// Envelope keys of the format (docs/spec/trace-log.md §A.5): context first, then events.
constexpr std::string_view kContextKeys[] = {
    "rank",    "compiled_autograd_id", "frame_id", "frame_compile_id",
    "attempt", "has_payload",          "stack"};
// PyTorch numbers its string table's entries 0, 1, 2, ... as it logs them; a few lost lines may
// leave a gap, a large one is no log's (a 30-byte line naming entry 16,777,215 would otherwise
// make a table of that many entries).
constexpr size_t kStringTableGap = 64;

constexpr std::string_view kEventKeys[] = {"str",
                                           "dynamo_start",
                                           "dynamo_output_graph",
                                           "optimize_ddp_split_graph",
                                           "optimize_ddp_split_child",
                                           "compiled_autograd_graph",
                                           "aot_joint_graph",
                                           "aot_forward_graph",
                                           "aot_backward_graph",
                                           "aot_inference_graph",
                                           "inductor_pre_grad_graph",
                                           "inductor_post_grad_graph",
                                           "dynamo_cpp_guards_str",
                                           "graph_dump",
                                           "exported_program",
                                           "inductor_output_code",
                                           "dynamo_guards",
                                           "artifact",
                                           "compilation_metrics",
                                           "bwd_compilation_metrics",
                                           "aot_autograd_backward_compilation_metrics",
                                           "compilation_metrics_runtime",
                                           "link",
                                           "dump_file",
                                           "chromium_event",
                                           "symbolic_shape_specialization",
                                           "guard_added",
                                           "guard_added_fast",
                                           "propagate_real_tensors_provenance",
                                           "create_unbacked_symbol",
                                           "create_symbol",
                                           "expression_created",
                                           "missing_fake_kernel",
                                           "mismatched_fake_kernel",
                                           "describe_storage",
                                           "describe_tensor",
                                           "describe_source",
                                           "unbacked_symbol",
                                           "sym_expr_info",
                                           "inductor_provenance_tracking_node_mappings",
                                           "graph_execution",
                                           "fx_graph_cache_hit",
                                           "fx_graph_cache_miss"};

bool is_context(std::string_view k) {
  return std::find(std::begin(kContextKeys), std::end(kContextKeys), k) != std::end(kContextKeys);
}
bool is_event(std::string_view k) {
  return std::find(std::begin(kEventKeys), std::end(kEventKeys), k) != std::end(kEventKeys);
}

std::optional<int64_t> optional_int(simdjson::dom::element e) {
  int64_t v;
  if (e.get_int64().get(v) == simdjson::SUCCESS) return v;
  return std::nullopt;  // null (or not an integer)
}

}  // namespace

struct TraceReader::Json {
  simdjson::dom::parser parser;
};

std::string TraceStats::summary() const {
  std::string out = "Stats {";
  bool first = true;
  auto add = [&](const char* name, uint64_t v) {
    if (v == 0) return;
    out += (first ? " " : ", ") + std::string(name) + ": " + std::to_string(v);
    first = false;
  };
  add("ok", ok);
  add("other_rank", other_rank);
  add("fail_glog", fail_glog);
  add("fail_json", fail_json);
  add("fail_payload_md5", fail_payload_md5);
  add("unknown", unknown);
  return out + (first ? "}" : " }");
}

std::string TraceStats::describe() const {
  std::string out = std::to_string(ok) + (ok == 1 ? " record" : " records");
  auto add = [&](uint64_t v, const char* one, const char* many) {
    if (v) out += ", " + std::to_string(v) + " " + (v == 1 ? one : many);
  };
  add(fail_glog, "line without a glog prefix", "lines without a glog prefix");
  add(fail_json, "line of bad JSON", "lines of bad JSON");
  add(fail_payload_md5, "payload whose MD5 differs", "payloads whose MD5 differs");
  add(other_rank, "record of another rank", "records of other ranks");
  add(unknown, "unknown key", "unknown keys");
  return out;
}

Expected<std::unique_ptr<TraceReader>> TraceReader::open(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return file_error(path, std::string("cannot open: ") + std::strerror(errno));
  std::fseek(f, 0, SEEK_END);
  long size = std::ftell(f);
  std::fseek(f, 0, SEEK_SET);
  return std::unique_ptr<TraceReader>(
      new TraceReader(f, size < 0 ? 0 : static_cast<uint64_t>(size)));
}

std::unique_ptr<TraceReader> TraceReader::from_stream(std::FILE* file, uint64_t size) {
  return std::unique_ptr<TraceReader>(new TraceReader(file, size));
}

// Small logs get a small buffer (it grows for longer lines): allocating 4 MB per tiny log would
// dominate (the fuzzer reads thousands a second).
TraceReader::TraceReader(std::FILE* file, uint64_t size)
    : file_(file),
      file_size_(size),
      buffer_(std::clamp<uint64_t>(size + 1, 4096, kChunk)),
      json_(std::make_unique<Json>()) {}

TraceReader::~TraceReader() {
  std::fclose(file_);
}

bool TraceReader::fill() {
  if (eof_) return false;
  // Keep the unread tail, then read after it.
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);  // a line longer than the buffer
  size_t n = std::fread(buffer_.data() + end_, 1, buffer_.size() - end_, file_);
  if (n == 0) eof_ = true;
  end_ += n;
  bytes_read_ += n;
  return n > 0;
}

void TraceReader::skip_long_line() {
  ++lineno_;
  ++stats_.fail_glog;
  problem(lineno_, "a line longer than the reader takes (256 MiB), skipped");
  for (;;) {
    const void* nl = std::memchr(buffer_.data() + begin_, '\n', end_ - begin_);
    if (nl != nullptr) {
      begin_ = static_cast<const char*>(nl) - buffer_.data() + 1;
      return;
    }
    begin_ = end_;  // dropped, and the buffer refilled from its start
    if (!fill()) return;
  }
}

bool TraceReader::next_line(std::string_view& line) {
  for (;;) {
    const char* start = buffer_.data() + begin_;
    const void* nl = std::memchr(start, '\n', end_ - begin_);
    if (nl == nullptr && end_ - begin_ >= max_line_) {
      skip_long_line();
      continue;
    }
    if (nl == nullptr) {
      if (fill()) continue;
      if (begin_ == end_) return false;
      line = std::string_view(buffer_.data() + begin_, end_ - begin_);  // last line without '\n'
      begin_ = end_;
    } else {
      size_t len = static_cast<const char*>(nl) - start;
      if (len > max_line_) {  // whole in the buffer, and still over the limit
        skip_long_line();
        continue;
      }
      line = std::string_view(start, len);
      begin_ += len + 1;
    }
    ++lineno_;
    // A UTF-8 byte order mark (an editor's) before the first line.
    if (lineno_ == 1 && line.starts_with("\xEF\xBB\xBF")) line.remove_prefix(3);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) return true;  // blank lines are log-shipper stutter, never content
  }
}

bool TraceReader::peek_is_payload() {
  // Blank lines are skipped here too, as tlparse does: one inside a payload does not end it.
  for (;;) {
    if (begin_ < end_ && buffer_[begin_] == '\n') {
      ++begin_;
      ++lineno_;
      continue;
    }
    if (end_ - begin_ >= 2 && buffer_[begin_] == '\r' && buffer_[begin_ + 1] == '\n') {
      begin_ += 2;
      ++lineno_;
      continue;
    }
    if (end_ - begin_ >= 2 || (begin_ < end_ && buffer_[begin_] != '\r'))
      return buffer_[begin_] == '\t';
    if (!fill()) return begin_ < end_ && buffer_[begin_] == '\t';
  }
}

bool TraceReader::decode_envelope(std::string_view text, TraceRecord& r) {
  simdjson::dom::element doc;
  if (json_->parser.parse(text.data(), text.size(), /*realloc_if_needed=*/true).get(doc) !=
      simdjson::SUCCESS)
    return false;
  simdjson::dom::object obj;
  if (doc.get_object().get(obj) != simdjson::SUCCESS) return false;
  CompileId id;
  bool has_id = false;
  for (auto [key, value] : obj) {
    if (key == "rank")
      r.rank = optional_int(value);
    else if (key == "compiled_autograd_id")
      id.compiled_autograd_id = optional_int(value), has_id = true;
    else if (key == "frame_id")
      id.frame_id = optional_int(value), has_id = true;
    else if (key == "frame_compile_id")
      id.frame_compile_id = optional_int(value), has_id = true;
    else if (key == "attempt")
      id.attempt = optional_int(value), has_id = true;
    else if (key == "has_payload") {
      std::string_view s;
      if (value.get_string().get(s) != simdjson::SUCCESS) return false;
      r.has_payload = std::string(s);
    } else if (key == "stack") {
      r.stack = simdjson::minify(value);
    } else if (r.event.empty() && is_event(key)) {
      r.event = std::string(key);
      r.metadata = simdjson::minify(value);
    } else if (!is_context(key)) {
      r.unknown_keys.emplace_back(key);
    }
  }
  // A record with no part of a compile id has none (reports file it under `-_-_-_-/`).
  if (has_id && (id.frame_id || id.frame_compile_id || id.compiled_autograd_id || id.attempt))
    r.compile_id = id;
  return true;
}

void TraceReader::problem(uint64_t line, const char* what) {
  if (problems_.size() < 20) problems_.push_back(std::to_string(line) + ": " + what);
}

bool TraceReader::next(TraceRecord& r) {
  std::string_view line;
  while (next_line(line)) {
    uint64_t lineno = lineno_;
    size_t json_start = 0;
    r = TraceRecord{};
    r.lineno = lineno;
    if (line.front() == '\t' || !parse_glog_header(line, r.header, json_start)) {
      ++stats_.fail_glog;
      problem(lineno, "not a glog line (`V1206 15:18:20.253000 123 file.py:10] {...}`)");
      continue;
    }
    r.envelope = std::string(line.substr(json_start));
    bool decoded = decode_envelope(r.envelope, r);
    // Payload lines follow the header whatever its JSON; they belong to this record.
    if (decoded && r.has_payload) {
      bool first = true;
      while (peek_is_payload() && next_line(line)) {
        if (!first) r.payload += '\n';
        first = false;
        r.payload.append(line.substr(1));
      }
      md5_.update(r.payload);
      r.payload_md5_ok = md5_.hex() == *r.has_payload;
      if (!r.payload_md5_ok) {
        ++stats_.fail_payload_md5;
        problem(lineno, "the payload's MD5 differs from has_payload (lines lost or changed)");
      }
    } else {
      while (peek_is_payload() && next_line(line)) {
      }
    }
    if (!decoded) {
      ++stats_.fail_json;
      problem(lineno, "the envelope is not a JSON object");
      continue;
    }
    for (const std::string& k : r.unknown_keys) {
      ++stats_.unknown;
      if (std::find(unknown_fields_.begin(), unknown_fields_.end(), k) == unknown_fields_.end())
        unknown_fields_.push_back(k);
    }
    if (r.event == "str") {
      // {"str": [name, index]}
      simdjson::dom::element e;
      std::string_view name;
      int64_t index;
      if (json_->parser.parse(r.metadata).get(e) == simdjson::SUCCESS &&
          e.at(0).get_string().get(name) == simdjson::SUCCESS &&
          e.at(1).get_int64().get(index) == simdjson::SUCCESS && index >= 0 &&
          static_cast<uint64_t>(index) <= strings_.size() + kStringTableGap) {
        if (strings_.size() <= static_cast<size_t>(index)) strings_.resize(index + 1);
        strings_[index] = std::string(name);
        ++stats_.str;
      } else {
        ++stats_.fail_json;
        problem(lineno,
                "a string table entry that is not [name, index], or whose index skips far past "
                "the table's end");
      }
      continue;
    }
    if (!expected_rank_) {
      if (r.rank) expected_rank_ = r.rank;
    } else if (*expected_rank_ != r.rank) {
      ++stats_.other_rank;
      problem(lineno, "a record of another rank than the first one seen");
      continue;
    }
    ++stats_.ok;
    return true;
  }
  return false;
}

}  // namespace remat::tracelog
