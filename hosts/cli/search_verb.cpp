// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/search_verb.hpp"

#include <fmt/format.h>
#include <ndsearch/core/json_text.hpp>
#include <ndsearch/core/planner.hpp>
#include <ndsearch/core/strategy_vocabulary.hpp>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "hosts/cli/calibration_flags.hpp"
#include "hosts/cli/eval_verb.hpp"
#include "hosts/cli/model_options.hpp"
#include "hosts/cli/progress_line.hpp"
#include "hosts/cli/recompute_flag.hpp"
#include "hosts/cli/recompute_strategy_flags.hpp"
#include "hosts/cli/schedule_flag.hpp"
#include "hosts/cli/shared_flags.hpp"
#include "hosts/cli/terminal_width.hpp"

namespace ndsearch::cli {
namespace {

struct SearchArgs {
  SearchSettings settings;      // devices: 0 for what the config's strategy states
  bool swap_optimizer = false;  // the plugin option "swap-optimizer"
  std::string format = "table";
};

// -v 3 lists every closest miss and writes priced.csv into -o DIR.
void apply_verbosity(SearchSettings& s, int verbosity) {
  if (verbosity < 3) return;
  s.table.every_miss = true;
  s.priced_csv = true;
}

// What was written, beside the table; on stderr where stdout is one JSON or
// CSV document: the balancer's file, the emitted config, then the report.
void print_notes(std::ostream& out, const SearchReport& r, const std::filesystem::path& report) {
  const bool reported = !report.empty();
  for (const WrittenFile& f : r.files)
    if (!f.note.empty() && !(reported && f.path == report)) out << "  " << f.note << "\n";
  if (r.written_config && r.written_config->file) {
    out << r.written_config->file->note << "\n";
    if (!r.written_config->fragments) r.written_config->write_changes(out);
  }
  for (const WrittenFile& f : r.files)
    if (reported && f.path == report) out << "  " << f.note << "\n";
}

int search(const PluginFlags& base_flags, SearchArgs& args) {
  apply_verbosity(args.settings, base_flags.verbosity);
  SearchProgress progress;
  args.settings.progress = &progress;
  const Planner planner = load_planner(with_swap_optimizer(base_flags, args.swap_optimizer));
  const SearchReport r = [&] {
    const ProgressLine line(progress, base_flags.verbosity >= 1);
    return planner.search(args.settings);
  }();
  if (args.format == "csv")
    r.write_csv(std::cout);
  else if (args.format == "json")
    r.write_json(std::cout);
  else if (base_flags.verbosity >= 1)
    r.write_text(std::cout, cli_text());
  print_notes(args.format == "table" ? std::cout : std::cerr, r,
              args.settings.report ? args.settings.output_dir / "report.html" : "");
  if (r.emit_failure) throw *r.emit_failure;
  if (!r.fits()) throw r.no_fit();
  return kExitOk;
}

}  // namespace

void add_space_flags(CLI::App& verb, SpaceSettings& space) {
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
          "Dimensions to search, e.g. -l DP TP PP MBS or \"DP,TP,PP\" (default: " +
              default_dimension_words() + "); the others keep the config's value")
      ->expected(1, CLI::detail::expected_max_vector_size);
  verb.add_option("--only", space.only,
                  "Restrict a dimension to values, e.g. tp=2,4,8 (repeatable)");
  verb.add_option("-j,--threads", space.threads, "Pricing threads (default: every core)")
      ->check(CLI::Range(1, 4096));
}

void add_search_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run) {
  auto args = std::make_shared<SearchArgs>();
  SearchSettings& s = args->settings;
  CLI::App* verb = app.add_subcommand("search", "Enumerate, check, price and rank every strategy");
  add_model_flags(*verb, s.model);
  add_device_flag(*verb, s.device)->required();
  auto devices = std::make_shared<DevicesFlag>();
  add_devices_flag(*verb, *devices,
                   "How many devices (default: what the config's strategy states)");
  add_space_flags(*verb, s.space);
  add_search_recompute_flag(*verb, s.space.recompute_modes);
  add_search_schedule_flag(*verb, s.space.schedules);
  add_recompute_strategy_flags(*verb, s.recompute);
  add_calibration_flags(*verb, s.calibration, s.force_calibration);
  verb->add_option("-t,--top", s.top, "Strategies of the ranking to print")
      ->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  verb->add_option("--misses", s.table.misses,
                   fmt::format("Also list the N candidates closest to fitting, with what makes "
                               "each fit (the {} closest are listed anyway when none fits; every "
                               "one at -v 3)",
                               kListedMisses))
      ->check(CLI::Range(1, 1000000));
  verb->add_flag("--wide", s.table.wide,
                 "Show every strategy key and every part of the step in the table, however wide");
  verb->add_option(
          "--columns", s.table.columns,
          "The table's columns, e.g. dp,tp,pp,mbn,step,peak,parts (strategy keys, step, mfu, "
          "tokens, peak, parts, or a part of the step as forward%, dp%, ...)")
      ->delimiter(',');
  add_memory_flags(*verb, s.max_memory, s.reserve_mem);
  add_swap_optimizer_flag(*verb, args->swap_optimizer);
  add_cp_algo_flag(*verb, s.cp_algo);
  verb->add_flag("--pareto", s.table.pareto,
                 "Also print the strategies no other beats on both time and memory");
  verb->add_option(
      "--emit-config", s.emit_config,
      "Write the config with the --rank K strategy applied to this file (ndsearch apply's writer)");
  verb->add_option("--rank", s.emit_rank, "Which strategy --emit-config writes (1 = the best)")
      ->capture_default_str();
  verb->add_option("--ppb-rank", s.ppb_rank,
                   "Write the K-th strategy's layer description for the pipeline balancer "
                   "(<config>_nd_to_ppb_<K>.json in -o DIR or here; 1 = the best)")
      ->check(CLI::Range(1, 1000000));
  verb->add_flag("--balance-layers", s.balance_layers,
                 "Choose each candidate's layers per stage and chunk for a shorter step within the "
                 "budget (default: the even split)");
  verb->add_option("--format", args->format, "Output format (csv: the ranking's top -t)")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  verb->add_option("--ranking-csv", s.ranking_csv,
                   "Write every fitting strategy, in rank order, to FILE");
  verb->add_option(
      "-o,--output-dir", s.output_dir,
      "Write ranking.csv and dropped.csv to DIR (and priced.csv, every priced candidate, at -v 3)");
  verb->add_flag("--report", s.report,
                 "Also write DIR/report.html (with -o DIR): the ranking, the step's parts, memory "
                 "per stage, time against memory, the refusals, the best strategy's timeline and "
                 "recompute potentials, as one page that opens offline");
  verb->callback([&run, &flags, args, devices] {
    run = [&flags, args, devices] {
      args->settings.devices = devices->value_or(0);  // 0: what the config's strategy states
      return search(flags, *args);
    };
  });
}

}  // namespace ndsearch::cli
