// ATen operators that PyTorch 2.x graphs call and an older libtorch (Debian's 1.13) lacks, written
// from operators it has, so that `remat check` runs today's joints on the installed ATen.
#pragma once

#include <string>
#include <vector>

namespace remat::exec {

/// Registers each operator below with the dispatcher where the installed libtorch has none (once;
/// a libtorch that has them keeps its own):
///   aten::_native_batch_norm_legit_functional  (2.0; batch norm with its running statistics
///       returned instead of updated in place)
///   aten::_scaled_dot_product_flash_attention_for_cpu and its _backward  (2.2; what
///       F.scaled_dot_product_attention becomes on the CPU), without dropout.
void register_newer_aten_ops();

/// The operators register_newer_aten_ops() wrote (empty where libtorch had them all).
const std::vector<std::string>& emulated_aten_ops();

}  // namespace remat::exec
