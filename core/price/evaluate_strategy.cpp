// SPDX-License-Identifier: Apache-2.0
#include "core/price/evaluate_strategy.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include <algorithm>
#include <memory>
#include <optional>

#include "core/compile/compiled_model.hpp"
#include "core/compile/cp_model.hpp"
#include "core/compile/memory_passes.hpp"
#include "core/compile/recompute_strategy.hpp"
#include "core/input/fast_tuner_setup.hpp"
#include "core/model/model_json.hpp"
#include "core/model/pricing_values.hpp"
#include "core/model/towers.hpp"
#include "core/price/memory/memory_assumptions.hpp"
#include "core/price/memory/memory_evaluator.hpp"
#include "core/price/price_memory.hpp"
#include "core/price/recompute/recompute_chooser.hpp"
#include "core/strategy/checks.hpp"
#include "core/strategy/degree_product.hpp"
#include "core/strategy/placement.hpp"
#include "core/support/byte_counts.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

// The strategy as resolved for this run, and what the result names.
// `starts_kept`: a recompute strategy that chooses under the budget prices
// the strategy from every layer kept.
StrategyEvaluation resolved(const Model& model, const Machine& machine,
                            const EvaluationRequest& request, bool starts_kept) {
  StrategyEvaluation e;
  e.model_name = model.display_name();
  e.config_file = model.file;
  e.framework = model.framework;
  e.device_id = machine.device->id;
  e.devices_requested = request.devices;
  nds_strategy given =
      request.strategy.empty() ? unset_strategy() : parse_strategy(request.strategy);
  // A per-layer strategy starts from every layer kept.
  if (starts_kept) {
    if (given.recompute != NDS_UNKNOWN && given.recompute != NDS_RECOMPUTE_NONE)
      throw UserError("E-USAGE",
                      fmt::format("{} chooses each layer's recompute; the strategy's recompute={} "
                                  "contradicts it: drop one of them",
                                  Setting("recompute_strategy").named(request.recompute.strategy),
                                  recompute_name(given.recompute)));
    given.recompute = NDS_RECOMPUTE_NONE;
  }
  e.strategy =
      resolve_strategy(given, model, request.devices, model.training.global_batch, &e.sources);
  const nds_strategy& s = e.strategy;
  if (s.dp != NDS_UNKNOWN && s.tp != NDS_UNKNOWN && s.pp != NDS_UNKNOWN && s.cp != NDS_UNKNOWN)
    e.strategy_devices = degree_product({s.dp, s.tp, s.pp, s.cp});
  return e;
}

// Each rank's terms with the CP working set in its comm buffers, its layers
// over its chunks, and the peak of the terms as whole bytes.
std::vector<StageMemory> stage_memory(const std::vector<RankMemory>& ranks,
                                      const Placement& placement, double cp_working_set) {
  const size_t vpp = static_cast<size_t>(placement.strategy.vpp);
  std::vector<StageMemory> stages(ranks.size());
  for (size_t r = 0; r < ranks.size(); ++r) {
    StageMemory& stage = stages[r];
    stage.bytes = ranks[r].bytes;
    // The CP algorithm's buffers: one layer's at a time, on every rank.
    stage.bytes[NDS_MEMORY_COMM_BUFFERS] += cp_working_set;
    for (size_t c = 0; c < vpp; ++c) {
      const size_t i = r * vpp + c;
      stage.layers += placement.chunk_layers[i];
      const uint32_t first = placement.chunk_first_layer[i], count = placement.chunk_layers[i];
      if (!placement.layer_option.empty()) {
        // A strategy's choice: each run of one option, and the recomputed runs.
        stage.recompute.chosen = true;
        for (uint32_t layer = first; layer < first + count;) {
          const int32_t option = placement.layer_option[layer];
          uint32_t end = layer + 1;
          while (end < first + count && placement.layer_option[end] == option) ++end;
          stage.layer_options.push_back({layer, end - 1, option});
          const uint32_t n = end - layer;
          if (option == NDS_LAYER_FULL || option == NDS_LAYER_SELECTIVE) {
            stage.recomputed_layers += n;
            stage.recomputed_ranges.push_back({layer, end - 1});
          }
          if (option == NDS_LAYER_FULL) stage.recompute.full_layers += n;
          if (option == NDS_LAYER_SELECTIVE) stage.recompute.selective_layers += n;
          if (option == NDS_LAYER_OFFLOAD) stage.recompute.offloaded_layers += n;
          layer = end;
        }
        continue;
      }
      const uint32_t recomputed = std::min(placement.chunk_recomputed_layers[i], count);
      stage.recomputed_layers += recomputed;
      if (recomputed > 0) stage.recomputed_ranges.push_back({first, first + recomputed - 1});
    }
    for (double bytes : stage.bytes)
      stage.peak_bytes = add_bytes(stage.peak_bytes, whole_bytes(bytes));
  }
  return stages;
}

