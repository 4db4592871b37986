// SPDX-License-Identifier: Apache-2.0
#include "core/analyses/explain_strategy.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>
#include <ndsearch/sdk/units.hpp>

#include <limits>

#include "core/input/fast_tuner_setup.hpp"
#include "core/model/pricing_values.hpp"
#include "core/search/search.hpp"
#include "core/search/search_space.hpp"
#include "core/strategy/degree_product.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

// The positions listed as beating `position`: the fastest `most` - 1, then the one just ahead.
std::vector<size_t> ahead_of(size_t position, size_t most) {
  std::vector<size_t> ahead;
  for (size_t i = 0; i < position && ahead.size() + 1 < most; ++i) ahead.push_back(i);
  if (position > 0 && (ahead.empty() || ahead.back() != position - 1))
    ahead.push_back(position - 1);
  return ahead;
}

// Runs the search the request describes and places `s` among its fitting strategies.
StrategyRank rank_in_search(const PluginRegistry& registry, Model& model, const Machine& machine,
                            const ExplainRequest& request, const nds_strategy& s) {
  SearchRequest search;
  search.space = request.space;
  search.max_memory = request.evaluation.max_memory;
  search.reserve_mem = request.evaluation.reserve_mem;
  search.cp_algorithm = request.evaluation.cp_algorithm;
  search.recompute = request.evaluation.recompute;
  SearchOptions options = search_options(model, machine, search);
  // The space always holds the strategy explained; say which bound would not.
  const nds_strategy normal = normalized_strategy(s, model);
  options.space.include = normal;
  options.calibration = request.evaluation.calibration;  // ranked as the strategy is priced
  options.keep = 0;  // every fitting strategy: the rank is a position among them
  options.closest_misses = kListedMisses;
  const SearchResult r = run_search(registry, model, *machine.device, options);
  StrategyRank out;
  out.fit = r.counts.fit;
  out.tested = r.counts.tested;
  Exclusions excluded = excluded_by(options.space, model, normal);
  out.outside_bounds = std::move(excluded.bounds);
  out.left_out = std::move(excluded.restrictions);
  if (!r.ranking.empty())
    out.best_changes =
        strategy_changes(normal, normalized_strategy(r.ranking.front().strategy, model));
  size_t position = r.ranking.size();
  for (size_t i = 0; i < r.ranking.size() && position == r.ranking.size(); ++i)
    if (same_keys(normalized_strategy(r.ranking[i].strategy, model), normal)) position = i;
  if (position == r.ranking.size()) return out;
  out.rank = position + 1;
  for (size_t i : ahead_of(position, request.beaten_by))
    out.beaten_by.push_back({i + 1, r.ranking[i].strategy, r.ranking[i].time.step_s,
                             main_reason(r.ranking[position].time, r.ranking[i].time)});
  return out;
}

}  // namespace

std::string main_reason(const TimeEstimate& self, const TimeEstimate& faster) {
  size_t best = 0;
  double most = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < kTimeParts.size(); ++i) {
    const double saving = self.parts.*kTimeParts[i].second - faster.parts.*kTimeParts[i].second;
    if (saving > most) {
      most = saving;
      best = i;
    }
  }
  const auto& [name, member] = kTimeParts[best];
  return fmt::format("{} {:.1f} % vs {:.1f} % of the step ({:.3f} s less)", name,
                     100 * self.parts.*member / self.step_s,
                     100 * faster.parts.*member / faster.step_s, most);
}

uint64_t prepare_own_strategy(Model& model, uint64_t devices) {
  const nds_strategy& s = model.stated;
  bool states = false;
  for (int32_t v : {s.dp, s.tp, s.pp, s.cp, s.ep, s.vpp, s.mbs})
    states = states || v != NDS_UNKNOWN;
  if (!states)
    throw UserError(
        "E-EXPLAIN-NO-STRATEGY",
        fmt::format(
            "{} states no strategy (a Hugging Face config.json names no degrees): give one in {}, "
            "e.g. \"tp=8,pp=2\", or search for one",
            model.file, Setting("strategy").named()));
  devices = run_devices(model, devices);  // given, else a fast-tuner setup's
  if (devices == 0) devices = stated_devices(model);
  if (devices == 0)
    throw UserError(
        "E-USAGE",
        fmt::format("{} leaves its device count to the launch (its data parallelism follows "
                    "the devices); set {}",
                    model.file, Setting("devices").named()));
  // A global batch that follows dp (local batch × dp): from these devices.
  if (model.training.global_batch == NDS_UNKNOWN && s.mbs != NDS_UNKNOWN && s.mbn != NDS_UNKNOWN) {
    const int32_t dp = resolve_strategy(unset_strategy(), model, devices, NDS_UNKNOWN).dp;
    if (dp != NDS_UNKNOWN) {
      model.training.global_batch = degree_product({dp, s.mbs, s.mbn});
      model.training_provenance["global_batch"] =
          fmt::format("derived: dp·mbs·mbn = {}·{}·{} (the config's micro-batches on {} devices)",
                      dp, s.mbs, s.mbn, devices);
    }
  }
  return devices;
}

StrategyExplanation explain_strategy(const PluginRegistry& registry, Model& model,
                                     const Machine& given_machine, const ExplainRequest& given) {
  // No devices given: a fast-tuner setup's, on the machine and in the search too.
  ExplainRequest request = given;
  Machine machine = given_machine;
  request.evaluation.devices = run_devices(model, given.evaluation.devices);
  if (given.evaluation.devices == 0 && request.evaluation.devices != 0)
    machine.devices = request.evaluation.devices;
  const uint64_t devices = request.evaluation.devices;
  const bool ranked =
      request.rank_by_default || !request.space.dimensions.empty() || !request.space.only.empty();
  // A search to rank in needs the devices and the global batch as well.
  if (ranked)
    require_pricing_values(
        model, {.devices_missing = devices == 0,
                .global_batch_missing = model.training.global_batch == NDS_UNKNOWN,
                .why = fmt::format("explain with {} or {} ranks the strategy in a search",
                                   Setting("dimensions").named(), Setting("only").named())});
  StrategyExplanation x;
  x.evaluation = evaluate_strategy(registry, model, machine, request.evaluation);
  x.checks = run_checks(x.evaluation.strategy, model, devices, model.training.global_batch);
  if (ranked && x.evaluation.valid()) {
    x.search = rank_in_search(registry, model, machine, request, x.evaluation.strategy);
    if (!x.search->rank && x.search->left_out.empty())
      x.search->not_ranked =
          x.evaluation.fits
              ? "the search refuses it (its checks on the search's devices and batch)"
              : fmt::format(
                    "over the budget: peak {:.2f} GiB of {:.2f} GiB",
                    static_cast<double>(x.evaluation.peak_bytes) / sdk::kBytesPerGiB,
                    static_cast<double>(x.evaluation.budget.budget_bytes) / sdk::kBytesPerGiB);
  }
  return x;
}

}  // namespace ndsearch
