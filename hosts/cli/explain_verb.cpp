// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/explain_verb.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <limits>

#include "core/hardware/device_catalog.hpp"
#include "core/search/search.hpp"
#include "core/strategy/checks.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/user_error.hpp"
#include "hosts/cli/eval_verb.hpp"
#include "core/report/json_text.hpp"
#include "hosts/cli/model_options.hpp"
#include "hosts/cli/search_verb.hpp"
#include "core/report/strategy_json.hpp"

namespace ndsearch::cli {
namespace {

using nlohmann::json;

struct ExplainArgs {
  EvalArgs eval;
  SpaceFlags space;
  size_t beaten_by = 3;
};

// The time part where `other` saves the most over `self`: why it ranks higher.
std::string main_reason(const TimeEstimate& self, const TimeEstimate& other) {
  size_t best = 0;
  double most = -std::numeric_limits<double>::infinity();
  for (size_t i = 0; i < kTimeParts.size(); ++i) {
    const double saving = self.parts.*kTimeParts[i].second - other.parts.*kTimeParts[i].second;
    if (saving > most) {
      most = saving;
      best = i;
    }
  }
  const auto& [name, member] = kTimeParts[best];
  return fmt::format("{} {:.1f} % vs {:.1f} % of the step ({:.3f} s less)", name, 100 * self.parts.*member / self.step_s,
                     100 * other.parts.*member / other.step_s, most);
}

// Runs the search the flags describe and places `s` in it.
json rank_in_search(const PluginRegistry& registry, Model& model, const Machine& machine, const ExplainArgs& args,
                    const nds_strategy& s) {
  SearchOptions options = search_options(model, machine, args.space, args.eval.max_memory,
                                         args.eval.reserve_mem, args.eval.cp_algo);
  options.keep = 0;  // every fitting strategy: the rank is a position among them
  options.closest_misses = 5;
  const SearchResult r = run_search(registry, model, *machine.device, options);
  json out = {{"fit", r.counts.fit}, {"tested", r.counts.tested}};
  size_t position = r.ranking.size();
  for (size_t i = 0; i < r.ranking.size(); ++i)
    if (same_keys(r.ranking[i].strategy, s)) position = i;
  if (position == r.ranking.size()) {
    out["rank"] = nullptr;
    out["note"] = "not among the fitting strategies of this search: it is outside the space (-l, --only), "
                  "refused by a check, or over the budget";
    return out;
  }
  out["rank"] = position + 1;
  json beaten_by = json::array();
  // The fastest ones, then the one just ahead.
  std::vector<size_t> ahead;
  for (size_t i = 0; i < position && ahead.size() + 1 < args.beaten_by; ++i) ahead.push_back(i);
  if (position > 0 && (ahead.empty() || ahead.back() != position - 1)) ahead.push_back(position - 1);
  for (size_t i : ahead)
    beaten_by.push_back({{"rank", i + 1},
                         {"strategy", strategy_json(r.ranking[i].strategy)},
                         {"strategy_text", strategy_text(r.ranking[i].strategy)},
                         {"step_s", r.ranking[i].time.step_s},
                         {"reason", main_reason(r.ranking[position].time, r.ranking[i].time)}});
  out["beaten_by"] = beaten_by;
  return out;
}

int explain(const PluginFlags& base_flags, const ExplainArgs& args) {
  const PluginFlags flags = eval_plugin_flags(base_flags, args.eval);
  PluginRegistry registry = PluginRegistry::load(plugin_search(flags));
  const DeviceCatalog catalog = DeviceCatalog::load(registry, !flags.device_file.empty());
  note_skipped(registry, catalog.warnings().size(), flags);
  Model model = read_model(registry, args.eval.model);
  const Machine machine = make_machine(catalog, args.eval.device, args.eval.devices == 0 ? 1 : args.eval.devices);
  json j = eval_json(registry, model, machine, args.eval);
  const nds_strategy s =
      resolve_strategy(parse_strategy(args.eval.strategy), model, args.eval.devices, model.training.global_batch);
  json checks = json::array();
  for (const CheckOutcome& c : run_checks(s, model, args.eval.devices, model.training.global_batch))
    checks.push_back({{"id", c.id}, {"passed", c.passed}, {"message", c.message}});
  j["checks"] = checks;
  const bool search_flags = !args.space.dimensions.empty() || !args.space.only.empty();
  if (search_flags && j["valid"].get<bool>()) {
    if (args.eval.devices == 0) throw UserError("E-USAGE", "explain with -l or --only ranks the strategy in a search, which needs the device "
                                "count: give -d N");
    j["search"] = rank_in_search(registry, model, machine, args, s);
  }
  const int exit_code = report_refusal(j);
  j.erase("strategy_text");
  if (args.eval.format == "json") {
    std::cout << json_text(j, 2) << "\n";
    return exit_code;
  }
  std::cout << "  checks (DESIGN §8.2):\n";
  for (const json& c : j["checks"])
    std::cout << fmt::format("    {} {:<12} {}\n", c["passed"].get<bool>() ? "pass" : "FAIL", c["id"].get<std::string>(),
                             c["message"].get<std::string>());
  print_eval_table(j);
  if (j.contains("search")) {
    const json& r = j["search"];
    if (r["rank"].is_null()) {
      std::cout << fmt::format("  search: {}\n", r["note"].get<std::string>());
    } else {
      std::cout << fmt::format("  search: rank {} of {} fitting ({} tested)\n", r["rank"].get<size_t>(),
                               r["fit"].get<uint64_t>(), r["tested"].get<uint64_t>());
      for (const json& b : r["beaten_by"])
        std::cout << fmt::format("    rank {} ({:.3f} s): {}\n      faster by {}\n", b["rank"].get<size_t>(),
                                 b["step_s"].get<double>(), b["strategy_text"].get<std::string>(),
                                 b["reason"].get<std::string>());
    }
  }
  return exit_code;
}

}  // namespace

void add_explain_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run) {
  auto args = std::make_shared<ExplainArgs>();
  CLI::App* verb = app.add_subcommand(
      "explain", "One strategy: every check, memory per stage, time; with -l/--only its rank and what beats it");
  add_model_flags(*verb, args->eval.model);
  verb->add_option("-A,--device", args->eval.device, "The accelerator: an id of `ndsearch hardware`, or A2 / A3")
      ->required();
  auto devices = std::make_shared<DevicesFlag>();
  add_devices_flag(*verb, *devices, "How many devices");
  verb->add_option("--strategy", args->eval.strategy, "Keys of DESIGN §8.1, e.g. \"tp=4,pp=4,recompute=full\"")
      ->required();
  verb->add_option("-M,--max-memory", args->eval.max_memory, "Device memory to use instead of the device's");
  verb->add_option("--reserve-mem", args->eval.reserve_mem, "Memory to keep free beside the runtime's reserve");
  verb->add_option("--cp-algo", args->eval.cp_algo, "Context-parallel attention: ring, ulysses, hybrid, allgather-kv");
  add_space_flags(*verb, args->space);  // with -l or --only: rank the strategy in that search
  verb->add_option("--format", args->eval.format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  verb->callback([&run, &flags, args, devices] {
    run = [&flags, args, devices] {
      args->eval.devices = devices->value_or(0);  // 0: the strategy's product
      return explain(flags, *args);
    };
  });
}

}  // namespace ndsearch::cli
