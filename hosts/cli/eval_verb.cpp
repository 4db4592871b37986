// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/eval_verb.hpp"

#include <fmt/format.h>
#include <ndsearch/sdk/units.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <iostream>

#include "core/hardware/device_catalog.hpp"
#include "core/hardware/machine.hpp"
#include "core/memory/budget.hpp"
#include "core/memory/memory_evaluator.hpp"
#include "core/model/model_json.hpp"
#include "core/strategy/checks.hpp"
#include "core/strategy/degree_product.hpp"
#include "core/strategy/placement.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/user_error.hpp"
#include "core/time/time_model.hpp"
#include "core/support/byte_counts.hpp"
#include "core/report/json_text.hpp"
#include "hosts/cli/model_options.hpp"
#include "core/report/strategy_json.hpp"
#include "core/report/time_json.hpp"

namespace ndsearch::cli {
namespace {

using nlohmann::json;
constexpr int kSchemaVersion = 1;
constexpr double kGiB = sdk::kBytesPerGiB;  // sizes print in GiB


json stage_json(size_t rank, const RankMemory& m, uint32_t layers) {
  int64_t peak = 0;
  json stage = {{"stage", rank}, {"layers", layers}};
  const std::pair<const char*, nds_memory_term> terms[] = {
      {"params_bytes", NDS_MEMORY_PARAMS},
      {"grads_bytes", NDS_MEMORY_GRADS},
      {"optimizer_bytes", NDS_MEMORY_OPTIMIZER},
      {"activations_bytes", NDS_MEMORY_ACTIVATIONS},
      {"comm_buffers_bytes", NDS_MEMORY_COMM_BUFFERS},
      {"other_bytes", NDS_MEMORY_OTHER}};
  for (const auto& [key, term] : terms) {
    stage[key] = whole_bytes(m.bytes[term]);
    peak = add_bytes(peak, whole_bytes(m.bytes[term]));
  }
  stage["peak_bytes"] = peak;  // the sum of the printed terms
  return stage;
}

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
  if (!j["valid"].get<bool>()) {
    std::cout << fmt::format("  refused   [{}] {}\n", j["refusal"]["id"].get<std::string>(),
                             j["refusal"]["reason"].get<std::string>());
    return;
  }
  const json& m = j["memory"];
  std::cout << fmt::format("  {:>5} {:>6} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}   (GiB)\n",
                           "stage", "layers", "params", "grads", "optim", "activ", "comm", "other",
                           "peak");
  for (const json& s : m["stages"]) {
    std::cout << fmt::format(
        "  {:>5} {:>6} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f}\n",
        s["stage"].get<int>(), s["layers"].get<int>(), s["params_bytes"].get<double>() / kGiB,
        s["grads_bytes"].get<double>() / kGiB, s["optimizer_bytes"].get<double>() / kGiB,
        s["activations_bytes"].get<double>() / kGiB, s["comm_buffers_bytes"].get<double>() / kGiB,
        s["other_bytes"].get<double>() / kGiB, s["peak_bytes"].get<double>() / kGiB);
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
    for (const auto& a : j["assumptions"]) std::cout << "  assumes " << a.get<std::string>() << "\n";
  }
}

namespace {

void print_memory_footer(const json& m) {
  std::cout << fmt::format(
      "  peak {:.2f} GiB of a {:.2f} GiB budget ({:.2f} GiB from {}, less {:.2f} GiB reserved{}): "
      "{}\n",
      m["peak_bytes"].get<double>() / kGiB, m["budget_bytes"].get<double>() / kGiB,
      m["capacity_bytes"].get<double>() / kGiB, m["capacity_source"].get<std::string>(),
      m["reserved_bytes"].get<double>() / kGiB,
      m["reserve_mem_bytes"].get<double>() > 0
          ? fmt::format(" and {:.2f} GiB --reserve-mem",
                        m["reserve_mem_bytes"].get<double>() / kGiB)
          : std::string(),
      m["fits"].get<bool>() ? "fits" : "DOES NOT FIT");
}

}  // namespace

json eval_json(const PluginRegistry& registry, Model& model, const Machine& machine, const EvalArgs& args) {
  const nds_strategy given =
      args.strategy.empty() ? unset_strategy() : parse_strategy(args.strategy);
  StrategySources sources;
  const nds_strategy s =
      resolve_strategy(given, model, args.devices, model.training.global_batch, &sources);
  json j = {{"schema_version", kSchemaVersion},
            {"model", model.main.name.empty() ? model.file : model.main.name},
            {"config", model.file},
            {"framework", model.framework},
            {"device", machine.device->id},
            // Without -d: the devices the strategy uses (null while a degree is unknown).
            {"devices", args.devices != 0 ? json(args.devices)
                        : s.dp != NDS_UNKNOWN && s.tp != NDS_UNKNOWN && s.pp != NDS_UNKNOWN && s.cp != NDS_UNKNOWN
                            ? json(degree_product({s.dp, s.tp, s.pp, s.cp}))
                            : json(nullptr)},
            {"strategy", strategy_json(s)},
            {"strategy_text", strategy_text(s)},
            {"strategy_sources", sources}};
  const auto refusal = first_refusal(s, model, args.devices, model.training.global_batch);
  j["valid"] = !refusal.has_value();
  j["refusal"] = refusal ? json{{"id", refusal->id}, {"reason", refusal->message}} : json(nullptr);
  if (!refusal) {
    const Placement placement = place_layers(s, model, args.layers_from_config);
    const nds_candidate candidate = placement.candidate();
    MemoryEvaluator memory(registry, model, *machine.device, static_cast<uint32_t>(s.pp));
    std::vector<RankMemory> ranks;
    const std::string refused = memory.evaluate(candidate, ranks);
    if (!refused.empty())
      throw UserError("E-MEMORY-REFUSED",
                      fmt::format("a memory pass refused {}: {}", strategy_text(s), refused));
    // Time: the CP model only matters (and is only loaded) with cp > 1.
    std::unique_ptr<CpModel> cp;
    double cp_working_set = 0;
    if (s.cp > 1) {
      const std::string algorithm = CpModel::choose_algorithm(args.cp_algo, model);
      cp = std::make_unique<CpModel>(registry, model, *machine.device, algorithm);
      const CpBuffers buffers = cp->buffers(candidate, static_cast<uint32_t>(model.main.blocks.size()));
      cp_working_set = buffers.bytes;
      if (!(buffers.bytes >= 0) || !std::isfinite(buffers.bytes))
        throw UserError("E-MEMORY-REFUSED", fmt::format("the {} CP algorithm gave a working set of {} bytes for {}; "
                                                        "a byte count must be a finite number >= 0",
                                                        algorithm, buffers.bytes, strategy_text(s)));
      if (!buffers.refusal.empty()) {
        j["valid"] = false;
        j["refusal"] = {{"id", "cp-" + algorithm}, {"reason", buffers.refusal}};
      }
    }
    // The CP algorithm's buffers: one layer's at a time, on every rank.
    for (RankMemory& rank : ranks) rank.bytes[NDS_MEMORY_COMM_BUFFERS] += cp_working_set;
    const Budget budget = memory_budget(*machine.device, model, args.max_memory, args.reserve_mem);
    json stages = json::array();
    int64_t peak = 0;
    for (size_t r = 0; r < ranks.size(); ++r) {
      uint32_t layers = 0;
      for (int32_t c = 0; c < s.vpp; ++c)
        layers += placement.chunk_layers[r * static_cast<size_t>(s.vpp) + c];
      stages.push_back(stage_json(r, ranks[r], layers));
      peak = std::max(peak, stages.back()["peak_bytes"].get<int64_t>());
    }
    if (j["valid"].get<bool>()) {
      const TimeModel time(model, *machine.device, cp.get());
      const TimeEstimate e = time.estimate(
          candidate,
          args.devices == 0 ? static_cast<uint64_t>(s.dp) * s.tp * s.pp * s.cp : args.devices);
      j["time"] = time_json(e);
      j["assumptions"] = time.assumptions();
      j["model_flops_per_step"] = e.model_flops_per_step;
      j["hardware_flops_per_step"] = e.hardware_flops_per_step;
      j["mfu"] = e.mfu;
      j["mfu_causal"] = e.mfu_causal;
      j["hfu"] = e.hfu;
      j["tokens_per_s"] = e.tokens_per_s;
    }
    if (j["valid"].get<bool>())  // a CP algorithm may still refuse: then no prices
      j["memory"] = {{"peak_bytes", peak},
                     {"budget_bytes", budget.budget_bytes},
                     {"capacity_bytes", budget.capacity_bytes},
                     {"capacity_source", budget.capacity_source},
                     {"reserved_bytes", budget.reserved_bytes},
                     {"reserve_mem_bytes", budget.reserve_mem_bytes},
                     {"fits", static_cast<double>(peak) <= budget.budget_bytes},
                     {"passes", memory.pass_ids()},
                     {"stages", stages}};
  }
  j["warnings"] = model.warnings;
  for (const ModelPart& tower : model.submodels)
    j["warnings"].push_back(
        fmt::format("the {} tower ({} blocks) is not priced yet: memory and time cover the "
                    "language model only",
                    tower.name, tower.blocks.size()));
  return j;
}

PluginFlags eval_plugin_flags(const PluginFlags& base, const EvalArgs& args) {
  PluginFlags flags = base;
  if (args.swap_optimizer) flags.verb_options["swap-optimizer"] = "1";
  if (args.cp_ulysses) flags.verb_options["cp-ulysses"] = std::to_string(*args.cp_ulysses);
  return flags;
}

int report_refusal(const json& j) {
  if (j["valid"].get<bool>()) return kExitOk;
  std::cerr << fmt::format("ndsearch: error [E-STRATEGY-REFUSED]: {}: [{}] {}\n", j["strategy_text"].get<std::string>(),
                           j["refusal"]["id"].get<std::string>(), j["refusal"]["reason"].get<std::string>());
  return kExitUsage;
}

namespace {

int evaluate(const PluginFlags& base_flags, const EvalArgs& args) {
  const PluginFlags flags = eval_plugin_flags(base_flags, args);
  PluginRegistry registry = PluginRegistry::load(plugin_search(flags));
  const DeviceCatalog catalog = DeviceCatalog::load(registry, !flags.device_file.empty());
  note_skipped(registry, catalog.warnings().size(), flags);
  Model model = read_model(registry, args.model);
  const Machine machine = make_machine(catalog, args.device, args.devices == 0 ? 1 : args.devices);
  json j = eval_json(registry, model, machine, args);
  const int exit_code = report_refusal(j);
  j.erase("strategy_text");
  if (args.format == "json")
    std::cout << json_text(j, 2) << "\n";
  else
    print_eval_table(j);
  return exit_code;
}

}  // namespace

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
      "--strategy", args->strategy,
      "Keys of DESIGN §8.1, e.g. \"tp=4,pp=4,mbs=1,recompute=full\"; unset keys take the config's, "
      "then the defaults");
  verb->add_option("-M,--max-memory", args->max_memory,
                   "Device memory to use instead of the device's (58GB = 58 GiB)");
  verb->add_option("--reserve-mem", args->reserve_mem,
                   "Memory to keep free beside the runtime's reserve");
  verb->add_flag("--layers-from-config", args->layers_from_config,
                 "Place layers as the config's stated per-stage counts or offsets instead of the "
                 "default split");
  verb->add_flag("--swap-optimizer", args->swap_optimizer,
                 "Keep optimizer states and master weights on the host");
  verb->add_option("--cp-ulysses", args->cp_ulysses,
                   "hybrid CP: the Ulysses degree (default: the largest the KV heads allow)")
      ->check(CLI::Range(1, 1 << 16));
  verb->add_option("--cp-algo", args->cp_algo,
                   "Context-parallel attention: ring, ulysses, hybrid, allgather-kv (default: the "
                   "config's, else ring)");
  verb->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  verb->callback([&run, &flags, args, devices] {
    run = [&flags, args, devices] {
      args->devices = devices->value_or(0);  // 0: the strategy's product
      return evaluate(flags, *args);
    };
  });
}

}  // namespace ndsearch::cli
