// SPDX-License-Identifier: Apache-2.0
// search_text.hpp: a search as `search` prints it: what it stands on (the
// header), the ranking table, the Pareto set when asked, the counts, the
// closest misses when asked, the time it took; and, when nothing fits, the
// error that says how close it came.
#pragma once

#include <ndsearch/core/planner.hpp>
#include <ndsearch/core/results.hpp>

#include <ostream>
#include <string>
#include <vector>

#include "core/input/machine.hpp"
#include "core/model/model.hpp"
#include "core/search/search.hpp"
#include "core/search/search_request.hpp"

namespace ndsearch {

// A priced search and what it was asked: the listed rows in `result`.
struct SearchTextInput {
  const Model& model;
  const Machine& machine;
  const SearchRequest& request;
  const SearchOptions& options;
  const SearchResult& result;
};

void write_search_text(std::ostream& out, const SearchTextInput& search,
                       const SearchTableSettings& table, const TextSettings& text);

// E-SEARCH-NO-FIT (exit 3): how many were priced, the budget, the closest
// misses with what makes each fit, and the other ways out.
UserError search_no_fit(const SearchResult& result, double budget_bytes);

}  // namespace ndsearch