// What the towers add to each rank: the memory passes over a copy of the
// model without them, on the same placement, against `ranks` (every term
// and pass, so the allocator's share of their bytes too).
StrategyEvaluation::Towers tower_memory(const PluginRegistry& registry, const Model& model,
                                        const Machine& machine, const Placement& placement,
                                        const std::vector<RankMemory>& ranks) {
  Model text = model;
  text.submodels.clear();
  const nds_strategy& s = placement.strategy;
  const MemoryPasses passes(registry, text, *machine.device);
  MemoryEvaluator memory(passes, static_cast<uint32_t>(s.pp));
  std::vector<RankMemory> without;
  const std::string refusal = memory.evaluate(placement.candidate(), without);
  if (!refusal.empty())
    throw UserError(
        "E-MEMORY-REFUSED",
        fmt::format("a memory pass refused {} without its towers: {}", strategy_text(s), refusal));
  StrategyEvaluation::Towers t;
  for (const ModelPart& tower : model.submodels) t.params += tower_parameters(tower).total();
  for (size_t r = 0; r < ranks.size(); ++r) {
    t.stage_bytes.push_back(ranks[r].peak() - without[r].peak());
    if (t.stage_bytes[r] > t.stage_bytes[t.stage]) t.stage = r;
  }
  return t;
}

void add_warnings(const Model& model, StrategyEvaluation& e) {
  e.warnings = model.warnings;
}

// The CP model where cp > 1 (only then loaded), its working set into
// `pricing` and its refusal into `e`; throws when the set is not a byte count.
std::unique_ptr<CpModel> load_cp(const PluginRegistry& registry, Model& model,
                                 const Machine& machine, const EvaluationRequest& request,
                                 const nds_candidate& candidate, MemoryPricing& pricing,
                                 StrategyEvaluation& e) {
  const nds_strategy& s = e.strategy;
  // The CP model only matters (and is only loaded) with cp > 1.
  std::unique_ptr<CpModel> cp;
  std::string cp_algorithm;
  if (s.cp > 1) {
    cp_algorithm = CpModel::choose_algorithm(request.cp_algorithm, model);
    cp = std::make_unique<CpModel>(registry, model, *machine.device, cp_algorithm);
    pricing.cp = cp_working_set(*cp, model, candidate);
  }
  if (!pricing.cp_bytes_are_a_count())
    throw UserError("E-MEMORY-REFUSED",
                    fmt::format("the {} CP algorithm gave a working set of {} bytes for {}; "
                                "a byte count must be a finite number >= 0",
                                cp_algorithm, pricing.cp.bytes, strategy_text(s)));
  if (!pricing.cp.refusal.empty())
    e.refusal = StrategyRefusal{"cp-" + cp_algorithm, pricing.cp.refusal};
  return cp;
}

// The model compiled for this request (its calibration and optimizer swap).
CompileOptions compile_options(const Model& model, const Machine& machine,
                               const EvaluationRequest& request) {
  return {std::nullopt, request.calibration,
          optimizer_swap_of(request.recompute, *machine.device, model.training)};
}

// What the estimate assumes, in words: the time model's, the memory's, the
// recompute strategy's, the stated split's and every adapted key's.
void add_assumptions(const Model& model, const EvaluationRequest& request, const TimeModel& time,
                     const RecomputeChooser* chooser, StrategyEvaluation& e) {
  e.assumptions = time.assumptions();
  for (std::string& line : memory_assumptions(model)) e.assumptions.push_back(std::move(line));
  if (chooser != nullptr) e.assumptions.emplace_back(chooser->assumption());
  const bool states_split = !model.stage_layers.empty() || !model.stage_layer_offsets.empty();
  if (stated_split_applies(e.strategy, model) || (request.layers_from_config && states_split))
    e.assumptions.emplace_back(
        "layers per stage: the config's stated split (at its own pp and vpp, where every verb "
        "prices it)");
  // A stated key the run could not keep as stated (op_from_config) moves the estimate: say so.
  for (const auto& [key, where] : e.sources)
    if (where.starts_with("adapted:")) e.assumptions.push_back(fmt::format("{}: {}", key, where));
}

