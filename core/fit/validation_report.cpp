// SPDX-License-Identifier: Apache-2.0
#include "core/fit/validation_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "core/hardware/topology.hpp"
#include "core/price/memory/budget.hpp"
#include "core/search/search.hpp"
#include "core/strategy/strategy.hpp"

namespace ndsearch {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

struct Group {
  std::string device, trainer;
  std::vector<size_t> rows;          // fitted on
  std::vector<std::string> sources;  // of `rows`
  std::vector<size_t> checks;        // kept for checking: priced with the group's fit
};

std::vector<Group> groups_of(const std::vector<ValidationRow>& rows,
                             const std::vector<std::unique_ptr<RowPricer>>& pricers) {
  std::vector<Group> groups;
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string trainer = trainer_family(pricers[i]->model());
    const std::string device = overheads_device(pricers[i]->device());
    Group* g = nullptr;
    for (Group& existing : groups)
      if (existing.device == device && existing.trainer == trainer) g = &existing;
    if (g == nullptr) g = &groups.emplace_back(Group{device, trainer, {}, {}, {}});
    if (rows[i].kept_for_checking()) {
      g->checks.push_back(i);
      continue;
    }
    g->rows.push_back(i);
    if (std::find(g->sources.begin(), g->sources.end(), rows[i].source) == g->sources.end())
      g->sources.push_back(rows[i].source);
  }
  return groups;
}

std::vector<size_t> without(const std::vector<size_t>& rows,
                            const std::function<bool(size_t)>& drop) {
  std::vector<size_t> kept;
  for (size_t r : rows)
    if (!drop(r)) kept.push_back(r);
  return kept;
}

// The search of one row: its devices, batch and sequence, every default dimension.
void search_row(const PluginRegistry& registry, RowPricer& pricer,
                const std::optional<TrainerOverheads>& overheads, RowReport& report) {
  Model& model = pricer.model();
  const ValidationRow& row = pricer.row();
  SearchOptions options;
  options.space.devices = row.devices;
  options.space.global_batch = row.global_batch;
  options.space.pipeline_bound = pipeline_bound(pricer.device(), row.devices);
  options.space.searched = default_dimensions();
  if (!row.search_only.empty()) options.space.only = SearchSpace::parse_only({row.search_only});
  options.budget = memory_budget(pricer.device(), model, std::nullopt, std::nullopt);
  options.threads = 2;
  options.keep = 1;
  options.closest_misses = 0;
  options.overheads = overheads;
  const SearchResult found = run_search(registry, model, pricer.device(), options);
  if (found.ranking.empty()) return;
  const PricedCandidate& best = found.ranking.front();
  report.searched = true;
  report.best_step_s = best.time.step_s;
  report.best_strategy = strategy_text(best.strategy);
  report.published_over_best = report.result.time.step_s / best.time.step_s;
  // Throughput: the best's tokens/s over what the published figure implies
  // (the published strategy's tokens/s scaled by published / predicted).
  const RowResult& own = report.result;
  report.best_over_published =
      own.predicted > 0
          ? best.time.tokens_per_s / (own.time.tokens_per_s * row.published / own.predicted)
          : 0;
}

std::string percent(double fraction) {
  if (std::isnan(fraction)) return "—";
  return fmt::format("{:+.1f} %", 100 * fraction);
}

std::string published_text(const ValidationRow& row) {
  return row.metric == Metric::mfu ? fmt::format("{:.0f} % MFU", 100 * row.published)
         : row.metric == Metric::tokens_per_s_per_gpu
             ? fmt::format("{:.0f} tok/s", row.published)
             : fmt::format("{:.0f} TFLOP/s", row.published);
}

std::string predicted_text(const ValidationRow& row, double value) {
  return row.metric == Metric::mfu                    ? fmt::format("{:.1f} % MFU", 100 * value)
         : row.metric == Metric::tokens_per_s_per_gpu ? fmt::format("{:.0f} tok/s", value)
                                                      : fmt::format("{:.1f} TFLOP/s", value);
}

