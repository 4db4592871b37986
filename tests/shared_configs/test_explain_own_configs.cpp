// SPDX-License-Identifier: Apache-2.0
// test_explain_own_configs.cpp: "how does my config rank, and what beats
// it?" on one real config per format that states a strategy: explain with no
// strategy finds the config's own in the default search, ranks it and lists
// the fastest strategy's changes.
#include <catch2/catch.hpp>

#include <ndsearch/core/planner.hpp>

namespace {

nlohmann::json explain_own(const std::string& config, const std::string& device,
                           uint64_t devices = 0) {
  ndsearch::PluginSettings plugins;
  plugins.shipped_dir = NDS_TEST_SHIPPED_PLUGINS;
  plugins.use_environment = false;
  plugins.vet_helper = NDS_TEST_VET;
  ndsearch::ExplainSettings x;
  x.evaluate.model.config = std::string(NDS_TEST_SHARED_CONFIGS) + "/" + config;
  x.evaluate.device = device;
  x.evaluate.devices = devices;
  return ndsearch::Planner(plugins).explain(x).to_json();
}

void check_ranked(const nlohmann::json& j) {
  INFO(j["search"].dump());
  REQUIRE(j["search"]["rank"].is_number());
  const size_t rank = j["search"]["rank"].get<size_t>();
  CHECK(rank <= j["search"]["fit"].get<size_t>());
  // The fastest differs from the config's own unless the config is the fastest.
  CHECK(j["search"]["best_changes"].empty() == (rank == 1));
}

}  // namespace

TEST_CASE("explain ranks the own strategy of a real config of each format") {
  SECTION("Megatron-LM: Llama 3 8B fp8 on 8 H100, tp 1, dp 8") {
    const nlohmann::json j = explain_own("megatron/train_llama3_8b_h100_fp8.sh", "nvidia-h100-sxm");
    CHECK(j["strategy"]["dp"] == 8);
    check_ranked(j);
  }
  SECTION("MindFormers: Llama 3 70B, tp 8, pp 8 on 64 A2") {
    const nlohmann::json j = explain_own("mindformers/pretrain_llama3_70b.yaml", "A2");
    CHECK(j["strategy"]["tp"] == 8);
    CHECK(j["strategy"]["pp"] == 8);
    check_ranked(j);
  }
  SECTION("HyperParallel: DeepSeek-V3 on A3") {
    check_ranked(explain_own("hyperparallel/hyper_deepseek_v3.yaml", "A3"));
  }
  SECTION("TorchTitan: Llama 3 8B, FSDP over the 64 devices given") {
    const nlohmann::json j = explain_own("torchtitan/llama3_8b.toml", "nvidia-h100-sxm", 64);
    CHECK(j["strategy"]["dp"] == 64);
    check_ranked(j);
  }
}
