// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/search_verb.hpp"

#include <fmt/format.h>
#include <ndsearch/sdk/units.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>

#include "core/hardware/device_catalog.hpp"
#include "core/hardware/machine.hpp"
#include "core/model/model_json.hpp"
#include "core/recompute/recompute_summary.hpp"
#include "core/report/calibration_json.hpp"
#include "core/report/html_report.hpp"
#include "core/report/json_text.hpp"
#include "core/apply/priced_layers.hpp"
#include "core/report/ppb_description.hpp"
#include "core/report/report_data.hpp"
#include "core/report/search_json.hpp"
#include "core/report/strategy_json.hpp"
#include "core/search/search.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/user_error.hpp"
#include "hosts/cli/apply_verb.hpp"
#include "hosts/cli/calibration_flags.hpp"
#include "hosts/cli/eval_verb.hpp"
#include "hosts/cli/model_options.hpp"
#include "hosts/cli/output_files.hpp"
#include "hosts/cli/progress_line.hpp"
#include "hosts/cli/ranking_table.hpp"
#include "hosts/cli/recompute_flag.hpp"
#include "hosts/cli/recompute_strategy_flags.hpp"
#include "hosts/cli/schedule_flag.hpp"
#include "hosts/cli/search_csv.hpp"
#include "hosts/cli/search_header.hpp"
#include "hosts/cli/setting_flags.hpp"