// The keys the rule chose beside the published ones.
std::string chosen_keys(const nds_strategy& s) {
  return fmt::format("mbs {}, vpp {}, recompute {}", s.mbs, s.vpp,
                     s.recompute == NDS_RECOMPUTE_FULL        ? "full"
                     : s.recompute == NDS_RECOMPUTE_SELECTIVE ? "selective"
                                                              : "none");
}

// One pricer per row, in the rows' order.
std::vector<std::unique_ptr<RowPricer>> pricers_of(const PluginRegistry& registry,
                                                   const DeviceCatalog& devices,
                                                   const std::vector<ValidationRow>& rows) {
  std::vector<std::unique_ptr<RowPricer>> pricers;
  pricers.reserve(rows.size());
  for (const ValidationRow& row : rows)
    pricers.push_back(std::make_unique<RowPricer>(registry, devices, row));
  return pricers;
}

// Which rows have MoE layers (fit_in_stages fits them a factor of their own).
std::vector<bool> moe_rows(const std::vector<std::unique_ptr<RowPricer>>& pricers) {
  std::vector<bool> moe(pricers.size());
  for (size_t i = 0; i < moe.size(); ++i) moe[i] = pricers[i]->model().first_moe() != nullptr;
  return moe;
}

// The groups' indices with the reference device's first: the other devices
// fall back on its fit.
std::vector<size_t> reference_first(const std::vector<Group>& groups) {
  std::vector<size_t> order(groups.size());
  for (size_t g = 0; g < order.size(); ++g) order[g] = g;
  std::stable_partition(order.begin(), order.end(),
                        [&](size_t g) { return groups[g].device == kReferenceOverheadsDevice; });
  return order;
}

// What fitting a group reads: the rows, which have MoE layers, and their pricing.
struct Fitting {
  const std::vector<ValidationRow>& rows;
  const std::vector<bool>& moe;
  const std::function<bool(size_t)>& is_moe;
  const PriceRow& price;

  // A row's error fitted on `rest` without it; NaN for an MoE row when no
  // MoE row is left to determine the MoE factor.
  double left_out_error(size_t r, const std::vector<size_t>& rest,
                        const TrainerOverheads& factors) const {
    if (moe[r] && std::none_of(rest.begin(), rest.end(), is_moe)) return kNaN;
    return price(r, factors).error;
  }
};

// Each fitted row's error fitted without it, and without its source when the
// group has another (else NaN).
void leave_out_errors(const Group& g, const Fitting& fitting, const TrainerOverheads& fallback,
                      std::vector<RowReport>& reports) {
  for (size_t r : g.rows) {
    const std::vector<size_t> rest = without(g.rows, [&](size_t x) { return x == r; });
    const FitOutcome loo = fit_in_stages(rest, fitting.is_moe, fitting.price, fallback);
    reports[r].leave_one_out = fitting.left_out_error(r, rest, loo.factors);
    reports[r].leave_source_out = kNaN;
  }
  if (g.sources.size() > 1)
    for (const std::string& source : g.sources) {
      const std::vector<size_t> rest =
          without(g.rows, [&](size_t x) { return fitting.rows[x].source == source; });
      const FitOutcome loso = fit_in_stages(rest, fitting.is_moe, fitting.price, fallback);
      for (size_t r : g.rows)
        if (fitting.rows[r].source == source)
          reports[r].leave_source_out = fitting.left_out_error(r, rest, loso.factors);
    }
}

