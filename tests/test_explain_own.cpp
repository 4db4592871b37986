// SPDX-License-Identifier: Apache-2.0
// test_explain_own.cpp: explain with no strategy explains the config's own:
// every shipped example that states one is found in the default search with
// its rank and the fastest strategy's changes; the search always holds the
// explained strategy, naming the bound it was outside (vpp above min(4, pp,
// layers / pp)); keys that mean nothing in context are normalised first.
#include <catch2/catch.hpp>

#include <ndsearch/core/planner.hpp>

#include "core/support/user_error.hpp"

namespace {

const std::string kExamples = NDS_TEST_EXAMPLES;
const std::string kConfigs = std::string(NDS_TEST_SOURCE_DIR) + "/tests/fixtures/configs/";

ndsearch::Planner shipped() {
  ndsearch::PluginSettings plugins;
  plugins.shipped_dir = NDS_TEST_SHIPPED_PLUGINS;
  plugins.use_environment = false;
  plugins.vet_helper = NDS_TEST_VET;
  return ndsearch::Planner(plugins);
}

nlohmann::json explain_own(const std::string& config, const std::string& device,
                           uint64_t devices = 0) {
  ndsearch::ExplainSettings x;
  x.evaluate.model.config = config;
  x.evaluate.device = device;
  x.evaluate.devices = devices;
  return shipped().explain(x).to_json();
}

// Llama 3.1 8B (32 layers) on 8 H100, global batch 16 of 4096 tokens.
ndsearch::ExplainSettings llama_8b_on_8_h100() {
  ndsearch::ExplainSettings x;
  x.evaluate.model.config = kConfigs + "hf/llama-3.1-8b.json";
  x.evaluate.model.global_batch = 16;
  x.evaluate.model.seq_len = 4096;
  x.evaluate.device = "nvidia-h100-sxm";
  x.evaluate.devices = 8;
  return x;
}

}  // namespace

TEST_CASE("explain of an example's own strategy ranks it and lists what the fastest changes") {
  SECTION("TorchTitan: Llama 3.1 8B, TP 2 x FSDP 32 on 64 H100") {
    const nlohmann::json j =
        explain_own(kExamples + "/llama3-8b-torchtitan/llama3_8b.toml", "nvidia-h100-sxm");
    CHECK(j["strategy"]["tp"] == 2);  // the config's, on its 64 devices
    CHECK(j["strategy"]["dp"] == 32);
    REQUIRE(j["search"]["rank"].is_number());
    CHECK(j["search"]["rank"].get<size_t>() > 1);
    CHECK_FALSE(j["search"]["best_changes"].empty());
    CHECK(j["search"]["outside_bounds"].empty());
  }
  SECTION("a Hugging Face config states none: the error says to give one") {
    CHECK_THROWS_WITH(explain_own(kExamples + "/llama-3.1-70b/config.json", "nvidia-h100-sxm"),
                      Catch::Contains("states no strategy") && Catch::Contains("`strategy`"));
  }
}

// A search of over a million candidates: Release only (tests/release_only_tests.txt).
TEST_CASE("Explain of the DeepSeek-V3 example's own strategy ranks it among a million candidates") {
  const nlohmann::json j =
      explain_own(kExamples + "/deepseek-v3-hyperparallel/deepseek_v3.yaml", "A3");
  REQUIRE(j["search"]["rank"].is_number());
  CHECK(j["search"]["rank"].get<size_t>() <= j["search"]["fit"].get<size_t>());
  CHECK(j["search"]["tested"].get<uint64_t>() > 1000000);
  CHECK_FALSE(j["search"]["best_changes"].empty());
}

TEST_CASE("explain adds a strategy outside the search's bounds and names the bound") {
  // llama-3.1-8b: 32 layers; pp 2 bounds vpp by min(4, pp = 2, 32 / 2) = 2, so
  // vpp 4 is outside the search's own values: it is added and ranked.
  ndsearch::ExplainSettings x = llama_8b_on_8_h100();
  x.evaluate.strategy = "tp=4,pp=2,vpp=4,mbs=1";
  x.space.dimensions = "TP PP VPP";
  const nlohmann::json j = shipped().explain(x).to_json();
  REQUIRE(j["search"]["rank"].is_number());
  REQUIRE(j["search"]["outside_bounds"].size() == 1);
  CHECK(j["search"]["outside_bounds"][0] ==
        "vpp=4: outside the bound vpp <= min(4, pp, layers / pp) = 2");
}

TEST_CASE("explain normalises keys that mean nothing in context before it ranks") {
  // A dense model: etp = 1 with tp 2 means nothing (no experts to split) and
  // sp = 1 at tp 1 neither; both rank as the search enumerates them.
  ndsearch::ExplainSettings x = llama_8b_on_8_h100();
  x.space.dimensions = "TP PP";
  SECTION("etp on a dense model") {
    x.evaluate.strategy = "tp=2,etp=1,pp=1,mbs=1";
    const nlohmann::json j = shipped().explain(x).to_json();
    CHECK(j["search"]["rank"].is_number());
    CHECK(j["search"]["outside_bounds"].empty());
  }
  SECTION("sp at tp 1") {
    x.evaluate.strategy = "tp=1,sp=1,pp=1,mbs=1";
    const nlohmann::json j = shipped().explain(x).to_json();
    CHECK(j["search"]["rank"].is_number());
    CHECK(j["search"]["outside_bounds"].empty());
  }
}

TEST_CASE("explain finds a config's strategy whose meaningless keys differ from the search's") {
  // The TorchTitan example states etp 1 (TorchTitan's default) on a dense
  // model at tp 2; with ETP not searched the search keeps it, and explain
  // normalises both sides (etp = tp without experts) to find the config's own.
  ndsearch::ExplainSettings x;
  x.evaluate.model.config = kExamples + "/llama3-8b-torchtitan/llama3_8b.toml";
  x.evaluate.device = "nvidia-h100-sxm";
  x.space.dimensions = "TP PP";
  const nlohmann::json j = shipped().explain(x).to_json();
  REQUIRE(j["search"]["rank"].is_number());
  for (const auto& change : j["search"]["best_changes"])
    CHECK(change.get<std::string>().rfind("etp", 0) != 0);
}

TEST_CASE("explain says why a strategy the search holds is not ranked") {
  // Llama 3.1 8B on 8 H100 with -M 4GB: the budget is 2 GiB once the
  // runtime's 2 GiB reserve is kept, and its weights, gradients and
  // unsharded optimizer states over tp 4 · pp 2 alone exceed that.
  ndsearch::ExplainSettings x = llama_8b_on_8_h100();
  x.evaluate.max_memory = "4GB";
  x.evaluate.strategy = "tp=4,pp=2,mbs=1,zero=0";
  x.space.dimensions = "TP PP";
  const nlohmann::json j = shipped().explain(x).to_json();
  REQUIRE(j["search"]["rank"].is_null());
  CHECK_THAT(j["search"]["note"].get<std::string>(),
             Catch::Contains("over the budget: peak ") && Catch::Contains("GiB of 2.00 GiB"));
}
