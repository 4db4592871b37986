// SPDX-License-Identifier: Apache-2.0
#include "core/calibration/memory_validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>

#include "core/evaluate/evaluate_strategy.hpp"
#include "core/hardware/machine.hpp"
#include "core/model/parse_config.hpp"
#include "core/support/csv.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

constexpr const char* kColumns[] = {"name",     "config",   "device",   "devices", "global_batch", "seq_len",
                                    "strategy", "peak_gib", "measures", "source"};
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

[[noreturn]] void bad_row(const std::filesystem::path& file, int line, const std::string& what) {
  throw UserError("E-VALIDATION-CSV", fmt::format("{}:{}: {}; each row needs the columns {}", file.string(), line,
                                                  what, fmt::join(kColumns, ",")));
}

int64_t whole(const std::string& text, const char* column, const std::filesystem::path& file, int line) {
  int64_t v = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (error != std::errc() || end != text.data() + text.size() || v <= 0 || v > INT32_MAX)
    bad_row(file, line, fmt::format("column {}: '{}' is not a whole number from 1 to {}", column, text, INT32_MAX));
  return v;
}

std::vector<MemoryRow> read_file(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw UserError("E-VALIDATION-CSV", fmt::format("{}: cannot be read", file.string()));
  std::vector<MemoryRow> rows;
  std::string text;
  int line = 0;
  bool header = true;
  while (std::getline(in, text)) {
    ++line;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.empty() || text[0] == '#') continue;
    const std::vector<std::string> f = split_csv_line(text);
    if (header) {
      if (f != std::vector<std::string>(std::begin(kColumns), std::end(kColumns)))
        bad_row(file, line, "the header is not the expected one");
      header = false;
      continue;
    }
    if (f.size() != std::size(kColumns))
      bad_row(file, line, fmt::format("{} columns instead of {}", f.size(), std::size(kColumns)));
    MemoryRow r;
    r.source = file.stem().string();
    r.line = line;
    r.name = f[0];
    r.config = file.parent_path() / f[1];
    r.device = f[2];
    r.devices = static_cast<uint64_t>(whole(f[3], "devices", file, line));
    r.global_batch = whole(f[4], "global_batch", file, line);
    r.seq_len = whole(f[5], "seq_len", file, line);
    r.strategy = f[6];
    double gib = 0;
    const auto [end, error] = std::from_chars(f[7].data(), f[7].data() + f[7].size(), gib);
    if (error != std::errc() || end != f[7].data() + f[7].size() || !std::isfinite(gib) || gib <= 0)
      bad_row(file, line, fmt::format("column peak_gib: '{}' is not a positive number of GiB", f[7]));
    r.peak_bytes = gib * kGiB;
    if (f[8] != "reserved" && f[8] != "allocated")
      bad_row(file, line, fmt::format("column measures: '{}' is neither reserved nor allocated", f[8]));
    r.measures = f[8];
    r.cited = f[9];
    rows.push_back(r);
  }
  return rows;
}

}  // namespace

std::vector<MemoryRow> read_memory_rows(const std::filesystem::path& folder) {
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error)) return {};
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.path().extension() == ".csv") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<MemoryRow> rows;
  for (const auto& file : files) {
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
      r.error = r.predicted_bytes / row.peak_bytes - 1;
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
    if (!r.refusal.empty()) {
      out += fmt::format("| {} | {} | {} | {:.1f} GiB ({}) | refused: {} | — | — |\n", row.name, row.devices,
                         row.strategy, row.peak_bytes / kGiB, row.measures, r.refusal);
      continue;
    }
    out += fmt::format("| {} | {} | {} | {:.1f} GiB ({}) | {:.1f} GiB | {:+.1f} % | {} ({:.1f} GiB) |\n", row.name,
                       row.devices, row.strategy, row.peak_bytes / kGiB, row.measures, r.predicted_bytes / kGiB,
                       100 * r.error, r.fits ? "yes" : "no", r.budget_bytes / kGiB);
    by_source[row.source].push_back(std::abs(r.error));
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
