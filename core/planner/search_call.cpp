// SPDX-License-Identifier: Apache-2.0
// search_call.cpp: the search's one wiring: settings -> model -> machine ->
// calibration -> options -> run_search -> the files the settings name -> the
// listed report.
#include <ndsearch/core/planner.hpp>
#include <ndsearch/core/settings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "core/analyses/recompute_potentials.hpp"
#include "core/export/ppb_description.hpp"
#include "core/export/priced_layers.hpp"
#include "core/export/write_config.hpp"
#include "core/output/html_report.hpp"
#include "core/output/output_files.hpp"
#include "core/output/ranking_table.hpp"
#include "core/output/report_data.hpp"
#include "core/output/search_csv.hpp"
#include "core/output/search_header.hpp"
#include "core/output/search_json.hpp"
#include "core/planner/requests.hpp"
#include "core/planner/search_report_data.hpp"
#include "core/planner/written_config.hpp"
#include "core/price/recompute/recompute_settings.hpp"
#include "core/price/recompute/recompute_summary.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

// recompute_potentials.csv covers the strategies a user weighs: the top ten.
constexpr size_t kPotentialsTop = 10;

// The closest misses kept for the document: 0 for every one.
size_t misses_kept(const SearchSettings& s) {
  return s.all_misses || s.table.every_miss ? 0 : std::max(s.table.misses, kListedMisses);
}

void check_outputs(const SearchSettings& s) {
  check_table_columns(s.table.columns);
  if (s.report && s.output_dir.empty())
    throw UserError("E-USAGE",
                    fmt::format("{} is written into the output folder: give {} too",
                                Setting("report").named(), Setting("output_dir").named()));
}

// A rank the settings name (1 = the best), checked against the ranking.
const PricedCandidate& ranked(const SearchResult& r, size_t rank, const Setting& setting) {
  if (rank < 1 || rank > r.ranking.size())
    throw UserError("E-USAGE", fmt::format("{}: the ranking has {} strategies; give 1 to {}",
                                           setting.named(std::to_string(rank)), r.ranking.size(),
                                           r.ranking.size()));
  return r.ranking[rank - 1];
}

// The output folder's CSV files, and the potentials the report charts.
void write_folder(const SearchReport::Data& d, const SearchSettings& s,
                  std::vector<RecomputePotential>& potentials, std::vector<WrittenFile>& files) {
  create_output_dir(s.output_dir);
  const SearchResult& r = d.result;
  auto write = [&](const char* name, const std::function<void(std::ostream&)>& body) {
    const std::filesystem::path file = s.output_dir / name;
    write_output_file(file, body);
    files.push_back({file, ""});  // the folder is named once, by the host's flag
  };
  write("ranking.csv", [&](std::ostream& out) { write_ranking_csv(out, r.ranking); });
  write("dropped.csv", [&](std::ostream& out) {
    write_dropped_csv(out, r.closest, d.options.budget.budget_bytes);
  });
  Model model = d.model;
  potentials = recompute_potentials(d.loaded->registry, model, *d.machine.device, d.options,
                                    r.ranking, kPotentialsTop);
  write("recompute_potentials.csv",
        [&](std::ostream& out) { write_potentials_csv(out, potentials); });
  if (s.priced_csv)
    write("priced.csv",
          [&](std::ostream& out) { write_priced_csv(out, r, d.options.budget.budget_bytes); });
}

// The ppb_rank-th strategy's layer description for the reference's pipeline
// balancer, and the balancer's command line.
WrittenFile write_ppb(const SearchReport::Data& d, const SearchSettings& s) {
  const nds_strategy& strategy = ranked(d.result, s.ppb_rank, Setting("ppb_rank")).strategy;
  const std::filesystem::path folder = s.output_dir.empty() ? "." : s.output_dir;
  if (!s.output_dir.empty()) create_output_dir(s.output_dir);
  const std::string file_stem = ppb_file_stem(s.model.config.stem().string(), s.ppb_rank);
  const std::filesystem::path file = folder / (file_stem + ".json");
  Model model = d.model;
  const nlohmann::json description =
      ppb_description(d.loaded->registry, model, *d.machine.device, d.options, strategy);
  write_output_file(file, [&](std::ostream& out) { out << description.dump(2) << "\n"; });
  return {file,
          fmt::format(
              "wrote the layer description of rank {} ({}) to {}\n  balance it with: {}",
              s.ppb_rank, strategy_text(strategy), file.string(),
              ppb_command(folder.string(), file_stem, strategy, d.options.budget.budget_bytes))};
}

