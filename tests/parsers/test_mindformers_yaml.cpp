// SPDX-License-Identifier: Apache-2.0
// test_mindformers_yaml.cpp: `ndsearch model` on small MindFormers YAMLs we
// wrote (tests/fixtures/configs/mindformers/): parameter counts derived by
// hand, the stated strategy, global batch, offsets and bad input.
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
std::string mf(const std::string& name) {
  return std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/mindformers/" + name + ".yaml";
}

ndsearch::test::CommandResult model(const std::string& args) {
  return run_command("env -u NDS_PLUGIN_PATH " + cli() + " model " + args);
}

json model_json(const std::string& name, const std::string& extra = "") {
  auto r = model(mf(name) + " --format json " + extra);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

using Edits = std::vector<std::pair<std::string, std::string>>;

// `model --format json` of a temporary copy of tiny_llama with each edit's
// first text replaced by its second.
ndsearch::test::CommandResult model_of_edited(const Edits& edits, const std::string& extra = "") {
  std::ifstream in(mf("tiny_llama"));
  std::string t((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const auto& [from, to] : edits) t.replace(t.find(from), from.size(), to);
  const std::filesystem::path copy = std::filesystem::temp_directory_path() /
                                     ("ndsearch-edited-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(copy) << t;
  auto r = model(copy.string() + " --format json " + extra);
  std::filesystem::remove(copy);
  return r;
}
}  // namespace

TEST_CASE("A LlamaConfig MindFormers YAML counts 155730944 parameters as derived by hand") {
  // No intermediate_size: LlamaFeedForward's width 2/3 x 4 x 1024 = 2730,
  // rounded up to multiple_of 256: 2816.
  // A layer: Q and O 1024 x 1024 each, K and V 1024 x 256 each (4 KV heads of
  // 64) = 2,621,440; SwiGLU 3 x 1024 x 2816 = 8,650,752; two RMSNorms 2,048:
  // 11,274,240, x 8 layers = 90,193,920. Untied embedding and head
  // 2 x 32000 x 1024 = 65,536,000; final norm 1,024. Total 155,730,944.
  json j = model_json("tiny_llama");
  CHECK(j["framework"] == "mindformers-yaml");
  CHECK(j["name"] == "tiny_llama");
  CHECK(j["ffn_hidden_size"] == 2816);
  CHECK(j["params_total"] == 155730944.0);
  CHECK(j["kv_heads"] == 4);
  CHECK(j["seq_len"] == 2048);
}

TEST_CASE("A MindFormers YAML states its strategy and global batch") {
  json j = model_json("tiny_llama");
  const json& s = j["stated_strategy"];
  CHECK(s["dp"] == 2);  // through the anchor &dp
  CHECK(s["tp"] == 2);
  CHECK(s["pp"] == 4);
  CHECK(s["mbs"] == 2);  // runner_config.batch_size
  CHECK(s["mbn"] == 8);  // parallel_config.micro_batch_num (pipeline stages > 1)
  CHECK(s["sp"] == 1);
  // The parallel optimizer stores parameters and states sharded: zero 3, the
  // gathered weights kept from the forward to the backward and, without
  // gradient_accumulation_shard, the accumulated gradients whole.
  CHECK(s["zero"] == 3);
  CHECK(j["fsdp_holding"] == "fsdp2_keep");
  CHECK(j["capabilities"]["zero2"] == false);
  CHECK(j["warnings"].empty());
  CHECK(s["op"] == 2);  // optimizer_weight_shard_size
  CHECK(s["recompute"] == "full");
  // Global batch = batch_size x data_parallel x micro_batch_num = 2 x 2 x 8.
  CHECK(j["global_batch"] == 32);
  // recompute: [1, 1, 0, 0] layers per stage.
  CHECK(j["recompute_layers"] == json::array({1, 1, 0, 0}));
  // 8 layers over 4 stages: 2 each, plus offset [1, 0, 0, -1].
  CHECK(j["stage_layers"] == json::array({3, 2, 2, 1}));
  // "58GB" is 58 GiB as MindSpore reads it: 58 x 2^30.
  CHECK(j["device_memory_bytes"] == 62277025792LL);
  CHECK(j["dtypes"]["params"] == "fp32");
  CHECK(j["dtypes"]["compute"] == "bf16");
  CHECK(j["optimizer_states"] == 2);
  CHECK(j["capabilities"]["sp_with_cp"] == false);  // MindSpore cannot combine SP and CP
}

TEST_CASE(
    "gradient_accumulation_shard holds the accumulated gradients sharded and reduces each "
    "micro-batch") {
  // MindSpore gives accu_grads the optimizer-sharded shape with the flag
  // (parameter_manager.cc, SetClonedTensorShapeForOptimizer) and
  // ReduceScatters each micro-batch's gradients into them: ABI 1.12's
  // keep_sharded_grads. By hand on tiny_llama (op 2, fp32 param_init_type:
  // gradients 4 bytes like the parameters, no master copy): whole, a stage
  // holds its P local parameters' accumulated gradients, 4P (the sharded 4P/2
  // are reduced from them at the step, once the activations are gone);
  // sharded, only 4P/2. The parameters are 4P/2 too, so the gradients drop by
  // the parameters' bytes.
  std::ifstream in(mf("tiny_llama"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.replace(text.find("gradient_accumulation_shard: False"), 34,
               "gradient_accumulation_shard: True");
  const std::filesystem::path copy = std::filesystem::temp_directory_path() /
                                     ("ndsearch-ga-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(copy) << text;
  auto r = model(copy.string() + " --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(j["stated_strategy"]["zero"] == 3);
  CHECK(j["fsdp_holding"] == "keep_sharded_grads");
  CHECK(j["warnings"].empty());
  auto eval = [](const std::string& config) {
    const auto e =
        ndsearch::test::run_command("env -u NDS_PLUGIN_PATH " + std::string(NDS_TEST_CLI) +
                                    " eval " + config + " -A ascend-a2 --format json");
    REQUIRE(e.exit_code == 0);
    return json::parse(e.out);
  };
  const json whole = eval(mf("tiny_llama")), sharded = eval(copy.string());
  std::filesystem::remove(copy);
  const json& w = whole["memory"]["stages"][0];
  const json& s = sharded["memory"]["stages"][0];
  CHECK(w["grads_bytes"].get<double>() - s["grads_bytes"].get<double>() ==
        s["params_bytes"].get<double>());
  CHECK(s["grads_bytes"] == s["params_bytes"]);
  // Eight reductions a step instead of one: the gradient sync costs more.
  CHECK(sharded["time"]["parts"]["dp"].get<double>() > whole["time"]["parts"]["dp"].get<double>());
}

TEST_CASE(
    "With the parallel optimizer off, a zero-3 candidate holds gradients as the written config "
    "will") {
  // The search ranks zero 3 for a config with enable_parallel_optimizer
  // False, and the writer turns it on, keeping gradient_accumulation_shard as
  // stated (False: the accumulated gradients whole, fsdp2_keep). The holding
  // is read from the config either way, so eval of the original at zero 3
  // and eval of the written config price the same gradients.
  std::ifstream in(mf("tiny_llama"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = text.find("enable_parallel_optimizer: True");
  REQUIRE(at != std::string::npos);
  text.replace(at, 31, "enable_parallel_optimizer: False");
  const std::filesystem::path copy = std::filesystem::temp_directory_path() /
                                     ("ndsearch-po-off-" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(copy) << text;
  const json off = json::parse(model(copy.string() + " --format json").out);
  CHECK(off["stated_strategy"]["zero"] == 0);
  CHECK(off["fsdp_holding"] == "fsdp2_keep");
  auto grads = [](const std::string& config, const std::string& strategy) {
    const auto e = ndsearch::test::run_command("env -u NDS_PLUGIN_PATH " +
                                               std::string(NDS_TEST_CLI) + " eval " + config +
                                               " -A ascend-a2 " + strategy + " --format json");
    REQUIRE(e.exit_code == 0);
    return json::parse(e.out)["memory"]["stages"][0]["grads_bytes"].get<double>();
  };
  // The shipped fixture has the optimizer on (zero 3, op 2): the same gradients.
  CHECK(grads(copy.string(), "--strategy zero=3,op=2") == grads(mf("tiny_llama"), ""));
  std::filesystem::remove(copy);
}

TEST_CASE("An mcore-style MindFormers MoE YAML counts dense then MoE layers as derived by hand") {
  // Attention: Q and O 512 x 512, K and V 512 x 128 (2 KV heads of 64):
  // 655,360, plus Qwen3's Q and K norms 2 x 64: 655,488; norms 1,024.
  // Dense layer (first_k_dense_replace 1): + SwiGLU 3 x 512 x 1536 = 2,359,296
  // -> 3,015,808. MoE layer: router 512 x 8 = 4,096; 8 experts of
  // 3 x 512 x 256 = 393,216 each = 3,145,728; one shared expert 393,216
  // -> 4,199,552 (active: 2 experts: 1,840,256). Tied embedding 1000 x 512
  // = 512,000; final norm 512.
  // Total 512,512 + 3,015,808 + 3 x 4,199,552 = 16,126,976.
  // Active 512,512 + 3,015,808 + 3 x 1,840,256 = 9,049,088.
  json j = model_json("tiny_moe_mcore");
  CHECK(j["params_total"] == 16126976.0);
  CHECK(j["params_active"] == 9049088.0);
  CHECK(j["dense_layers"] == 1);
  CHECK(j["experts"] == 8);
  CHECK(j["shared_experts"] == 1);
  CHECK(j["tied_embeddings"] == true);
  // MFModelConfig's seq_length default, with its provenance.
  CHECK(j["seq_len"] == 4096);
  CHECK(j["provenance"]["seq_len"] == "default:mindformers");
  // No pipeline: batch_size x data_parallel x gradient_accumulation_steps = 4 x 1 x 2.
  CHECK(j["global_batch"] == 8);
  CHECK(j["stated_strategy"]["mbn"] == 2);
  CHECK(j["stated_strategy"]["recompute"] == "selective");
}

TEST_CASE("A malformed MindFormers YAML is refused naming the file and line") {
  auto r = model(mf("malformed"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("malformed.yaml:6:") != std::string::npos);
  CHECK(r.err.find("not valid YAML") != std::string::npos);
}

TEST_CASE("Heads that do not divide the hidden size are refused naming the field") {
  auto r = model(mf("heads_not_dividing"));
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("[E-MODEL-SHAPE]") != std::string::npos);
  CHECK(r.err.find("heads_not_dividing.yaml:9: model.model_config.num_heads") != std::string::npos);
}

TEST_CASE("An unknown MindFormers field is a warning and an error under strict") {
  json j = model_json("unknown_field");
  bool warned = false;
  for (const json& w : j["warnings"])
    warned =
        warned || w.get<std::string>().find("model.model_config.warp_factor") != std::string::npos;
  CHECK(warned);
  auto r = model(mf("unknown_field") + " --strict");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("warp_factor") != std::string::npos);
}

TEST_CASE("MindFormers' hybird_cp is hybrid CP with ulysses_degree_in_cp, 1 when unstated") {
  // TransformerOpParallelConfig (MindFormers 1.3): context_parallel_algo
  // "hybird_cp" runs ulysses_degree_in_cp-way Ulysses inside colossalai_cp
  // (get_ulysses_cp_num), the degree 1 by default.
  auto with = [](const std::string& lines) {
    const std::string anchor = "  micro_batch_num: 8\n";
    return model_of_edited({{anchor, anchor + lines}});
  };
  const auto stated = with(
      "  context_parallel: 4\n  context_parallel_algo: hybird_cp\n"
      "  ulysses_degree_in_cp: 2\n");
  INFO(stated.err);
  REQUIRE(stated.exit_code == 0);
  const json j = json::parse(stated.out);
  CHECK(j["cp_algorithm"] == "hybrid");
  CHECK(j["cp_ulysses_degree"] == 2);
  CHECK(j["cp_kv_heads_repeated"] == false);
  const auto unstated = with("  context_parallel: 4\n  context_parallel_algo: hybird_cp\n");
  REQUIRE(unstated.exit_code == 0);
  CHECK(json::parse(unstated.out)["cp_ulysses_degree"] == 1);
  const auto zero = with(
      "  context_parallel: 4\n  context_parallel_algo: hybird_cp\n"
      "  ulysses_degree_in_cp: 0\n");
  CHECK(zero.exit_code == 2);
  CHECK_THAT(zero.err, Catch::Contains("ulysses_degree_in_cp"));
  // 2^32 + 2 is no degree (it once wrapped to 2 in the 32-bit field).
  const auto huge = with(
      "  context_parallel: 4\n  context_parallel_algo: hybird_cp\n"
      "  ulysses_degree_in_cp: 4294967298\n");
  CHECK(huge.exit_code == 2);
  CHECK_THAT(huge.err, Catch::Contains("cp_ulysses_degree"));
}

namespace {
// A MindFormers checkout in a temporary folder: the YAML in configs/tiny/,
// naming its speed-up file from the checkout's root as MindFormers' own
// configs do ("./configs/qwen3/parallel_speed_up.json").
struct SpeedUpCheckout {
  inline static int made = 0;  // checkouts alive at once each get their own folder
  std::filesystem::path root =
      std::filesystem::temp_directory_path() /
      ("ndsearch-speed-up-" + std::to_string(::getpid()) + "-" + std::to_string(++made));
  std::filesystem::path yaml = root / "configs" / "tiny" / "pretrain.yaml";

  SpeedUpCheckout(const std::string& json_text, const std::string& pipeline_stage,
                  std::string stated = "./configs/tiny/speed_up.json") {
    std::filesystem::create_directories(yaml.parent_path());
    std::ifstream in(mf("tiny_llama"));
    std::string t((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    t.replace(t.find("pipeline_stage: 4"), 17, "pipeline_stage: " + pipeline_stage);
    if (pipeline_stage == "1") {  // one stage: no per-stage lists
      t.replace(t.find("  recompute: [1, 1, 0, 0]"), 25, "  recompute: False");
      t.replace(t.find("    offset: [1, 0, 0, -1]\n"), 26, "");
    }
    const std::string context = "context:\n";
    t.replace(t.find(context), context.size(),
              context + "  ascend_config:\n    parallel_speed_up_json_path: \"" + stated + "\"\n");
    std::ofstream(yaml) << t;
    if (!json_text.empty()) std::ofstream(yaml.parent_path() / "speed_up.json") << json_text;
  }
  ~SpeedUpCheckout() { std::filesystem::remove_all(root); }
  ndsearch::test::CommandResult model(const std::string& extra = "") const {
    return ::model(yaml.string() + " --format json " + extra);
  }
};

bool warned_of(const json& j, const std::string& text) {
  for (const json& w : j["warnings"])
    if (w.get<std::string>().find(text) != std::string::npos) return true;
  return false;
}
}  // namespace

TEST_CASE("A MindSpore speed-up file turns on the overlaps it names") {
  // matmul_grad_comm_overlap (line 2): the backward's MatMul overlaps its TP
  // communication, tp_async. enable_grad_comm_opt and
  // enable_opt_shard_comm_opt at pp 1 (no LazyInline): grad_reduce and
  // param_gather. dataset_broadcast_opt_level is data loading: no warning.
  const SpeedUpCheckout checkout(
      "{\n  \"matmul_grad_comm_overlap\": true,\n  \"enable_grad_comm_opt\": true,\n"
      "  \"enable_opt_shard_comm_opt\": true,\n  \"dataset_broadcast_opt_level\": 3\n}\n",
      "1");
  const auto r = checkout.model();
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(j["overlap"]["tp_async"] == true);
  CHECK(j["overlap"]["grad_reduce"] == true);
  CHECK(j["overlap"]["param_gather"] == true);
  CHECK(j["overlap"]["tp_comm"] == false);
  CHECK_THAT(j["provenance"]["overlap.tp_async"].get<std::string>(),
             Catch::Contains("configs/tiny/speed_up.json:2: matmul_grad_comm_overlap"));
  CHECK(j["warnings"].empty());
}

TEST_CASE("Under a pipeline a speed-up file's DP overlaps are priced off, as LazyInline runs") {
  // MindFormers turns LazyInline on with pipeline_stage > 1, under which
  // MindSpore does not run enable_grad_comm_opt or enable_opt_shard_comm_opt:
  // grad_reduce stays off and param_gather keeps the pipeline's own hiding
  // (whole accu_grads: on), each saying why.
  const SpeedUpCheckout checkout(
      "{\"enable_grad_comm_opt\": true, \"enable_opt_shard_comm_opt\": true}", "4");
  const auto r = checkout.model();
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(r.out);
  CHECK(j["overlap"]["grad_reduce"] == false);
  CHECK_THAT(j["provenance"]["overlap.grad_reduce"].get<std::string>(),
             Catch::Contains("LazyInline"));
  CHECK(j["overlap"]["param_gather"] == true);
  CHECK_THAT(j["provenance"]["overlap.param_gather"].get<std::string>(),
             Catch::Contains("hidden under the pipeline's first receive all the same"));
}

TEST_CASE(
    "A speed-up file's overlap switch given as collectives turns on TP's only if it names one") {
  // MindSpore takes a comma list of collectives for matmul_grad_comm_overlap
  // (context.py, _check_speedup_config_str_value): AllGather turns the TP
  // overlap on; AlltoAll alone is MoE's, not priced and said; a name not in
  // the list makes MindSpore refuse the file.
  const auto tp =
      SpeedUpCheckout("{\"matmul_grad_comm_overlap\": \"AllGather,ReduceScatter\"}", "1");
  CHECK(json::parse(tp.model().out)["overlap"]["tp_async"] == true);
  const auto moe = SpeedUpCheckout("{\"matmul_grad_comm_overlap\": \"AlltoAll\"}", "1");
  const json m = json::parse(moe.model().out);
  CHECK(m["overlap"]["tp_async"] == false);
  CHECK(warned_of(m, "matmul_grad_comm_overlap: on, and changes a cost ndsearch does not price"));
  const auto bad = SpeedUpCheckout("{\"matmul_grad_comm_overlap\": \"false\"}", "1");
  const json b = json::parse(bad.model().out);
  CHECK(b["overlap"]["tp_async"] == false);
  CHECK(warned_of(b, "a value MindSpore does not take"));
}

TEST_CASE("A speed-up file's unpriced, refused or unreadable switches are said") {
  SECTION("a switch that changes a cost not priced, on; one off says nothing") {
    const SpeedUpCheckout checkout("{\"recompute_comm_overlap\": true, \"enable_task_opt\": false}",
                                   "1");
    const json j = json::parse(checkout.model().out);
    CHECK(warned_of(j, "recompute_comm_overlap: on, and changes a cost ndsearch does not price"));
    CHECK_FALSE(warned_of(j, "enable_task_opt"));
    const auto strict = checkout.model("--strict");
    CHECK(strict.exit_code == 2);
    CHECK_THAT(strict.err, Catch::Contains("recompute_comm_overlap"));
  }
  SECTION("a key MindSpore refuses: the job runs none of the file") {
    const SpeedUpCheckout checkout(
        "{\n  \"matmul_grad_comm_overlap\": true,\n  \"enable_magic\": true\n}\n", "1");
    const json j = json::parse(checkout.model().out);
    CHECK(j["overlap"]["tp_async"] == false);
    CHECK(warned_of(j, "names `enable_magic` (line 3), not an option of MindSpore's"));
    CHECK(warned_of(j, "MindSpore refuses the file, so the job runs none of it"));
  }
  SECTION("a file that is not there, or a folder") {
    const SpeedUpCheckout missing("", "1");
    const json j = json::parse(missing.model().out);
    CHECK(warned_of(j, "no file there from the config's folder or a folder above it"));
    CHECK(j["overlap"]["tp_async"] == false);
    const SpeedUpCheckout folder("", "1", "./configs/tiny");
    CHECK(warned_of(json::parse(folder.model().out), "no file there"));
  }
  SECTION("an absolute path") {
    // The file of another checkout, named by its absolute path.
    const SpeedUpCheckout other("{\"matmul_grad_comm_overlap\": true}", "1");
    const SpeedUpCheckout checkout("", "1", (other.yaml.parent_path() / "speed_up.json").string());
    CHECK(json::parse(checkout.model().out)["overlap"]["tp_async"] == true);
  }
  SECTION("a file that is not JSON, or writes a key twice: a warning, not a refusal") {
    const SpeedUpCheckout not_json("{\n  \"matmul_grad_comm_overlap\": tru\n}\n", "1");
    const auto r = not_json.model();
    REQUIRE(r.exit_code == 0);
    const json j = json::parse(r.out);
    CHECK(warned_of(j, "is not valid JSON at line 2"));
    CHECK(j["overlap"]["tp_async"] == false);
    const SpeedUpCheckout twice(
        "{\"matmul_grad_comm_overlap\": true, \"matmul_grad_comm_overlap\": false}", "1");
    const auto t = twice.model();
    REQUIRE(t.exit_code == 0);
    CHECK(json::parse(t.out)["overlap"]["tp_async"] == false);
    CHECK_THAT(t.out, Catch::Contains("matmul_grad_comm_overlap"));
  }
}

TEST_CASE("What MindFormers' check_rules refuses is said, and an error under strict") {
  // MindFormers v1.3.0 tools/check_rules.py: CP without use_flash_attention
  // under semi-auto parallel (_check_parallel), a recompute list longer than
  // pipeline_stage (_rule_recompute), fine_grain_interleave > 1 with neither
  // SP nor CP (_check_config_campacity).
  const auto warned = [](const ndsearch::test::CommandResult& r, const std::string& what) {
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return warned_of(json::parse(r.out), what);
  };
  // As written (parallel_mode 1, flash attention, SP, 4 stages for 4): none.
  CHECK_FALSE(warned(model_of_edited({}), "check_rules.py"));
  const auto cp_without_fa =
      model_of_edited({{"  micro_batch_num: 8\n", "  micro_batch_num: 8\n  context_parallel: 2\n"},
                       {"use_flash_attention: True", "use_flash_attention: False"}});
  CHECK(warned(cp_without_fa,
               "context_parallel 2 without model_config.use_flash_attention: True: MindFormers "
               "refuses it (check_rules.py, _check_parallel)"));
  CHECK(warned(model_of_edited({{"  recompute: [1, 1, 0, 0]", "  recompute: [1, 1, 0, 0, 1]"}}),
               "recompute_config.recompute lists 5 stages, more than pipeline_stage 4"));
  const Edits grain_without_sp = {
      {"use_seq_parallel: True", "use_seq_parallel: False"},
      {"    multiple_of: 256\n", "    multiple_of: 256\n    fine_grain_interleave: 2\n"}};
  CHECK(warned(model_of_edited(grain_without_sp),
               "fine_grain_interleave 2 without use_seq_parallel or context_parallel"));
  const auto strict = model_of_edited(grain_without_sp, "--strict");
  CHECK(strict.exit_code == 2);
  CHECK_THAT(strict.err, Catch::Contains("_check_config_campacity"));
  CHECK_THAT(strict.err, Catch::Contains("set parallel_config.use_seq_parallel: True"));
}

TEST_CASE("A MindSpore execution mode the fit was not measured on is said") {
  // The mindspore fit is on graph mode at jit_level O1 (MindFormers
  // v1.3.0's Llama 2 YAMLs); O0 and PyNative under semi-auto parallel are
  // said and priced as O1 graph mode.
  const auto with_context = [](const std::string& lines) {
    const auto r = model_of_edited({{"context:\n", "context:\n" + lines}});
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return json::parse(r.out);
  };
  CHECK(with_context("  mode: 0\n  jit_config:\n    jit_level: \"O1\"\n")["warnings"].empty());
  CHECK(warned_of(with_context("  jit_config:\n    jit_level: \"O0\"\n"),
                  "context.jit_config.jit_level O0: the mindspore overheads are fitted on "
                  "jit_level O1 runs; priced as O1"));
  CHECK(warned_of(with_context("  mode: 1\n"),
                  "context.mode 1 (PyNative) with parallel.parallel_mode 1: MindSpore runs "
                  "semi-auto and auto parallelism in graph mode only; priced as graph mode; set "
                  "context.mode: 0"));
}
