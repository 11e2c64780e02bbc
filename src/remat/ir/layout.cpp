#include "remat/ir/layout.h"

#include <array>
#include <utility>

namespace remat {
namespace {

constexpr std::array<std::string_view, 8> kLayouts{
    "torch.strided",    "torch.sparse_coo", "torch.sparse_csr", "torch.sparse_csc",
    "torch.sparse_bsr", "torch.sparse_bsc", "torch._mkldnn",    "torch.jagged"};

constexpr std::array<std::string_view, 5> kMemoryFormats{
    "", "torch.contiguous_format", "torch.channels_last", "torch.channels_last_3d",
    "torch.preserve_format"};

}  // namespace

std::string_view layout_name(Layout l) {
  return kLayouts[static_cast<size_t>(l)];
}

std::optional<Layout> parse_layout(std::string_view name) {
  for (size_t i = 0; i < kLayouts.size(); ++i)
    if (kLayouts[i] == name) return static_cast<Layout>(i);
  return std::nullopt;
}

std::string_view memory_format_name(MemoryFormat m) {
  return kMemoryFormats[static_cast<size_t>(m)];
}

std::optional<MemoryFormat> parse_memory_format(std::string_view name) {
  for (size_t i = 1; i < kMemoryFormats.size(); ++i)
    if (kMemoryFormats[i] == name) return static_cast<MemoryFormat>(i);
  return std::nullopt;
}

}  // namespace remat
