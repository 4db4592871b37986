// SPDX-License-Identifier: Apache-2.0
// test_eval.cpp: `ndsearch eval` end to end on configs we wrote (tests/
// fixtures/configs/hf/): the documented JSON, per-stage sums, the budget,
// and each validity check of DESIGN §8.2 refusing with its id and message.
#include <unistd.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"

using ndsearch::test::cli;
using ndsearch::test::run_command;
using nlohmann::json;

namespace {
std::string hf(const std::string& name) {
  return std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/" + name + ".json";
}

struct Eval {
  int exit_code;
  json j;
  std::string err;
};
Eval eval(const std::string& model, const std::string& args) {
  auto r = run_command("env -u NDS_PLUGIN_PATH " + cli() + " eval " + hf(model) +
                       " --format json " + args);
  INFO(r.out << r.err);
  return {r.exit_code, json::parse(r.out), r.err};
}
constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
}  // namespace

TEST_CASE("eval prints the documented JSON and the stages sum as printed") {
  // Llama-3.1-70B on 64 H100: tp 8, pp 4, dp 2, full recompute, ZeRO-1.
  Eval e = eval("llama-3.1-70b",
                "-A nvidia-h100-sxm -d 64 --seq-len 8192 -b 64 "
                "--strategy tp=8,pp=4,dp=2,mbs=1,recompute=full,zero=1");
  REQUIRE(e.exit_code == 0);
  const json& j = e.j;
  CHECK(j["valid"] == true);
  CHECK(j["refusal"].is_null());
  CHECK(j["strategy"] == json({{"dp", 2},
                               {"tp", 8},
                               {"pp", 4},
                               {"cp", 1},
                               {"ep", 1},
                               {"etp", 8},
                               {"vpp", 1},
                               {"sp", 1},
                               {"zero", 1},
                               {"op", 2},
                               {"mbs", 1},
                               {"mbn", 32},
                               {"recompute", "full"},
                               {"schedule", "1f1b"}}));
  CHECK(j["strategy_sources"]["mbn"] == "derived: global batch / (dp·mbs)");
  const json& m = j["memory"];
  REQUIRE(m["stages"].size() == 4);
  double peak = 0;
  for (const json& s : m["stages"]) {
    CHECK(s["layers"] == 20);  // 80 layers on 4 stages
    const double sum = s["params_bytes"].get<double>() + s["grads_bytes"].get<double>() +
                       s["optimizer_bytes"].get<double>() + s["activations_bytes"].get<double>() +
                       s["comm_buffers_bytes"].get<double>() + s["other_bytes"].get<double>();
    CHECK(s["peak_bytes"].get<double>() == Approx(sum));
    peak = std::max(peak, sum);
  }
  CHECK(m["peak_bytes"].get<double>() == Approx(peak));
  // 80 GiB of H100 HBM less its 2 GiB runtime reserve.
  CHECK(m["budget_bytes"].get<double>() == 78 * GiB);
  CHECK(m["fits"] == true);
  CHECK(m["passes"] ==
        json::array({"activations", "comm-buffers", "weights-and-optimizer", "allocator"}));
}

TEST_CASE("A strategy that does not fit is priced with fits false and exit 0") {
  Eval e = eval("llama-3.1-405b", "-A nvidia-h100-sxm -d 8 --seq-len 8192 -b 8 --strategy tp=8");
  CHECK(e.exit_code == 0);
  CHECK(e.j["valid"] == true);
  CHECK(e.j["memory"]["fits"] == false);
  CHECK(e.j["memory"]["peak_bytes"].get<double>() > e.j["memory"]["budget_bytes"].get<double>());
}

TEST_CASE("The budget takes -M and --reserve-mem as the reference reads sizes") {
  Eval e = eval("llama-3.1-8b",
                "-A ascend-a2 -d 8 --seq-len 4096 -b 8 -M 58GB --reserve-mem 1GB --strategy tp=8");
  REQUIRE(e.exit_code == 0);
  CHECK(e.j["memory"]["capacity_bytes"].get<double>() == 58 * GiB);  // 58GB is 58 GiB (DESIGN §8.5)
  CHECK(e.j["memory"]["capacity_source"] ==
        "the device memory (`max_memory`)");  // JSON: the setting's key
  // 58 GiB less A2's 6 GiB runtime reserve and the 1 GiB asked for.
  CHECK(e.j["memory"]["budget_bytes"].get<double>() == 51 * GiB);
}