namespace ndsearch::cli {
namespace {

using nlohmann::json;
constexpr double kGiB = sdk::kBytesPerGiB;  // sizes print in GiB

struct SearchArgs {
  ModelFlags model;
  std::string device;
  SearchRequest request;  // devices: 0 for what the config's strategy states
  size_t top = 10;
  bool pareto = false;
  std::string format = "table";
  std::string ranking_csv, out_dir;
  CalibrationFlags calibration;
  RecomputeChoiceSettings recompute_strategy;
  bool swap_optimizer = false;  // the plugin option "swap-optimizer"
  size_t ppb_rank = 0;          // --ppb-rank K (1 = the best); 0: none
  std::string emit_config;      // --emit-config OUT: the config with a ranked strategy in it
  size_t emit_rank = 1;         // --rank K: which (1 = the best)
  size_t misses = 0;            // --misses N: the closest dropped listed after a search that fits
  TableOptions table;           // --wide, --columns
  bool report = false;          // --report: DIR/report.html beside -o's files
};

// The closest misses a search keeps: every one at -v 3, else the five
// closest or --misses N (the JSON lists them). The table lists them after a
// search where some strategy fits only when asked (--misses N, -v 3).
constexpr size_t kEveryMiss = std::numeric_limits<size_t>::max();
size_t misses_kept(const SearchArgs& args, int verbosity) {
  return verbosity >= 3 ? kEveryMiss : std::max<size_t>(args.misses, 5);
}
bool misses_asked(const SearchArgs& args, int verbosity) {
  return verbosity >= 3 || args.misses > 0;
}

// recompute_potentials.csv covers the strategies a user weighs: the top ten.
constexpr size_t kPotentialsTop = 10;

std::string fixes_text(const SearchResult& r, size_t i) {
  if (i >= r.closest_fixes.size()) return "";
  if (r.closest_fixes[i].empty()) return "\n      no single change fits (tried recompute=full, zero=3, mbs=1, 2x devices)";
  return fmt::format("\n      fits with {}", fmt::join(r.closest_fixes[i], "; or "));
}

// The first `count` of the closest misses, each with what makes it fit.
void print_misses(std::ostream& out, const SearchResult& r, double budget, size_t count) {
  for (size_t i = 0; i < r.closest.size() && i < count; ++i) {
    const PricedCandidate& c = r.closest[i];
    out << fmt::format("    {}: peak {:.2f} GiB, {:.3f} GiB over{}\n", strategy_text(c.strategy), c.peak_bytes / kGiB,
                       (c.peak_bytes - budget) / kGiB, fixes_text(r, i));
  }
}

std::string refused_text(const SearchCounts& counts) {
  uint64_t total = 0;
  std::string reasons;
  for (const auto& [id, n] : counts.refused) {
    total += n;
    reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", id, n);
  }
  return reasons.empty() ? "0" : fmt::format("{} ({})", total, reasons);
}

// --ppb-rank K: the K-th strategy's layer description for the reference's
// pipeline balancer, as <config stem>_nd_to_ppb_<K>.json in -o DIR (else the
// current folder), and the balancer's command line; the lines to print.
std::string write_ppb(const PluginRegistry& registry, Model& model, const Device& device,
                      const SearchOptions& options, const SearchResult& r, const SearchArgs& args) {
  if (args.ppb_rank == 0) return "";
  if (args.ppb_rank > r.ranking.size())
    throw UserError("E-USAGE",
                    fmt::format("--ppb-rank {}: the ranking has {} strategies; give 1 to {}",
                                args.ppb_rank, r.ranking.size(), r.ranking.size()));
  const nds_strategy& s = r.ranking[args.ppb_rank - 1].strategy;
  const std::string stem = std::filesystem::path(args.model.config).stem().string();
  const std::filesystem::path folder =
      std::filesystem::path(args.out_dir.empty() ? "." : args.out_dir);
  if (!args.out_dir.empty()) create_output_dir(args.out_dir);
  const std::string file_stem = ppb_file_stem(stem, args.ppb_rank);
  const std::filesystem::path file = folder / (file_stem + ".json");
  const nlohmann::json description = ppb_description(registry, model, device, options, s);
  write_output_file(file, [&](std::ostream& out) { out << description.dump(2) << "\n"; });
  return fmt::format("  wrote the layer description of rank {} ({}) to {}\n  balance it with: {}\n",
                     args.ppb_rank, strategy_text(s), file.string(),
                     ppb_command(folder.string(), file_stem, s, options.budget.budget_bytes));
}

// --report: the page's title.
std::string report_title(const Model& model, const Machine& machine) {
  return fmt::format("ndsearch search: {} on {} x {}", model.display_name(), machine.devices,
                     machine.device->id);
}

int search(const PluginFlags& base_flags, const SearchArgs& args) {
  if (args.report && args.out_dir.empty())
    throw UserError("E-USAGE",
                    "--report writes report.html into the output folder: give -o DIR too");
  // Read before the search, so that a missing library does not cost one.
  const std::optional<ChartLibrary> library =
      args.report ? std::optional<ChartLibrary>(load_chart_library()) : std::nullopt;
  const PluginFlags flags = with_swap_optimizer(base_flags, args.swap_optimizer);
  PluginRegistry registry = PluginRegistry::load(plugin_search(flags));
  const DeviceCatalog catalog = DeviceCatalog::load(registry, !flags.device_file.empty());
  Model model = read_model(registry, args.model);

  const uint64_t devices = search_device_count(model, args.request.devices);
  const Machine machine = make_machine(catalog, args.device, devices);

  SearchRequest request = args.request;
  request.calibration = load_calibration(args.calibration, *machine.device);
  apply_memory_calibration(model, request.calibration);
  SearchOptions options = search_options(model, machine, request);
  // Files list every fitting (and, with -o, every dropped) candidate; the
  // screen shows the top -t and the closest misses misses_kept says.
  const bool all_fits = !args.ranking_csv.empty() || !args.out_dir.empty();
  options.keep =
      all_fits ? 0
               : std::max({args.top, args.ppb_rank, args.emit_config.empty() ? 0 : args.emit_rank});
  const size_t misses = misses_kept(args, flags.verbosity);
  options.closest_misses = misses == kEveryMiss || !args.out_dir.empty() ? 0 : misses;

  SearchProgress progress;
  options.progress = &progress;
  SearchResult r = [&] {
    const ProgressLine line(progress, flags.verbosity >= 1);
    return run_search(registry, model, *machine.device, options);
  }();
  if (!args.ranking_csv.empty())
    write_output_file(args.ranking_csv,
                      [&](std::ostream& out) { write_ranking_csv(out, r.ranking); });
  SearchReportParts report;  // --report's sample, taken while every fitting strategy is kept
  if (args.report) report.sample = sample_fits(r.ranking);
  if (!args.out_dir.empty()) {
    create_output_dir(args.out_dir);
    const std::filesystem::path dir(args.out_dir);
    write_output_file(dir / "ranking.csv",
                      [&](std::ostream& out) { write_ranking_csv(out, r.ranking); });
    write_output_file(dir / "dropped.csv", [&](std::ostream& out) {
      write_dropped_csv(out, r.closest, options.budget.budget_bytes);
    });
    report.potentials =
        recompute_potentials(registry, model, *machine.device, options, r.ranking, kPotentialsTop);
    write_output_file(dir / "recompute_potentials.csv",
                      [&](std::ostream& out) { write_potentials_csv(out, report.potentials); });
    if (flags.verbosity >= 3)
      write_output_file(dir / "priced.csv", [&](std::ostream& out) {
        write_priced_csv(out, r, options.budget.budget_bytes);
      });
  }
  std::string ppb_note = write_ppb(registry, model, *machine.device, options, r, args);
  std::optional<UserError> emit_failure;
  if (!args.emit_config.empty() && r.counts.fit > 0) {
    if (args.emit_rank < 1 || args.emit_rank > r.ranking.size())
      throw UserError("E-USAGE",
                      fmt::format("--rank {}: the ranking has {} strategies; give 1 to {}",
                                  args.emit_rank, r.ranking.size(), r.ranking.size()));
    const PricedCandidate& c = r.ranking[args.emit_rank - 1];
    // The ranked job as eval prices it: what the written config must price as.
    PriceCheck price{&machine, listed_evaluation_request(c, machine, request, options), nullptr};
    const StrategyEvaluation ranked = evaluate_strategy(registry, model, machine, price.request);
    price.ranked = &ranked;
    StrategyToWrite w{c.strategy, priced_stage_layers(ranked.strategy, model, c.stage_layers),
                      priced_layer_options(ranked, static_cast<uint32_t>(model.decoder_layers())),
                      recompute_text(c.strategy.recompute, c.recompute)};
    std::ostringstream written;  // printed after the table, with the balancer's note
    try {
      emit_config(registry, model, args.model, w, args.emit_config, written, &price);
    } catch (const UserError& e) {
      emit_failure = e;  // after the table: the ranking is still worth reading
    }
    ppb_note += written.str();
  }
  keep_listed(r, args.top, misses == kEveryMiss ? 0 : misses);
  if (args.report) {
    report.header = search_header_lines(model, machine, request, options, r);
    nlohmann::json data = search_report_data(registry, model, machine, request, options, r, report);
    data["generator"] = fmt::format("ndsearch {}", NDS_VERSION);
    const std::filesystem::path file = std::filesystem::path(args.out_dir) / "report.html";
    write_output_file(file, [&](std::ostream& out) {
      write_html_report(out, report_title(model, machine), data, *library);
    });
    ppb_note += fmt::format("  wrote the report: {}\n", file.string());
  }
  const double per_s = candidates_per_s(r);
  const double budget = options.budget.budget_bytes;

  if (args.format == "csv") {
    write_ranking_csv(std::cout, r.ranking);
  } else if (args.format == "json") {
    write_search_json(std::cout, registry, model, machine, request, options, r);
  } else if (flags.verbosity >= 1) {
    TableOptions table = args.table;
    table.devices = devices;
    print_search_header(model, machine, request, options, r, table.width);
    print_ranking_table(std::cout, r.ranking, table);
    if (args.pareto && !r.pareto.empty()) {
      std::cout << "  Pareto set (no other strategy is both faster and smaller):\n";
      print_ranking_table(std::cout, r.pareto, table);
    }
    std::cout << wrapped(
        fmt::format(
            "tested {}, refused {}, priced {}, fit {}, dropped {} (over the budget){}",
            r.counts.tested, refused_text(r.counts), r.counts.priced, r.counts.fit,
            r.counts.dropped,
            r.counts.outpaced == 0
                ? std::string()
                : fmt::format(", outpaced {} (over with every layer kept, and already no faster "
                              "than the top {} of their tp, pp, cp: recompute only adds time)",
                              r.counts.outpaced, options.keep)),
        table.width, "  ", "    ");
    if (r.counts.dropped > 0 && r.counts.fit > 0 && misses_asked(args, flags.verbosity)) {
      std::cout << fmt::format("  {} closest dropped:\n", flags.verbosity >= 3 ? "every" : "the");
      print_misses(std::cout, r, budget, flags.verbosity >= 3 ? kEveryMiss : args.misses);
    }
    std::cout << fmt::format("  {:.3f} s, {:.0f} candidates/s with {} threads\n", r.elapsed_s, per_s,
                             options.threads);
  }
  // Beside the table; on stderr where stdout is one JSON or CSV document.
  (args.format == "table" ? std::cout : std::cerr) << ppb_note;
  if (emit_failure) throw *emit_failure;
  if (r.counts.fit == 0) {
    std::cerr << fmt::format("ndsearch: error [E-SEARCH-NO-FIT]: none of the {} candidates priced fits {:.2f} GiB "
                             "per device.{}\n",
                             r.counts.priced, budget / kGiB,
                             r.closest.empty() ? " Every candidate was refused by a check (counts above)."
                                               : " The closest:");
    print_misses(std::cerr, r, budget, kEveryMiss);
    std::cerr << "  Otherwise: more devices (-d), more memory per device (-M), or more dimensions searched (-l).\n";
    return kExitNoFit;
  }
  return kExitOk;
}

}  // namespace

void add_space_flags(CLI::App& verb, SearchSpaceRequest& space) {
  // The reference's users type the dimensions as separate words (-l DP TP PP);
  // one quoted string works too. The words run to the next flag, so CONFIG
  // goes before -l or after --.
  verb.add_option_function<std::vector<std::string>>(
          "-l,--dimensions",
          [&space](const std::vector<std::string>& words) {
            space.dimensions.clear();
            for (const std::string& w : words) {
              if (w.find('/') != std::string::npos || w.find('.') != std::string::npos)
                throw UserError(
                    "E-USAGE",
                    fmt::format("-l {}: \"{}\" is not a dimension; -l takes the words up "
                                "to the next flag, so give CONFIG before -l or after --",
                                fmt::join(words, " "), w));
              space.dimensions += (space.dimensions.empty() ? "" : " ") + w;
            }
          },
          "Dimensions to search, e.g. -l DP TP PP MBS or \"DP,TP,PP\" (default: DP TP PP CP EP ETP "
          "VPP SP ZERO "
          "MBS MBN RECOMPUTE; MP = TP, MB = MBN; also OP, SCHEDULE); the others keep the config's "
          "value")
      ->expected(1, CLI::detail::expected_max_vector_size);
  verb.add_option("--only", space.only, "Restrict a dimension to values, e.g. tp=2,4,8 (repeatable)");
  verb.add_option("-j,--threads", space.threads, "Pricing threads (default: every core)")->check(CLI::Range(1, 4096));
}

void add_search_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run) {
  auto args = std::make_shared<SearchArgs>();
  CLI::App* verb = app.add_subcommand("search", "Enumerate, check, price and rank every strategy");
  add_model_flags(*verb, args->model);
  verb->add_option("-A,--device", args->device, "The accelerator: an id of `ndsearch hardware`, or A2 / A3")
      ->required();
  auto devices = std::make_shared<DevicesFlag>();
  add_devices_flag(*verb, *devices, "How many devices (default: what the config's strategy states)");
  add_space_flags(*verb, args->request.space);
  auto recompute = std::make_shared<std::vector<std::string>>();
  add_search_recompute_flag(*verb, *recompute);
  auto schedules = std::make_shared<std::vector<std::string>>();
  add_search_schedule_flag(*verb, *schedules);
  add_recompute_strategy_flags(*verb, args->recompute_strategy);
  add_calibration_flags(*verb, args->calibration);
  verb->add_option("-t,--top", args->top, "Strategies of the ranking to print")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  verb->add_option("--misses", args->misses,
                   "Also list the N candidates closest to fitting, with what makes each fit (the "
                   "five closest are listed anyway when none fits; every one at -v 3)")
      ->check(CLI::Range(1, 1000000));
  verb->add_flag("--wide", args->table.wide,
                 "Show every strategy key and every part of the step in the table, however wide");
  verb->add_option(
          "--columns", args->table.columns,
          "The table's columns, e.g. dp,tp,pp,mbn,step,peak,parts (strategy keys, step, mfu, "
          "tokens, peak, parts, or a part of the step as forward%, dp%, ...)")
      ->delimiter(',');
  verb->add_option("-M,--max-memory", args->request.max_memory, "Device memory to use instead of the device's (58GB = 58 GiB)");
  verb->add_option("--reserve-mem", args->request.reserve_mem, "Memory to keep free beside the runtime's reserve");
  add_swap_optimizer_flag(*verb, args->swap_optimizer);
  verb->add_option("--cp-algo", args->request.cp_algorithm,
                   "Context-parallel attention: ring, ulysses, hybrid, allgather-kv (default: the config's, else ring)");
  verb->add_flag("--pareto", args->pareto, "Also print the strategies no other beats on both time and memory");
  verb->add_option(
      "--emit-config", args->emit_config,
      "Write the config with the --rank K strategy applied to this file (ndsearch apply's writer)");
  verb->add_option("--rank", args->emit_rank, "Which strategy --emit-config writes (1 = the best)")
      ->capture_default_str();
  verb->add_option("--ppb-rank", args->ppb_rank,
                   "Write the K-th strategy's layer description for the pipeline balancer "
                   "(<config>_nd_to_ppb_<K>.json in -o DIR or here; 1 = the best)")
      ->check(CLI::Range(1, 1000000));
  verb->add_flag("--balance-layers", args->request.balance_layers,
                 "Choose each candidate's layers per stage and chunk for a shorter step within the "
                 "budget (default: the even split)");
  verb->add_option("--format", args->format, "Output format (csv: the ranking's top -t)")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  verb->add_option("--ranking-csv", args->ranking_csv, "Write every fitting strategy, in rank order, to FILE");
  verb->add_option("-o,--output-dir", args->out_dir,
                   "Write ranking.csv and dropped.csv to DIR (and priced.csv, every priced candidate, at -v 3)");
  verb->add_flag("--report", args->report,
                 "Also write DIR/report.html (with -o DIR): the ranking, the step's parts, memory "
                 "per stage, time against memory, the refusals, the best strategy's timeline and "
                 "recompute potentials, as one page that opens offline");
  verb->callback([&run, &flags, args, devices, recompute, schedules] {
    run = [&flags, args, devices, recompute, schedules] {
      args->request.devices = devices->value_or(0);  // 0: what the config's strategy states
      check_table_columns(args->table.columns);
      args->table.width = stdout_width();
      apply_search_recompute(*recompute, args->request.space.only);
      apply_search_schedule(*schedules, args->request.space.only);
      args->request.recompute =
          recompute_settings_of(args->recompute_strategy, args->swap_optimizer);
      return search(flags, *args);
    };
  });
}

}  // namespace ndsearch::cli
