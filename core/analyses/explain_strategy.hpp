// SPDX-License-Identifier: Apache-2.0
// explain_strategy.hpp: one strategy explained: its evaluation, every check
// of DESIGN §8.2 with its outcome, and, given a search space, its rank among
// the fitting strategies of that search and why the faster ones win.
#pragma once

#include <ndsearch/nds_model.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/price/evaluate_strategy.hpp"
#include "core/search/search_request.hpp"
#include "core/strategy/checks.hpp"

namespace ndsearch {

struct ExplainRequest {
  EvaluationRequest evaluation;
  // The search to rank the strategy in, when its dimensions or restrictions
  // are given (its budget and CP algorithm are the evaluation's).
  SearchSpaceRequest space;
  size_t beaten_by = 3;  // how many faster strategies to compare with
  // Rank the strategy in a search even without dimensions or restrictions
  // (the default dimensions): explain of a config's own strategy.
  bool rank_by_default = false;
};

// A strategy that ranks ahead, and the time part where it saves the most.
struct FasterStrategy {
  size_t rank = 0;  // from 1
  nds_strategy strategy{};
  double step_s = 0;
  std::string reason;  // main_reason
};

struct StrategyRank {
  uint64_t fit = 0, tested = 0;  // of the search
  // Why the search's own bounds would leave the strategy out (it was added to rank it).
  std::vector<std::string> outside_bounds;
  // The search's restrictions (--only) that leave it out (it was not added).
  std::vector<std::string> left_out;
  // Why a strategy the space holds is not ranked: "over the budget: ..."; empty: ranked.
  std::string not_ranked;
  std::vector<std::string> best_changes;  // from the strategy to the fastest: "tp 8 -> 4"
  std::optional<size_t> rank;             // from 1; none when not among the fitting strategies
  std::vector<FasterStrategy> beaten_by;  // the fastest, then the one just ahead
};

struct StrategyExplanation {
  StrategyEvaluation evaluation;
  std::vector<CheckOutcome> checks;    // every check, in order
  std::optional<StrategyRank> search;  // with a search space, for a valid strategy
};

// The time part where `faster` saves the most over `self`: "dp 12.0 % vs
// 3.1 % of the step (0.210 s less)".
std::string main_reason(const TimeEstimate& self, const TimeEstimate& faster);

// Explain of the config's own strategy (no strategy given): the devices to
// rank it on, `devices` when given (non-zero), else a fast-tuner setup's,
// else the config's dp·tp·pp·cp.
// A config whose global batch follows its data parallelism (TorchTitan's
// local batch × dp) gets it from those devices: dp·mbs·mbn, said so in its
// provenance. Throws UserError E-EXPLAIN-NO-STRATEGY for a config that states
// no strategy (no degree, no micro-batch size: a Hugging Face config.json),
// E-USAGE for one that leaves its device count open when none is given.
uint64_t prepare_own_strategy(Model& model, uint64_t devices);

// Throws as evaluate_strategy does, as run_search does, and E-MISSING-VALUES
// for a strategy to rank without a device count or global batch. No devices
// requested: a fast-tuner setup's, if it states them.
StrategyExplanation explain_strategy(const PluginRegistry& registry, Model& model,
                                     const Machine& machine, const ExplainRequest& request);

}  // namespace ndsearch
