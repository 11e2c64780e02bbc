// A memory budget as users state it: PyTorch's fraction (`0.5`: activation_memory_budget) or
// bytes (`24MB`), which PyTorch does not take. A byte budget picks the partition of the largest
// fraction whose activation memory fits.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "remat/partition/partition_joint.h"

namespace remat::partition {

struct MemoryBudget {
  std::optional<double> fraction;  ///< in [0, 1]
  std::optional<int64_t> bytes;    ///< activation memory at most this
};

/// `24.0 MB`: sizes as the report writes them (powers of 1024, one decimal; bytes below 1 KB).
std::string bytes_text(int64_t bytes);

/// `0.5` (a fraction in [0, 1]) or bytes with a unit: `B`, `KB`/`KiB`, `MB`/`MiB`, `GB`/`GiB`
/// (powers of 1024, as the report prints sizes): `24MB`, `1.5 GiB`, `4096B`.
Expected<MemoryBudget> parse_memory_budget(std::string_view text);

/// A host <-> device transfer rate in bytes per second: `50GB/s` (the budget's byte units, `/s`
/// optional). `flag` names the option in errors.
Expected<double> parse_transfer_rate(std::string_view text, std::string_view flag);
/// A compute rate in FLOP per second: `100T`, `312TFLOPS`, `2.5e12` (K, M, G, T, P = 1000^n).
Expected<double> parse_flop_rate(std::string_view text, std::string_view flag);

/// The min-cut partition whose activation memory fits `bytes`, at the largest memory budget that
/// fits (bisection over the fraction, a partition per step: PyTorch's budget is not monotone in
/// bytes, so this is the largest found, not a proof); its report notes the budget chosen. An
/// error when not even budget 0 (the inputs, and what cannot be recomputed) fits.
/// `budget` is the fraction chosen (the budget curve marks it).
Expected<Partition> partition_within_bytes(const GraphModule& joint, MinCutConfig config,
                                           int64_t bytes, double& budget);

/// `strategy` within `budget`: a fraction sets `config.memory_budget`; bytes go to the optimum as
/// its budget, or pick the min-cut's fraction by partition_within_bytes (then `config` holds the
/// fraction chosen). The default partition takes no byte budget (an error).
Expected<Partition> partition_for_budget(const GraphModule& joint, Strategy strategy,
                                         MinCutConfig& config, const MemoryBudget& budget,
                                         OptimalOptions optimal = {});

}  // namespace remat::partition
