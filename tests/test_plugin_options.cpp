// SPDX-License-Identifier: Apache-2.0
// test_plugin_options.cpp: plugin options belong to a run, not to the process
// (issue 12). Runs one after the other in one process, and two runs alive at
// once (two ndsearch::Planner, also searching on two threads at once), each
// with its own --device-file or swap-optimizer, give what separate `ndsearch`
// processes with those flags give: the shipped plugins read their options per
// call (NDS_MODULE_OPTIONS_PER_CALL). tests/test_options_per_call.cpp checks
// the host's side with fixture modules, with the flag and without.
//
// The runs one after the other first let go of the test program's long-lived
// registry (tests/support/shipped.hpp), so that each initialises the plugins.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <ndsearch/core/planner.hpp>

#include "core/hardware/device_json.hpp"
#include "core/input/device_catalog.hpp"
#include "core/input/machine.hpp"
#include "core/input/parse_config.hpp"
#include "core/model/model_json.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/price/memory/budget.hpp"
#include "core/search/search.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/user_error.hpp"
#include "tests/fixtures_paths.hpp"
#include "tests/support/hostile_fixtures.hpp"  // TempDir
#include "tests/support/run_command.hpp"
#include "tests/support/shipped.hpp"

using namespace ndsearch;
using ndsearch::test::cli;
using ndsearch::test::run_command;
using ndsearch::test::TempDir;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Two descriptions of one device id, "options-npu", that differ in what a
// search prices: memory, bf16 peak and HBM bandwidth. A run that kept the
// first file's device would price the second run with the first's figures.
const char* const kDeviceId = "options-npu";
fs::path write_device(const fs::path& folder, const std::string& name, int memory_gib,
                      int bf16_tflops, int hbm_gb_per_s) {
  const fs::path file = folder / (name + ".toml");
  std::ofstream(file) << "id = \"" << kDeviceId << "\"\n"
                      << "base = \"nvidia-h100-sxm\"\n"
                      << "name = \"Options NPU " << name << "\"\n"
                      << "memory_gib = " << memory_gib << "\n"
                      << "memory_bandwidth_gb_per_s = " << hbm_gb_per_s << "\n"
                      << "[peak_tflops]\nbf16 = " << bf16_tflops << "\n";
  return file;
}

std::string tiny_config() {
  return std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/tiny-4-layers.json";
}

// tiny-4-layers on 8 devices, global batch 4, sequence 1024: small enough that
// a search takes milliseconds; the same settings as the CLI runs below.
constexpr uint64_t kDevices = 8;
constexpr int64_t kGlobalBatch = 4, kSeqLen = 1024;
const char* const kCliSettings = " -d 8 -b 4 --seq-len 1024 -j 1 -t 5 --format json";

PluginSearch shipped_with(PluginOptions options) {
  PluginSearch search;
  search.install_dir = NDS_TEST_SHIPPED_PLUGINS;
  search.options = std::make_shared<const PluginOptions>(std::move(options));
  return search;
}

Model tiny_model(const PluginRegistry& registry) {
  ParseOptions parse;
  parse.overrides.global_batch = kGlobalBatch;
  parse.overrides.seq_len = kSeqLen;
  return parse_config(registry, tiny_config(), parse);
}

// What one in-process run prices: the device it resolved and its ranking.
struct InProcess {
  json device;
  std::vector<PricedCandidate> ranking;
};

// One run as `ndsearch search` makes it (hosts/cli/search_verb.cpp: default
// dimensions, the device's budget, no -M), its registry released at the end.
InProcess search_in_process(const PluginOptions& options, const std::string& device_id) {
  ndsearch::test::release_shipped_plugins();
  PluginRegistry registry = PluginRegistry::load(shipped_with(options));
  const DeviceCatalog catalog = DeviceCatalog::load(registry, options.count("device-file") > 0);
  Model model = tiny_model(registry);
  const Machine machine = make_machine(catalog, device_id, kDevices);
  SearchOptions search;
  search.space.devices = machine.devices;
  search.space.global_batch = model.training.global_batch;
  search.space.pipeline_bound = machine.pipeline_bound();
  search.space.searched = default_dimensions();
  search.budget = memory_budget(*machine.device, model, std::nullopt, std::nullopt);
  search.threads = 1;
  search.keep = 5;
  SearchResult result = run_search(registry, model, *machine.device, search);
  return {device_to_json(*machine.device), std::move(result.ranking)};
}

