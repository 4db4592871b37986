// SPDX-License-Identifier: Apache-2.0
// test_apply_configs.cpp: apply on one real config per format that states a
// strategy: the written config reads back as the strategy (write_config
// refuses otherwise), and only the lines of changed keys differ.
#include <catch2/catch.hpp>

#include "core/export/write_config.hpp"
#include "core/input/parse_config.hpp"
#include "core/strategy/strategy.hpp"
#include "tests/support/shipped.hpp"
#include "tests/support/written_config_checks.hpp"

using namespace ndsearch;

namespace {

ConfigWrite apply(const std::string& config, const std::string& strategy, uint64_t devices = 0) {
  const std::string path = std::string(NDS_TEST_SHARED_CONFIGS) + "/" + config;
  const Model model = parse_config(test::shipped_plugins(), path, ParseOptions{});
  const nds_strategy s = normalized_strategy(
      resolve_strategy(parse_strategy(strategy), model,
                       devices != 0 ? devices : stated_devices(model), model.training.global_batch),
      model);
  return write_config(test::shipped_plugins(), model, path, ParseOptions{}, {s, {}, {}, {}});
}

}  // namespace

TEST_CASE("apply writes a strategy into a real config of each format, read back exactly") {
  SECTION("Megatron-LM script") {
    test::check_only_keys_changed(
        apply("megatron/train_llama3_8b_h100_fp8.sh", "tp=2,recompute=full"),
        {"TP_SIZE", "--recompute-granularity", "--recompute-method", "--recompute-num-layers"});
  }
  SECTION("MindFormers YAML") {
    test::check_only_keys_changed(
        apply("mindformers/pretrain_llama3_70b.yaml", "tp=4,pp=4,recompute=full"),
        {"data_parallel", "model_parallel", "pipeline_stage", "micro_batch_num", "recompute"});
  }
  SECTION("HyperParallel YAML") {
    test::check_only_keys_changed(
        apply("hyperparallel/hyper_deepseek_v3.yaml", "pp=8,recompute=none"),
        {"dp_replicate", "pipeline_parallel_degree", "micro_batch", "full_rec", "sel_rec", "offset",
         "activation_checkpoint", "global_batch"});
  }
  SECTION("TorchTitan TOML") {
    test::check_only_keys_changed(
        apply("torchtitan/llama3_8b.toml", "tp=2,recompute=full", 64),
        {"data_parallel", "tensor_parallel_degree", "mode", "expert_tensor_parallel_degree"});
  }
}
