// SPDX-License-Identifier: Apache-2.0
// test_fast_tuner_setup.cpp: the reference's fast-tuner setup JSON as CONFIG:
// followed to the training config it names (a path relative to the
// fast-tuner's root, found under a folder above the JSON), its device count,
// global batch, EP bound and dimensions applied unless a setting replaces
// them (and the model says so); a config that is nowhere, a value of the
// wrong type and an unknown key are named. The fixtures mimic a fast-tuner
// tree: tests/fixtures/fasttuner/config/{setup_config,example/...}.
#include <catch2/catch.hpp>

#include <ndsearch/core/planner.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>  // getpid

#include "core/export/write_config.hpp"
#include "core/input/parse_config.hpp"
#include "core/search/search_request.hpp"
#include "core/support/user_error.hpp"
#include "fixtures_paths.hpp"
#include "support/error_text.hpp"
#include "support/run_command.hpp"
#include "support/shipped.hpp"

namespace {

using namespace ndsearch;
namespace fs = std::filesystem;

const std::string kRoot = std::string(NDS_TEST_FIXTURES_SOURCE) + "/fasttuner";
const std::string kSetups = kRoot + "/config/setup_config/";
const std::string kMindFormers = kSetups + "args_for_parallel_tool.json";
const std::string kMcore = kSetups + "args_for_parallel_tool_mcore.json";
const std::string kTitan = kSetups + "args_for_parallel_tool_titan.json";
const char* const kDevice = "nvidia-h100-sxm";

Model read(const std::string& path, ParseOptions options = {}) {
  return parse_config(test::shipped_plugins(), path, options);
}

// A file of `text` at `path` (its folders made).
void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A folder of this test's own under the system's temporary folder.
fs::path scratch(const std::string& name) {
  const fs::path dir =
      fs::temp_directory_path() / fmt::format("nds-fasttuner-{}-{}", name, getpid());
  fs::remove_all(dir);
  return dir;
}

nlohmann::json search(const std::string& config, uint64_t devices = 0, size_t top = 1000000,
                      const std::string& dimensions = "") {
  SearchSettings s;
  s.model.config = config;
  s.space.dimensions = dimensions;
  s.device = kDevice;
  s.devices = devices;
  s.top = top;
  return Planner(test::shipped_plugin_settings()).search(s).to_json();
}

}  // namespace

TEST_CASE("A fast-tuner setup naming a MindFormers YAML gives the run's devices and global batch") {
  // The YAML's path is "./config/example/...", relative to the fast-tuner's
  // root two folders above the JSON: found there, not beside the JSON.
  Model m = read(kMindFormers);
  CHECK(m.framework == "mindformers-yaml");
  CHECK(m.file == kRoot + "/config/example/mindformers/tiny_llama.yaml");
  CHECK(m.setup.file == kMindFormers);
  CHECK(m.setup.config_key == "yaml_path");
  CHECK(m.setup.devices == 32);  // rank_num, not the YAML's dp 2 · tp 2 · pp 2 = 8
  CHECK(m.setup.devices_field == "`rank_num` = 32");
  // gbs 64 replaces the YAML's batch_size 2 · dp 2 · micro_batch_num 4 = 16.
  CHECK(m.training.global_batch == 64);
  CHECK_THAT(m.training_provenance.at("global_batch"), Catch::StartsWith(kMindFormers + ": gbs"));
  CHECK(m.warnings.empty());  // mindformers_dir, dataset, output_path, env_json: the tool's own
  CHECK(search_device_count(m, 0) == 32);

  const nlohmann::json j = search(kMindFormers, 0, 1);
  CHECK(j["devices"] == 32);
  CHECK(j["global_batch"] == 64);
}

