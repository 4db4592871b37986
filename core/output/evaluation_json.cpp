// SPDX-License-Identifier: Apache-2.0
#include "core/output/evaluation_json.hpp"
#include "core/output/schema_version.hpp"

#include <utility>

#include "core/model/model_json.hpp"
#include "core/output/time_json.hpp"
#include "core/support/byte_counts.hpp"

namespace ndsearch {
namespace {

using nlohmann::json;

json stage_json(size_t rank, const StageMemory& m) {
  json ranges = json::array();
  for (const auto& [first, last] : m.recomputed_ranges) ranges.push_back({first, last});
  json stage = {{"stage", rank},
                {"layers", m.layers},
                {"recomputed_layers", m.recomputed_layers},
                {"recomputed_ranges", std::move(ranges)}};
  if (m.recompute.chosen) {
    // A recompute strategy's choice: its summary and each run of one option.
    stage["recompute"] =
        recompute_text(NDS_RECOMPUTE_NONE, m.recompute).substr(5);  // "4O/3F", no "auto:"
    json runs = json::array();
    for (const StageMemory::LayerRun& run : m.layer_options)
      runs.push_back(
          {{"first", run.first}, {"last", run.last}, {"option", layer_option_name(run.option)}});
    stage["layer_options"] = std::move(runs);
  }
  for (const auto& [key, term] : kStageMemoryTerms) stage[key] = whole_bytes(m.bytes[term]);
  stage["peak_bytes"] = m.peak_bytes;  // the sum of the printed terms
  return stage;
}

json memory_json(const StrategyEvaluation& e) {
  const Budget& b = e.budget;
  return {{"peak_bytes", e.peak_bytes},
          {"budget_bytes", b.budget_bytes},
          {"capacity_bytes", b.capacity_bytes},
          {"capacity_source", b.capacity_source},
          {"reserved_bytes", b.reserved_bytes},
          {"reserve_mem_bytes", b.reserve_mem_bytes},
          {"fits", e.fits},
          {"passes", e.memory_passes},
          {"stages", stages_json(e)}};
}

void add_time(const TimeEstimate& t, json& j) {
  j["time"] = time_json(t);
  j["model_flops_per_step"] = t.model_flops_per_step;
  j["hardware_flops_per_step"] = t.hardware_flops_per_step;
  j["mfu"] = t.mfu;
  j["mfu_causal"] = t.mfu_causal;
  j["hfu"] = t.hfu;
  j["tokens_per_s"] = t.tokens_per_s;
}

}  // namespace

json towers_json(const StrategyEvaluation& e) {
  if (!e.valid() || !e.towers || !e.time) return nullptr;
  const StrategyEvaluation::Towers& t = *e.towers;
  const TimeEstimate& time = *e.time;
  const double held = t.stage_bytes.empty() ? 0 : t.stage_bytes[t.stage];
  const double peak =
      e.stages.size() > t.stage ? static_cast<double>(e.stages[t.stage].peak_bytes) : 0;
  return {{"params", t.params},
          {"stage", t.stage},
          {"stage_bytes", t.stage_bytes},
          {"memory_share", peak > 0 ? held / peak : 0.0},
          {"time_s", time.towers_s},
          {"time_share", time.step_s > 0 ? time.towers_s / time.step_s : 0.0},
          {"flops_per_step", time.tower_flops_per_step},
          {"flops_share", time.model_flops_per_step > 0
                              ? time.tower_flops_per_step / time.model_flops_per_step
                              : 0.0}};
}

json stages_json(const StrategyEvaluation& e) {
  if (!e.valid()) return nullptr;
  json stages = json::array();
  for (size_t r = 0; r < e.stages.size(); ++r) stages.push_back(stage_json(r, e.stages[r]));
  return stages;
}

json evaluation_json(const StrategyEvaluation& e) {
  json j = {{"schema_version", kSchemaVersion},
            {"model", e.model_name},
            {"config", e.config_file},
            {"framework", e.framework},
            {"device", e.device_id},
            // Without -d: the devices the strategy uses (null while a degree is unknown).
            {"devices", e.devices_requested != 0 ? json(e.devices_requested)
                        : e.strategy_devices     ? json(*e.strategy_devices)
                                                 : json(nullptr)},
            {"strategy", strategy_json(e.strategy)},
            // The uniform mode's name, or what a recompute strategy chose ("auto:12F/3S").
            {"recompute", recompute_text(e.strategy.recompute, e.recompute)},
            {"strategy_sources", e.sources},
            {"valid", e.valid()},
            {"refusal", e.refusal ? json{{"id", e.refusal->id}, {"reason", e.refusal->reason}}
                                  : json(nullptr)}};
  if (e.valid()) {
    if (e.time) add_time(*e.time, j);
    j["assumptions"] = e.assumptions;
    j["memory"] = memory_json(e);
    if (e.towers) j["towers"] = towers_json(e);
  }
  j["warnings"] = e.warnings;
  return j;
}

}  // namespace ndsearch
