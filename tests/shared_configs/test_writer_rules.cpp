// SPDX-License-Identifier: Apache-2.0
// test_writer_rules.cpp: issue 33, defect 8 — what `apply` writes into the
// trainers' own configs (read in place from ../shared/configs) passes the
// trainer's own checks and runs the job that was asked for: each rule here
// was broken in a written config once.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "tests/support/run_command.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kCli = "env -u NDS_PLUGIN_PATH " + std::string(NDS_TEST_CLI);

std::string shared(const std::string& config) {
  return std::string(NDS_TEST_SHARED_CONFIGS) + "/" + config;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// `apply CONFIG FLAGS --strategy S`: the written text (exit 0 required).
std::string applied(const std::string& config, const std::string& flags, const std::string& s) {
  const fs::path out =
      fs::temp_directory_path() /
      fmt::format("nds_writer_rules_{}{}", ::getpid(), fs::path(config).extension().string());
  fs::remove(out);
  const auto r = ndsearch::test::run_command(kCli + " apply " + shared(config) + " " + flags +
                                             " --strategy " + s + " -o " + out.string());
  INFO(config << " " << s << "\n" << r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const std::string text = read(out);
  fs::remove(out);
  return text;
}

}  // namespace

TEST_CASE("Megatron-LM: zero 0 drops --overlap-param-gather, which it refuses unsharded") {
  // megatron/training/arguments.py (validate_args, core_v0.19.0): overlap of
  // the parameter all-gather needs the distributed optimizer or FSDP. The
  // Mixtral script states both; at zero 0 the writer kept the overlap flag.
  const std::string config = "megatron/train_mixtral_8x7b_distributed.sh";
  REQUIRE_THAT(read(shared(config)), Catch::Contains("--overlap-param-gather"));
  const std::string text = applied(config, "-d 64 --vocab-size 32000", "tp=2,pp=4,ep=8,zero=0");
  CHECK_THAT(text, !Catch::Contains("--overlap-param-gather"));
  CHECK_THAT(text, !Catch::Contains("--use-distributed-optimizer"));
}

TEST_CASE("Megatron-LM: DeepSeek-V3's uneven split is stated with first/last stage layers") {
  // 61 layers over pp 4 (Megatron-Core, get_num_layers_to_build): middle
  // stages of ceil(61/4) = 16, the rest 61 - 2·16 = 29 halved, the first the
  // larger half: 15 and 14. Without the flags Megatron-LM refuses 61 layers
  // over 4 stages. The script runs Megatron-FSDP: zero 1 is its `optim`
  // sharding (it was written as the distributed optimizer beside
  // --use-megatron-fsdp at optim_grads_params, and read back as zero 3).
  const std::string text = applied("megatron/sbatch_mfsdp_deepseek_v3.sh",
                                   "-d 256 --vocab-size 129280", "tp=2,pp=4,ep=32,zero=1");
  CHECK_THAT(text, Catch::Contains("--decoder-first-pipeline-num-layers 15"));
  CHECK_THAT(text, Catch::Contains("--decoder-last-pipeline-num-layers 14"));
  // The script names its sharding through SHARDING_STRATEGY's default.
  CHECK_THAT(text, Catch::Contains("SHARDING_STRATEGY=${SHARDING_STRATEGY:-\"optim\"}"));
}

TEST_CASE("MindFormers: interleaving is switched on where pp_interleave_num is set") {
  // pp_interleave_num is read only with parallel.pipeline_config.
  // pipeline_interleave on (mindformers/trainer/base_trainer.py); without
  // it MindFormers runs plain 1F1B.
  const std::string text = applied("mindformers/pretrain_qwen3_32b_4k.yaml", "", "pp=4,vpp=2");
  CHECK_THAT(text, Catch::Contains("pipeline_interleave: True"));
  CHECK_THAT(text, Catch::Contains("pp_interleave_num: 2"));
}

TEST_CASE("MindFormers: fewer micro-batches than pipeline stages is refused, naming the bound") {
  // 32 devices, tp 4, pp 8, dp 1: the config's 4 sequences are 4
  // micro-batches, fewer than the 8 stages MindSpore's pipeline needs.
  const auto r = ndsearch::test::run_command(kCli + " apply " +
                                             shared("mindformers/pretrain_qwen3_32b_4k.yaml") +
                                             " -d 32 --strategy dp=1,pp=8,mbn=4");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err,
             Catch::Contains("E-APPLY") && Catch::Contains("micro_batch_num >= pipeline_stage"));
}

