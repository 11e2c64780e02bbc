// Layout and MemoryFormat: the torch enums that appear as argument values and tensor metadata.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace remat {

enum class Layout : uint8_t {
  Strided,
  SparseCoo,
  SparseCsr,
  SparseCsc,
  SparseBsr,
  SparseBsc,
  Mkldnn,
  Jagged,
};

/// `Unknown` marks metadata that names no memory format.
enum class MemoryFormat : uint8_t {
  Unknown,
  Contiguous,
  ChannelsLast,
  ChannelsLast3d,
  Preserve,
};

/// `torch.strided`, `torch.sparse_coo`, ...
std::string_view layout_name(Layout l);
std::optional<Layout> parse_layout(std::string_view name);
/// `torch.contiguous_format`, `torch.channels_last`, ...; "" for Unknown.
std::string_view memory_format_name(MemoryFormat m);
std::optional<MemoryFormat> parse_memory_format(std::string_view name);

}  // namespace remat