// Fits group `g` into `fit` (from the reference device's fit of its trainer,
// else the trainer's shipped overheads), with the leave-out errors, and
// prices its rows and checks with the fit.
void fit_group(const Group& g, const RowPricer& first, const Fitting& fitting,
               std::map<std::string, TrainerOverheads>& reference_fits,
               std::vector<RowReport>& reports, GroupFit& fit) {
  const auto reference = reference_fits.find(g.trainer);
  const TrainerOverheads fallback = reference != reference_fits.end()
                                        ? reference->second
                                        : trainer_settings(first.model(), first.device()).overheads;
  // A group of checks alone keeps the fallback whole (its MoE factor too).
  const FitOutcome all = g.rows.empty()
                             ? FitOutcome{fallback, {}, kNaN}
                             : fit_in_stages(g.rows, fitting.is_moe, fitting.price, fallback);
  fit.factors = all.factors;
  fit.rms_error = all.rms_error;
  if (g.device == kReferenceOverheadsDevice) reference_fits[g.trainer] = fit.factors;
  leave_out_errors(g, fitting, fallback, reports);
  for (size_t r : g.rows) reports[r].result = fitting.price(r, fit.factors);
  for (size_t r : g.checks) {
    reports[r].result = fitting.price(r, fit.factors);
    reports[r].leave_one_out = reports[r].leave_source_out = kNaN;
  }
}

// Without a fit: every row of `g` priced with the shipped overheads, no leave-out errors.
void price_unfitted(const Group& g, const std::vector<std::unique_ptr<RowPricer>>& pricers,
                    std::vector<RowReport>& reports) {
  for (const std::vector<size_t>* rows : {&g.rows, &g.checks})
    for (size_t r : *rows) {
      reports[r].result = pricers[r]->price(std::nullopt);
      reports[r].leave_one_out = reports[r].leave_source_out = kNaN;
    }
}

// The search of every fitted row, with its group's factors when fitted now.
void search_rows(const PluginRegistry& registry, const std::vector<Group>& groups,
                 const std::vector<std::unique_ptr<RowPricer>>& pricers, bool fitted,
                 ValidationReport& report) {
  for (size_t g = 0; g < groups.size(); ++g)
    for (size_t r : groups[g].rows)
      search_row(registry, *pricers[r],
                 fitted ? std::optional(report.fits[g].factors) : std::nullopt, report.reports[r]);
}

}  // namespace

ValidationReport run_validation(const PluginRegistry& registry, const DeviceCatalog& devices,
                                const std::filesystem::path& folder,
                                const ValidationOptions& options) {
  ValidationReport report;
  report.rows = read_validation_rows(folder);
  report.fitted = options.fit;
  const std::vector<std::unique_ptr<RowPricer>> pricers =
      pricers_of(registry, devices, report.rows);
  report.reports.resize(report.rows.size());
  const PriceRow price = [&](size_t i, const TrainerOverheads& f) { return pricers[i]->price(f); };
  const std::vector<Group> groups = groups_of(report.rows, pricers);
  const std::vector<bool> moe = moe_rows(pricers);
  const std::function<bool(size_t)> is_moe = [&](size_t r) { return static_cast<bool>(moe[r]); };
  const Fitting fitting{report.rows, moe, is_moe, price};
  const std::vector<size_t> order = reference_first(groups);
  report.fits.resize(groups.size());
  // The reference device's fit per trainer, once made (its groups come first).
  std::map<std::string, TrainerOverheads> reference_fits;
  for (const size_t index : order) {
    const Group& g = groups[index];
    GroupFit fit{g.device, g.trainer, g.sources, {}, 0};
    const RowPricer& first = *pricers[g.rows.empty() ? g.checks.front() : g.rows.front()];
    if (options.fit) {
      fit_group(g, first, fitting, reference_fits, report.reports, fit);
    } else {
      price_unfitted(g, pricers, report.reports);
      fit.factors = trainer_settings(first.model(), first.device()).overheads;
    }
    report.fits[index] = fit;
  }
  if (options.search) search_rows(registry, groups, pricers, options.fit, report);
  report.memory_rows = read_memory_rows(folder / "memory");
  report.memory = validate_memory(registry, devices, report.memory_rows, options.fit);
  return report;
}

