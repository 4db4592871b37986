// SPDX-License-Identifier: Apache-2.0
#include "core/output/compare_json.hpp"

#include <cmath>

#include "core/output/schema_version.hpp"

namespace ndsearch {

nlohmann::json number_or_null(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

nlohmann::json metrics_json(const CompareMetrics& m) {
  nlohmann::json parts = nlohmann::json::object();
  for (const PartMetrics& p : m.parts)
    parts[p.name] = {{"runs", p.runs},
                     {"pearson", number_or_null(p.pearson)},
                     {"mean_abs_error_s", number_or_null(p.mean_abs_error_s)},
                     {"mape", number_or_null(p.mape)},
                     {"mape_runs", p.mape_runs}};
  return {{"mape", number_or_null(m.mape)},
          {"mean_error", number_or_null(m.mean_error)},
          {"pearson", number_or_null(m.pearson)},
          {"spearman", number_or_null(m.spearman)},
          {"top_k", m.top_k},
          {"top1_regret", number_or_null(m.top1_regret)},
          {"parts", parts}};
}

nlohmann::json compare_json(const ComparedRuns& c) {
  using nlohmann::json;
  json runs = json::array();
  for (const ComparedRun& run : c.runs) {
    json parts = json::object();
    for (const auto& [name, seconds] : run.measured.parts) {
      auto predicted = run.predicted_parts_s.find(name);
      parts[name] = {
          {"measured_s", seconds},
          {"predicted_s",
           predicted == run.predicted_parts_s.end() ? json(nullptr) : json(predicted->second)}};
    }
    json scored = {{"error", nullptr}, {"measured_rank", nullptr}, {"predicted_rank", nullptr}};
    if (run.metric_index) {
      const RunScore& score = c.metrics.runs[*run.metric_index];
      scored = {{"error", number_or_null(score.error)},
                {"measured_rank", score.measured_rank},
                {"predicted_rank", score.predicted_rank}};
    }
    runs.push_back(
        {{"line", run.measured.line},
         {"strategy", run.measured.strategy},
         {"resolved", run.strategy},
         {"measured_s", run.measured.step_s},
         {"predicted_s", run.predicted_s ? json(*run.predicted_s) : json(nullptr)},
         {"error", scored["error"]},
         {"measured_rank", scored["measured_rank"]},
         {"predicted_rank", scored["predicted_rank"]},
         {"fits", run.fits},
         {"memory_miss", run.memory_miss ? json(run.memory_miss->reason) : json(nullptr)},
         {"adapted", run.adapted},
         {"measured_peak_bytes",
          run.measured.peak_bytes ? json(*run.measured.peak_bytes) : json(nullptr)},
         {"predicted_peak_bytes",
          run.predicted_peak_bytes ? json(*run.predicted_peak_bytes) : json(nullptr)},
         {"peak_error", run.peak_error ? number_or_null(*run.peak_error) : json(nullptr)},
         {"refused", run.refused ? json({{"id", run.refused->id}, {"reason", run.refused->reason}})
                                 : json(nullptr)},
         {"parts", parts}});
  }
  json skipped = json::array();
  for (const MeasuredDiagnostic& d : c.skipped)
    skipped.push_back(
        {{"line", d.line}, {"column", d.column}, {"value", d.value}, {"reason", d.reason}});
  return {{"schema_version", kSchemaVersion},
          {"model", c.model_name},
          {"device", c.device_id},
          {"measured", c.measured_file.string()},
          {"format", measured_format_name(c.format)},
          {"runs", runs},
          {"skipped", skipped},
          {"priced", c.priced()},
          {"metrics", metrics_json(c.metrics)},
          {"peaks",
           {{"runs", c.peaks.runs},
            {"mape", number_or_null(c.peaks.mape)},
            {"mean_error", number_or_null(c.peaks.mean_error)}}}};
}

}  // namespace ndsearch
