#include "remat/ir/layout.h"

#include "remat/support/enum_names.h"

namespace remat {
namespace {

constexpr EnumNames<Layout, 8> kLayouts({"torch.strided", "torch.sparse_coo", "torch.sparse_csr",
                                         "torch.sparse_csc", "torch.sparse_bsr", "torch.sparse_bsc",
                                         "torch._mkldnn", "torch.jagged"});

constexpr EnumNames<MemoryFormat, 5> kMemoryFormats({"", "torch.contiguous_format",
                                                     "torch.channels_last",
                                                     "torch.channels_last_3d",
                                                     "torch.preserve_format"});

}  // namespace

std::string_view layout_name(Layout l) {
  return kLayouts.name(l);
}

std::optional<Layout> parse_layout(std::string_view name) {
  return kLayouts.parse(name);
}

std::string_view memory_format_name(MemoryFormat m) {
  return kMemoryFormats.name(m);
}

std::optional<MemoryFormat> parse_memory_format(std::string_view name) {
  return kMemoryFormats.parse(name);
}

}  // namespace remat