std::string validation_markdown(const ValidationReport& report) {
  std::string out;
  std::string source;
  for (size_t i = 0; i < report.rows.size(); ++i) {
    const ValidationRow& row = report.rows[i];
    const RowReport& r = report.reports[i];
    if (row.source != source) {
      source = row.source;
      out += fmt::format("\n### {}\n\n", source);
      out +=
          "| run | devices | published strategy | rule's choice | fits (peak GiB) | published | "
          "ndsearch | step-time error | "
          "leave-one-out | leave-source-out | search: published / best step | search: best / "
          "published | search's best |\n";
      out += "|---|---:|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
    }
    out += fmt::format(
        "| {} | {} | {} | {} | {} ({:.1f}) | {} | {} | {} | {} | {} | {} | {} | {} |\n", row.name,
        row.devices, row.strategy, chosen_keys(r.result.strategy), r.result.fits ? "yes" : "NO",
        r.result.peak_bytes / kGiB, published_text(row), predicted_text(row, r.result.predicted),
        percent(r.result.error), percent(r.leave_one_out), percent(r.leave_source_out),
        r.searched ? fmt::format("{:.3f}", r.published_over_best) : "—",
        r.searched ? fmt::format("{:.3f}", r.best_over_published) : "—",
        r.searched ? r.best_strategy : "—");
  }
  // Mean |error| per source, the error of the step time (RowResult::error).
  out +=
      "\n| source | rows | mean abs step-time error | largest abs step-time error |\n"
      "|---|---:|---:|---:|\n";
  std::set<std::string> seen;
  for (const ValidationRow& row : report.rows) {
    if (!seen.insert(row.source).second) continue;
    double sum = 0, largest = 0;
    size_t n = 0;
    for (size_t i = 0; i < report.rows.size(); ++i)
      if (report.rows[i].source == row.source && !std::isnan(report.reports[i].result.error)) {
        const double e = std::abs(report.reports[i].result.error);
        sum += e, largest = std::max(largest, e), ++n;
      }
    out += fmt::format("| {} | {} | {} | {:.1f} % |\n", row.source, n,
                       n > 0 ? fmt::format("{:.1f} %", 100 * sum / static_cast<double>(n)) : "—",
                       100 * largest);
  }
  out +=
      "\n| device | trainer | fitted on | us per layer and micro-batch | ms per step | kernel "
      "slowdown | us per local expert, MoE layer and micro-batch | rms error |\n"
      "|---|---|---|---:|---:|---:|---:|---:|\n";
  for (const GroupFit& f : report.fits) {
    if (f.sources.empty()) continue;  // checks alone: nothing fitted
    out += fmt::format(
        "| {} | {} | {} | {:.2f} | {:.2f} | {:.3f} | {:.1f} | {} |\n", f.device, f.trainer,
        fmt::join(f.sources, ", "), 1e6 * f.factors.layer_s, 1e3 * f.factors.step_s,
        f.factors.kernel_slowdown, 1e6 * f.factors.moe_expert_s,
        report.fitted && !std::isnan(f.rms_error) ? fmt::format("{:.1f} %", 100 * f.rms_error)
                                                  : "—");
  }
  out += memory_markdown(report.memory);
  return out;
}

std::string fitted_overheads_source(const ValidationReport& report) {
  std::string out =
      "// Written by ndsearch-validate, its refit of validation/ (docs/validation.md); do not edit "
      "by hand.\n";
  for (const GroupFit& f : report.fits) {
    if (f.sources.empty()) continue;  // checks alone: nothing fitted
    out +=
        fmt::format("{{\"{}\", \"{}\", {{{:.9g}, {:.9g}, {:.9g}, {:.9g}}}, \"{}\"}},\n", f.device,
                    f.trainer, f.factors.layer_s, f.factors.step_s, f.factors.kernel_slowdown,
                    f.factors.moe_expert_s, fmt::join(f.sources, ", "));
  }
  return out;
}

}  // namespace ndsearch
