#include "remat/fxtext/tensor_annotation.h"

#include <cctype>
#include <charconv>

#include "remat/fxtext/text_scan.h"

namespace remat::fxtext {
namespace {

bool parse_dim(std::string_view p, std::vector<DimText>& out) {
  if (p.empty()) return false;
  bool digits = true;
  for (size_t i = 0; i < p.size(); ++i)
    digits = digits && (std::isdigit(static_cast<unsigned char>(p[i])) || (i == 0 && p[i] == '-'));
  if (digits && p != "-") {
    int64_t v = 0;
    auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), v);
    if (ec != std::errc() || end != p.data() + p.size()) return false;
    out.push_back({p, v});
    return true;
  }
  // A symbolic size: names, integers and arithmetic only (`s0`, `2*s1 + 1`), parentheses
  // balanced (an open one would swallow the ` = ` after an unquoted annotation).
  int depth = 0;
  for (char c : p) {
    if (!std::isalnum(static_cast<unsigned char>(c)) &&
        std::string_view("_ +-*/%()").find(c) == std::string_view::npos)
      return false;
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (depth < 0) return false;
  }
  if (depth != 0) return false;
  out.push_back({p, std::nullopt});
  return true;
}

}  // namespace

namespace {

// `4, 4`: integers and `, ` only, the common case, read in one pass (a report reads the
// annotation of every node it lists); false, with `out` cleared, for anything else.
bool parse_integer_dims(std::string_view s, std::vector<DimText>& out) {
  size_t i = 0;
  while (i < s.size()) {
    size_t start = i;
    int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data() + i, s.data() + s.size(), v);
    if (ec != std::errc() || s[start] == '-' || s[start] == '+') break;
    i = static_cast<size_t>(end - s.data());
    out.push_back({s.substr(start, i - start), v});
    if (i == s.size()) return true;
    if (s.substr(i, 2) != ", ") break;
    i += 2;
  }
  out.clear();
  return false;
}

}  // namespace

bool parse_dims(std::string_view s, std::vector<DimText>& out) {
  out.clear();
  if (parse_integer_dims(s, out)) return true;
  if (trim(s).empty()) return true;
  bool ok = true;
  for_each_top_level(s, ",", [&](std::string_view part) {
    ok = parse_dim(trim(part), out);
    return ok;
  });
  return ok;
}

AnnotationError parse_tensor_annotation(std::string_view a, TensorAnnotation& out) {
  size_t bracket = a.find('[');
  if (bracket == std::string_view::npos) return AnnotationError::NoShape;
  out.dtype_text = a.substr(0, bracket);
  std::optional<DType> dtype = parse_dtype_abbr(out.dtype_text);
  if (!dtype) return AnnotationError::UnknownDType;
  out.dtype = *dtype;
  size_t close = a.find(']', bracket);
  if (close == std::string_view::npos ||
      !parse_dims(a.substr(bracket + 1, close - bracket - 1), out.sizes))
    return AnnotationError::MalformedShape;
  std::string_view rest = a.substr(close + 1);
  if (rest.starts_with("[")) {
    size_t stride_close = rest.find(']');
    if (!out.strides) out.strides.emplace();  // else its storage is reused (annotation_bytes)
    if (stride_close == std::string_view::npos ||
        !parse_dims(rest.substr(1, stride_close - 1), *out.strides) ||
        out.strides->size() != out.sizes.size())
      return AnnotationError::MalformedStrides;
    rest = rest.substr(stride_close + 1);
  } else {
    out.strides.reset();
  }
  for (char c : rest)  // a device: `cpu`, `cuda:0`, `meta`
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != ':' && c != '_' && c != '.')
      return AnnotationError::MalformedDevice;
  out.device = rest;
  return AnnotationError::None;
}

std::string format_tensor_annotation(DType dtype, const std::vector<std::string>& sizes) {
  std::string out(dtype_abbr(dtype));
  out += '[';
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i) out += ", ";
    out += sizes[i];
  }
  return out + ']';
}

std::optional<uint64_t> annotation_bytes(std::string_view text) {
  // Called for every node of every graph a report reads: the vectors' storage is kept.
  thread_local TensorAnnotation t;
  if (parse_tensor_annotation(text, t) != AnnotationError::None) return std::nullopt;
  uint64_t numel = 1;
  for (const DimText& d : t.sizes) {
    if (!d.value || *d.value < 0) return std::nullopt;
    numel *= static_cast<uint64_t>(*d.value);
  }
  return numel * static_cast<uint64_t>(dtype_itemsize(t.dtype));
}

}  // namespace remat::fxtext
