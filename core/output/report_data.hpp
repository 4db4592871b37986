// SPDX-License-Identifier: Apache-2.0
// report_data.hpp: the data of the HTML reports (html_report.hpp,
// docs/report.md). A search's: its JSON document (the listed strategies with
// their stages, the Pareto set, the counts by reason), a sample of every
// fitting strategy for the time–memory chart, the best strategy's pipeline
// timeline and the top strategies' recompute potentials. One strategy's
// (explain): its explanation, timeline and recompute potentials.
#pragma once

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/analyses/explain_strategy.hpp"
#include "core/analyses/recompute_potentials.hpp"
#include "core/input/machine.hpp"
#include "core/model/model.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/price/evaluate_strategy.hpp"
#include "core/search/search.hpp"
#include "core/search/search_request.hpp"

namespace ndsearch {

// Of a million fitting strategies the chart draws at most this many points:
// 4000 points keep the page near 200 kB of data and draw in well under a
// second, and still show the cloud's shape; the Pareto set is drawn whole.
constexpr size_t kReportSamplePoints = 4000;

// The fitting strategies the time–memory chart draws: all of them when they
// are at most `max_points`, else every `stride`-th in rank order (the first,
// the fastest, always), so the sample spans the ranking evenly and is the
// same whatever the threads.
struct FitSample {
  uint64_t fits = 0;
  uint64_t stride = 1;
  std::vector<std::array<double, 2>> points;  // {step_s, peak_bytes}
};
FitSample sample_fits(const std::vector<PricedCandidate>& ranking,
                      size_t max_points = kReportSamplePoints);

// What a report's charts need beside the search itself.
struct SearchReportParts {
  std::vector<std::string>
      header;        // the lines above the host's table (model, budget, assumptions, ...)
  FitSample sample;  // taken before the ranking is cut to the listed rows
  std::vector<RecomputePotential> potentials;
};

// The report's data: {"kind": "search", "vocabulary", "header", "search" (write_search_json's
// document of `listed`), "sample", "potentials", "timeline" (the first
// strategy's, Chrome trace events) or "timeline_note" (why there is none)}.
nlohmann::json search_report_data(const PluginRegistry& registry, Model& model,
                                  const Machine& machine, const SearchRequest& request,
                                  const SearchOptions& options, const SearchResult& listed,
                                  const SearchReportParts& parts);

// The names the page's script reads the data by, from the tables the JSON
// is written from: {"strategy_keys" (dp ... mbn, recompute, schedule),
// "parts" (the exposed parts of the step, kTimeParts), "memory_terms" (a
// stage's keys, kStageMemoryTerms)}.
nlohmann::json report_vocabulary();

// The potentials as the report's rows: rank, stage, option (its name),
// layers, saved_bytes, extra_s.
nlohmann::json potentials_json(const std::vector<RecomputePotential>& rows);

// A timeline of more slices than this keeps the first ones by start and the
// step's own work (dp, optimizer, overhead), and says where it was cut:
// 20000 bars draw in about a second, and a schedule of 16 stages, 4 chunks
// and 256 micro-batches has 49152 passes, more than a reader can tell apart.
constexpr size_t kReportTimelineSlices = 20000;

// The timeline of an evaluated strategy for a report: {"timeline": {"tracks"
// (a name per pipeline rank), "kinds" (forward, recompute, backward, pp: the
// exposed sends, dp, optimizer, step overhead, as they occur), "slices" ([track, kind,
// start_s, dur_s, micro_batch, chunk]; -1 for the step's own work),
// "step_s", "slices_in_step", and "cut_at_s" when cut}} from timeline_json's trace events, or,
// where the schedule is not simulated or the strategy not priced, {"timeline_note": why}.
nlohmann::json report_timeline(const StrategyEvaluation& evaluation,
                               size_t max_slices = kReportTimelineSlices);

// The report's data of one strategy: {"kind": "explain", "vocabulary", "header", "explain"
// (explanation_json's document, with the calibration the host added),
// "potentials", and "timeline" or "timeline_note"}.
nlohmann::json explain_report_data(const PluginRegistry& registry, Model& model,
                                   const Machine& machine, const ExplainRequest& request,
                                   const StrategyExplanation& explanation,
                                   const nlohmann::json& explanation_document,
                                   const std::vector<std::string>& header);

}  // namespace ndsearch
