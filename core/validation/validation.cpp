// SPDX-License-Identifier: Apache-2.0
#include "core/validation/validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "core/input/parse_config.hpp"
#include "core/price/memory/budget.hpp"
#include "core/price/memory/memory_evaluator.hpp"
#include "core/search/search_space.hpp"
#include "core/strategy/checks.hpp"
#include "core/strategy/placement.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/user_error.hpp"
#include "core/validation/published_csv.hpp"

namespace ndsearch {
namespace {

constexpr const char* kColumns[] = {"name",    "config",   "device", "devices",   "global_batch",
                                    "seq_len", "strategy", "metric", "published", "search_only"};

PublishedCsv csv_of(const std::filesystem::path& file) {
  return PublishedCsv(file, std::vector<std::string>(std::begin(kColumns), std::end(kColumns)));
}

Metric parse_metric(const std::string& text, const PublishedCsv& csv, int line) {
  for (Metric m : {Metric::mfu, Metric::hfu_tflops_per_gpu, Metric::model_tflops_per_gpu,
                   Metric::tokens_per_s_per_gpu})
    if (text == metric_name(m)) return m;
  csv.bad_row(
      line, fmt::format("metric '{}' is not one of mfu, hfu_tflops_per_gpu, model_tflops_per_gpu, "
                        "tokens_per_s_per_gpu",
                        text));
}

}  // namespace

double metric_value(Metric metric, const TimeEstimate& e, uint64_t devices) {
  const double n = static_cast<double>(devices);
  if (e.step_s <= 0) return 0;
  switch (metric) {
    case Metric::mfu: return e.mfu;
    case Metric::hfu_tflops_per_gpu: return e.hardware_flops_per_step / e.step_s / n / 1e12;
    case Metric::model_tflops_per_gpu: return e.model_flops_per_step / e.step_s / n / 1e12;
    case Metric::tokens_per_s_per_gpu: return e.tokens_per_s / n;
  }
  return 0;
}

const char* metric_name(Metric metric) {
  switch (metric) {
    case Metric::mfu: return "mfu";
    case Metric::hfu_tflops_per_gpu: return "hfu_tflops_per_gpu";
    case Metric::model_tflops_per_gpu: return "model_tflops_per_gpu";
    case Metric::tokens_per_s_per_gpu: return "tokens_per_s_per_gpu";
  }
  return "?";
}

std::vector<ValidationRow> read_validation_rows(const std::filesystem::path& folder) {
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error))
    throw UserError("E-VALIDATION-CSV",
                    fmt::format("{}: not a folder of validation CSVs", folder.string()));
  const std::vector<std::filesystem::path> files = PublishedCsv::files_of(folder);
  if (files.empty())
    throw UserError("E-VALIDATION-CSV",
                    fmt::format("{}: no .csv file of published runs", folder.string()));
  std::vector<ValidationRow> rows;
  for (const auto& file : files) {
    std::vector<ValidationRow> of_file = read_validation_file(file);
    rows.insert(rows.end(), of_file.begin(), of_file.end());
  }
  return rows;
}

bool is_validation_header(const std::vector<std::string>& cells) {
  return cells == std::vector<std::string>(std::begin(kColumns), std::end(kColumns));
}

std::vector<ValidationRow> read_validation_file(const std::filesystem::path& file) {
  const PublishedCsv csv = csv_of(file);
  std::vector<ValidationRow> rows;
  csv.read([&](int line, const std::vector<std::string>& f) {
    ValidationRow r;
    static_cast<PublishedRun&>(r) = csv.run(line, f);
    r.metric = parse_metric(f[7], csv, line);
    r.published = csv.positive(f[8], "published", line);
    r.search_only = f[9];
    rows.push_back(r);
  });
  return rows;
}

double measured_step_s(const RowResult& result) {
  if (result.row == nullptr || std::isnan(result.error) || result.predicted <= 0)
    return std::numeric_limits<double>::quiet_NaN();
  return result.time.step_s * result.predicted / result.row->published;
}

RowPricer::RowPricer(const PluginRegistry& registry, const DeviceCatalog& devices,
                     const ValidationRow& row)
    : registry_(registry), row_(row), device_(devices.resolve(row.device, row.source + " device")) {
  ParseOptions options;  // the framework detected from the config, as every verb does
  options.overrides.seq_len = row.seq_len;
  options.overrides.global_batch = row.global_batch;
  model_ = parse_config(registry, row.config, options);
  place_candidates();
}