TEST_CASE("A fast-tuner setup naming a MindSpeed script bounds ep by max_expert_parallel") {
  const Model m = read(kMcore);
  CHECK(m.framework == "megatron-args");
  CHECK(m.setup.devices == 16);
  CHECK(m.setup.max_ep == 4);
  CHECK(m.training.global_batch == 32);  // gbs, not the script's 16
  // 16 routed experts on 16 devices: without the bound ep reaches 8 and 16.
  // Over tp, pp and ep alone, every fit listed: cheap under the sanitizers.
  const nlohmann::json bounded = search(kMcore, 0, 1000000, "TP PP EP");
  CHECK(bounded["bounds"]["max_ep"] == 4);
  CHECK(bounded["bounds"]["routed_experts"] == 16);
  REQUIRE(!bounded["ranking"].empty());
  int64_t most_bounded = 0;
  for (const nlohmann::json& row : bounded["ranking"])
    most_bounded = std::max(most_bounded, row["strategy"]["ep"].get<int64_t>());
  CHECK(most_bounded == 4);

  SearchSettings plain;
  plain.model.config = m.file;  // the script alone: no bound
  plain.model.global_batch = 32;
  plain.device = kDevice;
  plain.devices = 16;
  plain.top = 1000000;
  plain.space.dimensions = "TP PP EP";
  const nlohmann::json unbounded = Planner(test::shipped_plugin_settings()).search(plain).to_json();
  CHECK(unbounded["bounds"]["max_ep"] == 0);
  int64_t most = 0;
  for (const nlohmann::json& row : unbounded["ranking"])
    most = std::max(most, row["strategy"]["ep"].get<int64_t>());
  CHECK(most == 16);
  CHECK(unbounded["counts"]["tested"] > bounded["counts"]["tested"]);
}

TEST_CASE(
    "A fast-tuner setup naming a TorchTitan TOML searches the dimensions its strategy names") {
  const Model m = read(kTitan);
  CHECK(m.framework == "torchtitan-toml");
  CHECK(m.setup.devices == 8);  // rank_num 8 = npus_per_node 8 × nnodes 1
  // DP, TP, EP and FSDP true; PP and CP false.
  CHECK(m.setup.dimensions == "DP TP SP EP ETP ZERO OP MBS MBN RECOMPUTE");
  const nlohmann::json j = search(kTitan);
  CHECK(j["devices"] == 8);
  REQUIRE(!j["ranking"].empty());
  std::set<int64_t> pp, cp, op;
  for (const nlohmann::json& row : j["ranking"]) {
    pp.insert(row["strategy"]["pp"].get<int64_t>());
    cp.insert(row["strategy"]["cp"].get<int64_t>());
    op.insert(row["strategy"]["op"].get<int64_t>());
  }
  CHECK(pp == std::set<int64_t>{1});  // PP and CP not searched: the TOML's 1
  CHECK(cp == std::set<int64_t>{1});
  CHECK(op.size() > 1);  // OP searched: HSDP groups as well as the whole dp
}

TEST_CASE("Settings given replace a fast-tuner setup's values, and the model says so") {
  Planner planner(test::shipped_plugin_settings());
  SearchSettings s;
  s.model.config = kTitan;
  s.model.global_batch = 16;
  s.device = kDevice;
  s.devices = 4;
  s.space.dimensions = "TP";
  s.top = 1000000;
  const nlohmann::json j = planner.search(s).to_json();
  CHECK(j["devices"] == 4);
  CHECK(j["global_batch"] == 16);
  for (const nlohmann::json& row : j["ranking"])
    CHECK(row["strategy"]["ep"] == 1);  // EP not searched

  Model m = read(kMindFormers, [] {
    ParseOptions o;
    o.overrides.global_batch = 128;
    return o;
  }());
  CHECK(m.training.global_batch == 128);
  CHECK(search_device_count(m, 16) == 16);
  CHECK(search_options(m, Machine{&test::shipped_device(kDevice), 16},
                       [] {
                         SearchRequest r;
                         r.space.dimensions = "TP PP";
                         return r;
                       }())
            .space.searched == std::set<std::string>{"tp", "pp"});
  CHECK(m.warnings ==
        std::vector<std::string>{
            kMindFormers + " states `gbs` = 64; the global batch (`global_batch=128`) replaces it",
            kMindFormers + " states `rank_num` = 32 devices; the device count (`devices=16`) "
                           "replaces it"});
  Model titan = read(kTitan);
  search_options(titan, Machine{&test::shipped_device(kDevice), 8}, [] {
    SearchRequest r;
    r.space.dimensions = "TP PP";
    return r;
  }());
  CHECK(titan.warnings.back() == kTitan +
                                     "'s `strategy` would search DP TP SP EP ETP ZERO OP MBS MBN "
                                     "RECOMPUTE; the searched dimensions (`dimensions=TP PP`) "
                                     "replace them");

  // The CLI writes the settings as its flags.
  const auto r = test::run_command("env -u NDS_PLUGIN_PATH " + test::cli() + " model " +
                                   kMindFormers + " -b 128");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("setup         " + kMindFormers +
                                    " (yaml_path): devices 32, global batch 64, ep at most not "
                                    "stated, dimensions not stated"));
  CHECK_THAT(r.out, Catch::Contains("warning       " + kMindFormers +
                                    " states `gbs` = 64; the global batch (-b 128) replaces it"));
}