// Memory by stage, the budget, then the time: a strategy the checks passed.
void price(const PluginRegistry& registry, Model& model, const Machine& machine,
           const EvaluationRequest& request, StrategyEvaluation& e) {
  const nds_strategy& s = e.strategy;
  Placement placement;
  placement.forced_split = request.stage_layers;
  place_layers_into(s, model, request.layers_from_config, placement);
  // Compiled when first needed: a strategy the CP algorithm refuses is not
  // priced, and its settings are not read.
  std::optional<CompiledModel> compiled;
  auto compiled_model = [&]() -> const CompiledModel& {
    if (!compiled)
      compiled.emplace(model, *machine.device, compile_options(model, machine, request));
    return *compiled;
  };
  std::unique_ptr<RecomputeStrategy> strategy;
  std::unique_ptr<RecomputeChooser> chooser;
  if (request.recompute.per_layer()) {
    strategy = std::make_unique<RecomputeStrategy>(registry, model, *machine.device,
                                                   request.recompute.strategy);
    chooser = std::make_unique<RecomputeChooser>(compiled_model(), request.recompute,
                                                 strategy.get(), static_cast<uint32_t>(s.pp));
  }
  // A strategy that follows the candidate's recompute lays it out first.
  if (chooser && chooser->follows_candidate()) chooser->follow(placement);
  const nds_candidate candidate = placement.candidate();
  const MemoryPasses passes(registry, model, *machine.device);
  MemoryEvaluator memory(passes, static_cast<uint32_t>(s.pp));
  std::vector<RankMemory> ranks;
  MemoryPricing pricing;
  price_memory(memory, nullptr, model, candidate, ranks, pricing);
  if (!pricing.pass_refusal.empty())
    throw UserError("E-MEMORY-REFUSED", fmt::format("a memory pass refused {}: {}",
                                                    strategy_text(s), pricing.pass_refusal));
  const std::unique_ptr<CpModel> cp =
      load_cp(registry, model, machine, request, candidate, pricing, e);
  // Read even when the CP algorithm refused: a size that does not read is an error either way.
  const Budget budget =
      memory_budget(*machine.device, model, request.max_memory, request.reserve_mem);
  const uint64_t devices =
      request.devices == 0 ? static_cast<uint64_t>(s.dp) * s.tp * s.pp * s.cp : request.devices;
  check_budget_holds_weights(budget, model, devices);
  if (!e.valid()) return;  // a CP algorithm may still refuse: then no prices
  // With every layer kept it does not fit: a recompute strategy may choose per layer.
  std::unique_ptr<TimeModel> time;
  const OffloadCopies* copies = nullptr;
  if (chooser && !chooser->follows_candidate()) {
    time = std::make_unique<TimeModel>(compiled_model(), cp.get());
    if (highest_rank(ranks, pricing.cp.bytes).bytes > budget.budget_bytes) {
      const RecomputeOutcome outcome =
          chooser->choose(placement, memory, *time, budget.budget_bytes, pricing.cp.bytes, ranks);
      if (outcome.refusal != nullptr && std::string_view(outcome.refusal) == "memory-pass")
        throw UserError("E-MEMORY-REFUSED",
                        fmt::format("a memory pass refused {} with the layers {} chose",
                                    strategy_text(s), chooser->strategy_name()));
      e.recompute = outcome.summary;
      e.strategy.recompute = placement.strategy.recompute;
      copies = chooser->copies();
    }
  }
  e.stages = stage_memory(ranks, placement, pricing.cp.bytes);
  if (!model.submodels.empty()) e.towers = tower_memory(registry, model, machine, placement, ranks);
  for (const StageMemory& stage : e.stages) e.peak_bytes = std::max(e.peak_bytes, stage.peak_bytes);
  e.budget = budget;
  e.fits = static_cast<double>(e.peak_bytes) <= budget.budget_bytes;
  e.memory_passes = memory.pass_ids();
  if (!time) time = std::make_unique<TimeModel>(compiled_model(), cp.get());
  e.time = time->estimate(placement.candidate(), devices, copies, nullptr, &e.chunk_times);
  add_assumptions(model, request, *time, chooser.get(), e);
}

}  // namespace

StrategyEvaluation evaluate_strategy(const PluginRegistry& registry, Model& model,
                                     const Machine& machine, const EvaluationRequest& given) {
  // No devices given: a fast-tuner setup's, else the strategy's dp·tp·pp·cp.
  EvaluationRequest request = given;
  request.devices = run_devices(model, given.devices);
  const bool starts_kept =
      request.recompute.per_layer() &&
      !RecomputeStrategy::follows_candidate(registry, request.recompute.strategy);
  StrategyEvaluation e = resolved(model, machine, request, starts_kept);
  // Every value pricing lacks, in one error, before the checks: dp without
  // devices, mbn without a global batch.
  require_pricing_values(
      model, {.devices_missing = request.devices == 0 && e.strategy.dp == NDS_UNKNOWN,
              .global_batch_missing =
                  e.strategy.mbn == NDS_UNKNOWN && model.training.global_batch == NDS_UNKNOWN,
              .why = {}});
  if (auto refusal = first_refusal(e.strategy, model, request.devices, model.training.global_batch))
    e.refusal = StrategyRefusal{refusal->id, refusal->message};
  else
    price(registry, model, machine, request, e);
  add_warnings(model, e);
  return e;
}

Machine evaluation_machine(const DeviceCatalog& catalog, std::string_view device,
                           uint64_t devices) {
  return make_machine(catalog, device, devices == 0 ? 1 : devices);
}

}  // namespace ndsearch
