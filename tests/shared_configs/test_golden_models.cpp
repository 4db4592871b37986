// SPDX-License-Identifier: Apache-2.0
// test_golden_models.cpp: every config in ../shared/configs parses with its
// framework found by probing, and its summary matches the reviewed golden file
// tests/golden/models/<folder>/<file>.json; the files that describe no model
// exit 2 saying so. NDS_UPDATE_GOLDEN=1 rewrites the golden files (review the
// diff by hand before committing: each key number's source is noted in
// tests/golden/models/README.md).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "tests/support/run_command.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Tool settings and framework descriptions: no model in them.
const std::set<std::string> kNotModels = {
    "fasttuner/fast_tuner_args_for_dryrun.json",
    "fasttuner/fast_tuner_args_for_pipeline_parallel.json",
    "fasttuner/fast_tuner_args_for_pipeline_tool.json",
    "fasttuner/fast_tuner_env_config.json",
    "hyperparallel/mapping.yaml",
    "hyperparallel/memest_configs_eval_default.yaml",
    // MindSpeed's FSDP2 YAML names the trainer's settings; the model's shape
    // lives in the HF folder it points to, which is not published with it.
    "mindspeed/fsdp2_pretrain_qwen3_32b_4k_fsdp2_A3.yaml",
};

// Fast-tuner setups: they name a config by a path relative to a fast-tuner
// checkout, which ../shared does not hold (test_fast_tuner_configs.cpp).
const std::set<std::string> kSetups = {
    "fasttuner/fast_tuner_args_for_parallel_tool.json",
    "fasttuner/fast_tuner_args_for_parallel_tool_mcore.json",
    "fasttuner/fast_tuner_args_for_parallel_tool_titan.json",
};

// The keys a golden summary keeps: no paths, so it holds on any machine.
const char* kSummaryKeys[] = {"framework",
                              "name",
                              "layers",
                              "hidden_size",
                              "heads",
                              "kv_heads",
                              "head_dim",
                              "attention",
                              "ffn",
                              "ffn_hidden_size",
                              "vocab_size",
                              "padded_vocab_size",
                              "tied_embeddings",
                              "position_embedding",
                              "seq_len",
                              "experts",
                              "experts_per_token",
                              "shared_experts",
                              "moe_ffn_hidden_size",
                              "dense_layers",
                              "mtp_layers",
                              "q_lora_rank",
                              "kv_lora_rank",
                              "params_total",
                              "params_active",
                              "params_mtp",
                              "global_batch",
                              "micro_batch_size",
                              "stated_strategy",
                              "recompute",
                              "recompute_layers",
                              "stage_layers",
                              "stage_layer_offsets",
                              "cp_algorithm",
                              "device_memory_bytes",
                              "dtypes",
                              "fp8_recipe",
                              "overlap",
                              "optimizer_states",
                              "capabilities"};

json summary(const json& model) {
  json s = json::object();
  for (const char* key : kSummaryKeys) s[key] = model.contains(key) ? model[key] : json(nullptr);
  json towers = json::array();
  for (const json& t : model["submodels"])
    towers.push_back({{"name", t["name"]}, {"layers", t["layers"]}, {"params", t["params"]}});
  s["submodels"] = towers;
  s["warning_count"] = model["warnings"].size();
  return s;
}

// NDS_CONFIGS_ONLY=megatron,mindspeed restricts the run to those folders.
bool selected(const std::string& folder) {
  const char* only = std::getenv("NDS_CONFIGS_ONLY");
  if (only == nullptr || *only == '\0') return true;
  const std::string list = std::string(",") + only + ",";
  return list.find("," + folder + ",") != std::string::npos;
}

std::vector<std::string> shared_configs() {
  std::vector<std::string> files;
  for (const auto& dir : fs::directory_iterator(NDS_TEST_SHARED_CONFIGS)) {
    if (!dir.is_directory() || !selected(dir.path().filename().string())) continue;
    for (const auto& f : fs::directory_iterator(dir.path()))
      if (f.is_regular_file())
        files.push_back(dir.path().filename().string() + "/" + f.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

ndsearch::test::CommandResult model(const std::string& relative) {
  return ndsearch::test::run_command("env -u NDS_PLUGIN_PATH " + std::string(NDS_TEST_CLI) +
                                     " model --format json " +
                                     std::string(NDS_TEST_SHARED_CONFIGS) + "/" + relative);
}

}  // namespace

TEST_CASE("Every published config parses with its framework found and matches its golden summary") {
  const bool update = std::getenv("NDS_UPDATE_GOLDEN") != nullptr;
  for (const std::string& relative : shared_configs()) {
    if (kNotModels.count(relative) != 0 || kSetups.count(relative) != 0 || relative == "SOURCES.md")
      continue;
    INFO(relative);
    const auto r = model(relative);
    INFO(r.err);
    CHECK(r.exit_code == 0);
    if (r.exit_code != 0) continue;
    const json got = summary(json::parse(r.out));
    const fs::path golden = fs::path(NDS_TEST_GOLDEN) / "models" / (relative + ".json");
    if (update) {
      fs::create_directories(golden.parent_path());
      std::ofstream(golden) << got.dump(2) << "\n";
      continue;
    }
    std::ifstream in(golden);
    INFO("no golden file " << golden.string()
                           << "; write it with NDS_UPDATE_GOLDEN=1 and review it");
    CHECK(in.good());
    if (in.good()) CHECK(got == json::parse(in));
  }
}

TEST_CASE("Configs that describe no model exit 2 saying so") {
  for (const std::string& relative : kNotModels) {
    if (!selected(relative.substr(0, relative.find('/')))) continue;
    INFO(relative);
    const auto r = model(relative);
    CHECK(r.exit_code == 2);
    const bool says_so = r.err.find("[E-PARSE-NO-MODEL]") != std::string::npos ||
                         r.err.find("[E-PARSE-FORMAT]") != std::string::npos;
    CHECK(says_so);
  }
}