TEST_CASE("apply keeps the config's own offsets and per-stage recompute where they fit") {
  // The config's strategy written back is the same job: pretrain_qwen3_32b's
  // offset [-1, -1, 1, 1] at its pp 4 (was rewritten `offset: 0`), and
  // pretrain_llama3_70b's select_recompute [10, 8, 6, 4, 2, 0, 0, 0] at its
  // pp 8 (was rewritten `True`: every layer).
  CHECK_THAT(applied("mindformers/pretrain_qwen3_32b_4k.yaml", "", "mbs=1"),
             Catch::Contains("offset: [-1, -1, 1, 1]"));
  const std::string llama = applied("mindformers/pretrain_llama3_70b.yaml", "", "mbs=1");
  CHECK_THAT(llama, Catch::Contains("select_recompute: [10, 8, 6, 4, 2, 0, 0, 0]"));
  // At another pp the offsets do not fit: the trainer's even split.
  CHECK_THAT(applied("mindformers/pretrain_qwen3_32b_4k.yaml", "", "pp=2"),
             Catch::Contains("offset: 0"));
}

TEST_CASE("The search ranks only the schedules the config's trainer runs (ABI 1.11)") {
  // Megatron-Core runs 1F1B and interleaved 1F1B only
  // (megatron/core/pipeline_parallel/schedules.py, get_forward_backward_func):
  // GPipe on a Megatron-LM script breaks the check `schedule`, and the
  // header names the limit; MindSpeed adds DualPipe-V.
  const auto gpipe = ndsearch::test::run_command(
      kCli + " eval " + shared("megatron/train_gpt3_175b_distributed.sh") +
      " -A nvidia-h100-sxm -d 1024 --vocab-size 51200 --strategy pp=8,vpp=1,schedule=gpipe");
  INFO(gpipe.out << gpipe.err);
  CHECK_THAT(gpipe.out + gpipe.err, Catch::Contains("does not run schedule gpipe"));
  const auto megatron = ndsearch::test::run_command(
      kCli + " search " + shared("megatron/train_gpt3_175b_distributed.sh") +
      " -A nvidia-h100-sxm -d 1024 --vocab-size 51200 -l PP -t 1 --wide");
  // The header wraps its lines: compare with the whitespace collapsed.
  const auto flat = [](const std::string& t) {
    return std::regex_replace(t, std::regex(R"(\s+)"), " ");
  };
  CHECK_THAT(flat(megatron.out),
             Catch::Contains("Megatron-LM core_v0.19.0 (docs/trainers.md)") &&
                 Catch::Contains("no GPipe, no ZB-V, no DualPipe, no DualPipe-V"));
  const auto mindspeed = ndsearch::test::run_command(
      kCli + " search " + shared("mindspeed/pretrain_deepseek3_671b_4k_A3_ptd.sh") +
      " -A A3 -l PP -t 1 --wide");
  CHECK_THAT(flat(mindspeed.out),
             Catch::Contains("MindSpeed v2.3.0_core_r0.12.1") &&
                 Catch::Contains("no GPipe, no ZB-V, no DualPipe, no CP with a sliding window)"));
  // Each parser states its trainer's description (trainer_description.hpp).
  const auto mindformers = ndsearch::test::run_command(
      kCli + " search " + shared("mindformers/pretrain_qwen3_32b_4k.yaml") + " -A A2 -l PP -t 1");
  CHECK_THAT(flat(mindformers.out),
             Catch::Contains("MindFormers v1.7.0 (docs/trainers.md), as mindformers-yaml reads the "
                             "config (no ZeRO-1, no ZeRO-2, no SP with CP, tp a power of two, no "
                             "DualPipe, no DualPipe-V)"));
  const auto titan =
      ndsearch::test::run_command(kCli + " search " + shared("torchtitan/llama3_8b.toml") +
                                  " -A nvidia-h100-sxm -d 8 -b 8 -l PP -t 1");
  CHECK_THAT(flat(titan.out), Catch::Contains("TorchTitan v0.2.0 (docs/trainers.md), as "
                                              "torchtitan-toml reads the config (no ZeRO-1, TP "
                                              "with SP only, no DualPipe)"));
}