TEST_CASE(
    "A MindSpore config's device memory is its pool: the device's reserve is not taken off again") {
  // tiny_llama.yaml states max_device_memory "58GB": MindSpore's pool, which
  // the runtime sizes after the driver and HCCL took theirs (DESIGN §8.4). A2:
  // 64 GiB less its 6 GiB reserve leaves 58 GiB, all of it the pool.
  const std::string config =
      std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/mindformers/tiny_llama.yaml";
  const auto r = ndsearch::test::run_command("env -u NDS_PLUGIN_PATH " + ndsearch::test::cli() +
                                             " eval " + config + " -A ascend-a2 --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  const json& m = j["memory"];
  // Its parallel optimizer's holding is said (tiny_llama.yaml:14).
  bool holding_said = false;
  for (const json& a : j["assumptions"])
    holding_said =
        holding_said || a.get<std::string>().find(
                            "memory: at zero 3, every block kept gathered from its forward to its "
                            "backward, the gradients whole until the last micro-batch (") == 0;
  CHECK(holding_said);
  CHECK(m["capacity_bytes"].get<double>() == 58 * GiB);
  CHECK(m["reserved_bytes"].get<double>() == 0);
  CHECK(m["budget_bytes"].get<double>() == 58 * GiB);
  CHECK_THAT(m["capacity_source"].get<std::string>(),
             Catch::Contains("tiny_llama.yaml:") &&
                 Catch::EndsWith("(the runtime's pool: the device's reserve is outside it)"));

  // A pool larger than the device leaves is what the device leaves: MindSpore
  // takes the smaller of the two.
  std::ifstream in(config);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("\"58GB\""), 6, "\"62GB\"");
  const std::filesystem::path copy = std::filesystem::temp_directory_path() /
                                     ("ndsearch-pool-" + std::to_string(getpid()) + ".yaml");
  std::ofstream(copy) << text;
  const auto large =
      ndsearch::test::run_command("env -u NDS_PLUGIN_PATH " + ndsearch::test::cli() + " eval " +
                                  copy.string() + " -A ascend-a2 --format json");
  std::filesystem::remove(copy);
  INFO(large.err);
  REQUIRE(large.exit_code == 0);
  const json l = json::parse(large.out)["memory"];
  CHECK(l["budget_bytes"].get<double>() == 58 * GiB);
  CHECK_THAT(l["capacity_source"].get<std::string>(),
             Catch::Contains("more than the 58.00 GiB device ascend-a2 leaves"));
}

TEST_CASE("Each validity check refuses with exit 2 its id and what must divide") {
  struct Case {
    const char* model;
    const char* args;
    const char* id;
    const char* said;
  };
  const Case cases[] = {
      {"llama-3.1-8b", "-d 24 -b 8 --strategy tp=3", "tp-heads",
       "tp = 3 must divide the attention heads (32) and the KV heads (8)"},
      {"llama-3.1-8b", "-d 64 -b 64 --strategy dp=4,tp=8,pp=4", "devices",
       "dp·tp·pp·cp = 4·8·4·1 = 128 must equal the 64 devices"},
      {"llama-3.1-8b", "-d 8 -b 64 --strategy tp=8,mbn=3", "global-batch",
       "dp·mbs·mbn = 1·1·3 = 3 must equal the global batch 64"},
      {"mixtral-8x7b", "-d 24 -b 24 --strategy tp=1,ep=3", "ep",
       "ep = 3 must divide the 8 routed experts"},
      {"mixtral-8x7b", "-d 8 -b 8 --strategy tp=1,ep=16", "ep",
       "etp·ep = 1·16 = 16 must divide tp·dp·cp = 8"},
      {"llama-3.1-8b", "-d 24 -b 8 --strategy tp=8,cp=3", "cp-seq",
       "the sequence length 4096 must be divisible by 2·cp = 6"},
      {"gpt2", "-d 16 -b 16 --strategy tp=1,pp=8,vpp=2,mbn=8", "layers",
       "pp·vpp = 8·2 = 16 chunks need at least as many layers; the model has 12"},
      {"gpt2", "-d 8 -b 8 --strategy tp=1,pp=4,vpp=2,mbn=6,dp=2,mbs=1", "vpp",
       "needs mbn = 6 divisible by pp = 4"},
      {"llama-3.1-8b", "-d 8 -b 8 --strategy tp=2,op=3", "op",
       "op = 3 (the optimizer sharding group) must divide dp·cp = 4"},
  };
  for (const Case& c : cases) {
    INFO(c.model << " " << c.args);
    Eval e = eval(c.model, std::string("-A nvidia-h100-sxm --seq-len 4096 ") + c.args);
    CHECK(e.exit_code == 2);
    CHECK(e.j["valid"] == false);
    CHECK(e.j["refusal"]["id"] == c.id);
    CHECK_THAT(e.j["refusal"]["reason"].get<std::string>(), Catch::Contains(c.said));
    CHECK_THAT(e.err, Catch::Contains("[E-STRATEGY-REFUSED]"));
    CHECK(!e.j.contains("memory"));
  }
}

