// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/compare_verb.hpp"

#include <fmt/format.h>
#include <ndsearch/sdk/units.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "core/compare/compare_file.hpp"
#include "core/compare/compare_runs.hpp"
#include "core/compare/fit_calibration.hpp"
#include "core/hardware/device_catalog.hpp"
#include "core/report/calibration_json.hpp"
#include "core/report/compare_csv.hpp"
#include "core/report/compare_json.hpp"
#include "core/report/fit_json.hpp"
#include "core/report/json_text.hpp"
#include "core/support/user_error.hpp"
#include "hosts/cli/eval_verb.hpp"
#include "hosts/cli/model_options.hpp"
#include "hosts/cli/output_files.hpp"
#include "hosts/cli/setting_flags.hpp"

namespace ndsearch::cli {
namespace {

using nlohmann::json;

struct CompareArgs {
  EvalArgs eval;  // the model, device and pricing flags; the strategy comes from each run
  std::string measured;
  std::string out_dir;  // -o: also write compare_runs.csv there
  std::string fit;      // --fit: write a calibration fitted on the runs there
};

// The table's lines stay under this many columns (a terminal's 120).
constexpr size_t kTableWidth = 119;

// "12.3" of a number, "-" of null.
std::string cell(const json& value, const char* spec) {
  return value.is_null() ? std::string("-") : fmt::format(fmt::runtime(spec), value.get<double>());
}

// "parts s (measured/predicted):  compute 1.2/1.15  dp 0.1/0.08 ...": a
// run's parts in the file's order, wrapped to kTableWidth.
void print_run_parts(const json& parts, const std::vector<std::string>& names) {
  const std::string indent = "         ";
  std::string line = indent + "parts s (measured/predicted):";
  for (const std::string& name : names) {
    if (!parts.contains(name)) continue;
    const std::string item =
        fmt::format("  {} {}/{}", name, cell(parts[name]["measured_s"], "{:.4g}"),
                    cell(parts[name]["predicted_s"], "{:.4g}"));
    if (line.size() + item.size() > kTableWidth) {
      std::cout << line << "\n";
      line = indent + "   ";
    }
    line += item;
  }
  std::cout << line << "\n";
}

void print_compare_table(const json& j, const std::vector<std::string>& part_names) {
  std::cout << fmt::format("{} on {}: {} runs of {} ({}), {} priced\n",
                           j["model"].get<std::string>(), j["device"].get<std::string>(),
                           j["runs"].size(), j["measured"].get<std::string>(),
                           j["format"].get<std::string>(), j["priced"].get<size_t>());
  // A validation CSV prices each row on its own device: no calibration keys
  // then (operator[] of a const json on a missing key is undefined).
  if (j.contains("calibration"))
    print_calibration_line(j.at("calibration"), j.at("trainer_overheads"));
  std::cout << fmt::format("  {:>5}  {:<32} {:>10} {:>11} {:>8} {:>6} {:>6}  {}\n", "line",
                           "strategy", "measured s", "predicted s", "error %", "m.rank", "p.rank",
                           "fits");
  for (const json& r : j["runs"]) {
    const json error = r["error"].is_null() ? json(nullptr) : json(100 * r["error"].get<double>());
    std::cout << fmt::format("  {:>5}  {:<32} {:>10.4f} {:>11} {:>8} {:>6} {:>6}  {}\n",
                             r["line"].get<int>(), r["strategy"].get<std::string>(),
                             r["measured_s"].get<double>(), cell(r["predicted_s"], "{:.4f}"),
                             cell(error, "{:+.1f}"),
                             r["measured_rank"].is_null() ? "-" : json_text(r["measured_rank"]),
                             r["predicted_rank"].is_null() ? "-" : json_text(r["predicted_rank"]),
                             r["fits"].get<bool>() ? "yes" : "no");
    if (!r["parts"].empty()) print_run_parts(r["parts"], part_names);
    for (const json& a : r["adapted"])
      std::cout << fmt::format("         priced with {}\n", a.get<std::string>());
    if (!r["memory_miss"].is_null())
      std::cout << fmt::format("         scored, though our memory model says it {}\n",
                               r["memory_miss"].get<std::string>());
    if (!r["peak_error"].is_null())
      std::cout << fmt::format("         peak: measured {:.2f} GiB, predicted {:.2f} GiB, error {:+.1f} %\n",
                               r["measured_peak_bytes"].get<double>() / sdk::kBytesPerGiB,
                               r["predicted_peak_bytes"].get<double>() / sdk::kBytesPerGiB,
                               100 * r["peak_error"].get<double>());
    if (!r["refused"].is_null())
      std::cout << fmt::format("         left out: [{}] {}\n",
                               r["refused"]["id"].get<std::string>(),
                               with_flags(r["refused"]["reason"].get<std::string>()));
  }
  for (const json& s : j["skipped"])
    std::cout << fmt::format(
        "  skipped line {}{}: {}\n", s["line"].get<int>(),
        s["column"].get<std::string>().empty()
            ? std::string()
            : fmt::format(", column {} = \"{}\"", s["column"].get<std::string>(),
                          s["value"].get<std::string>()),
        s["reason"].get<std::string>());
  const json& m = j["metrics"];
  std::cout << fmt::format(
      "  mape {}  mean_error {}  pearson {}  spearman {}  top_k {}  top1_regret {}\n",
      cell(m["mape"], "{:.4f}"), cell(m["mean_error"], "{:+.4f}"), cell(m["pearson"], "{:.4f}"),
      cell(m["spearman"], "{:.4f}"), json_text(m["top_k"]), cell(m["top1_regret"], "{:.4f}"));
  if (j["peaks"]["runs"].get<size_t>() > 0)
    std::cout << fmt::format("  peak memory: runs {}  mape {}  mean_error {}\n", json_text(j["peaks"]["runs"]),
                             cell(j["peaks"]["mape"], "{:.4f}"), cell(j["peaks"]["mean_error"], "{:+.4f}"));
  for (const auto& [name, p] : m["parts"].items())
    std::cout << fmt::format("  part {:<10} runs {}  pearson {}  mean_abs_error_s {}  mape {}\n",
                             name, json_text(p["runs"]), cell(p["pearson"], "{:.4f}"),
                             cell(p["mean_abs_error_s"], "{:.4f}"), cell(p["mape"], "{:.4f}"));
  if (j.contains("fit")) {
    const json& fit = j["fit"];
    if (!fit["file"].is_null())
      std::cout << fmt::format("  calibration written to {}\n", fit["file"].get<std::string>());
    for (const json& line : fit["report"]) std::cout << "    " << line.get<std::string>() << "\n";
  }
}

int compare(const PluginFlags& base_flags, const CompareArgs& args) {
  const PluginFlags flags = eval_plugin_flags(base_flags, args.eval);
  PluginRegistry registry = PluginRegistry::load(plugin_search(flags));
  const DeviceCatalog catalog = DeviceCatalog::load(registry, !flags.device_file.empty());
  CompareRequest request;
  request.config = args.eval.model.config;
  request.parse = args.eval.model.parse;
  request.device = args.eval.device;
  request.devices = args.eval.request.devices;
  // The format, and so whether CONFIG and -A are needed, is the core's to
  // tell; a validation CSV is priced with the shipped model, each row on its
  // own device, so neither a calibration nor a fit applies to it.
  const bool validation = is_validation_csv(args.measured);
  if (validation && (!args.eval.calibration.file.empty() || !args.fit.empty()))
    throw UserError("E-USAGE",
                    fmt::format("{} is a validation CSV, priced with the shipped model on each "
                                "row's device: --calibration and --fit do not apply to it (refit "
                                "the shipped overheads with ndsearch-validate)",
                                args.measured));
  std::optional<AppliedCalibration> calibration;
  const Device* device = nullptr;
  request.base = args.eval.request;
  if (!validation && !args.eval.device.empty()) {
    device = &catalog.resolve(args.eval.device, "the device id");
    request.base = calibrated_request(args.eval, *device, calibration);
    request.calibration = calibration;
  }
  const Comparison comparison = compare_measured_file(registry, catalog, request, args.measured);
  json j = compare_json(comparison);
  if (device != nullptr)
    add_calibration_json(j, calibration, read_model(registry, args.eval.model), *device);
  if (!args.fit.empty() && comparison.priced() > 0)
    j["fit"] = fit_json(fit_calibration_file(registry, catalog, request, comparison, args.fit));
  if (!args.out_dir.empty()) {  // before stdout, so a folder that fails leaves no half output
    create_output_dir(args.out_dir);
    write_output_file(std::filesystem::path(args.out_dir) / "compare_runs.csv",
                      [&](std::ostream& out) { write_compare_csv(out, comparison); });
  }
  if (args.eval.format == "json")
    std::cout << json_text(j, 2) << "\n";
  else if (args.eval.format == "csv")
    write_compare_csv(std::cout, comparison);
  else
    print_compare_table(j, measured_part_names(comparison));
  if (comparison.priced() > 0) return kExitOk;
  std::cerr << fmt::format(
      "ndsearch: error [E-COMPARE-NONE-PRICED]: {}: none of its {} runs could be priced (each is "
      "listed with its reason); fix the strategies or the settings they share\n",
      args.measured, comparison.runs.size());
  return kExitUsage;
}

}  // namespace

void add_compare_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* verb = app.add_subcommand(
      "compare", "Price measured runs as eval does and report how far the estimates are from them");
  add_model_flags(*verb, args->eval.model, false);  // none for a validation CSV
  verb->add_option("--measured", args->measured,
                   "The measured runs: a CSV in the reference's simple or classified format, "
                   "ours, or a validation CSV (validation/*.csv: no CONFIG nor -A then)")
      ->required();
  verb->add_option("-A,--device", args->eval.device,
                   "The accelerator: an id of `ndsearch hardware`, or A2 / A3 (not with a "
                   "validation CSV)");
  auto devices = std::make_shared<DevicesFlag>();
  add_devices_flag(*verb, *devices, "How many devices, where a run does not say");
  add_pricing_flags(*verb, args->eval);
  verb->add_option("--host-link-gibps", args->eval.recompute_strategy.host_link_gibps,
                   "Host link bandwidth per device and direction in GiB/s for --swap-optimizer's "
                   "copies, instead of 80 % of the device's");
  verb->add_option("--format", args->eval.format, "Output format (csv: one row per run)")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  verb->add_option("--fit", args->fit,
                   "Fit a calibration on the runs and write it to FILE (apply it with "
                   "--calibration)");
  verb->add_option("-o,--output-dir", args->out_dir,
                   "Also write the per-run CSV to DIR/compare_runs.csv (DIR is created)");
  verb->callback([&run, &flags, args, devices] {
    run = [&flags, args, devices] {
      args->eval.request.devices = devices->value_or(0);  // 0: each run's strategy product
      args->eval.request.recompute =
          recompute_settings_of(args->eval.recompute_strategy, args->eval.swap_optimizer);
      return compare(flags, *args);
    };
  });
}

}  // namespace ndsearch::cli