json cli_json(const std::string& arguments) {
  const auto r =
      run_command("env -u NDS_PLUGIN_PATH -u NDS_DEVICE_PATH " + cli() + " " + arguments);
  INFO(arguments << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// The in-process ranking is the CLI's: the same strategies in the same order,
// the same step time and (rounded to whole bytes, as the JSON prints it) peak.
void check_same_ranking(const std::vector<PricedCandidate>& in_process, const json& cli_search) {
  const json& rows = cli_search["ranking"];
  REQUIRE(rows.size() == in_process.size());
  REQUIRE(!rows.empty());
  for (size_t i = 0; i < rows.size(); ++i) {
    INFO("rank " << i + 1 << ": " << strategy_text(in_process[i].strategy));
    const nds_strategy& s = in_process[i].strategy;
    const json& row = rows[i]["strategy"];
    const char* recompute = recompute_name(s.recompute);
    CHECK(row["recompute"] == (recompute == nullptr ? json(nullptr) : json(recompute)));
    const std::initializer_list<std::pair<const char*, int32_t>> degrees{
        {"dp", s.dp},     {"tp", s.tp},   {"pp", s.pp},   {"cp", s.cp},
        {"ep", s.ep},     {"etp", s.etp}, {"vpp", s.vpp}, {"sp", s.sp},
        {"zero", s.zero}, {"op", s.op},   {"mbs", s.mbs}, {"mbn", s.mbn}};
    for (const auto& [key, value] : degrees)
      CHECK(row[key] == (value == NDS_UNKNOWN ? json(nullptr) : json(value)));
    CHECK(rows[i]["time"]["step_s"].get<double>() == in_process[i].time.step_s);
    CHECK(rows[i]["memory"]["peak_bytes"].get<int64_t>() == std::llround(in_process[i].peak_bytes));
  }
}

json without_schema(json j) {
  j.erase("schema_version");
  return j;
}

}  // namespace

TEST_CASE(
    "Two searches in one process with two device files give what two ndsearch processes give") {
  TempDir scratch;
  // Full-size H100 figures in the first file, a smaller and slower part in the second.
  const fs::path big = write_device(scratch.path, "big", 80, 989, 3350);
  const fs::path small = write_device(scratch.path, "small", 24, 300, 1000);

  const InProcess first = search_in_process({{"device-file", big.string()}}, kDeviceId);
  const InProcess second = search_in_process({{"device-file", small.string()}}, kDeviceId);

  // The second run reads its own file: 24 GiB, not the first run's 80.
  CHECK(first.device["memory_bytes"].get<uint64_t>() == 80ull << 30);
  CHECK(second.device["memory_bytes"].get<uint64_t>() == 24ull << 30);
  // ... and prices with it: a third of the peak cannot give the same step.
  REQUIRE(!first.ranking.empty());
  REQUIRE(!second.ranking.empty());
  CHECK(second.ranking[0].time.step_s > first.ranking[0].time.step_s);

  // Each equals a separate process with that --device-file.
  for (const auto& [file, run] : {std::pair{big, &first}, std::pair{small, &second}}) {
    INFO("--device-file " << file.string());
    const std::string device_file = " --device-file " + file.string();
    CHECK(without_schema(cli_json(std::string("hardware ") + kDeviceId + " --format json" +
                                  device_file)) == run->device);
    check_same_ranking(run->ranking, cli_json("search " + tiny_config() + " -A " + kDeviceId +
                                              kCliSettings + device_file));
  }
}

TEST_CASE("A memory pass option given to the second run of a process applies to it alone") {
  // swap-optimizer (eval --swap-optimizer) keeps optimizer states and master
  // weights on the host: the weights-and-optimizer pass, compiled in each
  // run, reads it then. Three runs: without, with, without again.
  const InProcess before = search_in_process({}, "nvidia-h100-sxm");
  const InProcess swapped = search_in_process({{"swap-optimizer", "1"}}, "nvidia-h100-sxm");
  const InProcess after = search_in_process({}, "nvidia-h100-sxm");
  REQUIRE(!before.ranking.empty());
  REQUIRE(!swapped.ranking.empty());
  REQUIRE(after.ranking.size() == before.ranking.size());
  for (size_t i = 0; i < before.ranking.size(); ++i) {
    CHECK(after.ranking[i].peak_bytes == before.ranking[i].peak_bytes);
    CHECK(after.ranking[i].time.step_s == before.ranking[i].time.step_s);
  }

  // The best strategy of each run, priced by `ndsearch eval` in a process of
  // its own with and without --swap-optimizer: the same optimizer bytes on the
  // peak stage, and the same peak.
  auto eval = [](const PricedCandidate& c, bool swap) {
    return cli_json("eval " + tiny_config() + " -A nvidia-h100-sxm -d 8 -b 4 --seq-len 1024" +
                    " --strategy \"" + strategy_text(c.strategy) + "\" --format json" +
                    (swap ? " --swap-optimizer" : ""));
  };
  for (const auto& [run, swap] : {std::pair{&before, false}, std::pair{&swapped, true}}) {
    const PricedCandidate& best = run->ranking[0];
    INFO(strategy_text(best.strategy) << (swap ? " --swap-optimizer" : ""));
    const json e = eval(best, swap);
    CHECK(e["memory"]["peak_bytes"].get<int64_t>() == std::llround(best.peak_bytes));
    int64_t optimizer_on_peak_stage = -1;
    for (const json& stage : e["memory"]["stages"])
      if (stage["peak_bytes"] == e["memory"]["peak_bytes"])
        optimizer_on_peak_stage = stage["optimizer_bytes"].get<int64_t>();
    CHECK(optimizer_on_peak_stage == std::llround(best.peak_terms[NDS_MEMORY_OPTIMIZER]));
  }
  // Swapped, the optimizer states leave the device (docs/memory.md): none on it.
  CHECK(swapped.ranking[0].peak_terms[NDS_MEMORY_OPTIMIZER] <
        before.ranking[0].peak_terms[NDS_MEMORY_OPTIMIZER]);
}

// ---- Two runs alive at once (the public API: two ndsearch::Planner) ----------

namespace {

PluginSettings shipped_settings() {
  PluginSettings settings;
  settings.shipped_dir = NDS_TEST_SHIPPED_PLUGINS;
  settings.use_environment = false;  // as the CLI runs below: env -u NDS_PLUGIN_PATH ...
  return settings;
}

Planner planner_with_device_file(const fs::path& file) {
  PluginSettings settings = shipped_settings();
  settings.device_file = file;
  return Planner(settings);
}

SearchSettings tiny_search() {
  SearchSettings s;  // kCliSettings: -d 8 -b 4 --seq-len 1024 -j 1 -t 5
  s.model.config = tiny_config();
  s.model.global_batch = kGlobalBatch;
  s.model.seq_len = kSeqLen;
  s.device = kDeviceId;
  s.devices = kDevices;
  s.space.threads = 1;
  s.top = 5;
  return s;
}

// A search document without what changes from one run to the next.
json steady(json search) {
  search.erase("elapsed_s");
  search.erase("candidates_per_s");
  return search;
}

}  // namespace

TEST_CASE("Two Planners alive at once with two device files each give what its own process gives") {
  TempDir scratch;
  const fs::path big = write_device(scratch.path, "big", 80, 989, 3350);
  const fs::path small = write_device(scratch.path, "small", 24, 300, 1000);
  // Both alive: the shipped toml-device is one module, initialised once, that
  // reads --device-file in each get_devices (NDS_MODULE_OPTIONS_PER_CALL).
  const Planner first = planner_with_device_file(big);
  const Planner second = planner_with_device_file(small);
  CHECK(first.device(kDeviceId).to_json()["memory_bytes"].get<uint64_t>() == 80ull << 30);
  CHECK(second.device(kDeviceId).to_json()["memory_bytes"].get<uint64_t>() == 24ull << 30);

  std::vector<std::pair<const Planner*, fs::path>> runs{{&first, big}, {&second, small}};
  std::vector<json> searched;
  for (const auto& [planner, file] : runs) {
    INFO("--device-file " << file.string());
    const std::string device_file = " --device-file " + file.string();
    CHECK(planner->hardware().to_json() == cli_json("hardware --format json" + device_file));
    searched.push_back(planner->search(tiny_search()).to_json());
    CHECK(steady(searched.back()) == steady(cli_json("search " + tiny_config() + " -A " +
                                                     kDeviceId + kCliSettings + device_file)));
  }
  // A third of the peak cannot give the same best step.
  CHECK(searched[1]["ranking"][0]["time"]["step_s"] > searched[0]["ranking"][0]["time"]["step_s"]);

  SECTION("the two searches at once, on two threads, give the same documents") {
    std::vector<json> at_once(2);
    std::vector<std::string> failures(2);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < runs.size(); ++i)
      threads.emplace_back([&, i] {
        try {
          at_once[i] = runs[i].first->search(tiny_search()).to_json();
        } catch (const std::exception& e) {
          failures[i] = e.what();
        }
      });
    for (std::thread& thread : threads) thread.join();
    for (size_t i = 0; i < runs.size(); ++i) {
      INFO("--device-file " << runs[i].second.string());
      CHECK(failures[i].empty());
      CHECK(steady(at_once[i]) == steady(searched[i]));
    }
  }
}

