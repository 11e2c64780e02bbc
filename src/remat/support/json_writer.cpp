#include "remat/support/json_writer.h"

#include <charconv>
#include <cmath>

#include "remat/support/assert.h"

namespace remat::json {

JsonWriter& JsonWriter::value(uint64_t v) {
  separate();
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, v);
  out_.append(digits, end);
  return *this;
}

JsonWriter& JsonWriter::value(double v) {
  separate();
  if (std::isfinite(v))
    append_double(out_, v);
  else
    out_ += "null";
  return *this;
}

void JsonWriter::separate_slow() {
  switch (top_) {
    case Top::FirstInline:
      top_ = Top::Inline;
      return;
    case Top::Block:
      out_ += ',';
      newline(blocks_);
      return;
    case Top::FirstBlock:
      top_ = Top::Block;
      newline(blocks_);
      return;
    case Top::None:
    case Top::Inline:
      return;
  }
}

JsonWriter& JsonWriter::open(char bracket, Layout layout) {
  separate();
  out_ += bracket;
  if (top_ != Top::None) open_.push_back(top_);
  top_ = layout == Layout::Block ? Top::FirstBlock : Top::FirstInline;
  if (layout == Layout::Block) ++blocks_;
  return *this;
}

JsonWriter& JsonWriter::close(char bracket) {
  REMAT_ASSERT(top_ != Top::None && !after_key_) << "a JSON container closed that is not open";
  if (top_ == Top::Block || top_ == Top::FirstBlock) {
    --blocks_;
    if (top_ == Top::Block) newline(blocks_);
  }
  out_ += bracket;
  if (open_.empty()) {
    top_ = Top::None;
  } else {
    top_ = open_.back();
    open_.pop_back();
  }
  return *this;
}

void JsonWriter::newline(size_t blocks) {
  out_ += '\n';
  out_.append(blocks * static_cast<size_t>(unit_), ' ');
}

}  // namespace remat::json
