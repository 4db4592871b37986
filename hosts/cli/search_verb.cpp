// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/search_verb.hpp"

#include <fmt/format.h>
#include <ndsearch/sdk/units.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "core/hardware/device_catalog.hpp"
#include "core/hardware/machine.hpp"
#include "core/search/search.hpp"
#include "core/model/model_json.hpp"
#include "core/model/model_limits.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/user_error.hpp"
#include "core/strategy/degree_product.hpp"
#include "core/support/byte_counts.hpp"
#include "hosts/cli/eval_verb.hpp"
#include "core/report/json_stream.hpp"
#include "core/report/json_text.hpp"
#include "hosts/cli/model_options.hpp"
#include "hosts/cli/search_csv.hpp"
#include "core/report/strategy_json.hpp"
#include "core/report/time_json.hpp"

namespace ndsearch::cli {
namespace {

using nlohmann::json;
constexpr int kSchemaVersion = 1;
constexpr double kGiB = sdk::kBytesPerGiB;  // sizes print in GiB

struct SearchArgs {
  ModelFlags model;
  std::string device;
  uint64_t devices = 0;
  SpaceFlags space;
  size_t top = 10;
  std::optional<std::string> max_memory, reserve_mem;
  std::string cp_algo;
  bool pareto = false;
  std::string format = "table";
  std::string ranking_csv, out_dir;
};

// The first n of v (all when shorter).
std::vector<PricedCandidate> first(const std::vector<PricedCandidate>& v, size_t n) {
  return {v.begin(), v.begin() + static_cast<std::ptrdiff_t>(std::min(n, v.size()))};
}

void write_file(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write) {
  std::ofstream out(path);
  if (out) write(out);
  if (!out)
    throw UserError("E-OUTPUT", fmt::format("cannot write {}; check that the directory exists and is writable",
                                            path.string()));
}

json candidate_json(size_t rank, const PricedCandidate& c) {
  return {{"rank", rank},
          {"strategy", strategy_json(c.strategy)},
          {"memory", {{"peak_bytes", whole_bytes(c.peak_bytes)}}},
          {"time", time_json(c.time)},
          {"mfu", c.time.mfu},
          {"mfu_causal", c.time.mfu_causal},
          {"hfu", c.time.hfu},
          {"tokens_per_s", c.time.tokens_per_s}};
}

json miss_json(const PricedCandidate& c, double budget) {
  return {{"strategy", strategy_json(c.strategy)},
          {"peak_bytes", whole_bytes(c.peak_bytes)},
          {"miss_bytes", whole_bytes(c.peak_bytes - budget)}};
}

// The degrees the table shows: those searched, in DESIGN §8.1's order.
std::vector<std::string> shown_keys(const SearchSpace& space) {
  std::vector<std::string> keys;
  for (const char* k : {"dp", "tp", "pp", "cp", "ep", "etp", "vpp", "sp", "zero", "op", "mbs", "mbn"})
    if (space.searched.count(k) != 0 || space.only.count(k) != 0) keys.emplace_back(k);
  return keys;
}

void print_ranking(const std::vector<PricedCandidate>& list, const std::vector<std::string>& keys) {
  std::string header = fmt::format("  {:>4}", "rank");
  for (const std::string& k : keys) header += fmt::format(" {:>4}", k);
  header += fmt::format(" {:>9} {:>8} {:>8} {:>5} {:>10}", "recompute", "peak GiB", "step s", "MFU%", "tokens/s");
  for (const auto& [name, member] : kTimeParts) header += fmt::format(" {:>5.5}", name);
  std::cout << header << "   (parts: % of step)\n";
  for (size_t i = 0; i < list.size(); ++i) {
    const PricedCandidate& c = list[i];
    const json s = strategy_json(c.strategy);
    std::string line = fmt::format("  {:>4}", i + 1);
    for (const std::string& k : keys) line += fmt::format(" {:>4}", json_text(s[k]));
    line += fmt::format(" {:>9} {:>8.2f} {:>8.4g} {:>5.1f} {:>10.0f}", recompute_name(c.strategy.recompute),
                        c.peak_bytes / kGiB, c.time.step_s, 100 * c.time.mfu, c.time.tokens_per_s);
    for (const auto& [name, member] : kTimeParts) line += fmt::format(" {:>5.1f}", 100 * c.time.parts.*member / c.time.step_s);
    std::cout << line << "\n";
  }
}

std::string fixes_text(const SearchResult& r, size_t i) {
  if (i >= r.closest_fixes.size()) return "";
  if (r.closest_fixes[i].empty()) return "\n      no single change fits (tried recompute=full, zero=3, mbs=1, 2x devices)";
  return fmt::format("\n      fits with {}", fmt::join(r.closest_fixes[i], "; or "));
}

void print_misses(std::ostream& out, const SearchResult& r, double budget) {
  for (size_t i = 0; i < r.closest.size(); ++i) {
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

int search(const PluginFlags& flags, const SearchArgs& args) {
  PluginRegistry registry = PluginRegistry::load(plugin_search(flags));
  const DeviceCatalog catalog = DeviceCatalog::load(registry, !flags.device_file.empty());
  note_skipped(registry, catalog.warnings().size(), flags);
  Model model = read_model(registry, args.model);

  uint64_t devices = args.devices;
  if (devices == 0) {  // the device count the config's strategy states
    const nds_strategy& st = model.stated;
    if (st.dp == NDS_UNKNOWN || st.tp == NDS_UNKNOWN || st.pp == NDS_UNKNOWN)
      throw UserError("E-USAGE", fmt::format("{} states no device count (dp·tp·pp·cp); give -d N", model.file));
    // Saturated: the stated degrees are up to 2^24 each; the search refuses
    // a count beyond its limit (E-DEVICE-COUNT).
    devices = static_cast<uint64_t>(degree_product({st.dp, st.tp, st.pp, st.cp == NDS_UNKNOWN ? 1 : st.cp}));
    check_device_count(devices, fmt::format("dp·tp·pp·cp as {} states them =", model.file).c_str());
  }
  const Machine machine = make_machine(catalog, args.device, devices);

  SearchOptions options =
      search_options(model, machine, args.space, args.max_memory, args.reserve_mem, args.cp_algo);
  // Files list every fitting (and, with -o, every dropped) candidate; the
  // screen shows the top -t and the five closest misses (all at -v 2).
  const bool all_fits = !args.ranking_csv.empty() || !args.out_dir.empty();
  options.keep = all_fits ? 0 : args.top;
  options.closest_misses = flags.verbosity >= 2 || !args.out_dir.empty() ? 0 : 5;

  SearchResult r = run_search(registry, model, *machine.device, options);
  if (!args.ranking_csv.empty())
    write_file(args.ranking_csv, [&](std::ostream& out) { write_ranking_csv(out, r.ranking); });
  if (!args.out_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(args.out_dir, error);
    if (error)
      throw UserError("E-OUTPUT", fmt::format("-o {}: cannot create the directory: {}", args.out_dir, error.message()));
    const std::filesystem::path dir(args.out_dir);
    write_file(dir / "ranking.csv", [&](std::ostream& out) { write_ranking_csv(out, r.ranking); });
    write_file(dir / "dropped.csv",
               [&](std::ostream& out) { write_dropped_csv(out, r.closest, options.budget.budget_bytes); });
    if (flags.verbosity >= 3)
      write_file(dir / "priced.csv",
                 [&](std::ostream& out) { write_priced_csv(out, r, options.budget.budget_bytes); });
  }
  r.ranking = first(r.ranking, args.top);
  if (flags.verbosity < 2) r.closest = first(r.closest, 5);
  const std::string name = model.main.name.empty() ? model.file : model.main.name;
  const double per_s = r.elapsed_s > 0 ? static_cast<double>(r.counts.tested) / r.elapsed_s : 0;
  const double budget = options.budget.budget_bytes;

  if (args.format == "csv") {
    write_ranking_csv(std::cout, r.ranking);
  } else if (args.format == "json") {
    json refused = json::object();
    for (const auto& [id, n] : r.counts.refused) refused[id] = n;
    // Each listed strategy's stages, priced again as eval prices them (the
    // search itself keeps only the peak rank's terms). Rows are formatted
    // and written one at a time: memory does not grow with -t.
    auto with_stages = [&](size_t rank, const PricedCandidate& c) {
      EvalArgs one;
      one.strategy = strategy_text(c.strategy);
      one.devices = devices;
      one.max_memory = args.max_memory;
      one.reserve_mem = args.reserve_mem;
      one.cp_algo = args.cp_algo;
      json row = candidate_json(rank, c);
      row["memory"]["stages"] = eval_json(registry, model, machine, one)["memory"]["stages"];
      return row;
    };
    // The keys in dump()'s (sorted) order, as the whole object printed before.
    write_json_object(std::cout, [&](JsonObjectStream& out) {
      out.field("assumptions", r.assumptions);
      out.field("budget_bytes", budget);
      out.field("candidates_per_s", per_s);
      out.array_field("closest_misses", r.closest.size(), [&](size_t i) {
        json miss = miss_json(r.closest[i], budget);
        if (i < r.closest_fixes.size()) miss["fits_with"] = r.closest_fixes[i];
        return miss;
      });
      out.field("counts", {{"tested", r.counts.tested},
                           {"refused", refused},
                           {"priced", r.counts.priced},
                           {"fit", r.counts.fit},
                           {"dropped", r.counts.dropped}});
      out.field("device", machine.device->id);
      out.field("devices", devices);
      out.field("elapsed_s", r.elapsed_s);
      out.field("global_batch", options.space.global_batch);
      out.field("model", name);
      out.array_field("pareto", r.pareto.size(), [&](size_t i) { return with_stages(i + 1, r.pareto[i]); });
      out.array_field("ranking", r.ranking.size(), [&](size_t i) { return with_stages(i + 1, r.ranking[i]); });
      out.field("schema_version", kSchemaVersion);
      out.close();
    });
  } else if (flags.verbosity >= 1) {
    std::cout << fmt::format("{} on {} x {}, global batch {}, budget {:.2f} GiB per device\n", name, devices,
                             machine.device->id, options.space.global_batch, budget / kGiB);
    for (const std::string& a : r.assumptions) std::cout << "  assumes " << a << "\n";
    int64_t kv_heads = 0, experts = 0;
    for (const ModelBlock& b : model.main.blocks) {
      if (b.c.kind != NDS_BLOCK_DECODER) continue;
      kv_heads = kv_heads == 0 ? b.c.kv_heads : std::min(kv_heads, b.c.kv_heads);
      experts = std::max(experts, b.c.experts);
    }
    std::cout << fmt::format("  bounds (reference §3.4): tp <= {} KV heads; pp <= min({} the machine allows, {} "
                             "layers, batch {}); {}vpp <= min(4, pp, layers / pp); mbn >= pp\n",
                             kv_heads, options.space.pipeline_bound, model.decoder_layers(),
                             options.space.global_batch,
                             experts > 0 ? fmt::format("ep <= {} routed experts; ", experts) : std::string());
    if (!r.ranking.empty()) print_ranking(r.ranking, shown_keys(options.space));
    if (args.pareto && !r.pareto.empty()) {
      std::cout << "  Pareto set (no other strategy is both faster and smaller):\n";
      print_ranking(r.pareto, shown_keys(options.space));
    }
    std::cout << fmt::format("  tested {}, refused {}, priced {}, fit {}, dropped {} (over the budget)\n",
                             r.counts.tested, refused_text(r.counts), r.counts.priced, r.counts.fit,
                             r.counts.dropped);
    if (r.counts.dropped > 0 && r.counts.fit > 0) {
      std::cout << fmt::format("  {} closest dropped:\n", flags.verbosity >= 2 ? "every" : "the");
      print_misses(std::cout, r, budget);
    }
    std::cout << fmt::format("  {:.3f} s, {:.0f} candidates/s with {} threads\n", r.elapsed_s, per_s,
                             options.threads);
  }
  if (r.counts.fit == 0) {
    std::cerr << fmt::format("ndsearch: error [E-SEARCH-NO-FIT]: none of the {} candidates priced fits {:.2f} GiB "
                             "per device.{}\n",
                             r.counts.priced, budget / kGiB,
                             r.closest.empty() ? " Every candidate was refused by a check (counts above)."
                                               : " The closest:");
    print_misses(std::cerr, r, budget);
    std::cerr << "  Otherwise: more devices (-d), more memory per device (-M), or more dimensions searched (-l).\n";
    return kExitNoFit;
  }
  return kExitOk;
}

}  // namespace

void add_space_flags(CLI::App& verb, SpaceFlags& flags) {
  verb.add_option("-l,--dimensions", flags.dimensions,
                  "Dimensions to search, e.g. \"DP TP PP MBS\" (default: DP TP PP CP EP ETP VPP SP ZERO MBS MBN "
                  "RECOMPUTE; MP = TP, MB = MBN); the others keep the config's value");
  verb.add_option("--only", flags.only, "Restrict a dimension to values, e.g. tp=2,4,8 (repeatable)");
  verb.add_option("-j,--threads", flags.threads, "Pricing threads (default: every core)")->check(CLI::Range(1, 4096));
}

SearchOptions search_options(const Model& model, const Machine& machine, const SpaceFlags& space,
                             const std::optional<std::string>& max_memory,
                             const std::optional<std::string>& reserve_mem, const std::string& cp_algo) {
  SearchOptions options;
  options.space.devices = machine.devices;
  options.space.global_batch = model.training.global_batch;
  options.space.pipeline_bound = machine.pipeline_bound();
  options.space.searched =
      space.dimensions.empty() ? default_dimensions() : SearchSpace::parse_dimensions(space.dimensions);
  options.space.only = SearchSpace::parse_only(space.only);
  options.budget = memory_budget(*machine.device, model, max_memory, reserve_mem);
  options.cp_algorithm = cp_algo;
  options.threads = space.threads != 0 ? space.threads : std::max(1u, std::thread::hardware_concurrency());
  return options;
}

void add_search_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run) {
  auto args = std::make_shared<SearchArgs>();
  CLI::App* verb = app.add_subcommand("search", "Enumerate, check, price and rank every strategy");
  add_model_flags(*verb, args->model);
  verb->add_option("-A,--device", args->device, "The accelerator: an id of `ndsearch hardware`, or A2 / A3")
      ->required();
  auto devices = std::make_shared<DevicesFlag>();
  add_devices_flag(*verb, *devices, "How many devices (default: what the config's strategy states)");
  add_space_flags(*verb, args->space);
  verb->add_option("-t,--top", args->top, "Rows of the ranking to print")->check(CLI::Range(1, 1000000))
      ->capture_default_str();
  verb->add_option("-M,--max-memory", args->max_memory, "Device memory to use instead of the device's (58GB = 58 GiB)");
  verb->add_option("--reserve-mem", args->reserve_mem, "Memory to keep free beside the runtime's reserve");
  verb->add_option("--cp-algo", args->cp_algo,
                   "Context-parallel attention: ring, ulysses, hybrid, allgather-kv (default: the config's, else ring)");
  verb->add_flag("--pareto", args->pareto, "Also print the strategies no other beats on both time and memory");
  verb->add_option("--format", args->format, "Output format (csv: the ranking's top -t)")
      ->check(CLI::IsMember({"table", "json", "csv"}))
      ->capture_default_str();
  verb->add_option("--ranking-csv", args->ranking_csv, "Write every fitting strategy, in rank order, to FILE");
  verb->add_option("-o,--output-dir", args->out_dir,
                   "Write ranking.csv and dropped.csv to DIR (and priced.csv, every priced candidate, at -v 3)");
  verb->callback([&run, &flags, args, devices] {
    run = [&flags, args, devices] {
      args->devices = devices->value_or(0);  // 0: what the config's strategy states
      return search(flags, *args);
    };
  });
}

}  // namespace ndsearch::cli
