// JsonWriter: every JSON file and record remat composes goes through it (fxgraph-json, flow
// networks, partition summaries and reports, TORCH_TRACE records, metrics, check results).
// Objects and arrays are laid out as blocks (one member per line) or inline
// (`{"a": 1, "b": [2, 3]}`), chosen per container, so each format keeps its shape: fxgraph-json
// one node per line, log records on one line. (report/ writes back values it read from a log
// with nlohmann-json, the library it read them with, in tlparse's spacing.)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "remat/support/json_text.h"

namespace remat::json {

enum class Layout : uint8_t {
  Inline,  ///< `{"a": 1, "b": 2}`
  Block,   ///< each member on a line of its own, indented one unit per open block
};

class JsonWriter {
 public:
  /// Appends to `out`; a block's members are indented `indent_unit` spaces per open block.
  explicit JsonWriter(std::string& out, int indent_unit = 2) : out_(out), unit_(indent_unit) {
    open_.reserve(8);
  }

  JsonWriter& begin_object(Layout layout = Layout::Inline) { return open('{', layout); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array(Layout layout = Layout::Inline) { return open('[', layout); }
  JsonWriter& end_array() { return close(']'); }

  /// The next member's key (inside an object). A key written in the code is taken as it is: no
  /// key remat names needs escaping, and skipping the scan makes fxgraph-json's writer ~15%
  /// faster (bench_graph_io BM_Write).
  template <size_t N>
  JsonWriter& key(const char (&k)[N]) {
    separate();
    out_ += '"';
    out_.append(k, std::char_traits<char>::length(k));  // folded for a literal; safe for a buffer
    out_ += "\": ";
    after_key_ = true;
    return *this;
  }
  JsonWriter& key(std::string_view k) {
    separate();
    append_string(out_, k);
    out_ += ": ";
    after_key_ = true;
    return *this;
  }

  JsonWriter& value(std::string_view s) {
    separate();
    append_string(out_, s);
    return *this;
  }
  JsonWriter& value(const char* s) { return value(std::string_view(s)); }
  JsonWriter& value(const std::string& s) { return value(std::string_view(s)); }
  JsonWriter& value(bool b) {
    separate();
    out_ += b ? "true" : "false";
    return *this;
  }
  JsonWriter& value(int64_t v) {
    separate();
    append_int(out_, v);
    return *this;
  }
  JsonWriter& value(int v) { return value(static_cast<int64_t>(v)); }
  JsonWriter& value(uint64_t v);
  JsonWriter& value(double v);  ///< finite: the shortest round-trip form; otherwise null
  JsonWriter& null() { return raw("null"); }
  /// JSON text written by someone else (kept verbatim: a field remat does not model).
  JsonWriter& raw(std::string_view json) {
    separate();
    out_ += json;
    return *this;
  }

  /// `key(k).value(v)`.
  template <class K, class T>
  JsonWriter& field(const K& k, const T& v) {
    key(k);
    return value(v);
  }
  /// An inline array of strings or numbers.
  template <class Range>
  JsonWriter& array(const Range& items) {
    begin_array();
    for (const auto& item : items) value(item);
    return end_array();
  }

  /// True when every container opened has been closed.
  [[nodiscard]] bool complete() const { return top_ == Top::None; }

 private:
  JsonWriter& open(char bracket, Layout layout);
  JsonWriter& close(char bracket);
  void newline(size_t blocks);
  /// The separator before a value or key: none after a key, `, ` inline, a new line in a block.
  void separate() {
    if (after_key_) {
      after_key_ = false;
    } else if (top_ == Top::Inline) {
      out_ += ", ";
    } else if (top_ != Top::None) {
      separate_slow();
    }
  }
  void separate_slow();

  // The innermost open container, kept out of `open_` because every value asks about it; an
  // empty inline container is `FirstInline` until its first member.
  enum class Top : uint8_t { None, FirstInline, Inline, FirstBlock, Block };
  std::string& out_;
  int unit_;
  Top top_ = Top::None;
  std::vector<Top> open_;  // the containers around the innermost one
  size_t blocks_ = 0;      // open containers laid out as blocks
  bool after_key_ = false;
};

}  // namespace remat::json