TEST_CASE("eval and explain take a fast-tuner setup's devices") {
  Planner planner(test::shipped_plugin_settings());
  EvaluateSettings e;
  e.model.config = kMindFormers;
  e.device = kDevice;
  e.strategy = "tp=2,pp=2";
  const nlohmann::json j = planner.evaluate(e).to_json();
  CHECK(j["devices"] == 32);
  CHECK(j["strategy"]["dp"] == 8);   // 32 / (tp 2 · pp 2)
  CHECK(j["strategy"]["mbn"] == 4);  // gbs 64 / (dp 8 · mbs 2, the YAML's batch_size)

  ExplainSettings x;
  x.evaluate.model.config = kMindFormers;
  x.evaluate.device = kDevice;
  const nlohmann::json own =
      planner.explain(x).to_json();  // the YAML's own strategy on the setup's devices
  CHECK(own["devices"] == 32);
  CHECK(own["strategy"]["dp"] == 8);  // 32 / (tp 2 · pp 2), not the YAML's 2
  CHECK(own["search"]["rank"].is_number());
}

TEST_CASE("A fast-tuner setup whose config is nowhere names every place it looked") {
  SECTION("a relative path: the JSON's folder, each above it, the current folder") {
    const fs::path root = scratch("nowhere");
    const fs::path setup = root / "config/setup_config/args.json";
    write(setup, R"({"toml_path": "./config/job.toml", "rank_num": 8})");
    const std::string message = test::error_text([&] { read(setup.string()); });
    const std::string head = "[E-SETUP-PATH] " + setup.string() +
                             ": `toml_path` = \"./config/job.toml\": no such file in the JSON's "
                             "folder, a folder above it or the current folder (tried " +
                             (root / "config/setup_config/config/job.toml").string() + ", " +
                             (root / "config/config/job.toml").string() + ", " +
                             (root / "config/job.toml").string() + ", ";
    CHECK_THAT(message, Catch::StartsWith(head));
    CHECK_THAT(message, Catch::Contains(", /config/job.toml"));  // up to the root
    CHECK_THAT(message,
               Catch::EndsWith("); give the training config's path, absolute or relative to the "
                               "JSON's folder"));
    fs::remove_all(root);
  }
  SECTION("an absolute path: that one place") {
    const fs::path root = scratch("absolute");
    const fs::path setup = root / "args.json";
    write(setup, R"({"yaml_path": ")" + (root / "absent.yaml").string() + R"(", "gbs": 8})");
    CHECK(test::error_text([&] { read(setup.string()); }) ==
          "[E-SETUP-PATH] " + setup.string() + ": `yaml_path` = \"" +
              (root / "absent.yaml").string() + "\": no such file (tried " +
              (root / "absent.yaml").string() +
              "); give the training config's path, absolute or relative to the JSON's folder");
    fs::remove_all(root);
  }
  SECTION("the fixture tree's own: a script that is not there") {
    const std::string message = test::error_text([] { read(kSetups + "missing_target.json"); });
    CHECK_THAT(message, Catch::StartsWith("[E-SETUP-PATH] " + kSetups +
                                          "missing_target.json: `shell_path` = "
                                          "\"./config/example/mcore/absent.sh\": no such file"));
    CHECK_THAT(message, Catch::Contains(kRoot + "/config/example/mcore/absent.sh"));
  }
}