TEST_CASE(
    "Two Planners alive at once, swap-optimizer on and off, price the optimizer as two processes") {
  PluginSettings swapped_settings = shipped_settings();
  swapped_settings.options["swap-optimizer"] = "1";
  const Planner plain(shipped_settings());
  const Planner swapped(swapped_settings);

  EvaluateSettings e;
  e.model.config = tiny_config();
  e.model.global_batch = kGlobalBatch;
  e.model.seq_len = kSeqLen;
  e.device = "nvidia-h100-sxm";
  e.devices = 4;
  e.strategy = "dp=4,tp=1,pp=1,zero=0";  // no sharding: every rank keeps all the optimizer
  const std::string cli_eval = "eval " + tiny_config() +
                               " -A nvidia-h100-sxm -d 4 -b 4 --seq-len 1024 --strategy "
                               "dp=4,tp=1,pp=1,zero=0 --format json";
  const json without = plain.evaluate(e).to_json();
  const json with = swapped.evaluate(e).to_json();
  CHECK(without == cli_json(cli_eval));
  CHECK(with == cli_json(cli_eval + " --swap-optimizer"));

  // tiny-4-layers (h 256, ffn 512, 4 heads of 64, 2 KV heads, vocab 1024,
  // untied head): per layer q, o 256·256 + k, v 256·128 + SwiGLU 3·256·512 +
  // two norms 2·256 = 590 336; four layers 2 361 344, embedding and head
  // 2·1024·256 = 524 288, final norm 256: 2 885 888 parameters. Unsharded,
  // fp32 master weights (4 bytes) and two fp32 Adam states (8 bytes):
  // 12 · 2 885 888 = 34 630 656 bytes on the one stage; swapped, none.
  REQUIRE(without["memory"]["stages"].size() == 1);
  REQUIRE(with["memory"]["stages"].size() == 1);
  CHECK(without["memory"]["stages"][0]["optimizer_bytes"].get<int64_t>() == 34'630'656);
  CHECK(with["memory"]["stages"][0]["optimizer_bytes"].get<int64_t>() == 0);
  // ... and they cost time: the same 34 630 656 bytes come in from the host
  // and go back out each step over 80 % of H100's PCIe 5 x16 64 GB/s per
  // direction (51.2 GB/s, pinned copies), in MindSpeed's 16 pieces pipelined
  // with the update: 2 copies + update / 16 + 15 · max(copy, update / 16).
  const double update = without["time"]["parts"]["optimizer"].get<double>();
  const double copy = 34'630'656 / 51.2e9 / 16;
  const double priced = 2 * copy + update / 16 + 15 * std::max(copy, update / 16);
  CHECK(with["time"]["parts"]["optimizer"].get<double>() == Approx(priced).epsilon(1e-12));
  CHECK(with["time"]["optimizer_swap_s"].get<double>() == Approx(priced - update).epsilon(1e-9));
  CHECK(without["time"]["optimizer_swap_s"].get<double>() == 0);
  CHECK(with["time"]["step_s"].get<double>() ==
        Approx(without["time"]["step_s"].get<double>() + priced - update).epsilon(1e-12));
  // The first Planner is not changed by the second: again without.
  CHECK(plain.evaluate(e).to_json() == without);
}
