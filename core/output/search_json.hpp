// SPDX-License-Identifier: Apache-2.0
// search_json.hpp: the search's JSON document (docs/cli.md), written row by
// row so that memory does not grow with the rows listed: each listed
// strategy with its stages priced by evaluate_strategy, the closest misses,
// the counts by reason.
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>

#include "core/input/machine.hpp"
#include "core/model/model.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/price/evaluate_strategy.hpp"
#include "core/search/search.hpp"
#include "core/search/search_request.hpp"

namespace ndsearch {

// A listed strategy: rank, strategy, memory {peak_bytes}, time, MFU, HFU, tokens/s.
nlohmann::json candidate_json(size_t rank, const PricedCandidate& c);
// A dropped one: strategy, peak_bytes and miss_bytes over `budget_bytes`.
nlohmann::json miss_json(const PricedCandidate& c, double budget_bytes);

// The request that prices a listed strategy again as eval prices it (its
// stages, its timeline): its recompute strategy's choice made again from
// every layer kept, its layer split, the search's budget and calibration.
EvaluationRequest listed_evaluation_request(const PricedCandidate& c, const Machine& machine,
                                            const SearchRequest& request,
                                            const SearchOptions& options);

// The document of `result`, run with `options` from `request` on `machine`:
// the ranking's and Pareto set's rows with their stages (each priced again
// by evaluate_strategy: the search keeps only the peak rank's terms). A
// failure part-way ends the document with an "error" member and is rethrown
// (write_json_object).
void write_search_json(std::ostream& out, const PluginRegistry& registry, Model& model,
                       const Machine& machine, const SearchRequest& request,
                       const SearchOptions& options, const SearchResult& result);

}  // namespace ndsearch
