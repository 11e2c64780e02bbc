// Shared machinery of remat's JSON readers (fxgraph-json, partition summaries and records):
// JSON paths, first-error capture, field access.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "remat/support/diagnostic.h"
#include "remat/support/expected.h"

namespace remat::json {

namespace dom = simdjson::dom;

/// A location in a JSON document, built on the stack and formatted only on error:
/// `nodes[12].args[1]`.
struct JsonPath {
  static constexpr size_t kNoIndex = static_cast<size_t>(-1);
  const JsonPath* parent = nullptr;
  std::string_view key;
  size_t index = kNoIndex;

  // A child points at its parent, so a parent must outlive it: building on a temporary
  // (`p.field("a").at(1)` stored in a variable) would dangle, hence the deleted overloads.
  [[nodiscard]] JsonPath field(std::string_view k) const& { return {this, k, kNoIndex}; }
  [[nodiscard]] JsonPath at(size_t i) const& { return {this, {}, i}; }
  JsonPath field(std::string_view k) && = delete;
  JsonPath at(size_t i) && = delete;
  [[nodiscard]] std::string format() const;
};

/// Holds the file name and the first error; every check returns false once it fails.
class JsonReader {
 public:
  explicit JsonReader(std::string file) : file_(std::move(file)) {}
  ~JsonReader();
  JsonReader(const JsonReader&) = delete;
  JsonReader& operator=(const JsonReader&) = delete;

  /// Parses `text`; on malformed JSON returns nullopt with a file:line:col diagnostic.
  std::optional<dom::element> parse(std::string_view text);

  bool fail(const JsonPath& path, std::string message);
  /// fail(), then the (first) error: `return r.error_at(path, "...")` in Expected functions.
  Diagnostic error_at(const JsonPath& path, std::string message) {
    fail(path, std::move(message));
    return error();
  }
  [[nodiscard]] bool failed() const { return error_.has_value(); }
  [[nodiscard]] const Diagnostic& error() const { return *error_; }
  [[nodiscard]] const std::string& file() const { return file_; }

  bool get_object(dom::element e, const JsonPath& path, dom::object& out);
  bool get_array(dom::element e, const JsonPath& path, dom::array& out);
  bool get_string(dom::element e, const JsonPath& path, std::string_view& out);
  bool get_int(dom::element e, const JsonPath& path, int64_t& out);
  bool get_bool(dom::element e, const JsonPath& path, bool& out);
  /// A number (int or float) or one of the strings "inf", "-inf", "nan".
  bool get_number(dom::element e, const JsonPath& path, double& out);
  bool get_string_list(dom::element e, const JsonPath& path, std::vector<std::string>& out);
  /// Checks the document's `schema` tag equals `expected`.
  bool check_schema(dom::object root, std::string_view expected);

  /// The JSON type's name for messages: `an object`, `a string`, ...
  static std::string_view type_name(dom::element e);
  /// Minified JSON text of `e`, to keep an unknown key verbatim.
  static std::string raw(dom::element e);

 private:
  std::string file_;
  std::optional<Diagnostic> error_;
  simdjson::padded_string buffer_;
};

}  // namespace remat::json
