// SPDX-License-Identifier: Apache-2.0
// test_examples.cpp: the ready inputs under examples/ (examples/README.md).
// `ndsearch model` on each must give the shapes and parameter counts worked
// out by hand below, and each search command examples/README.md documents
// must appear there verbatim, exit 0 and rank at least one strategy.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"

using ndsearch::test::cli;
using ndsearch::test::run_command;
using nlohmann::json;

namespace {

std::string example(const std::string& path) {
  return std::string(NDS_TEST_EXAMPLES) + "/" + path;
}

json model_of(const std::string& config) {
  auto r = run_command("env -u NDS_PLUGIN_PATH " + cli() + " model " + example(config) +
                       " --format json");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// Parameter counts are whole numbers; the JSON may write them as doubles
// (exact below 2^53).
int64_t count(const json& v) {
  return static_cast<int64_t>(v.get<double>());
}

int64_t devices_of(const json& strategy) {
  return strategy["dp"].get<int64_t>() * strategy["tp"].get<int64_t>() *
         strategy["pp"].get<int64_t>() * strategy["cp"].get<int64_t>();
}

std::string readme() {
  std::ifstream in(example("README.md"));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `ndsearch search examples/CONFIG ARGS` as examples/README.md shows it
// (with --format json added) and checks what every search must give.
void documented_search(const std::string& config, const std::string& args, int64_t devices,
                       int64_t batch) {
  const std::string documented = "ndsearch search examples/" + config + " " + args;
  INFO("examples/README.md must show: " << documented);
  REQUIRE(readme().find(documented) != std::string::npos);
  auto r = run_command("env -u NDS_PLUGIN_PATH " + cli() + " search " + example(config) + " " +
                       args + " --format json");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(j["devices"] == devices);
  CHECK(j["global_batch"] == batch);
  const json& c = j["counts"];
  int64_t refused = 0;
  for (const json& by_reason : c["refused"]) {
    refused += by_reason.get<int64_t>();
  }
  CHECK(c["tested"].get<int64_t>() == refused + c["priced"].get<int64_t>());
  CHECK(c["priced"].get<int64_t>() == c["fit"].get<int64_t>() + c["dropped"].get<int64_t>());
  CHECK(c["fit"].get<int64_t>() > 0);
  REQUIRE(!j["ranking"].empty());
  for (const json& row : j["ranking"]) {
    CHECK(devices_of(row["strategy"]) == devices);
    CHECK(row["time"]["step_s"].get<double>() > 0);
    CHECK(row["memory"]["peak_bytes"].get<double>() <= j["budget_bytes"].get<double>());
  }
}

}  // namespace

TEST_CASE(
    "example deepseek-v3-hyperparallel: the model as published, the strategy for 1024 A3 dies") {
  const json m = model_of("deepseek-v3-hyperparallel/deepseek_v3.yaml");
  CHECK(m["framework"] == "hyperparallel-yaml");
  CHECK(m["layers"] == 61);
  CHECK(m["dense_layers"] == 3);
  CHECK(m["mtp_layers"] == 1);
  CHECK(m["hidden_size"] == 7168);
  CHECK(m["heads"] == 128);
  CHECK(m["attention"] == "mla");
  CHECK(m["q_lora_rank"] == 1536);
  CHECK(m["kv_lora_rank"] == 512);
  CHECK(m["head_dim"] == 192);  // qk_nope 128 + qk_rope 64
  CHECK(m["ffn_hidden_size"] == 18432);
  CHECK(m["experts"] == 256);
  CHECK(m["experts_per_token"] == 8);
  CHECK(m["shared_experts"] == 1);
  CHECK(m["moe_ffn_hidden_size"] == 2048);
  CHECK(m["vocab_size"] == 129280);
  CHECK(m["tied_embeddings"] == false);
  // By hand (h 7168; MLA with 128 heads):
  //   attention  q_a 7168·1536 + q_a_norm 1536 + q_b 1536·128·192
  //              + kv_a 7168·(512+64) + kv_a_norm 512 + kv_b 512·128·(128+128)
  //              + o 128·128·7168                                     = 187,107,328
  //   norms      2·7168                                              =      14,336
  //   dense MLP  3·7168·18432                                        = 396,361,728
  //   expert     3·7168·2048                                         =  44,040,192
  //   router     256·7168                                            =   1,835,008
  //   dense layer 187,107,328 + 14,336 + 396,361,728                 =    583,483,392
  //   MoE layer   187,107,328 + 14,336 + 257 experts + router        = 11,507,286,016
  //   embedding and output head 2·129280·7168 = 1,853,358,080; final norm 7168
  //   total  3·583,483,392 + 58·11,507,286,016 + 1,853,358,080 + 7168 = 671,026,404,352
  //   active (8 routed + 1 shared expert): MoE layer 585,318,400
  //          3·583,483,392 + 58·585,318,400 + 1,853,365,248          =  37,552,282,624
  //   MTP    one MoE layer + eh_proj 2·7168·7168 + 2 norms           =  11,610,060,800
  // Published (DeepSeek-V3 technical report): 671B total, 37B activated per token.
  CHECK(count(m["params_total"]) == 671'026'404'352);
  CHECK(count(m["params_active"]) == 37'552'282'624);
  CHECK(count(m["params_mtp"]) == 11'610'060'800);
  CHECK(m["params_total"].get<double>() == Approx(671e9).epsilon(0.005));
  CHECK(m["params_active"].get<double>() == Approx(37e9).epsilon(0.02));
  // Training settings and the stated strategy: 64 x 16 = 1024 dies.
  CHECK(m["seq_len"] == 4096);
  CHECK(m["global_batch"] == 2048);
  CHECK(m["micro_batch_size"] == 1);
  const json& s = m["stated_strategy"];
  CHECK(s["dp"] == 64);
  CHECK(s["tp"] == 1);
  CHECK(s["pp"] == 16);
  CHECK(s["cp"] == 1);
  CHECK(s["ep"] == 64);
  CHECK(s["mbn"] == 32);  // 2048 / (1 x 64)
  CHECK(s["zero"] ==
        3);  // HyperParallel's parallel optimizer, over dp: parameters and states sharded
  CHECK(m["fsdp_holding"] == "fsdp2_keep");  // its gathered weights kept to the backward
  CHECK(s["op"] == 64);
  CHECK(s["recompute"] == "full");
  CHECK(devices_of(s) == 1024);
  // offset [0, 1 x 14, 0]: 61 layers + 1 MTP = 62 = 3 + 14·4 + 3.
  CHECK(m["stage_layers"] == json({3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 3}));
  CHECK(m["warnings"].empty());
}

TEST_CASE("example llama3-8b-torchtitan: Llama 3.1 8B and TP 2 x FSDP 32 on 64 H100") {
  const json m = model_of("llama3-8b-torchtitan/llama3_8b.toml");
  CHECK(m["framework"] == "torchtitan-toml");
  CHECK(m["layers"] == 32);
  CHECK(m["dense_layers"] == 32);
  CHECK(m["hidden_size"] == 4096);
  CHECK(m["heads"] == 32);
  CHECK(m["kv_heads"] == 8);
  CHECK(m["head_dim"] == 128);
  CHECK(m["ffn_hidden_size"] ==
        14336);  // int(1.3 · int(2·4·4096/3)) = 14198, up to a multiple of 1024
  CHECK(m["experts"] == 0);
  CHECK(m["vocab_size"] == 128256);
  // By hand: per layer q 4096² + k, v 2·4096·1024 + o 4096² + MLP 3·4096·14336
  //   + 2 norms·4096 = 218,112,000; 32 layers = 6,979,584,000;
  //   embedding and output 2·128256·4096 = 1,050,673,152; final norm 4096.
  //   Total 8,030,261,248: Meta's published count for Llama-3.1-8B.
  CHECK(count(m["params_total"]) == 8'030'261'248);
  CHECK(count(m["params_active"]) == 8'030'261'248);
  CHECK(m["seq_len"] == 8192);
  CHECK(m["global_batch"] == 64);  // local_batch_size 2 x dp 32
  const json& s = m["stated_strategy"];
  CHECK(s["tp"] == 2);
  CHECK(s["dp"] == 32);
  CHECK(s["pp"] == 1);
  CHECK(s["cp"] == 1);
  CHECK(s["sp"] == 1);    // TorchTitan always runs TP with sequence parallelism
  CHECK(s["zero"] == 3);  // FSDP over data_parallel_shard_degree
  CHECK(s["mbs"] == 2);
  CHECK(s["mbn"] == 1);
  CHECK(s["recompute"] == "selective");
  CHECK(devices_of(s) == 64);
  CHECK(m["warnings"].empty());
}

TEST_CASE("example llama-3.1-70b: the Hugging Face config of Llama 3.1 70B") {
  const json m = model_of("llama-3.1-70b/config.json");
  CHECK(m["framework"] == "hf-config-json");
  CHECK(m["layers"] == 80);
  CHECK(m["hidden_size"] == 8192);
  CHECK(m["heads"] == 64);
  CHECK(m["kv_heads"] == 8);
  CHECK(m["ffn_hidden_size"] == 28672);
  CHECK(m["vocab_size"] == 128256);
  // By hand: per layer q 8192² + k, v 2·8192·1024 + o 8192² + MLP 3·8192·28672
  //   + 2 norms·8192 = 855,654,400; 80 layers = 68,452,352,000;
  //   embedding and output 2·128256·8192 = 2,101,346,304; final norm 8192.
  //   Total 70,553,706,496 (published: 70.6B).
  CHECK(count(m["params_total"]) == 70'553'706'496);
  CHECK(m["params_total"].get<double>() == Approx(70.6e9).epsilon(0.001));
  // An HF config states no training: the search takes -b and --seq-len.
  CHECK(m["seq_len"].is_null());
  CHECK(m["global_batch"].is_null());
}

// The searches of examples/README.md, each well under 5 s (also under the
// sanitizers).
TEST_CASE("example searches as examples/README.md documents them exit 0 and rank strategies") {
  SECTION("deepseek-v3-hyperparallel on 1024 A3") {
    documented_search(
        "deepseek-v3-hyperparallel/deepseek_v3.yaml",
        "-A ascend-a3 -d 1024 -b 2048 --seq-len 4096 -l \"TP PP CP EP VPP MBS MBN RECOMPUTE\" -t 3",
        1024, 2048);
  }
  SECTION("llama3-8b-torchtitan on 64 H100") {
    documented_search("llama3-8b-torchtitan/llama3_8b.toml",
                      "-A nvidia-h100-sxm -d 64 -b 64 --seq-len 8192 -t 3", 64, 64);
  }
  SECTION("llama-3.1-70b on 256 H100") {
    documented_search("llama-3.1-70b/config.json",
                      "-A nvidia-h100-sxm -d 256 -b 256 --seq-len 8192 -t 3", 256, 256);
  }
}
