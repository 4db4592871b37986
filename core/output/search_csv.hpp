// SPDX-License-Identifier: Apache-2.0
// search_csv.hpp: the search's CSV files (docs/cli.md): the ranking (every
// fitting strategy, rank order), the dropped candidates (smallest miss first)
// and, at -v 3, every priced candidate's memory terms and time parts.
#pragma once

#include <ostream>
#include <vector>

#include "core/analyses/recompute_potentials.hpp"
#include "core/search/search.hpp"

namespace ndsearch {

// rank, the strategy keys, the peak rank's bytes by term, step and parts, MFU, HFU, tokens/s.
void write_ranking_csv(std::ostream& out, const std::vector<PricedCandidate>& ranking);
// The strategy keys, peak_bytes, miss_bytes and the peak rank's bytes by term.
void write_dropped_csv(std::ostream& out, const std::vector<PricedCandidate>& dropped,
                       double budget_bytes);
// rank, stage, option, layers, saved_bytes, extra_s: each recompute option on
// every layer of each stage of the top strategies, against every layer kept.
void write_potentials_csv(std::ostream& out, const std::vector<RecomputePotential>& rows);
// Every priced candidate in enumeration order: fits (with time) and dropped (time empty).
void write_priced_csv(std::ostream& out, const SearchResult& result, double budget_bytes);

}  // namespace ndsearch
