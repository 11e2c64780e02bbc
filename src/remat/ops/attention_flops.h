// FLOPs of the fused attention kernels as PyTorch's FlopCounterMode counts them: two batched
// matrix multiplies (scores = q k^T, out = scores v). Attention lies outside remat's op registry
// (its kernels differ by backend), but the memory budget's knapsack weighs a recomputation by
// these FLOPs, so a GPU compile's log is re-partitioned as PyTorch partitioned it.
#pragma once

#include <cstdint>
#include <optional>

#include "remat/ir/node.h"

namespace remat {

/// FLOPs of a forward attention call PyTorch has a formula for (the CUDA flash, efficient and
/// cuDNN scaled-dot-product kernels and `_flash_attention_forward` /
/// `_efficient_attention_forward`); nullopt for any other node, CPU attention included (PyTorch
/// counts it 0). 0 when a shape is symbolic or unknown.
std::optional<int64_t> attention_flops(const Node& node);

}  // namespace remat
