// SPDX-License-Identifier: Apache-2.0
#include "core/validation/memory_validation.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <ndsearch/sdk/units.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "core/compile/allocator_share.hpp"
#include "core/input/machine.hpp"
#include "core/input/parse_config.hpp"
#include "core/price/evaluate_strategy.hpp"
#include "core/support/least_squares.hpp"
#include "core/support/user_error.hpp"
#include "core/validation/published_csv.hpp"

namespace ndsearch {
namespace {

constexpr const char* kColumns[] = {"name",    "config",   "device",   "devices",  "global_batch",
                                    "seq_len", "strategy", "peak_gib", "measures", "source"};
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
      csv.bad_row(line,
                  fmt::format("column measures: '{}' is neither reserved nor allocated", f[8]));
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

namespace {

// One row parsed once, priced at any allocator share.
class MemoryRowPricer {
 public:
  MemoryRowPricer(const PluginRegistry& registry, const DeviceCatalog& devices,
                  const MemoryRow& row)
      : registry_(&registry), row_(&row), machine_(make_machine(devices, row.device, row.devices)) {
    ParseOptions options;
    options.overrides.seq_len = row.seq_len;
    options.overrides.global_batch = row.global_batch;
    model_ = parse_config(registry, row.config, options);
  }

  const MemoryRow& row() const { return *row_; }
  std::string runtime() const { return allocator_runtime(trainer_family(model_)); }
  // Fitted on: a measured reserved peak, in a file not kept for checking.
  bool fittable() const {
    return row_->peak_bytes > 0 && row_->measures == "reserved" && !row_->kept_for_checking();
  }

  // At `share`, or the shipped one when unset.
  MemoryRowResult price(std::optional<double> share) const {
    Model model = model_;
    if (share)
      model.allocator_fraction = *share, model.allocator_fraction_source = "the fit being made";
    EvaluationRequest request;
    request.strategy = row_->strategy;
    request.devices = row_->devices;
    const StrategyEvaluation e = evaluate_strategy(*registry_, model, machine_, request);
    MemoryRowResult r;
    r.row = row_;
    r.leave_one_out = std::numeric_limits<double>::quiet_NaN();
    if (!e.valid()) {
      r.refusal = e.refusal->id + ": " + e.refusal->reason;
      r.error = std::numeric_limits<double>::quiet_NaN();
      return r;
    }
    r.predicted_bytes = static_cast<double>(e.peak_bytes);
    r.budget_bytes = e.budget.budget_bytes;
    r.fits = e.fits;
    r.error = row_->peak_bytes > 0 ? r.predicted_bytes / row_->peak_bytes - 1
                                   : std::numeric_limits<double>::quiet_NaN();
    return r;
  }

