// SPDX-License-Identifier: Apache-2.0
#include "core/analyses/recompute_potentials.hpp"

#include <algorithm>
#include <memory>

#include "core/compile/cp_model.hpp"
#include "core/price/memory/memory_evaluator.hpp"
#include "core/price/price_memory.hpp"
#include "core/price/recompute/recompute_chooser.hpp"
#include "core/strategy/placement.hpp"

namespace ndsearch {

std::vector<RecomputePotential> recompute_potentials(const PluginRegistry& registry, Model& model,
                                                     const Device& device,
                                                     const SearchOptions& options,
                                                     const std::vector<PricedCandidate>& ranking,
                                                     size_t count) {
  std::vector<RecomputePotential> rows;
  count = std::min(count, ranking.size());
  if (count == 0) return rows;
  uint32_t max_pp = 1;
  bool any_cp = false;
  for (size_t i = 0; i < count; ++i) {
    max_pp = std::max<uint32_t>(max_pp, static_cast<uint32_t>(ranking[i].strategy.pp));
    any_cp = any_cp || ranking[i].strategy.cp > 1;
  }
  const MemoryPasses passes(registry, model, device);
  MemoryEvaluator memory(passes, max_pp);
  std::unique_ptr<CpModel> cp;
  if (any_cp)
    cp = std::make_unique<CpModel>(registry, model, device,
                                   CpModel::choose_algorithm(options.cp_algorithm, model));
  const CompiledModel compiled(model, device,
                               {options.overheads, options.calibration,
                                optimizer_swap_of(options.recompute, device, model.training)});
  const TimeModel time(compiled, cp.get());
  RecomputeSettings menu_only = options.recompute;
  menu_only.strategy.clear();  // the menu needs no strategy
  RecomputeChooser chooser(compiled, menu_only, nullptr, max_pp);
  std::vector<RankMemory> ranks;
  MemoryPricing pricing;
  Placement placement;
  for (size_t i = 0; i < count; ++i) {
    nds_strategy s = ranking[i].strategy;
    s.recompute = NDS_RECOMPUTE_NONE;
    place_layers_into(s, model, false, placement);
    price_memory(memory, cp.get(), model, placement.candidate(), ranks, pricing);
    if (!pricing.pass_refusal.empty() || !pricing.cp.refusal.empty()) continue;
    if (chooser.build_menu(placement, memory, time, options.budget.budget_bytes, pricing.cp.bytes,
                           ranks) != nullptr)
      continue;
    for (uint32_t r = 0; r < static_cast<uint32_t>(s.pp); ++r) {
      const nds_recompute_rank& rank = chooser.menu_rank(r);
      for (int32_t option : {NDS_LAYER_SELECTIVE, NDS_LAYER_FULL, NDS_LAYER_OFFLOAD}) {
        if (option == NDS_LAYER_OFFLOAD && rank.host_link_bytes_per_s <= 0) continue;
        RecomputePotential row{i + 1, r, option, 0, 0, 0};
        double copy_bytes = 0;
        for (uint32_t g = 0; g < rank.group_count; ++g) {
          const nds_recompute_group& group = rank.groups[g];
          row.layers += group.layers;
          row.saved_bytes += group.layers * group.option[option].saved_bytes;
          row.extra_s += group.layers * group.option[option].extra_s;
          copy_bytes += group.layers * group.offload_copy_bytes;
        }
        if (option == NDS_LAYER_FULL && row.layers > 0)
          row.saved_bytes -= rank.full_working_set_bytes;
        if (option == NDS_LAYER_OFFLOAD) {
          // The menu's forward and backward seconds are those that hide copies already.
          const OffloadCopies link{nullptr, rank.host_link_bytes_per_s, 1};
          row.extra_s = rank.micro_batches *
                        offload_exposed_s(copy_bytes, link, rank.forward_s, rank.backward_s);
        }
        rows.push_back(row);
      }
    }
  }
  return rows;
}

}  // namespace ndsearch