TEST_CASE("A fast-tuner setup's wrong values and unknown keys are named") {
  const fs::path root = scratch("values");
  write(root / "run.yaml", "");  // never read: each setup below fails first
  const auto setup_error = [&](const std::string& body) {
    write(root / "args.json", "{\"yaml_path\": \"run.yaml\", " + body + "}");
    return test::error_text([&] { read((root / "args.json").string()); });
  };
  const std::string file = (root / "args.json").string();
  CHECK(setup_error(R"("rank_num": "64")") ==
        "[E-SETUP-VALUE] " + file +
            ": `rank_num` = \"64\": expected a whole number of devices from 1 to 16777216; fix it");
  CHECK(setup_error(R"("gbs": 2.5)") ==
        "[E-SETUP-VALUE] " + file +
            ": `gbs` = 2.5: expected a whole number of sequences from 1 to 16777216; fix it");
  CHECK(setup_error(R"("strategy": {"TP": "yes"})") ==
        "[E-SETUP-VALUE] " + file + ": `strategy.TP` = \"yes\": expected true or false; fix it");
  CHECK(setup_error(R"("rank_num": 16, "npus_per_node": 8, "nnodes": 1)") ==
        "[E-SETUP-VALUE] " + file +
            ": `rank_num` = 16 but `npus_per_node` × `nnodes` = 8 × 1 = 8: the two device counts "
            "disagree; fix one");
  CHECK(setup_error(R"("shell_path": "run.sh")") ==
        "[E-SETUP-VALUE] " + file +
            ": names two training configs, `yaml_path` and `shell_path`; keep one");
  CHECK(setup_error(R"("gbs": 8, "gbs": 16)") ==
        "[E-PARSE-DUPLICATE] " + file + ": `gbs` is written twice; keep one");

  // An unknown key: a warning, an error with strict parsing.
  write(root / "tiny.json", std::string("{\"yaml_path\": \"") + NDS_TEST_FIXTURES_SOURCE +
                                "/configs/mindformers/tiny_llama.yaml\", \"rank_nums\": 8, "
                                "\"strategy\": {\"SP\": true}}");
  const std::string tiny = (root / "tiny.json").string();
  const Model m = read(tiny);
  CHECK(m.warnings ==
        std::vector<std::string>{
            tiny + ": field `strategy.SP` not understood in a fast-tuner setup; ignored",
            tiny + ": field `rank_nums` not understood in a fast-tuner setup; ignored"});
  CHECK(m.setup.dimensions == "MBS MBN RECOMPUTE");  // every flag left out is false
  ParseOptions strict;
  strict.strict = true;
  CHECK(test::error_text([&] { read(tiny, strict); }) ==
        "[E-PARSE-UNKNOWN-FIELD] " + tiny +
            ": field `strategy.SP` not understood in a fast-tuner setup, an error with strict "
            "parsing (`strict`); remove it, or turn strict parsing off to list it as a warning");
  fs::remove_all(root);
}

TEST_CASE("A JSON without yaml_path, shell_path or toml_path is read by its own parser") {
  const std::string configs = std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/";
  const Model hf = read(configs + "hf/tiny-4-layers.json");
  CHECK(hf.framework == "hf-config-json");
  CHECK(hf.setup.file.empty());
  const Model mindspeed = read(configs + "megatron/mindspeed_args.json");
  CHECK(mindspeed.framework == "megatron-args");
  CHECK(mindspeed.setup.file.empty());
}

TEST_CASE("apply refuses a fast-tuner setup and names the config to apply to") {
  const Model m = read(kMcore);
  CHECK(test::error_text([&] { strategy_to_apply(m, "tp=2", 0); }) ==
        "[E-APPLY-SETUP] " + kMcore +
            " is a fast-tuner setup, not a training config: apply the strategy to the config its "
            "`shell_path` names, " +
            kRoot + "/config/example/mcore/small_moe.sh");
  const auto r = test::run_command("env -u NDS_PLUGIN_PATH " + test::cli() + " apply " + kMcore +
                                   " --strategy tp=2");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("[E-APPLY-SETUP]"));
}

TEST_CASE("search on a fast-tuner setup from the command line") {
  const auto r = test::run_command("env -u NDS_PLUGIN_PATH " + test::cli() + " search " + kTitan +
                                   " -A " + kDevice + " -t 1");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains(" on 8 x nvidia-h100-sxm"));
}
