// SPDX-License-Identifier: Apache-2.0
// compare_runs.hpp: a user's measured runs priced through the one pricing of
// a strategy (evaluate_strategy, what `eval` uses) and compared with it, the
// core of `ndsearch compare` (docs/cli.md, "ndsearch compare").
//
// Each run is priced with its own overrides of the device count, global batch
// and sequence length where its row gives them, else the command line's. A
// global batch or sequence length that differs from the model's re-reads the
// config with that run's training values (once per distinct pair): the
// config's finalisation derives from them, so a copy with one field changed
// would not be the model `eval` prices.
//
// A run a check refuses, or that the pricing refuses (a UserError for that
// run), is listed with its reason and left out of the metrics. A run our
// memory model says does not fit is scored like the others (it ran: the miss
// is the memory model's), marked `fits: false` with the peak and budget.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/compare/measured_runs.hpp"
#include "core/compare/metrics.hpp"
#include "core/input/device_catalog.hpp"
#include "core/input/parse_config.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/price/calibration_file.hpp"
#include "core/price/evaluate_strategy.hpp"

namespace ndsearch {

// What the runs share: the config as the command line reads it (its
// overrides are every run's defaults), the device and the pricing settings.
struct CompareRequest {
  std::filesystem::path config;
  ParseOptions parse;
  std::string device;
  uint64_t devices = 0;    // 0: each run's strategy product, unless the row gives one
  EvaluationRequest base;  // strategy and devices are set per run
  // The calibration applied (its time factors are base.calibration), for
  // its allocator share, set on each run's model.
  std::optional<AppliedCalibration> calibration;
};

struct ComparedRun {
  MeasuredRun measured;
  std::string strategy;  // resolved, as strategy_text writes it ("" when refused early)
  std::optional<double> predicted_s;  // when priced (a run that does not fit included)
  bool fits = false;
  std::optional<StrategyRefusal> refused;           // a check's or the pricing's
  std::optional<StrategyRefusal> memory_miss;       // "does-not-fit" with its peak; still scored
  std::map<std::string, double> predicted_parts_s;  // named as the measured parts are
  std::optional<size_t> metric_index;               // its place in ComparedRuns::metrics.runs
  std::optional<double> predicted_peak_bytes;       // when priced
  std::optional<double> peak_error;                 // predicted / measured peak - 1, when both
  // The stated keys priced otherwise than the config states them, by the one
  // rule eval and search apply ("op: adapted: dp·cp (...)").
  std::vector<std::string> adapted;
};

struct ComparedRuns {
  std::string model_name, device_id;
  std::filesystem::path measured_file;
  MeasuredFormat format = MeasuredFormat::ndsearch;
  std::vector<ComparedRun> runs;            // in file order
  std::vector<MeasuredDiagnostic> skipped;  // the reader's
  CompareMetrics metrics;                   // over the runs priced (fitting or not)
  ErrorSummary peaks;  // peak errors, over the priced runs with a measured peak
  size_t priced() const { return metrics.runs.size(); }
};

// The id a run that does not fit is refused with.
inline constexpr const char* kDoesNotFit = "does-not-fit";
// That refusal: "does not fit: peak X GiB over budget Y GiB".
StrategyRefusal does_not_fit(double peak_bytes, double budget_bytes);

// Our predicted parts under the names `format`'s measured parts use: ours one
// to one; for the reference's classified CSV compute = forward + backward +
// recompute + optimizer, bubble = bubble + pp, idle = overhead, tp, cp, ep and
// dp one to one.
std::map<std::string, double> predicted_parts(const TimeParts& parts, MeasuredFormat format);

// Throws what reading the config throws (with the shared settings), the
// device's E-DEVICE-UNKNOWN, and the budget's E-USAGE / E-BUDGET for a
// memory size that does not read; an error of one run's own settings or
// strategy is that run's refusal.
ComparedRuns compare_runs(const PluginRegistry& registry, const DeviceCatalog& catalog,
                          const CompareRequest& request, const MeasuredRuns& measured);

}  // namespace ndsearch
