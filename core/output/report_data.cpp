// SPDX-License-Identifier: Apache-2.0
#include "core/output/report_data.hpp"

#include <algorithm>
#include <sstream>

#include "core/model/strategy_keys.hpp"
#include "core/output/evaluation_json.hpp"
#include "core/output/search_json.hpp"
#include "core/output/timeline_json.hpp"
#include "core/price/evaluate_strategy.hpp"
#include "core/price/recompute/recompute_summary.hpp"
#include "core/price/time/time_model.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {

using nlohmann::json;

json report_vocabulary() {
  json keys = json::array(), parts = json::array(), terms = json::array();
  for (const StrategyKey& k : kStrategyKeys) keys.push_back(k.name);
  for (const auto& [name, member] : kTimeParts) parts.push_back(name);
  for (const auto& [key, term] : kStageMemoryTerms) terms.push_back(key);
  return {{"strategy_keys", keys}, {"parts", parts}, {"memory_terms", terms}};
}

FitSample sample_fits(const std::vector<PricedCandidate>& ranking, size_t max_points) {
  FitSample sample;
  sample.fits = ranking.size();
  if (max_points == 0 || ranking.empty()) return sample;
  sample.stride = (ranking.size() + max_points - 1) / max_points;
  sample.points.reserve(ranking.size() / sample.stride + 1);
  for (size_t i = 0; i < ranking.size(); i += sample.stride)
    sample.points.push_back({ranking[i].time.step_s, ranking[i].peak_bytes});
  return sample;
}

json potentials_json(const std::vector<RecomputePotential>& rows) {
  json out = json::array();
  for (const RecomputePotential& p : rows)
    out.push_back({{"rank", p.rank},
                   {"stage", p.stage},
                   {"option", layer_option_name(p.option)},
                   {"layers", p.layers},
                   {"saved_bytes", p.saved_bytes},
                   {"extra_s", p.extra_s}});
  return out;
}

json report_timeline(const StrategyEvaluation& evaluation, size_t max_slices) {
  if (!evaluation.valid())
    return {{"timeline_note", "the strategy is refused by a check: it has no step to draw"}};
  json trace;
  try {
    trace = timeline_json(evaluation);
  } catch (const UserError&) {  // a schedule priced in closed form
    return {{"timeline_note",
             "the strategy's schedule (zb-v, DualPipe or DualPipe-V) is priced in closed form, "
             "not simulated: there is no timeline to draw"}};
  }
  // Chrome's trace events are in microseconds, with a metadata event naming each track.
  json tracks = json::array(), kinds = json::array(), slices = json::array();
  std::vector<std::string> kind_names;
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      const size_t tid = e["tid"].get<size_t>();
      if (tracks.size() <= tid) tracks.insert(tracks.end(), tid + 1 - tracks.size(), "");
      tracks[tid] = e["args"]["name"];
      continue;
    }
    if (e["ph"] != "X") continue;
    // The step's own work (dp, optimizer, overhead) is one category: its name tells them apart.
    const std::string kind =
        e["cat"] == "step" ? e["name"].get<std::string>() : e["cat"].get<std::string>();
    auto at = std::find(kind_names.begin(), kind_names.end(), kind);
    if (at == kind_names.end()) at = kind_names.insert(kind_names.end(), kind);
    const json& args = e["args"];
    slices.push_back({e["tid"], at - kind_names.begin(), 1e-6 * e["ts"].get<double>(),
                      1e-6 * e["dur"].get<double>(), args.value("micro_batch", -1),
                      args.value("chunk", -1)});
  }
  for (const std::string& k : kind_names) kinds.push_back(k);
  json timeline = {{"tracks", tracks},
                   {"kinds", kinds},
                   {"step_s", trace["otherData"]["simulated_step_s"]},
                   {"slices_in_step", slices.size()}};
  if (slices.size() > max_slices) {
    // The passes by start, then the step's own work (micro-batch -1) whole.
    std::vector<json> passes, own;
    for (json& slice : slices)
      (slice[4].get<int64_t>() < 0 ? own : passes).push_back(std::move(slice));
    std::stable_sort(passes.begin(), passes.end(), [](const json& a, const json& b) {
      return a[2].get<double>() < b[2].get<double>();
    });
    const size_t kept = max_slices > own.size() ? max_slices - own.size() : 0;
    json cut = json::array();
    for (size_t i = 0; i < kept && i < passes.size(); ++i) cut.push_back(std::move(passes[i]));
    if (kept < passes.size()) timeline["cut_at_s"] = passes[kept][2];
    for (json& slice : own) cut.push_back(std::move(slice));
    slices = std::move(cut);
  }
  timeline["slices"] = std::move(slices);
  return {{"timeline", std::move(timeline)}};
}

json search_report_data(const PluginRegistry& registry, Model& model, const Machine& machine,
                        const SearchRequest& request, const SearchOptions& options,
                        const SearchResult& listed, const SearchReportParts& parts) {
  // The listed rows and the Pareto set; not the closest misses, which -o
  // keeps every one of (dropped.csv has them) and no chart draws.
  SearchResult shown;
  shown.counts = listed.counts;
  shown.ranking = listed.ranking;
  shown.pareto = listed.pareto;
  shown.assumptions = listed.assumptions;
  shown.bounds = listed.bounds;
  shown.elapsed_s = listed.elapsed_s;
  std::ostringstream document;
  write_search_json(document, registry, model, machine, request, options, shown);
  json points = json::array();
  for (const auto& [step_s, peak_bytes] : parts.sample.points)
    points.push_back({step_s, peak_bytes});
  json data = {{"kind", "search"},
               {"vocabulary", report_vocabulary()},
               {"header", parts.header},
               {"search", json::parse(document.str())},
               {"sample",
                {{"fits", parts.sample.fits},
                 {"stride", parts.sample.stride},
                 {"points", std::move(points)}}},
               {"potentials", potentials_json(parts.potentials)}};
  if (listed.ranking.empty()) {
    data["timeline_note"] = "no strategy fits: there is no best strategy to draw";
  } else {
    const EvaluationRequest best =
        listed_evaluation_request(listed.ranking.front(), machine, request, options);
    data.update(report_timeline(evaluate_strategy(registry, model, machine, best)));
  }
  return data;
}

json explain_report_data(const PluginRegistry& registry, Model& model, const Machine& machine,
                         const ExplainRequest& request, const StrategyExplanation& explanation,
                         const json& explanation_document, const std::vector<std::string>& header) {
  json data = {{"kind", "explain"},
               {"vocabulary", report_vocabulary()},
               {"header", header},
               {"explain", explanation_document},
               {"potentials", json::array()}};
  const StrategyEvaluation& evaluation = explanation.evaluation;
  data.update(report_timeline(evaluation));
  if (!evaluation.valid()) return data;
  // Measured as a search measures its top strategies: its own recompute set
  // aside, every layer kept, under the evaluation's budget.
  SearchOptions options;
  options.budget = evaluation.budget;
  options.cp_algorithm = request.evaluation.cp_algorithm;
  options.calibration = request.evaluation.calibration;
  options.recompute = request.evaluation.recompute;
  PricedCandidate candidate;
  candidate.strategy = evaluation.strategy;
  data["potentials"] = potentials_json(
      recompute_potentials(registry, model, *machine.device, options, {candidate}, 1));
  return data;
}

}  // namespace ndsearch
