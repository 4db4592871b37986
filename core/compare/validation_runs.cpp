// SPDX-License-Identifier: Apache-2.0
#include "core/compare/validation_runs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/strategy/strategy.hpp"
#include "core/support/user_error.hpp"
#include "core/validation/validation.hpp"

namespace ndsearch {
namespace {

// One row priced; its refusal when it cannot be compared.
void price_row(const PluginRegistry& registry, const DeviceCatalog& catalog,
               const ValidationRow& row, ComparedRun& run) {
  const RowPricer pricer(registry, catalog, row);
  const RowResult result = pricer.price(std::nullopt);  // the shipped overheads
  if (std::isnan(result.error)) {
    run.refused = StrategyRefusal{
        "no-candidate",
        fmt::format("no choice of what the source does not publish (mbs, vpp, recompute) passes "
                    "the checks for the published keys '{}'",
                    row.strategy)};
    return;
  }
  run.strategy = strategy_text(result.strategy);
  run.measured.step_s = measured_step_s(result);
  run.predicted_s = result.time.step_s;
  run.fits = result.fits;
  if (!result.fits) run.refused = does_not_fit(result.peak_bytes, result.budget_bytes);
}

}  // namespace

ComparedRuns compare_validation_runs(const PluginRegistry& registry, const DeviceCatalog& catalog,
                                     const std::filesystem::path& file) {
  const std::vector<ValidationRow> rows = read_validation_file(file);
  if (rows.empty())
    throw UserError(
        "E-VALIDATION-CSV",
        fmt::format("{}: a header and no published run; add one row per run", file.string()));
  ComparedRuns c;
  c.measured_file = file;
  c.format = MeasuredFormat::validation;
  c.model_name = fmt::format("{} published runs of {}", rows.size(), file.stem().string());
  std::vector<std::string> devices;
  for (const ValidationRow& row : rows)
    if (std::find(devices.begin(), devices.end(), row.device) == devices.end())
      devices.push_back(row.device);
  c.device_id = fmt::format("{}", fmt::join(devices, ", "));
  std::vector<PricedRun> priced;
  for (const ValidationRow& row : rows) {
    ComparedRun& run = c.runs.emplace_back();
    run.measured.line = row.line;
    run.measured.strategy = row.strategy;
    run.measured.devices = row.devices;
    run.measured.global_batch = row.global_batch;
    run.measured.seq_len = row.seq_len;
    try {
      price_row(registry, catalog, row, run);
    } catch (const UserError& error) {  // this row's config or device: its reason, the rest go on
      run.refused = StrategyRefusal{error.id(), error.what()};
    }
    if (run.refused || !run.predicted_s) continue;
    run.metric_index = priced.size();
    PricedRun& p = priced.emplace_back();
    p.measured_step_s = run.measured.step_s;
    p.predicted_step_s = *run.predicted_s;
  }
  c.metrics = compare_metrics(priced);
  return c;
}

}  // namespace ndsearch