// The config with the emit_rank-th strategy written into it (apply's
// writer), checked to price as the ranked job (eval's pricing of it). A rank
// beyond the ranking or a pricing error stops the search; a writer's refusal
// is kept for the host to show after the ranking, still worth reading.
void emit(SearchReport::Data& d, const SearchSettings& s, SearchReport& report) {
  const PricedCandidate& c = ranked(d.result, s.emit_rank, Setting("emit_rank"));
  PriceCheck price{&d.machine, listed_evaluation_request(c, d.machine, d.request, d.options),
                   nullptr};
  const StrategyEvaluation priced =
      evaluate_strategy(d.loaded->registry, d.model, d.machine, price.request);
  price.ranked = &priced;
  const StrategyToWrite w{
      c.strategy, priced_stage_layers(priced.strategy, d.model, c.stage_layers),
      priced_layer_options(priced, static_cast<uint32_t>(d.model.decoder_layers())),
      recompute_text(c.strategy.recompute, c.recompute)};
  try {
    const ConfigWrite written = write_config(d.loaded->registry, d.model, s.model.config,
                                             parse_options(s.model), w, &price);
    report.written_config = written_config(written, d.model, s.model.config, s.emit_config, true);
  } catch (const UserError& e) {
    report.emit_failure = e;
  }
}

WrittenFile write_report(SearchReport::Data& d, SearchReportParts& parts,
                         const ChartLibrary& library, const std::filesystem::path& folder) {
  parts.header = search_header_lines(d.model, d.machine, d.request, d.options, d.result);
  nlohmann::json data = search_report_data(d.loaded->registry, d.model, d.machine, d.request,
                                           d.options, d.result, parts);
  data["generator"] = fmt::format("ndsearch {}", NDS_VERSION);
  const std::filesystem::path file = folder / "report.html";
  write_output_file(file, [&](std::ostream& out) {
    write_html_report(out,
                      fmt::format("ndsearch search: {} on {} x {}", d.model.display_name(),
                                  d.machine.devices, d.machine.device->id),
                      data, library);
  });
  return {file, fmt::format("wrote the report: {}", file.string())};
}

}  // namespace

SearchReport Planner::search(const SearchSettings& settings) const {
  const RunScope run(loaded_->options);
  check_outputs(settings);
  // Read before the search, so that a missing library does not cost one.
  const std::optional<ChartLibrary> library =
      settings.report ? std::optional<ChartLibrary>(load_chart_library()) : std::nullopt;
  auto d = std::make_shared<SearchReport::Data>();
  d->loaded = loaded_;
  d->model = parse_config(loaded_->registry, settings.model.config, parse_options(settings.model));
  d->table = settings.table;
  SearchRequest& request = d->request;
  request.space = space_request(settings.space);
  request.max_memory = settings.max_memory;
  request.reserve_mem = settings.reserve_mem;
  request.cp_algorithm = settings.cp_algo;
  request.recompute = recompute_settings_of(settings.recompute, swaps_optimizer(*loaded_->options));
  request.balance_layers = settings.balance_layers;
  request.devices = search_device_count(d->model, settings.devices);
  d->machine = make_machine(loaded_->catalog(), settings.device, request.devices);
  request.calibration =
      load_calibration(settings.calibration, *d->machine.device, settings.force_calibration);
  apply_memory_calibration(d->model, request.calibration);
  d->options = search_options(d->model, d->machine, request);
  // Files list every fitting (and, with an output folder, every dropped)
  // candidate; the document and the text list the top and the misses kept.
  const bool every_fit = !settings.ranking_csv.empty() || !settings.output_dir.empty();
  d->options.keep = every_fit ? 0
                              : std::max({settings.top, settings.ppb_rank,
                                          settings.emit_config.empty() ? 0 : settings.emit_rank});
  const size_t misses = misses_kept(settings);
  d->options.closest_misses = settings.output_dir.empty() ? misses : 0;
  d->options.progress = settings.progress;
  d->result = run_search(loaded_->registry, d->model, *d->machine.device, d->options);
  d->options.progress = nullptr;  // the caller's, valid during the call only

  SearchReport report(d);
  if (!settings.ranking_csv.empty()) {
    write_output_file(settings.ranking_csv,
                      [&](std::ostream& out) { write_ranking_csv(out, d->result.ranking); });
    report.files.push_back({settings.ranking_csv, ""});
  }
  SearchReportParts parts;  // the report's sample, taken while every fitting strategy is kept
  if (settings.report) parts.sample = sample_fits(d->result.ranking);
  if (!settings.output_dir.empty()) write_folder(*d, settings, parts.potentials, report.files);
  if (settings.ppb_rank > 0) report.files.push_back(write_ppb(*d, settings));
  if (!settings.emit_config.empty() && d->result.counts.fit > 0) emit(*d, settings, report);
  keep_listed(d->result, settings.top, misses);
  if (library) report.files.push_back(write_report(*d, parts, *library, settings.output_dir));
  return report;
}

}  // namespace ndsearch
