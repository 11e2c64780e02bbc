#include "remat/partition/memory_budget.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <optional>
#include <string>

namespace remat::partition {

std::string bytes_text(int64_t bytes) {
  double v = static_cast<double>(bytes);
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", v, units[u]);
}

namespace {

int64_t activation_of(const Partition& p) {
  return p.report.activation_bytes.value_or(p.report.saved_bytes_total);
}

}  // namespace

Expected<MemoryBudget> parse_memory_budget(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return error_message("--budget " + std::string(text) + ": " + std::string(why) +
                         " (a fraction in [0, 1] such as 0.5, or bytes such as 24MB)");
  };
  std::string_view s = text;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  double number = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
  if (ec != std::errc() || !std::isfinite(number) || number < 0) return bad("not a budget");
  std::string unit(end, s.data() + s.size());
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  MemoryBudget b;
  if (unit.empty()) {
    if (number > 1) return bad("a number without a unit is a fraction, at most 1");
    b.fraction = number;
    return b;
  }
  static constexpr std::pair<std::string_view, double> kUnits[] = {{"b", 1.0},
                                                                   {"kb", 1024.0},
                                                                   {"kib", 1024.0},
                                                                   {"mb", 1048576.0},
                                                                   {"mib", 1048576.0},
                                                                   {"gb", 1073741824.0},
                                                                   {"gib", 1073741824.0},
                                                                   {"tb", 1099511627776.0},
                                                                   {"tib", 1099511627776.0}};
  for (auto [name, scale] : kUnits) {
    if (unit != name) continue;
    double bytes = number * scale;
    if (bytes > 9.0e18) return bad("too large");
    b.bytes = static_cast<int64_t>(bytes);
    return b;
  }
  return bad("unknown unit '" + unit + "'");
}

namespace {

/// `text` as a positive number and the rest, lower-cased, spaces trimmed; nullopt when it is none.
std::optional<std::pair<double, std::string>> number_and_unit(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  double number = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), number);
  if (ec != std::errc() || !std::isfinite(number) || number <= 0) return std::nullopt;
  std::string unit(end, s.data() + s.size());
  while (!unit.empty() && unit.front() == ' ') unit.erase(unit.begin());
  for (char& c : unit) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return std::pair{number, unit};
}

}  // namespace

Expected<double> parse_transfer_rate(std::string_view text, std::string_view flag) {
  auto bad = [&] {
    return error_message(std::string(flag) + " " + std::string(text) +
                         ": not a transfer rate (bytes per second such as 50GB/s)");
  };
  auto parsed = number_and_unit(text);
  if (!parsed) return bad();
  std::string unit = parsed->second;
  if (unit.ends_with("/s")) unit.resize(unit.size() - 2);
  if (unit.empty()) return bad();
  Expected<MemoryBudget> bytes = parse_memory_budget("1" + unit);
  if (!bytes || !bytes->bytes) return bad();
  return parsed->first * static_cast<double>(*bytes->bytes);
}

Expected<double> parse_flop_rate(std::string_view text, std::string_view flag) {
  auto parsed = number_and_unit(text);
  if (parsed) {
    std::string unit = parsed->second;
    for (std::string_view suffix : {"flop/s", "flops"}) {
      if (unit.ends_with(suffix)) unit.resize(unit.size() - suffix.size());
    }
    static constexpr std::pair<std::string_view, double> kScales[] = {
        {"", 1.0}, {"k", 1e3}, {"m", 1e6}, {"g", 1e9}, {"t", 1e12}, {"p", 1e15}};
    for (auto [name, scale] : kScales)
      if (unit == name) return parsed->first * scale;
  }
  return error_message(std::string(flag) + " " + std::string(text) +
                       ": not a compute rate (FLOP per second such as 100T or 312TFLOPS)");
}

Expected<Partition> partition_within_bytes(const GraphModule& joint, MinCutConfig config,
                                           int64_t bytes, double& budget) {
  auto at = [&](double fraction) {
    config.memory_budget = fraction;
    return partition_joint(joint, Strategy::MinCut, config);
  };
  auto chosen = [&](Expected<Partition> p, double fraction) -> Expected<Partition> {
    REMAT_TRY(p);
    budget = fraction;
    p->report.notes.push_back(fmt::format(
        "memory budget {}: activation memory {} at budget {:.4f}, the largest budget found that "
        "fits",
        bytes_text(bytes), bytes_text(activation_of(*p)), fraction));
    return p;
  };
  Expected<Partition> whole = at(1.0);
  REMAT_TRY(whole);
  if (activation_of(*whole) <= bytes) return chosen(std::move(whole), 1.0);
  Expected<Partition> least = at(0.0);
  REMAT_TRY(least);
  if (activation_of(*least) > bytes) {
    return error_message(fmt::format(
        "no partition fits a memory budget of {}: even at budget 0 (the inputs, and what cannot "
        "be recomputed) the activation memory is {}",
        bytes_text(bytes), bytes_text(activation_of(*least))));
  }
  // The fitting budget from below, the one that does not from above: 14 steps reach 1e-4.
  double lo = 0.0, hi = 1.0;
  Expected<Partition> best = std::move(least);
  for (int step = 0; step < 14; ++step) {
    double mid = (lo + hi) / 2;
    Expected<Partition> p = at(mid);
    REMAT_TRY(p);
    if (activation_of(*p) <= bytes) {
      lo = mid;
      best = std::move(p);
    } else {
      hi = mid;
    }
  }
  return chosen(std::move(best), lo);
}

Expected<Partition> partition_for_budget(const GraphModule& joint, Strategy strategy,
                                         MinCutConfig& config, const MemoryBudget& budget,
                                         OptimalOptions optimal) {
  config.memory_budget = budget.fraction.value_or(1.0);
  if (budget.bytes && strategy == Strategy::Default)
    return error_message("a budget in bytes applies to min-cut and optimal, not default");
  if (budget.bytes && strategy == Strategy::MinCut)
    return partition_within_bytes(joint, config, *budget.bytes, config.memory_budget);
  optimal.budget_bytes = budget.bytes;
  return partition_joint(joint, strategy, config, optimal);
}

}  // namespace remat::partition
