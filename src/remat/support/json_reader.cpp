#include "remat/support/json_reader.h"

#include <cmath>
#include <limits>

#include "remat/support/json_error_location.h"

namespace remat::json {

std::string JsonPath::format() const {
  std::string prefix = parent ? parent->format() : std::string();
  if (index != kNoIndex) return prefix + "[" + std::to_string(index) + "]";
  if (key.empty()) return prefix;
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}

namespace {

// One DOM parser per thread, reused: its buffers are already mapped, which saves the page
// faults of a fresh allocation (most of a cold parse). The tape takes about 8 bytes per input
// byte, so the buffers of documents above this size are released once the reader is done.
constexpr size_t kKeepParserCapacity = size_t{32} << 20;

dom::parser& thread_parser() {
  static thread_local dom::parser parser;
  return parser;
}

}  // namespace

JsonReader::~JsonReader() {
  dom::parser& parser = thread_parser();
  if (parser.capacity() > kKeepParserCapacity) parser = dom::parser();
}

std::optional<dom::element> JsonReader::parse(std::string_view text) {
  buffer_ = simdjson::padded_string(text);
  dom::element root;
  simdjson::error_code err = thread_parser().parse(buffer_).get(root);
  if (err) {
    error_ = json::locate_syntax_error(text, file_, simdjson::error_message(err));
    return std::nullopt;
  }
  return root;
}

bool JsonReader::fail(const JsonPath& path, std::string message) {
  if (!error_) {
    Diagnostic d;
    d.file = file_;
    d.path = path.format();
    d.message = std::move(message);
    error_ = std::move(d);
  }
  return false;
}

std::string_view JsonReader::type_name(dom::element e) {
  switch (e.type()) {
    case dom::element_type::ARRAY:
      return "an array";
    case dom::element_type::OBJECT:
      return "an object";
    case dom::element_type::INT64:
    case dom::element_type::UINT64:
      return "an integer";
    case dom::element_type::DOUBLE:
      return "a float";
    case dom::element_type::STRING:
      return "a string";
    case dom::element_type::BOOL:
      return "a boolean";
    case dom::element_type::NULL_VALUE:
      return "null";
  }
  return "a value";
}

std::string JsonReader::raw(dom::element e) {
  return simdjson::minify(e);
}

bool JsonReader::get_object(dom::element e, const JsonPath& path, dom::object& out) {
  if (e.get_object().get(out))
    return fail(path, "expected an object, got " + std::string(type_name(e)));
  return true;
}

bool JsonReader::get_array(dom::element e, const JsonPath& path, dom::array& out) {
  if (e.get_array().get(out))
    return fail(path, "expected an array, got " + std::string(type_name(e)));
  return true;
}

bool JsonReader::get_string(dom::element e, const JsonPath& path, std::string_view& out) {
  if (e.get_string().get(out))
    return fail(path, "expected a string, got " + std::string(type_name(e)));
  return true;
}

bool JsonReader::get_int(dom::element e, const JsonPath& path, int64_t& out) {
  if (e.type() == dom::element_type::UINT64)
    return fail(path, "integer " + raw(e) + " is too large (at most 2^63-1)");
  if (e.get_int64().get(out))
    return fail(path, "expected an integer, got " + std::string(type_name(e)));
  return true;
}

bool JsonReader::get_bool(dom::element e, const JsonPath& path, bool& out) {
  if (e.get_bool().get(out))
    return fail(path, "expected true or false, got " + std::string(type_name(e)));
  return true;
}

bool JsonReader::get_number(dom::element e, const JsonPath& path, double& out) {
  switch (e.type()) {
    case dom::element_type::INT64:
      out = static_cast<double>(int64_t(e));
      return true;
    case dom::element_type::UINT64:
      out = static_cast<double>(uint64_t(e));
      return true;
    case dom::element_type::DOUBLE:
      out = double(e);
      return true;
    case dom::element_type::STRING: {
      std::string_view s = std::string_view(e);
      if (s == "inf")
        out = std::numeric_limits<double>::infinity();
      else if (s == "-inf")
        out = -std::numeric_limits<double>::infinity();
      else if (s == "nan")
        out = std::numeric_limits<double>::quiet_NaN();
      else
        return fail(path, "expected a number or \"inf\", \"-inf\", \"nan\", got \"" +
                              std::string(s) + "\"");
      return true;
    }
    default:
      return fail(path, "expected a number, got " + std::string(type_name(e)));
  }
}

bool JsonReader::get_string_list(dom::element e, const JsonPath& path,
                                 std::vector<std::string>& out) {
  dom::array arr;
  if (!get_array(e, path, arr)) return false;
  out.clear();
  size_t i = 0;
  for (dom::element item : arr) {
    std::string_view s;
    if (!get_string(item, path.at(i++), s)) return false;
    out.emplace_back(s);
  }
  return true;
}

bool JsonReader::check_schema(dom::object root, std::string_view expected) {
  JsonPath root_path;
  dom::element tag;
  if (root["schema"].get(tag))
    return fail(root_path, "missing \"schema\" (expected \"" + std::string(expected) + "\")");
  std::string_view s;
  if (!get_string(tag, root_path.field("schema"), s)) return false;
  if (s != expected)
    return fail(root_path.field("schema"), "wrong schema \"" + std::string(s) + "\", expected \"" +
                                               std::string(expected) + "\"");
  return true;
}

}  // namespace remat::json
