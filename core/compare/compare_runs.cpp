// SPDX-License-Identifier: Apache-2.0
#include "core/compare/compare_runs.hpp"

#include <fmt/format.h>
#include <ndsearch/sdk/units.hpp>

#include <utility>

#include "core/compare/run_pricing.hpp"
#include "core/price/memory/budget.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

constexpr double kGiB = sdk::kBytesPerGiB;

void price_run(const PluginRegistry& registry, const DeviceCatalog& catalog,
               const CompareRequest& request, MeasuredFormat format, ModelCache& models,
               ComparedRun& run) {
  const RunPricing p = run_pricing(catalog, request, models, run.measured);
  const StrategyEvaluation e = evaluate_strategy(registry, *p.model, p.machine, p.request);
  run.strategy = strategy_text(e.strategy);
  for (const auto& [key, where] : e.sources)
    if (where.starts_with("adapted:")) run.adapted.push_back(fmt::format("{}: {}", key, where));
  if (!e.valid()) {
    run.refused = e.refusal;
    return;
  }
  // A run that does not fit our memory model ran all the same: it is scored
  // (and marked), and the miss is the memory model's to explain.
  run.fits = e.fits;
  run.predicted_peak_bytes = static_cast<double>(e.peak_bytes);
  if (run.measured.peak_bytes)
    run.peak_error = signed_error(*run.measured.peak_bytes, *run.predicted_peak_bytes);
  if (!e.fits)
    run.memory_miss = does_not_fit(static_cast<double>(e.peak_bytes), e.budget.budget_bytes);
  if (e.time) {
    run.predicted_s = e.time->step_s;
    run.predicted_parts_s = predicted_parts(e.time->parts, format);
  }
}

}  // namespace

StrategyRefusal does_not_fit(double peak_bytes, double budget_bytes) {
  return StrategyRefusal{kDoesNotFit,
                         fmt::format("does not fit: peak {:.2f} GiB over budget {:.2f} GiB",
                                     peak_bytes / kGiB, budget_bytes / kGiB)};
}

std::map<std::string, double> predicted_parts(const TimeParts& parts, MeasuredFormat format) {
  std::map<std::string, double> out;
  if (format != MeasuredFormat::reference_classified) {
    for (const auto& [name, member] : kTimeParts) out[name] = parts.*member;
    return out;
  }
  // The optimizer step runs kernels, not waits, so a profiler's compute holds it.
  out["compute"] = parts.forward + parts.backward + parts.recompute + parts.optimizer;
  out["tp"] = parts.tp;
  out["cp"] = parts.cp;
  out["ep"] = parts.ep;
  out["dp"] = parts.dp;
  out["bubble"] = parts.bubble + parts.pp;  // pp_wait: a stage waiting on its neighbour
  out["idle"] = parts.overhead;             // what no kernel or wait accounts for
  return out;
}

ComparedRuns compare_runs(const PluginRegistry& registry, const DeviceCatalog& catalog,
                          const CompareRequest& request, const MeasuredRuns& measured) {
  ComparedRuns c;
  c.measured_file = measured.file;
  c.format = measured.format;
  c.skipped = measured.diagnostics;
  ModelCache models(registry, request);
  const Model& model = models.defaults();
  c.model_name = model.display_name();
  // An unknown device, or a memory size every run shares that does not read,
  // stops here rather than refusing each run alike.
  const Machine machine = evaluation_machine(catalog, request.device, 1);
  c.device_id = machine.device->id;
  memory_budget(*machine.device, model, request.base.max_memory, request.base.reserve_mem);
  std::vector<PricedRun> priced;
  std::vector<double> peak_errors;  // of the priced runs that state a peak
  for (const MeasuredRun& m : measured.runs) {
    ComparedRun& run = c.runs.emplace_back();
    run.measured = m;
    try {
      price_run(registry, catalog, request, measured.format, models, run);
    } catch (const UserError& error) {  // this run's settings: its reason, the rest go on
      run.refused = StrategyRefusal{error.id(), error.what()};
    }
    if (run.refused || !run.predicted_s) continue;
    run.metric_index = priced.size();
    PricedRun& p = priced.emplace_back();
    p.measured_step_s = m.step_s;
    p.predicted_step_s = *run.predicted_s;
    p.measured_parts_s.insert(m.parts.begin(), m.parts.end());
    p.predicted_parts_s = run.predicted_parts_s;
    if (run.peak_error) peak_errors.push_back(*run.peak_error);
  }
  c.metrics = compare_metrics(priced);
  c.peaks = error_summary(peak_errors);
  return c;
}

}  // namespace ndsearch
