// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/explain_verb.hpp"

#include <fmt/format.h>
#include <ndsearch/sdk/units.hpp>
#include <nlohmann/json.hpp>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "core/explain/explain_strategy.hpp"
#include "core/hardware/device_catalog.hpp"
#include "core/report/calibration_json.hpp"
#include "core/report/explain_json.hpp"
#include "core/report/html_report.hpp"
#include "core/report/json_text.hpp"
#include "core/report/report_data.hpp"
#include "core/report/timeline_json.hpp"
#include "hosts/cli/eval_verb.hpp"
#include "hosts/cli/model_options.hpp"
#include "hosts/cli/output_files.hpp"
#include "hosts/cli/recompute_flag.hpp"
#include "hosts/cli/search_verb.hpp"
#include "hosts/cli/setting_flags.hpp"

namespace ndsearch::cli {
namespace {

using nlohmann::json;

struct ExplainArgs {
  EvalArgs eval;
  SearchSpaceRequest space;
  std::string timeline;  // a file for the Chrome Trace Event JSON of the step; empty: none
  std::string report;    // a file for the HTML report of the strategy; empty: none
};

// The report's lines above its table: what was priced, on what, and under
// which assumptions (the same the table's header says).
std::vector<std::string> explain_header(const json& j) {
  // A refused strategy may leave the device count unknown (null).
  std::vector<std::string> lines{fmt::format("{} on {} x {}", j["model"].get<std::string>(),
                                             j["devices"].is_null() ? "?" : j["devices"].dump(),
                                             j["device"].get<std::string>())};
  if (j.contains("strategy") && j["strategy"].is_object()) {
    std::string text;
    for (const auto& [key, value] : j["strategy"].items())
      if (!value.is_null())  // a refused strategy's unresolved keys
        text += fmt::format("{}{}={}", text.empty() ? "" : ",", key,
                            value.is_string() ? value.get<std::string>() : value.dump());
    lines.push_back("strategy " + text);
  }
  if (j.contains("memory") && j["memory"].contains("budget_bytes"))
    lines.push_back(fmt::format("budget {:.2f} GiB per device ({})",
                                j["memory"]["budget_bytes"].get<double>() / sdk::kBytesPerGiB,
                                with_flags(j["memory"]["capacity_source"].get<std::string>())));
  if (j.contains("assumptions"))
    for (const json& a : j["assumptions"])
      lines.push_back("assumes " + with_flags(a.get<std::string>()));
  return lines;
}

int explain(const PluginFlags& base_flags, ExplainArgs args) {
  // Read first, so that a missing library does not cost the pricing.
  const std::optional<ChartLibrary> library =
      args.report.empty() ? std::nullopt : std::optional<ChartLibrary>(load_chart_library());
  const PluginFlags flags = eval_plugin_flags(base_flags, args.eval);
  PluginRegistry registry = PluginRegistry::load(plugin_search(flags));
  const DeviceCatalog catalog = DeviceCatalog::load(registry, !flags.device_file.empty());
  Model model = read_model(registry, args.eval.model);
  ExplainRequest request;
  if (args.eval.request.strategy.empty()) {
    // The config's own strategy, ranked in the default search on its own devices.
    args.eval.request.devices = prepare_own_strategy(model, args.eval.request.devices);
    request.rank_by_default = true;
  }
  const Machine machine = evaluation_machine(catalog, args.eval.device, args.eval.request.devices);
  std::optional<AppliedCalibration> calibration;
  request.evaluation = calibrated_request(args.eval, *machine.device, calibration);
  apply_memory_calibration(model, calibration);
  request.space = args.space;
  const StrategyExplanation explanation = explain_strategy(registry, model, machine, request);
  const int exit_code = report_refusal(explanation.evaluation);
  if (!args.timeline.empty() && explanation.evaluation.valid())
    write_output_file(args.timeline, [&](std::ostream& out) {
      out << json_text(timeline_json(explanation.evaluation), 1) << "\n";
    });
  json j = explanation_json(explanation);
  add_calibration_json(j, calibration, model, *machine.device);
  if (!args.report.empty()) {
    json data =
        explain_report_data(registry, model, machine, request, explanation, j, explain_header(j));
    data["generator"] = fmt::format("ndsearch {}", NDS_VERSION);
    write_output_file(args.report, [&](std::ostream& out) {
      write_html_report(out,
                        fmt::format("ndsearch explain: {} on {} x {}", model.display_name(),
                                    machine.devices, machine.device->id),
                        data, *library);
    });
    (args.eval.format == "json" ? std::cerr : std::cout)
        << fmt::format("  wrote the report: {}\n", args.report);
  }
  if (args.eval.format == "json") {
    std::cout << json_text(j, 2) << "\n";
    return exit_code;
  }
  std::cout << "  checks (in order; docs/cli.md, \"Checks\"):\n";
  for (const json& c : j["checks"])
    std::cout << fmt::format("    {} {:<12} {}\n", c["passed"].get<bool>() ? "pass" : "FAIL",
                             c["id"].get<std::string>(),
                             with_flags(c["message"].get<std::string>()));
  print_eval_table(j);
  if (j.contains("search")) {
    const json& r = j["search"];
    for (const json& b : r["outside_bounds"])
      std::cout << fmt::format("  added to the search to rank it: {}\n",
                               with_flags(b.get<std::string>()));
    if (r["rank"].is_null()) {
      std::cout << fmt::format("  search: {}\n", with_flags(r["note"].get<std::string>()));
    } else {
      std::cout << fmt::format("  search: rank {} of {} fitting ({} tested)\n", r["rank"].get<size_t>(),
                               r["fit"].get<uint64_t>(), r["tested"].get<uint64_t>());
      for (const json& b : r["beaten_by"])
        std::cout << fmt::format("    rank {} ({:.3f} s): {}\n      faster by {}\n",
                                 b["rank"].get<size_t>(), b["step_s"].get<double>(),
                                 b["strategy_text"].get<std::string>(),
                                 with_flags(b["reason"].get<std::string>()));
    }
    if (!r["best_changes"].empty()) {
      std::cout << "  the fastest strategy changes:\n";
      for (const json& c : r["best_changes"])
        std::cout << fmt::format("    {}\n", c.get<std::string>());
    }
  }
  return exit_code;
}

}  // namespace

void add_explain_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run) {
  auto args = std::make_shared<ExplainArgs>();
  CLI::App* verb =
      app.add_subcommand("explain",
                         "One strategy (the config's own by default): every check, memory per "
                         "stage, time; its rank in a search and what beats it");
  add_model_flags(*verb, args->eval.model);
  verb->add_option("-A,--device", args->eval.device, "The accelerator: an id of `ndsearch hardware`, or A2 / A3")
      ->required();
  auto devices = std::make_shared<DevicesFlag>();
  add_devices_flag(*verb, *devices, "How many devices");
  verb->add_option("--strategy", args->eval.request.strategy,
                   "KEY=VALUE pairs of dp tp pp cp ep etp vpp sp zero op mbs mbn recompute "
                   "schedule, e.g. \"tp=4,pp=4,recompute=full\"; default: the config's own, "
                   "ranked in the default search");
  verb->add_option("-M,--max-memory", args->eval.request.max_memory, "Device memory to use instead of the device's");
  verb->add_option("--reserve-mem", args->eval.request.reserve_mem, "Memory to keep free beside the runtime's reserve");
  verb->add_option("--cp-algo", args->eval.request.cp_algorithm, "Context-parallel attention: ring, ulysses, hybrid, allgather-kv");
  add_swap_optimizer_flag(*verb, args->eval.swap_optimizer);
  auto recompute = std::make_shared<std::string>();
  add_strategy_recompute_flag(*verb, *recompute);
  add_recompute_strategy_flags(*verb, args->eval.recompute_strategy);
  add_calibration_flags(*verb, args->eval.calibration);
  add_space_flags(*verb, args->space);  // with -l or --only: rank the strategy in that search
  verb->add_option(
      "--timeline", args->timeline,
      "Write the step's pipeline schedule to this file as Chrome Trace Event JSON (Perfetto, "
      "chrome://tracing): a track per pipeline rank");
  verb->add_option("--report", args->report,
                   "Write the strategy's HTML report to this file: its table, checks, the step's "
                   "parts, memory per stage, timeline and recompute potentials, as one page that "
                   "opens offline");
  verb->add_option("--format", args->eval.format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  verb->callback([&run, &flags, args, devices, recompute] {
    run = [&flags, args, devices, recompute] {
      args->eval.request.devices = devices->value_or(0);  // 0: the strategy's product
      apply_strategy_recompute(*recompute, args->eval.request.strategy);
      args->eval.request.recompute =
          recompute_settings_of(args->eval.recompute_strategy, args->eval.swap_optimizer);
      return explain(flags, *args);
    };
  });
}

}  // namespace ndsearch::cli
