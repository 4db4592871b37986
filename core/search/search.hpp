// SPDX-License-Identifier: Apache-2.0
// search.hpp: `ndsearch search`'s job (DESIGN §4): enumerate the space, refuse
// by the checks of DESIGN §8.2 (counted by reason), price the rest with the
// memory passes and the time model in threads, drop what does not fit the
// budget and rank by step time. The result is the same whatever the threads.
#pragma once

#include <ndsearch/nds_memory.h>
#include <ndsearch/nds_model.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <ndsearch/core/planner.hpp>  // kListedMisses
#include <ndsearch/core/search_progress.hpp>
#include "core/model/model.hpp"
#include "core/price/memory/budget.hpp"
#include "core/price/recompute/recompute_chooser.hpp"
#include "core/price/time/time_model.hpp"
#include "core/search/search_space.hpp"

namespace ndsearch {

class PluginRegistry;

struct SearchOptions {
  SearchSpace space;
  Budget budget;
  std::string cp_algorithm;  // empty: the config's, else ring
  unsigned threads = 1;
  size_t keep = 10;                           // how many of the ranking to keep (0: all that fit)
  size_t closest_misses = kListedMisses;      // how many dropped candidates to keep, closest first
  std::optional<TrainerOverheads> overheads;  // instead of the shipped fit (the validation's refit)
  Calibration calibration;                    // a user's, on top of the trainer overheads
  // A recompute strategy that chooses per layer for the candidates that do not
  // fit with every layer kept (recompute_settings.hpp); empty: uniform modes.
  RecomputeSettings recompute;
  // Choose each fitting candidate's layers per pipeline stage and chunk (all
  // schedules but DualPipe) to shorten its step within the budget
  // (balance_layers.hpp); false: the default split.
  bool balance_layers = false;
  // Where the search reports how far it is while it runs (a host's progress
  // line); nullptr: nowhere. Not owned; written from the pricing threads.
  SearchProgress* progress = nullptr;
};

struct PricedCandidate {
  nds_strategy strategy{};
  double peak_bytes = 0;  // the largest pipeline rank's
  std::array<double, NDS_MEMORY_TERM_COUNT_V1>
      peak_terms{};  // that rank's bytes by nds_memory_term
  TimeEstimate time;
  uint64_t index = 0;                  // enumeration order: the deterministic tie-break
  RecomputeSummary recompute;          // what a recompute strategy chose, when one did
  std::vector<uint32_t> stage_layers;  // --balance-layers' decoder layers per virtual stage
                                       // (chunk·pp + rank); empty: the default split
};

struct SearchCounts {
  uint64_t tested = 0;                      // every enumerated candidate (DESIGN §8.8)
  std::map<std::string, uint64_t> refused;  // by check id (and "memory-pass", "cp-<algo>")
  uint64_t priced = 0;
  uint64_t fit = 0;
  uint64_t dropped = 0;  // priced, over the budget
  // Over the budget with every layer kept and, so, left to a recompute
  // strategy, but already no faster kept than the keep-th best of its
  // (tp, pp, cp): recomputing could only slow it (search with every fitting
  // strategy kept to see them all).
  uint64_t outpaced = 0;
};

struct SearchResult {
  SearchCounts counts;
  std::vector<PricedCandidate>
      ranking;  // fastest first; equal times: smaller peak, then enumeration order
  std::vector<PricedCandidate> pareto;   // pareto_front of every fitting candidate
  std::vector<PricedCandidate> closest;  // dropped, smallest peak first
  // For the first five of `closest`: each single change that makes it fit
  // ("recompute=full: 61.20 GiB"), re-checked and re-priced; empty: none alone.
  std::vector<std::vector<std::string>> closest_fixes;
  std::vector<std::string> assumptions;  // of the time model, the same for every candidate
  SpaceBounds bounds;                    // what the space allowed (reference §3.4)
  double elapsed_s = 0;
};

// Throws UserError E-SEARCH-BATCH when no (tp, pp, cp, mbs) of the space can
// make the global batch (reference §3.2 batch_reachable), before any pricing.
SearchResult run_search(const PluginRegistry& registry, Model& model, const Device& device,
                        const SearchOptions& options);

// The candidates no other dominates (at least as fast and as small, and
// better in one; of exact twins the first enumerated stays), fastest first.
std::vector<PricedCandidate> pareto_front(std::vector<PricedCandidate> candidates);

// Orders by step time, then peak memory, then enumeration index.
bool ranks_before(const PricedCandidate& a, const PricedCandidate& b);

// Candidates tested per second of the search's run (0 when it took no time).
double candidates_per_s(const SearchResult& result);

// What a host lists of a search: the first `top` of the ranking and the first
// `misses` of the closest misses (0: all of them).
void keep_listed(SearchResult& result, size_t top, size_t misses);

}  // namespace ndsearch
