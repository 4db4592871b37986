// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/eval_verb.hpp"

#include <fmt/format.h>
#include <ndsearch/sdk/units.hpp>
#include <nlohmann/json.hpp>

#include <iostream>

#include "core/hardware/device_catalog.hpp"
#include "core/report/calibration_json.hpp"
#include "core/report/evaluation_json.hpp"
#include "core/report/json_text.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/user_error.hpp"
#include "hosts/cli/model_options.hpp"
#include "hosts/cli/parameter_count.hpp"
#include "hosts/cli/recompute_flag.hpp"
#include "hosts/cli/setting_flags.hpp"

namespace ndsearch::cli {
namespace {

using nlohmann::json;
constexpr double kGiB = sdk::kBytesPerGiB;  // sizes print in GiB

void print_memory_footer(const json& m);

}  // namespace

void print_eval_table(const json& j) {
  std::cout << fmt::format("{} on {} x {}\n", j["model"].get<std::string>(),
                           j["devices"].is_null() ? std::string("?") : json_text(j["devices"]), j["device"].get<std::string>());
  std::string keys;
  for (const auto& [key, value] : j["strategy"].items())
    keys += fmt::format("{}{}={}", keys.empty() ? "" : ",", key,
                        value.is_string() ? value.get<std::string>() : json_text(value));
  std::cout << "  strategy  " << keys << "\n";
  if (j.contains("calibration")) print_calibration_line(j["calibration"], j["trainer_overheads"]);
  if (!j["valid"].get<bool>()) {
    std::cout << fmt::format("  refused   [{}] {}\n", j["refusal"]["id"].get<std::string>(),
                             with_flags(j["refusal"]["reason"].get<std::string>()));
    return;
  }
  const json& m = j["memory"];
  std::cout << fmt::format(
      "  {:>5} {:>6} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}   (GiB)\n", "stage", "layers",
      "recomp", "params", "grads", "optim", "activ", "comm", "other", "peak");
  for (const json& s : m["stages"]) {
    std::cout << fmt::format(
        "  {:>5} {:>6} {:>10} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f}\n",
        s["stage"].get<int>(), s["layers"].get<int>(),
        // A recompute strategy's choice ("4O/3F"), else the count recomputed.
        s.contains("recompute") ? s["recompute"].get<std::string>()
                                : std::to_string(s["recomputed_layers"].get<int>()),
        s["params_bytes"].get<double>() / kGiB, s["grads_bytes"].get<double>() / kGiB,
        s["optimizer_bytes"].get<double>() / kGiB, s["activations_bytes"].get<double>() / kGiB,
        s["comm_buffers_bytes"].get<double>() / kGiB, s["other_bytes"].get<double>() / kGiB,
        s["peak_bytes"].get<double>() / kGiB);
  }
  // A recompute strategy's choice, layer by layer: "stage 0: 0-4 full, 5-15 keep".
  for (const json& s : m["stages"]) {
    if (!s.contains("layer_options")) continue;
    std::string runs;
    for (const json& run : s["layer_options"])
      runs += fmt::format("{}{}-{} {}", runs.empty() ? "" : ", ", run["first"].get<int>(),
                          run["last"].get<int>(), run["option"].get<std::string>());
    std::cout << fmt::format("  stage {} layers: {}\n", s["stage"].get<int>(), runs);
  }
  print_memory_footer(m);
  if (j.contains("time")) {
    const json& t = j["time"];
    const double step = t["step_s"].get<double>();
    // "name 12.3%, ..." of the parts above zero, as shares of the step.
    auto shares = [step](const json& parts) {
      std::string text;
      for (const auto& [name, seconds] : parts.items())
        if (seconds.get<double>() > 0)
          text += fmt::format("{}{} {:.1f}%", text.empty() ? "" : ", ", name, 100 * seconds.get<double>() / step);
      return text;
    };
    std::cout << fmt::format("  step {:.3f} s: {}\n", step, shares(t["parts"]));
    const std::string hidden = shares(t["hidden"]);
    if (!hidden.empty()) std::cout << fmt::format("  hidden behind compute: {}\n", hidden);
    std::cout << fmt::format("  MFU {:.1f}%, HFU {:.1f}%, {:.0f} tokens/s\n",
                             100 * j["mfu"].get<double>(), 100 * j["hfu"].get<double>(),
                             j["tokens_per_s"].get<double>());
    if (j.contains("towers") && j["towers"].is_object()) {
      const json& w = j["towers"];
      const size_t stage = w["stage"].get<size_t>();
      std::cout << fmt::format(
          "  towers {} parameters: {:.2f} GiB of stage {} ({:.1f}% of its peak), {:.3f} s of "
          "the step ({:.1f}%), {:.1f}% of the model FLOPs\n",
          parameter_count(w["params"].get<double>()), w["stage_bytes"][stage].get<double>() / kGiB,
          stage, 100 * w["memory_share"].get<double>(), w["time_s"].get<double>(),
          100 * w["time_share"].get<double>(), 100 * w["flops_share"].get<double>());
    }
    for (const auto& a : j["assumptions"])
      std::cout << "  assumes " << with_flags(a.get<std::string>()) << "\n";
  }
}

namespace {

void print_memory_footer(const json& m) {
  std::cout << fmt::format(
      "  peak {:.2f} GiB of a {:.2f} GiB budget ({:.2f} GiB from {}, less {:.2f} GiB reserved{}): "
      "{}\n",
      m["peak_bytes"].get<double>() / kGiB, m["budget_bytes"].get<double>() / kGiB,
      m["capacity_bytes"].get<double>() / kGiB, with_flags(m["capacity_source"].get<std::string>()),
      m["reserved_bytes"].get<double>() / kGiB,
      m["reserve_mem_bytes"].get<double>() > 0
          ? fmt::format(" and {:.2f} GiB --reserve-mem",
                        m["reserve_mem_bytes"].get<double>() / kGiB)
          : std::string(),
      m["fits"].get<bool>() ? "fits" : "DOES NOT FIT");
}

}  // namespace

void add_swap_optimizer_flag(CLI::App& verb, bool& swap) {
  verb.add_flag("--swap-optimizer", swap,
                "Keep optimizer states and master weights on the host, copied in and out each step");
}

PluginFlags with_swap_optimizer(const PluginFlags& base, bool swap) {
  PluginFlags flags = base;
  if (swap) flags.verb_options["swap-optimizer"] = "1";
  return flags;
}

PluginFlags eval_plugin_flags(const PluginFlags& base, const EvalArgs& args) {
  PluginFlags flags = with_swap_optimizer(base, args.swap_optimizer);
  if (args.cp_ulysses) flags.verb_options["cp-ulysses"] = std::to_string(*args.cp_ulysses);
  return flags;
}

int report_refusal(const StrategyEvaluation& e) {
  if (e.valid()) return kExitOk;
  std::cerr << fmt::format("ndsearch: error [E-STRATEGY-REFUSED]: {}: [{}] {}\n",
                           strategy_text(e.strategy), e.refusal->id, with_flags(e.refusal->reason));
  return kExitUsage;
}

namespace {

int evaluate(const PluginFlags& base_flags, const EvalArgs& args) {
  const PluginFlags flags = eval_plugin_flags(base_flags, args);
  PluginRegistry registry = PluginRegistry::load(plugin_search(flags));
  const DeviceCatalog catalog = DeviceCatalog::load(registry, !flags.device_file.empty());
  Model model = read_model(registry, args.model);
  const Machine machine = evaluation_machine(catalog, args.device, args.request.devices);
  std::optional<AppliedCalibration> calibration;
  const EvaluationRequest request = calibrated_request(args, *machine.device, calibration);
  apply_memory_calibration(model, calibration);
  const StrategyEvaluation evaluation = evaluate_strategy(registry, model, machine, request);
  const int exit_code = report_refusal(evaluation);
  json j = evaluation_json(evaluation);
  add_calibration_json(j, calibration, model, *machine.device);
  if (args.format == "json")
    std::cout << json_text(j, 2) << "\n";
  else
    print_eval_table(j);
  return exit_code;
}

}  // namespace

EvaluationRequest calibrated_request(const EvalArgs& args, const Device& device,
                                     std::optional<AppliedCalibration>& calibration) {
  calibration = load_calibration(args.calibration, device);
  EvaluationRequest request = args.request;
  request.calibration = calibration_factors_of(calibration);
  return request;
}

void add_pricing_flags(CLI::App& verb, EvalArgs& args) {
  verb.add_option("-M,--max-memory", args.request.max_memory,
                  "Device memory to use instead of the device's (58GB = 58 GiB)");
  verb.add_option("--reserve-mem", args.request.reserve_mem,
                  "Memory to keep free beside the runtime's reserve");
  verb.add_flag("--layers-from-config", args.request.layers_from_config,
                "Place layers as the config's stated per-stage counts or offsets whatever the "
                "strategy's pp and vpp (by default only at the config's own, elsewhere the "
                "trainer's split); E-PLACEMENT where they do not fit");
  add_swap_optimizer_flag(verb, args.swap_optimizer);
  verb.add_option("--cp-ulysses", args.cp_ulysses,
                  "hybrid CP: the Ulysses degree (default: the config's, else the largest the KV "
                  "heads allow)")
      ->check(CLI::Range(1, 1 << 16));
  verb.add_option("--cp-algo", args.request.cp_algorithm,
                  "Context-parallel attention: ring, ulysses, hybrid, allgather-kv (default: the "
                  "config's, else ring)");
  add_calibration_flags(verb, args.calibration);
}

void add_eval_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run) {
  auto args = std::make_shared<EvalArgs>();
  CLI::App* verb =
      app.add_subcommand("eval", "Check and price one strategy: memory per pipeline rank");
  add_model_flags(*verb, args->model);
  verb->add_option("-A,--device", args->device,
                   "The accelerator: an id of `ndsearch hardware`, or A2 / A3")
      ->required();
  auto devices = std::make_shared<DevicesFlag>();
  add_devices_flag(*verb, *devices, "How many devices");
  verb->add_option(
      "--strategy", args->request.strategy,
      "KEY=VALUE pairs of dp tp pp cp ep etp vpp sp zero op mbs mbn recompute schedule, e.g. "
      "\"tp=4,pp=4,mbs=1,recompute=full\"; unset keys take the config's, then the defaults "
      "(docs/cli.md, \"Strategy keys\")");
  add_pricing_flags(*verb, *args);
  auto recompute = std::make_shared<std::string>();
  add_strategy_recompute_flag(*verb, *recompute);
  add_recompute_strategy_flags(*verb, args->recompute_strategy);
  verb->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  verb->callback([&run, &flags, args, devices, recompute] {
    run = [&flags, args, devices, recompute] {
      args->request.devices = devices->value_or(0);  // 0: the strategy's product
      apply_strategy_recompute(*recompute, args->request.strategy);
      args->request.recompute =
          recompute_settings_of(args->recompute_strategy, args->swap_optimizer);
      return evaluate(flags, *args);
    };
  });
}

}  // namespace ndsearch::cli
