// SPDX-License-Identifier: Apache-2.0
#include "core/output/compare_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "core/support/csv.hpp"

namespace ndsearch {
namespace {

// "" of a missing or non-finite value (a metric that cannot be computed).
std::string number_cell(std::optional<double> value) {
  return value && std::isfinite(*value) ? fmt::format("{}", *value) : std::string();
}

std::optional<double> find_part(const std::vector<std::pair<std::string, double>>& parts,
                                const std::string& name) {
  for (const auto& [part, seconds] : parts)
    if (part == name) return seconds;
  return std::nullopt;
}

std::optional<double> find_part(const std::map<std::string, double>& parts,
                                const std::string& name) {
  auto it = parts.find(name);
  return it == parts.end() ? std::nullopt : std::optional<double>(it->second);
}

std::string run_row(const ComparedRuns& c, const ComparedRun& run,
                    const std::vector<std::string>& part_names) {
  std::optional<double> error;
  std::string measured_rank, predicted_rank;
  if (run.metric_index) {
    const RunScore& score = c.metrics.runs[*run.metric_index];
    error = score.error;
    measured_rank = fmt::format("{}", score.measured_rank);
    predicted_rank = fmt::format("{}", score.predicted_rank);
  }
  std::string row =
      fmt::format("{},{},{},{},{},{},{},{},{},{}", run.measured.line,
                  csv_field(run.measured.strategy), number_cell(run.measured.step_s),
                  number_cell(run.predicted_s), number_cell(error), measured_rank, predicted_rank,
                  run.fits ? 1 : 0, run.refused ? csv_field(run.refused->id) : std::string(),
                  run.refused ? csv_field(run.refused->reason) : std::string());
  for (const std::string& name : part_names)
    row += fmt::format(",{},{}", number_cell(find_part(run.measured.parts, name)),
                       number_cell(find_part(run.predicted_parts_s, name)));
  return row;
}

}  // namespace

std::vector<std::string> measured_part_names(const ComparedRuns& c) {
  std::vector<std::string> order{"compute"};
  for (const auto& [name, member] : kTimeParts) order.emplace_back(name);
  order.emplace_back("idle");
  std::vector<std::string> names;
  for (const std::string& name : order) {
    const bool measured = std::any_of(c.runs.begin(), c.runs.end(), [&](const ComparedRun& run) {
      return find_part(run.measured.parts, name).has_value();
    });
    if (measured) names.push_back(name);
  }
  return names;
}

void write_compare_csv(std::ostream& out, const ComparedRuns& c) {
  const std::vector<std::string> part_names = measured_part_names(c);
  out << "line,strategy,measured_s,predicted_s,error,measured_rank,predicted_rank,fits,refused_id,"
         "refused_reason";
  for (const std::string& name : part_names)
    out << fmt::format(",measured_{0}_s,predicted_{0}_s", name);
  out << "\n";
  for (const ComparedRun& run : c.runs) out << run_row(c, run, part_names) << "\n";
}

}  // namespace ndsearch
