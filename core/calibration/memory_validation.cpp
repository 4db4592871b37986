// SPDX-License-Identifier: Apache-2.0
#include "core/calibration/memory_validation.hpp"

#include <fmt/format.h>
#include <ndsearch/sdk/units.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "core/calibration/published_csv.hpp"
#include "core/evaluate/evaluate_strategy.hpp"
#include "core/hardware/machine.hpp"
#include "core/model/parse_config.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

constexpr const char* kColumns[] = {"name",     "config",   "device",   "devices", "global_batch", "seq_len",
                                    "strategy", "peak_gib", "measures", "source"};
constexpr double kGiB = sdk::kBytesPerGiB;

std::vector<MemoryRow> read_file(const std::filesystem::path& file) {
  const PublishedCsv csv(file, std::vector<std::string>(std::begin(kColumns), std::end(kColumns)));
  std::vector<MemoryRow> rows;
  csv.read([&](int line, const std::vector<std::string>& f) {
    MemoryRow r;
    static_cast<PublishedRun&>(r) = csv.run(line, f);
    // A run whose peak is not published still ran: it must fit (both
    // columns empty).
    const bool published = !f[7].empty() || !f[8].empty();
    if (published) r.peak_bytes = csv.positive(f[7], "peak_gib", line) * kGiB;
    if (published && f[8] != "reserved" && f[8] != "allocated")
      csv.bad_row(line, fmt::format("column measures: '{}' is neither reserved nor allocated", f[8]));
    r.measures = f[8];
    r.cited = f[9];
    rows.push_back(r);
  });
  return rows;
}

}  // namespace

std::vector<MemoryRow> read_memory_rows(const std::filesystem::path& folder) {
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error)) return {};
  std::vector<MemoryRow> rows;
  for (const auto& file : PublishedCsv::files_of(folder)) {
    std::vector<MemoryRow> of_file = read_file(file);
    rows.insert(rows.end(), of_file.begin(), of_file.end());
  }
  return rows;
}

std::vector<MemoryRowResult> validate_memory(const PluginRegistry& registry, const DeviceCatalog& devices,
                                             const std::vector<MemoryRow>& rows) {
  std::vector<MemoryRowResult> results;
  for (const MemoryRow& row : rows) {
    ParseOptions options;
    options.overrides.seq_len = row.seq_len;
    options.overrides.global_batch = row.global_batch;
    Model model = parse_config(registry, row.config, options);
    const Machine machine = make_machine(devices, row.device, row.devices);
    EvaluationRequest request;
    request.strategy = row.strategy;
    request.devices = row.devices;
    const StrategyEvaluation e = evaluate_strategy(registry, model, machine, request);
    MemoryRowResult r;
    r.row = &row;
    if (!e.valid()) {
      r.refusal = e.refusal->id + ": " + e.refusal->reason;
      r.error = std::numeric_limits<double>::quiet_NaN();
    } else {
      r.predicted_bytes = static_cast<double>(e.peak_bytes);
      r.budget_bytes = e.budget.budget_bytes;
      r.fits = e.fits;
      r.error = row.peak_bytes > 0 ? r.predicted_bytes / row.peak_bytes - 1
                                   : std::numeric_limits<double>::quiet_NaN();
    }
    results.push_back(r);
  }
  return results;
}

std::string memory_markdown(const std::vector<MemoryRowResult>& results) {
  std::string out;
  std::map<std::string, std::vector<double>> by_source;  // |errors|
  std::string source;
  for (const MemoryRowResult& r : results) {
    if (r.row->source != source) {
      source = r.row->source;
      out += fmt::format(
          "\n### memory: {}\n\n| run | devices | strategy | measured peak | ndsearch | error | fits (budget) |\n"
          "|---|---:|---|---:|---:|---:|---|\n",
          source);
    }
    const MemoryRow& row = *r.row;
    const std::string measured = row.peak_bytes > 0
                                     ? fmt::format("{:.1f} GiB ({})", row.peak_bytes / kGiB, row.measures)
                                     : "not published (it ran)";
    if (!r.refusal.empty()) {
      out += fmt::format("| {} | {} | {} | {} | refused: {} | — | — |\n", row.name, row.devices, row.strategy,
                         measured, r.refusal);
      continue;
    }
    const std::string error = row.peak_bytes > 0 ? fmt::format("{:+.1f} %", 100 * r.error) : "—";
    out += fmt::format("| {} | {} | {} | {} | {:.1f} GiB | {} | {} ({:.1f} GiB) |\n", row.name, row.devices,
                       row.strategy, measured, r.predicted_bytes / kGiB, error, r.fits ? "yes" : "no",
                       r.budget_bytes / kGiB);
    if (row.peak_bytes > 0) by_source[row.source].push_back(std::abs(r.error));
  }
  if (by_source.empty()) return out;
  out += "\n| source | rows | mean abs peak error | largest abs peak error |\n|---|---:|---:|---:|\n";
  for (const auto& [name, errors] : by_source) {
    double sum = 0, largest = 0;
    for (double e : errors) sum += e, largest = std::max(largest, e);
    out += fmt::format("| {} | {} | {:.1f} % | {:.1f} % |\n", name, errors.size(),
                       100 * sum / static_cast<double>(errors.size()), 100 * largest);
  }
  return out;
}

}  // namespace ndsearch