 private:
  const PluginRegistry* registry_;
  const MemoryRow* row_;
  Machine machine_;
  Model model_;
};

// The share that minimises the squared peak errors of `rows` (least_squares.hpp,
// one factor in [0, 0.5], starting from 10 %).
LeastSquaresFit fit_share(const std::vector<const MemoryRowPricer*>& rows) {
  const std::vector<FitFactor> factor{{"allocator_fraction", 0.10, 0.0, 0.5, 0.001}};
  return fit_least_squares(factor, [&](const std::vector<double>& values) {
    std::vector<double> residuals;
    for (const MemoryRowPricer* row : rows) residuals.push_back(row->price(values[0]).error);
    return residuals;
  });
}

}  // namespace

MemoryValidation validate_memory(const PluginRegistry& registry, const DeviceCatalog& devices,
                                 const std::vector<MemoryRow>& rows, bool fit) {
  std::vector<MemoryRowPricer> pricers;
  pricers.reserve(rows.size());
  for (const MemoryRow& row : rows) pricers.emplace_back(registry, devices, row);
  MemoryValidation out;
  std::map<std::string, double> shares;  // fitted, by runtime
  if (fit) {
    std::map<std::string, std::vector<const MemoryRowPricer*>> by_runtime;
    for (const MemoryRowPricer& p : pricers)
      if (p.fittable()) by_runtime[p.runtime()].push_back(&p);
    for (const auto& [runtime, group] : by_runtime) {
      const LeastSquaresFit f = fit_share(group);
      AllocatorFit a{runtime, {}, group.size(), f.values[0], f.rms};
      for (const MemoryRowPricer* p : group)
        if (std::find(a.sources.begin(), a.sources.end(), p->row().source) == a.sources.end())
          a.sources.push_back(p->row().source);
      shares[runtime] = a.fraction;
      out.fits.push_back(a);
    }
  }
  for (const MemoryRowPricer& p : pricers) {
    const auto share = shares.find(p.runtime());
    MemoryRowResult r =
        p.price(share == shares.end() ? std::nullopt : std::optional<double>(share->second));
    if (fit && p.fittable()) {
      r.fitted_on = true;
      std::vector<const MemoryRowPricer*> others;
      for (const MemoryRowPricer& q : pricers)
        if (&q != &p && q.fittable() && q.runtime() == p.runtime()) others.push_back(&q);
      if (!others.empty()) r.leave_one_out = p.price(fit_share(others).values[0]).error;
    }
    out.results.push_back(r);
  }
  return out;
}

std::string memory_markdown(const MemoryValidation& validation) {
  std::string out;
  std::map<std::string, std::vector<double>> by_source;  // |errors|
  std::string source;
  for (const MemoryRowResult& r : validation.results) {
    if (r.row->source != source) {
      source = r.row->source;
      out += fmt::format(
          "\n### memory: {}\n\n| run | devices | strategy | measured peak | ndsearch | error | "
          "leave-one-out "
          "| fits (budget) |\n|---|---:|---|---:|---:|---:|---:|---|\n",
          source);
    }
    const MemoryRow& row = *r.row;
    const std::string measured =
        row.peak_bytes > 0 ? fmt::format("{:.1f} GiB ({})", row.peak_bytes / kGiB, row.measures)
                           : "not published (it ran)";
    if (!r.refusal.empty()) {
      out += fmt::format("| {} | {} | {} | {} | refused: {} | — | — | — |\n", row.name, row.devices,
                         row.strategy, measured, r.refusal);
      continue;
    }
    const std::string error = row.peak_bytes > 0 ? fmt::format("{:+.1f} %", 100 * r.error) : "—";
    const std::string left_out =
        std::isnan(r.leave_one_out) ? "—" : fmt::format("{:+.1f} %", 100 * r.leave_one_out);
    out += fmt::format("| {} | {} | {} | {} | {:.1f} GiB | {} | {} | {} ({:.1f} GiB) |\n", row.name,
                       row.devices, row.strategy, measured, r.predicted_bytes / kGiB, error,
                       left_out, r.fits ? "yes" : "no", r.budget_bytes / kGiB);
    if (row.peak_bytes > 0) by_source[row.source].push_back(std::abs(r.error));
  }
  if (!by_source.empty()) {
    out +=
        "\n| source | rows | mean abs peak error | largest abs peak error "
        "|\n|---|---:|---:|---:|\n";
    for (const auto& [name, errors] : by_source) {
      double sum = 0, largest = 0;
      for (double e : errors) sum += e, largest = std::max(largest, e);
      out += fmt::format("| {} | {} | {:.1f} % | {:.1f} % |\n", name, errors.size(),
                         100 * sum / static_cast<double>(errors.size()), 100 * largest);
    }
  }
  if (!validation.fits.empty()) {
    out +=
        "\n| allocator | fitted on | rows | share of dynamic memory | rms peak error "
        "|\n|---|---|---:|---:|---:|\n";
    for (const AllocatorFit& f : validation.fits)
      out += fmt::format("| {} | {} | {} | {:.1f} % | {:.1f} % |\n", f.runtime,
                         fmt::join(f.sources, ", "), f.rows, 100 * f.fraction, 100 * f.rms_error);
  }
  return out;
}

std::string fitted_allocator_source(const MemoryValidation& validation) {
  std::string out =
      "// Written by ndsearch-validate, its refit of validation/memory/ (docs/validation.md); do "
      "not edit by "
      "hand.\n";
  for (const AllocatorFit& f : validation.fits)
    out += fmt::format("{{\"{}\", {:.9g}, \"{}\"}},\n", f.runtime, f.fraction,
                       fmt::join(f.sources, ", "));
  return out;
}

}  // namespace ndsearch
