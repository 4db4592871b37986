// SPDX-License-Identifier: Apache-2.0
#include "core/calibration/validation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <memory>

#include "core/memory/budget.hpp"
#include "core/memory/memory_evaluator.hpp"
#include "core/model/parse_config.hpp"
#include "core/strategy/checks.hpp"
#include "core/strategy/placement.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

constexpr const char* kColumns[] = {"name",         "config",   "device", "devices", "global_batch",
                                    "seq_len",      "strategy", "metric", "published", "search_only"};

[[noreturn]] void bad_row(const std::filesystem::path& file, int line, const std::string& what) {
  throw UserError("E-VALIDATION-CSV", fmt::format("{}:{}: {}; each row needs the columns {}", file.string(), line,
                                                  what, fmt::join(kColumns, ",")));
}

// One CSV line into fields; a field may be double-quoted (and then hold commas).
std::vector<std::string> split_csv(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (char ch : line) {
    if (ch == '"') {
      quoted = !quoted;
    } else if (ch == ',' && !quoted) {
      fields.emplace_back();
    } else if (ch != '\r') {
      fields.back() += ch;
    }
  }
  return fields;
}

Metric parse_metric(const std::string& text, const std::filesystem::path& file, int line) {
  for (Metric m : {Metric::mfu, Metric::hfu_tflops_per_gpu, Metric::model_tflops_per_gpu, Metric::tokens_per_s_per_gpu})
    if (text == metric_name(m)) return m;
  bad_row(file, line, fmt::format("metric '{}' is not one of mfu, hfu_tflops_per_gpu, model_tflops_per_gpu, "
                                  "tokens_per_s_per_gpu",
                                  text));
}

template <class T>
T number(const std::string& text, const char* column, const std::filesystem::path& file, int line) {
  try {
    size_t used = 0;
    const double v = std::stod(text, &used);
    if (used != text.size() || !(v > 0)) throw std::invalid_argument(text);
    return static_cast<T>(v);
  } catch (const std::exception&) {
    bad_row(file, line, fmt::format("column {}: '{}' is not a positive number", column, text));
  }
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
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.path().extension() == ".csv") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  if (files.empty())
    throw UserError("E-VALIDATION-CSV", fmt::format("{}: no .csv file of published runs", folder.string()));
  std::vector<ValidationRow> rows;
  for (const auto& file : files) {
    std::ifstream in(file);
    std::string text;
    int line = 0;
    bool header = true;
    while (std::getline(in, text)) {
      ++line;
      if (text.empty() || text[0] == '#') continue;
      const std::vector<std::string> f = split_csv(text);
      if (header) {
        const std::vector<std::string> expected(std::begin(kColumns), std::end(kColumns));
        if (f != expected) bad_row(file, line, "the header is not the expected one");
        header = false;
        continue;
      }
      if (f.size() != std::size(kColumns))
        bad_row(file, line, fmt::format("{} columns instead of {}", f.size(), std::size(kColumns)));
      ValidationRow r;
      r.source = file.stem().string();
      r.line = line;
      r.name = f[0];
      r.config = file.parent_path() / f[1];
      r.device = f[2];
      r.devices = number<uint64_t>(f[3], "devices", file, line);
      r.global_batch = number<int64_t>(f[4], "global_batch", file, line);
      r.seq_len = number<int64_t>(f[5], "seq_len", file, line);
      r.strategy = f[6];
      r.metric = parse_metric(f[7], file, line);
      r.published = number<double>(f[8], "published", file, line);
      r.search_only = f[9];
      rows.push_back(r);
    }
  }
  return rows;
}

RowPricer::RowPricer(const PluginRegistry& registry, const DeviceCatalog& devices, const ValidationRow& row)
    : registry_(registry), row_(row), device_(devices.resolve(row.device, row.source + " device")) {
  ParseOptions options;
  options.framework = "megatron-args";
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
  std::vector<int32_t> vpps;
  // vpp by the search's own bound (reference §3.4): vpp <= min(4, pp, layers / pp).
  if (published.vpp != NDS_UNKNOWN) vpps.push_back(published.vpp);
  else
    for (int32_t v = 1; v == 1 || (v <= 4 && v <= pp && v * pp <= model_.decoder_layers()); ++v) vpps.push_back(v);
  const std::vector<int32_t> modes = published.recompute != NDS_UNKNOWN
                                         ? std::vector<int32_t>{published.recompute}
                                         : std::vector<int32_t>{NDS_RECOMPUTE_NONE, NDS_RECOMPUTE_SELECTIVE,
                                                                NDS_RECOMPUTE_FULL};
  MemoryEvaluator memory(registry_, model_, device_, static_cast<uint32_t>(pp));
  budget_bytes_ = memory_budget(device_, model_, std::nullopt, std::nullopt).budget_bytes;
  if (published.cp != NDS_UNKNOWN && published.cp > 1)
    cp_ = std::make_unique<CpModel>(registry_, model_, device_, CpModel::choose_algorithm("", model_));
  std::vector<RankMemory> ranks;
  for (int32_t vpp : vpps) {
    for (int32_t mode : modes) {
      nds_strategy s = published;
      if (s.mbs == NDS_UNKNOWN) s.mbs = 1;
      s.vpp = vpp;
      s.recompute = mode;
      if (s.schedule == NDS_UNKNOWN) s.schedule = vpp > 1 ? NDS_SCHEDULE_INTERLEAVED : NDS_SCHEDULE_1F1B;
      s = resolve_strategy(s, model_, row_.devices, row_.global_batch);
      if (first_refusal(s, model_, row_.devices, row_.global_batch)) break;  // this vpp is refused
      Candidate candidate{place_layers(s, model_, false), 0, false};
      const nds_candidate c = candidate.placement.candidate();
      if (!memory.evaluate(c, ranks).empty()) break;
      const double cp_buffers = cp_ ? cp_->buffers(c, static_cast<uint32_t>(model_.main.blocks.size())).bytes : 0;
      for (const RankMemory& r : ranks) candidate.peak = std::max(candidate.peak, r.peak() + cp_buffers);
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
  const TimeModel time(model_, device_, cp_.get(), overheads);
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
  result.error = row_.published > 0 && have ? result.predicted / row_.published - 1 : 0;
  return result;
}

}  // namespace ndsearch
