// SPDX-License-Identifier: Apache-2.0
#include "core/output/search_json.hpp"
#include "core/output/schema_version.hpp"

#include "core/model/model_json.hpp"
#include "core/output/calibration_json.hpp"
#include "core/output/evaluation_json.hpp"
#include "core/output/json_stream.hpp"
#include "core/output/time_json.hpp"
#include "core/price/evaluate_strategy.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/byte_counts.hpp"

namespace ndsearch {
namespace {

using nlohmann::json;

json counts_json(const SearchCounts& counts) {
  json refused = json::object();
  for (const auto& [id, n] : counts.refused) refused[id] = n;
  return {{"tested", counts.tested}, {"refused", refused},        {"priced", counts.priced},
          {"fit", counts.fit},       {"dropped", counts.dropped}, {"outpaced", counts.outpaced}};
}

}  // namespace

json candidate_json(size_t rank, const PricedCandidate& c) {
  json row = {{"rank", rank},
              {"strategy", strategy_json(c.strategy)},
              // The uniform mode, or what a recompute strategy chose ("auto:12F/3S").
              {"recompute", recompute_text(c.strategy.recompute, c.recompute)},
              {"memory", {{"peak_bytes", whole_bytes(c.peak_bytes)}}},
              {"time", time_json(c.time)},
              {"mfu", c.time.mfu},
              {"mfu_causal", c.time.mfu_causal},
              {"hfu", c.time.hfu},
              {"tokens_per_s", c.time.tokens_per_s}};
  // --balance-layers' split: the layers per stage, and the same as the
  // reference's offsets (each stage's layers less layers // pp).
  if (!c.stage_layers.empty()) {
    uint32_t total = 0;
    for (uint32_t n : c.stage_layers) total += n;
    const auto even = static_cast<int64_t>(total / c.stage_layers.size());
    json offsets = json::array();
    for (uint32_t n : c.stage_layers) offsets.push_back(static_cast<int64_t>(n) - even);
    row["stage_layers"] = c.stage_layers;
    row["stage_offsets"] = offsets;
  }
  return row;
}

json miss_json(const PricedCandidate& c, double budget_bytes) {
  return {{"strategy", strategy_json(c.strategy)},
          {"peak_bytes", whole_bytes(c.peak_bytes)},
          {"miss_bytes", whole_bytes(c.peak_bytes - budget_bytes)}};
}

EvaluationRequest listed_evaluation_request(const PricedCandidate& c, const Machine& machine,
                                            const SearchRequest& request,
                                            const SearchOptions& options) {
  EvaluationRequest one;
  // A strategy's per-layer choice is made again from every layer kept (it is deterministic).
  nds_strategy s = c.strategy;
  if (c.recompute.chosen) {
    s.recompute = NDS_RECOMPUTE_NONE;
    one.recompute = options.recompute;
  }
  one.recompute.swap_optimizer = options.recompute.swap_optimizer;
  one.recompute.host_link_bytes_per_s = options.recompute.host_link_bytes_per_s;
  one.strategy = strategy_text(s);
  one.devices = machine.devices;
  one.max_memory = request.max_memory;
  one.reserve_mem = request.reserve_mem;
  one.cp_algorithm = request.cp_algorithm;
  one.calibration = options.calibration;
  one.stage_layers = c.stage_layers;
  return one;
}

void write_search_json(std::ostream& out, const PluginRegistry& registry, Model& model,
                       const Machine& machine, const SearchRequest& request,
                       const SearchOptions& options, const SearchResult& r) {
  const double budget = options.budget.budget_bytes;
  // Each listed strategy's stages, priced as eval prices it. Rows are
  // formatted and written one at a time: memory does not grow with them.
  auto with_stages = [&](size_t rank, const PricedCandidate& c) {
    const EvaluationRequest one = listed_evaluation_request(c, machine, request, options);
    json row = candidate_json(rank, c);
    const StrategyEvaluation e = evaluate_strategy(registry, model, machine, one);
    row["memory"]["stages"] = stages_json(e);
    if (e.towers) row["towers"] = towers_json(e);
    return row;
  };
  // The keys in dump()'s (sorted) order, as the whole object printed before.
  write_json_object(out, [&](JsonObjectStream& doc) {
    doc.field("assumptions", r.assumptions);
    doc.field("bounds", json{{"global_batch", r.bounds.global_batch},
                             {"kv_heads", r.bounds.kv_heads},
                             {"layers", r.bounds.layers},
                             {"max_vpp", r.bounds.max_vpp},
                             {"pipeline_bound", r.bounds.pipeline_bound},
                             {"routed_experts", r.bounds.routed_experts},
                             {"max_ep", r.bounds.max_ep}});
    doc.field("budget_bytes", budget);
    doc.field("calibration", calibration_json(request.calibration, *machine.device));
    doc.field("candidates_per_s", candidates_per_s(r));
    doc.array_field("closest_misses", r.closest.size(), [&](size_t i) {
      json miss = miss_json(r.closest[i], budget);
      if (i < r.closest_fixes.size()) miss["fits_with"] = r.closest_fixes[i];
      return miss;
    });
    doc.field("counts", counts_json(r.counts));
    doc.field("device", machine.device->id);
    doc.field("devices", machine.devices);
    doc.field("elapsed_s", r.elapsed_s);
    doc.field("global_batch", options.space.global_batch);
    doc.field("model", model.display_name());
    doc.array_field("pareto", r.pareto.size(),
                    [&](size_t i) { return with_stages(i + 1, r.pareto[i]); });
    doc.array_field("ranking", r.ranking.size(),
                    [&](size_t i) { return with_stages(i + 1, r.ranking[i]); });
    doc.field("schema_version", kSchemaVersion);
    doc.field("trainer_overheads", trainer_overheads_json(model, *machine.device));
    doc.close();
  });
}

}  // namespace ndsearch