RowPricer::~RowPricer() = default;

void RowPricer::place_candidates() {
  // The rule for what the source does not publish; memory does not depend
  // on the trainer overheads, so the candidates are placed once.
  const nds_strategy published = parse_strategy(row_.strategy);
  const int32_t pp = published.pp != NDS_UNKNOWN ? published.pp : 1;
  // vpp by the search's own bound (reference §3.4).
  const std::vector<int64_t> vpps = published.vpp != NDS_UNKNOWN
                                        ? std::vector<int64_t>{published.vpp}
                                        : vpp_bound(pp, model_.decoder_layers());
  const std::vector<int32_t> modes =
      published.recompute != NDS_UNKNOWN
          ? std::vector<int32_t>{published.recompute}
          : std::vector<int32_t>{NDS_RECOMPUTE_NONE, NDS_RECOMPUTE_SELECTIVE, NDS_RECOMPUTE_FULL};
  const MemoryPasses passes(registry_, model_, device_);
  MemoryEvaluator memory(passes, static_cast<uint32_t>(pp));
  budget_bytes_ = memory_budget(device_, model_, std::nullopt, std::nullopt).budget_bytes;
  // The CP model where the resolved strategy has cp > 1 (the CSV's keys or the config's).
  const nds_strategy probe = resolve_strategy(published, model_, row_.devices, row_.global_batch);
  if (probe.cp != NDS_UNKNOWN && probe.cp > 1)
    cp_ = std::make_unique<CpModel>(registry_, model_, device_,
                                    CpModel::choose_algorithm("", model_));
  std::vector<RankMemory> ranks;
  for (const int64_t vpp : vpps) {
    for (int32_t mode : modes) {
      nds_strategy s = published;
      if (s.mbs == NDS_UNKNOWN) s.mbs = 1;
      s.vpp = static_cast<int32_t>(vpp);
      s.recompute = mode;
      if (s.schedule == NDS_UNKNOWN)
        s.schedule = vpp > 1 ? NDS_SCHEDULE_INTERLEAVED : NDS_SCHEDULE_1F1B;
      s = resolve_strategy(s, model_, row_.devices, row_.global_batch);
      if (first_refusal(s, model_, row_.devices, row_.global_batch)) break;  // this vpp is refused
      Candidate candidate{place_layers(s, model_, false), 0, false};
      const nds_candidate c = candidate.placement.candidate();
      if (!memory.evaluate(c, ranks).empty()) break;
      const double cp_buffers =
          cp_ ? cp_->buffers(c, static_cast<uint32_t>(model_.main.blocks.size())).bytes : 0;
      for (const RankMemory& r : ranks)
        candidate.peak = std::max(candidate.peak, r.peak() + cp_buffers);
      candidate.fits = candidate.peak <= budget_bytes_;
      const bool fits = candidate.fits;
      candidates_.push_back(std::move(candidate));
      if (fits) break;  // the least recompute that fits
    }
  }
}

RowResult RowPricer::price(const std::optional<TrainerOverheads>& overheads) const {
  RowResult result;
  result.row = &row_;
  result.trainer = trainer_family(model_);
  result.budget_bytes = budget_bytes_;
  const CompiledModel compiled(model_, device_, {overheads, {}, {}});
  const TimeModel time(compiled, cp_.get());
  // The fastest that fits; with none, the smallest (reported as not fitting).
  bool any_fits = false;
  for (const Candidate& candidate : candidates_) any_fits = any_fits || candidate.fits;
  bool have = false;
  for (const Candidate& candidate : candidates_) {
    if (candidate.fits != any_fits) continue;
    if (!any_fits && have && candidate.peak >= result.peak_bytes) continue;
    const TimeEstimate e = time.estimate(candidate.placement.candidate(), row_.devices);
    if (any_fits && have && e.step_s >= result.time.step_s) continue;
    result.strategy = candidate.placement.strategy;
    result.peak_bytes = candidate.peak;
    result.fits = candidate.fits;
    result.time = e;
    result.predicted = metric_value(row_.metric, e, row_.devices);
    have = true;
  }
  // The step time's error (see RowResult::error). A row no candidate prices
  // (or priced at no throughput) has no error to fit: NaN, left out of the fit.
  result.error = have && result.predicted > 0 ? row_.published / result.predicted - 1
                                              : std::numeric_limits<double>::quiet_NaN();
  return result;
}

}  // namespace ndsearch
