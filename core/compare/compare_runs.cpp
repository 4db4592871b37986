// SPDX-License-Identifier: Apache-2.0
#include "core/compare/compare_runs.hpp"

#include <fmt/format.h>
#include <ndsearch/sdk/units.hpp>

#include <utility>

#include "core/memory/budget.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

constexpr double kGiB = sdk::kBytesPerGiB;

// The config read once per distinct (global batch, sequence length) the runs
// ask for; the command line's pair is read first, so its errors stop the verb.
class ModelCache {
 public:
  ModelCache(const PluginRegistry& registry, const CompareRequest& request)
      : registry_(registry), request_(request) {
    at(std::nullopt, std::nullopt);
  }
  Model& at(std::optional<int64_t> global_batch, std::optional<int64_t> seq_len) {
    TrainingOverrides overrides = request_.parse.overrides;
    if (global_batch) overrides.global_batch = global_batch;
    if (seq_len) overrides.seq_len = seq_len;
    const std::pair key{overrides.global_batch, overrides.seq_len};
    auto it = models_.find(key);
    if (it == models_.end()) {
      ParseOptions parse = request_.parse;
      parse.overrides = overrides;
      it = models_.emplace(key, parse_config(registry_, request_.config, parse)).first;
    }
    return it->second;
  }
  Model& defaults() { return at(std::nullopt, std::nullopt); }

 private:
  const PluginRegistry& registry_;
  const CompareRequest& request_;
  std::map<std::pair<std::optional<int64_t>, std::optional<int64_t>>, Model> models_;
};

void price_run(const PluginRegistry& registry, const DeviceCatalog& catalog,
               const CompareRequest& request, MeasuredFormat format, ModelCache& models,
               ComparedRun& run) {
  const MeasuredRun& m = run.measured;
  EvaluationRequest evaluation_request = request.base;
  evaluation_request.strategy = m.strategy;
  evaluation_request.devices = m.devices.value_or(request.devices);
  Model& model = models.at(m.global_batch, m.seq_len);
  const Machine machine = evaluation_machine(catalog, request.device, evaluation_request.devices);
  const StrategyEvaluation e = evaluate_strategy(registry, model, machine, evaluation_request);
  run.strategy = strategy_text(e.strategy);
  if (!e.valid()) {
    run.refused = e.refusal;
    return;
  }
  run.fits = e.fits;
  if (e.time) {
    run.predicted_s = e.time->step_s;
    run.predicted_parts_s = predicted_parts(e.time->parts, format);
  }
  if (!e.fits) run.refused = does_not_fit(static_cast<double>(e.peak_bytes), e.budget.budget_bytes);
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

Comparison compare_runs(const PluginRegistry& registry, const DeviceCatalog& catalog,
                        const CompareRequest& request, const MeasuredRuns& measured) {
  Comparison c;
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
  }
  c.metrics = compare_metrics(priced);
  return c;
}

}  // namespace ndsearch
