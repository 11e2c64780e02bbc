// A tensor's annotation as torch.fx prints it: `f32[4, 4]`, with FX_GRAPH_SHOW_STRIDE and
// FX_GRAPH_SHOW_DEVICE `f32[4, 4][4, 1]cuda:0`, with symbolic sizes `bf16[s0, 2*s1 + 1]`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remat/fxtext/dtype.h"

namespace remat::fxtext {

/// One size or stride: its text, and its value when it is an integer.
struct DimText {
  std::string_view text;
  std::optional<int64_t> value;
};

/// The dimensions between an annotation's brackets (`4, 4`, `s0, 2*s1 + 1`, empty for a
/// scalar), each an integer or a symbolic expression (names, integers, `+ - * / %` and balanced
/// parentheses); false when one is neither.
bool parse_dims(std::string_view text, std::vector<DimText>& out);

enum class AnnotationError : uint8_t {
  None,
  NoShape,       ///< no `[`: not a tensor's annotation
  UnknownDType,  ///< the text before `[` is no dtype abbreviation
  MalformedShape,
  MalformedStrides,  ///< or not one stride per size
  MalformedDevice,
};

struct TensorAnnotation {
  DType dtype = DType::Unknown;
  std::string_view dtype_text;  ///< the abbreviation as written
  std::vector<DimText> sizes;
  std::optional<std::vector<DimText>> strides;
  std::string_view device;  ///< `cpu`, `cuda:0`; empty when not shown
};

/// Parses an annotation without its quotes into `out`.
AnnotationError parse_tensor_annotation(std::string_view text, TensorAnnotation& out);

/// `f32[4, 4]`: the annotation of a tensor of `dtype` and `sizes` (integers or expressions),
/// without strides or device.
std::string format_tensor_annotation(DType dtype, const std::vector<std::string>& sizes);

/// The bytes of the tensor an annotation (without quotes) describes: the product of its sizes
/// times the dtype's item size; nullopt for a symbolic size or text that is no tensor annotation.
std::optional<uint64_t> annotation_bytes(std::string_view text);

}  // namespace remat::fxtext
