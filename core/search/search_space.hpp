// SPDX-License-Identifier: Apache-2.0
// search_space.hpp: the strategies `ndsearch search` enumerates: the loop nest
// and bounds of the reference (reference/nd_behaviour.md §3.2-3.4) over the
// dimensions searched (DESIGN §8.1), each restricted by --only.
#pragma once

#include <ndsearch/nds_model.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/model/model.hpp"

namespace ndsearch {

struct SearchSpace {
  uint64_t devices = 0;
  int64_t global_batch = 0;
  uint64_t pipeline_bound = 0;                       // the machine's (reference §3.7)
  std::set<std::string> searched;                    // "dp", "tp", ... (lower case)
  std::map<std::string, std::vector<int64_t>> only;  // --only: allowed values per key
  int64_t max_ep = 0;  // ep at most this (a fast-tuner setup's max_expert_parallel); 0: no bound
  // A strategy the space must hold (explain's, the config's own): its values
  // join the searched dimensions' lists (at its own tp, pp, cp for the rest)
  // unless --only leaves them out. Every key set.
  std::optional<nds_strategy> include;

  // -l "DP TP PP ..." (any case; MP = tp, MB = mbn; commas or spaces) and
  // --only "tp=2,4,8 pp=1,2" (several --only allowed). Throws UserError E-USAGE.
  static std::set<std::string> parse_dimensions(const std::string& text);
  static std::map<std::string, std::vector<int64_t>> parse_only(
      const std::vector<std::string>& items);
};

// The dimensions searched without -l (DESIGN §8.1).
std::set<std::string> default_dimensions();

// The most chunks per pipeline rank the search tries (reference §3.4).
inline constexpr int64_t kMaxInterleaving = 4;

// The bounds of reference §3.4 that the space applies to this model, in one
// place for the enumeration and for what a host shows of it.
struct SpaceBounds {
  int64_t kv_heads = 0;         // tp <= the fewest KV heads of a decoder block
  uint64_t pipeline_bound = 0;  // pp <= min(this (the machine's), layers, global_batch)
  int64_t layers = 0;           // the decoder layers
  int64_t global_batch = 0;
  int64_t routed_experts = 0;          // ep <= this; 0: a dense model, ep = 1
  int64_t max_ep = 0;                  // ep <= this too (SearchSpace::max_ep); 0: no bound
  int64_t max_vpp = kMaxInterleaving;  // vpp <= min(max_vpp, pp, layers / pp)
};
SpaceBounds space_bounds(const SearchSpace& space, const Model& model);

// The interleaving the search enumerates for `pp` stages of `layers` layers:
// 1..min(kMaxInterleaving, pp, layers / pp) (reference §3.4); {1} without a pipeline.
std::vector<int64_t> vpp_bound(int64_t pp, int64_t layers);

// The outer loop's (tp, pp, cp) triples, in order: the unit of work a thread
// takes. Each yields its candidates through enumerate_inner, in order.
struct OuterTriple {
  int32_t tp, pp, cp;
};
std::vector<OuterTriple> outer_triples(const SearchSpace& space, const Model& model);

// Calls `visit` for every candidate of one triple, in a fixed order; every
// key is set (not searched: the config's stated value, else DESIGN §8.1's
// default). Returns how many it visited.
uint64_t enumerate_inner(const SearchSpace& space, const Model& model, const OuterTriple& triple,
                         const std::function<void(const nds_strategy&)>& visit);

// Why the space without `space.include` leaves `s` out, one line per key:
// outside its bound ("vpp=4: outside the bound vpp <= min(4, pp, layers / pp)
// = 2"; `include` adds those), or left out by --only (which stays so).
struct Exclusions {
  std::vector<std::string> bounds;
  std::vector<std::string> restrictions;
};
Exclusions excluded_by(const SearchSpace& space, const Model& model, const nds_strategy& s);

}  // namespace ndsearch