TEST_CASE("A strategy that does not read is a usage error naming the key") {
  auto r =
      run_command(cli() + " eval " + hf("gpt2") + " -A nvidia-h100-sxm -d 8 --strategy tp=two");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("[E-STRATEGY]"));
  CHECK_THAT(r.err, Catch::Contains("tp=two is not a whole number"));
  auto unknown =
      run_command(cli() + " eval " + hf("gpt2") + " -A nvidia-h100-sxm -d 8 --strategy xp=2");
  CHECK_THAT(unknown.err, Catch::Contains("unknown key \"xp\""));
}

TEST_CASE("Memory that needs the sequence length says which flag gives it") {
  auto r =
      run_command(cli() + " eval " + hf("gpt2") + " -A nvidia-h100-sxm -d 8 -b 8 --strategy tp=1");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("--seq-len"));
}

TEST_CASE("eval prices context parallelism through the chosen CP model") {
  // Llama-3.1-8B, 8 KV heads: Ulysses needs tp·cp to divide them (tp 2 · cp 4 = 8
  // does; tp 4 · cp 4 = 16 does not), ring does not care.
  const std::string args = "-A nvidia-h100-sxm -d 16 --seq-len 32768 -b 16 ";
  Eval ring =
      eval("llama-3.1-8b", args + "--strategy tp=2,cp=4,dp=2,recompute=full --cp-algo ring");
  Eval ulysses =
      eval("llama-3.1-8b", args + "--strategy tp=2,cp=4,dp=2,recompute=full --cp-algo ulysses");
  REQUIRE(ring.exit_code == 0);
  REQUIRE(ulysses.exit_code == 0);
  // An HF config states no overlap: a well-tuned Megatron-Core run, whose
  // ring hides its blocks behind attention (the ring's exchange is hidden, at
  // 32K whole), while Ulysses' all-to-alls sit before and after it, exposed.
  const double ring_total =
      ring.j["time"]["parts"]["cp"].get<double>() + ring.j["time"]["hidden"]["cp"].get<double>();
  CHECK(ring_total > 0);
  CHECK(ring.j["time"]["hidden"]["cp"].get<double>() > 0);
  CHECK(ulysses.j["time"]["parts"]["cp"].get<double>() > 0);
  CHECK(ulysses.j["time"]["hidden"]["cp"].get<double>() == 0);
  CHECK(ring_total != ulysses.j["time"]["parts"]["cp"].get<double>());
  Eval refused =
      eval("llama-3.1-8b", args + "--strategy tp=4,cp=4,dp=1,recompute=full --cp-algo ulysses");
  CHECK(refused.exit_code == 2);
  CHECK(refused.j["valid"] == false);
  CHECK(refused.j["refusal"]["id"] == "cp-ulysses");
  CHECK(!refused.j.contains("memory"));
  auto unknown = run_command(cli() + " eval " + hf("llama-3.1-8b") + " " + args +
                             "--strategy tp=2,cp=4,dp=2 --cp-algo rings");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("[E-CP-ALGO]"));
  CHECK_THAT(unknown.err, Catch::Contains("ulysses"));
}

TEST_CASE(
    "An HF config keeps and reduces bf16 gradients, as the run it is priced as, and says so") {
  // DESIGN §8.5 / issue 34 cause 1: an HF config states no trainer; its
  // memory and its time are both the well-tuned Megatron-Core run's, whose
  // DDP default is grad_reduce_in_fp32 = False. Llama-3.1-8B at tp 1, pp 1:
  // 8,030,261,248 parameters, 2 bytes of gradient each = 16,060,522,496. The
  // optimizer step's fp32 copy of the zero-1 shard (4 x 8.03e9 / 8 = 4.0 GB)
  // fits in the freed activations (32 layers x 4096 tokens, > 10 GB), so it
  // adds nothing.
  Eval e = eval("llama-3.1-8b",
                "-A nvidia-h100-sxm -d 8 -b 16 --seq-len 4096 --strategy tp=1,pp=1,zero=1,mbs=1");
  REQUIRE(e.exit_code == 0);
  CHECK(e.j["memory"]["stages"][0]["grads_bytes"].get<double>() == Approx(2.0 * 8030261248.0));
  CHECK(e.j["memory"]["stages"][0]["activations_bytes"].get<double>() > 4.0 * 8030261248.0 / 8);
  bool said = false;
  for (const auto& line : e.j["assumptions"])
    said = said ||
           line.get<std::string>().find("gradients (kept and reduced) bf16") != std::string::npos;
  CHECK(said);
}
