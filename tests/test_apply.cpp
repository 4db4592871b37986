// SPDX-License-Identifier: Apache-2.0
// test_apply.cpp: a strategy written into each format's config (apply) reads
// back as exactly that strategy, and the line diff touches only the lines of
// the keys that changed; a strategy the trainer cannot run is refused; an HF
// config gets the trainers' flags instead. The fixtures are our own small
// configs (tests/fixtures/configs); the expected keys come from each
// trainer's documented flags and YAML/TOML keys (the parsers' own mapping).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>

#include <unistd.h>  // getpid

#include <toml++/toml.h>

#include "core/analyses/explain_strategy.hpp"
#include "core/export/priced_layers.hpp"
#include "core/export/write_config.hpp"
#include "core/input/parse_config.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/user_error.hpp"
#include "fixtures_paths.hpp"
#include "support/run_command.hpp"
#include "support/shipped.hpp"
#include "support/written_config_checks.hpp"

namespace {

using namespace ndsearch;

const std::string kConfigs = std::string(NDS_TEST_SOURCE_DIR) + "/tests/fixtures/configs/";

Model read(const std::string& path) {
  return parse_config(test::shipped_plugins(), path, ParseOptions{});
}

// What an HF config leaves out: a global batch of 16 and a sequence of 1024.
ParseOptions hf_options() {
  ParseOptions o;
  o.overrides.global_batch = 16;
  o.overrides.seq_len = 1024;
  return o;
}

// `text` resolved against the config on its own devices, as `apply` does.
nds_strategy resolved(const Model& model, const std::string& text, uint64_t devices = 0) {
  return normalized_strategy(
      resolve_strategy(parse_strategy(text), model, devices != 0 ? devices : stated_devices(model),
                       model.training.global_batch),
      model);
}

// Applies, writes the result beside the fixtures' copies, reads it back.
struct RoundTrip {
  ConfigWrite written;
  Model reread;
};
RoundTrip round_trip(const std::string& config, const nds_strategy& s,
                     const std::string& extension) {
  const Model model = read(config);
  RoundTrip r{write_config(test::shipped_plugins(), model, config, ParseOptions{}, {s, {}, {}, {}}),
              Model{}};
  // One file per config and process: CTest runs the test cases in parallel.
  const std::string out = (std::filesystem::temp_directory_path() /
                           ("ndsearch_apply_" + std::filesystem::path(config).stem().string() +
                            "_" + std::to_string(::getpid()) + extension))
                              .string();
  std::ofstream(out, std::ios::binary) << r.written.text;
  r.reread = read(out);
  return r;
}

void check_states(const Model& reread, const nds_strategy& s) {
  const nds_strategy got = resolved(reread, "", static_cast<uint64_t>(s.dp) * s.tp * s.pp * s.cp);
  INFO(strategy_text(got) << " vs " << strategy_text(s));
  CHECK(same_keys(got, s));
}

}  // namespace

TEST_CASE("apply writes a strategy into a Megatron launch script and it reads back") {
  // small_gpt.sh: 8 GPUs, tp 2, pp 2 (dp 2), mbs 2, gbs 32; tp 4 pp 1 keeps dp 2.
  const std::string config = kConfigs + "megatron/small_gpt.sh";
  const Model model = read(config);
  const nds_strategy s = resolved(model, "tp=4,pp=1,recompute=full");
  const RoundTrip r = round_trip(config, s, ".sh");
  check_states(r.reread, s);
  test::check_only_keys_changed(
      r.written, {"--tensor-model-parallel-size", "TP", "--pipeline-model-parallel-size", "PP",
                  "--recompute-granularity", "--recompute-method", "--recompute-num-layers"});
  // New flags go on lines of their own.
  for (const DiffLine& d : r.written.changes)
    if (d.kind == '+' && d.text.find("--recompute") != std::string::npos)
      CHECK(std::regex_match(d.text, std::regex(R"(\s*--recompute-[a-z-]+ [a-z0-9]+( \\)?)")));
}

TEST_CASE("A plan recomputing the first layers of every stage is Megatron's block method") {
  // small_gpt.sh: 4 layers, pp 2: 2 per stage. Layers 0 and 2 (the first of
  // each stage) fully recomputed is `--recompute-method block
  // --recompute-num-layers 1` (Megatron-Core counts block layers per model
  // chunk: transformer_block.py, _checkpointed_forward); layers 0 and 3 are
  // not a block and are refused, naming the method.
  const std::string config = kConfigs + "megatron/small_gpt.sh";
  const Model model = read(config);
  const nds_strategy s = resolved(model, "tp=2,pp=2,recompute=full");
  const std::vector<int32_t> block{NDS_LAYER_FULL, NDS_LAYER_KEEP, NDS_LAYER_FULL, NDS_LAYER_KEEP};
  const ConfigWrite w =
      write_config(test::shipped_plugins(), model, config, ParseOptions{}, {s, {}, block, "block"});
  CHECK_THAT(w.text, Catch::Contains("--recompute-method block"));
  CHECK_THAT(w.text, Catch::Contains("--recompute-num-layers 1"));
  CHECK_THAT(w.text, Catch::Contains("--recompute-granularity full"));
  const std::vector<int32_t> scattered{NDS_LAYER_FULL, NDS_LAYER_KEEP, NDS_LAYER_KEEP,
                                       NDS_LAYER_FULL};
  CHECK_THROWS_WITH(write_config(test::shipped_plugins(), model, config, ParseOptions{},
                                 {s, {}, scattered, "scattered"}),
                    Catch::Contains("--recompute-method block"));
}

TEST_CASE("MindSpeed's activation and norm recompute are written as the plan the search priced") {
  // mindspeed_act_norm.sh: 8 layers, pp 2, the first 3 of each 4-layer
  // stage recompute MindSpeed's ops (selective with activation,
  // mlp_activation and norm). The first 2 of each stage is M = 2; every
  // layer keeps the flags without M; recompute none or full turns them off,
  // so that the written job is the one priced; 3 and 2 is no M and refused.
  const std::string config = kConfigs + "megatron/mindspeed_act_norm.sh";
  const Model model = read(config);
  const nds_strategy selective = resolved(model, "pp=2,dp=4");
  const auto layers = [](std::initializer_list<int32_t> o) { return std::vector<int32_t>(o); };
  const int32_t S = NDS_LAYER_SELECTIVE, K = NDS_LAYER_KEEP;
  const ConfigWrite two = write_config(test::shipped_plugins(), model, config, ParseOptions{},
                                       {selective, {}, layers({S, S, K, K, S, S, K, K}), "two"});
  CHECK_THAT(two.text, Catch::Contains("--recompute-activation-function-num-layers 2"));
  CHECK_THAT(two.text, Catch::Contains("--recompute-norm-num-layers 2"));
  CHECK(two.text.find("--recompute-granularity") == std::string::npos);
  const RoundTrip every = round_trip(config, selective, ".sh");  // no layer options: every layer
  CHECK(every.written.text.find("-num-layers 3") == std::string::npos);
  CHECK(every.reread.recompute_layers.empty());
  CHECK(every.reread.training.recompute_ops ==
        (NDS_RECOMPUTE_OP_NORM | NDS_RECOMPUTE_OP_ACTIVATION | NDS_RECOMPUTE_OP_MLP_ACTIVATION));
  for (const char* mode : {"none", "full"}) {
    const RoundTrip off =
        round_trip(config, resolved(model, std::string("pp=2,dp=4,recompute=") + mode), ".sh");
    INFO(mode);
    CHECK(off.written.text.find("--recompute-activation-function") == std::string::npos);
    CHECK(off.written.text.find("--recompute-norm") == std::string::npos);
    check_states(off.reread, resolved(model, std::string("pp=2,dp=4,recompute=") + mode));
  }
  CHECK_THROWS_WITH(write_config(test::shipped_plugins(), model, config, ParseOptions{},
                                 {selective, {}, layers({S, S, S, K, S, S, K, K}), "uneven"}),
                    Catch::Contains("--recompute-activation-function-num-layers"));
}

TEST_CASE(
    "Under MindSpeed's swap-attention, apply writes its checkpointing, or full recompute without "
    "it") {
  // mindspeed_swap_ckpt.sh: 8 layers, pp 2, the MLP of the first layer of
  // each stage checkpointed (selective mlp, moe) and attention swapped. Two
  // layers a stage is --recompute-num-layers 2; none leaves the swap alone;
  // full recompute of every layer, which MindSpeed does not run under the
  // swap, is written without it; some layers full and others kept is refused.
  const std::string config = kConfigs + "megatron/mindspeed_swap_ckpt.sh";
  const Model model = read(config);
  const nds_strategy selective = resolved(model, "pp=2,dp=4");
  const int32_t S = NDS_LAYER_SELECTIVE, K = NDS_LAYER_KEEP, F = NDS_LAYER_FULL;
  const ConfigWrite two = write_config(test::shipped_plugins(), model, config, ParseOptions{},
                                       {selective, {}, {S, S, K, K, S, S, K, K}, "two"});
  CHECK_THAT(two.text, Catch::Contains("--recompute-num-layers 2"));
  CHECK_THAT(two.text, Catch::Contains("--swap-attention"));
  CHECK(two.text.find("--recompute-granularity") == std::string::npos);
  const RoundTrip none = round_trip(config, resolved(model, "pp=2,dp=4,recompute=none"), ".sh");
  // (the flags on lines of their own; the fixture's comment names them too)
  CHECK(none.written.text.find("    --recompute-num-layers") == std::string::npos);
  CHECK(none.reread.training.swapped_ops == NDS_RECOMPUTE_OP_ATTENTION);
  check_states(none.reread, resolved(model, "pp=2,dp=4,recompute=none"));
  const nds_strategy full = resolved(model, "pp=2,dp=4,recompute=full");
  const RoundTrip every = round_trip(config, full, ".sh");
  CHECK(every.written.text.find("    --swap-attention") == std::string::npos);
  CHECK_THAT(every.written.text, Catch::Contains("--recompute-method uniform"));
  check_states(every.reread, full);
  CHECK_THROWS_WITH(write_config(test::shipped_plugins(), model, config, ParseOptions{},
                                 {full, {}, {F, K, K, K, F, K, K, K}, "some"}),
                    Catch::Contains("--swap-attention replaces full recompute"));
}

TEST_CASE(
    "apply keeps the embedding and loss accounting where it builds the priced split, else drops "
    "it") {
  // account_split.sh: 14 layers, pp 4, vpp 2, the embedding and the loss
  // accounted (1,2,2,2,2,2,2,1). Its own strategy is written unchanged; at
  // pp 2, vpp 1 the accounting is turned off (Megatron-Core refuses it with
  // first/last counts) and the trainer's split, 7 and 7, is what reads back.
  const std::string config = kConfigs + "megatron/account_split.sh";
  const Model model = read(config);
  const nds_strategy s = resolved(model, "dp=2", 8);  // 8 GPUs: dp 2
  const ConfigWrite own = write_config(test::shipped_plugins(), model, config, ParseOptions{},
                                       {s, priced_stage_layers(s, model, {}), {}, {}});
  CHECK(own.changes.empty());
  const nds_strategy other = resolved(model, "pp=2,vpp=1,dp=4", 8);
  const RoundTrip moved = round_trip(config, other, ".sh");
  CHECK(moved.written.text.find("--account-for-") == std::string::npos);
  CHECK(moved.reread.stage_layers.empty());
  check_states(moved.reread, other);
}

TEST_CASE("apply writes a strategy into a MindFormers YAML and it reads back") {
  // tiny_llama.yaml: dp 2, tp 2, pp 4 on 16 devices; tp 1 pp 2 makes dp 8, its offsets go to 0.
  const std::string config = kConfigs + "mindformers/tiny_llama.yaml";
  const nds_strategy s = resolved(read(config), "tp=1,pp=2,zero=0,recompute=none");
  const RoundTrip r = round_trip(config, s, ".yaml");
  check_states(r.reread, s);
  test::check_only_keys_changed(
      r.written, {"data_parallel", "model_parallel", "pipeline_stage", "micro_batch_num",
                  "use_seq_parallel", "recompute", "enable_parallel_optimizer", "offset"});
}

TEST_CASE("apply writes a strategy into both HyperParallel schemas and they read back") {
  SECTION("legacy") {
    const std::string config = kConfigs + "hyperparallel/tiny_legacy.yaml";
    const nds_strategy s = resolved(read(config), "tp=1,pp=2,recompute=selective");
    const RoundTrip r = round_trip(config, s, ".yaml");
    check_states(r.reread, s);
    test::check_only_keys_changed(
        r.written,
        {"dp_", "tp_degree", "pipeline_parallel_degree", "micro_batch", "activation_checkpoint",
         "full_rec", "sel_rec", "offset", "use_seq_parallel", "gradient_checkpointing"});
  }
  SECTION("AutoModels") {
    // The tower of config.json beside it is read relative to the YAML: the
    // read-back copy must sit beside it too (write_config does so).
    const std::string config = kConfigs + "hyperparallel/automodels.yaml";
    const Model model = read(config);
    const nds_strategy s = resolved(model, "tp=4,pp=1,recompute=full");
    const ConfigWrite w =
        write_config(test::shipped_plugins(), model, config, ParseOptions{}, {s, {}, {}, {}});
    test::check_only_keys_changed(
        w, {"tp_size", "pp_size", "mode", "micro_batch", "global_batch", "sequence_parallel"});
  }
}

TEST_CASE("apply writes a strategy into a TorchTitan TOML and it reads back") {
  // pipeline_interleaved.toml: pp 4 of Interleaved1F1B; pp 2 with tp 2 on its devices.
  const std::string config = kConfigs + "torchtitan/pipeline_interleaved.toml";
  const Model model = read(config);
  const nds_strategy s = resolved(model, "tp=2,pp=2,recompute=none");
  const RoundTrip r = round_trip(config, s, ".toml");
  check_states(r.reread, s);
  test::check_only_keys_changed(r.written,
                                {"data_parallel", "tensor_parallel_degree", "pipeline_parallel",
                                 "expert_tensor_parallel_degree", "mode", "local_batch_size"});
}

TEST_CASE("apply refuses what the trainer cannot run, naming the key and why") {
  // GPipe is past Megatron-LM's stated schedules (ABI 1.11, the check
  // `schedule`: the search does not rank it); lifted, the writer refuses it.
  const Model model = read(kConfigs + "megatron/small_gpt.sh");
  nds_strategy s = resolved(model, "tp=2,pp=2,vpp=1,schedule=gpipe");
  CHECK_THROWS_WITH(write_config(test::shipped_plugins(), model, kConfigs + "megatron/small_gpt.sh",
                                 ParseOptions{}, {s, {}, {}, {}}),
                    Catch::Contains("breaks the check `schedule`") &&
                        Catch::Contains("does not run schedule gpipe"));
  ParseOptions lift;
  lift.any_trainer = true;
  const Model any_gpt =
      parse_config(test::shipped_plugins(), kConfigs + "megatron/small_gpt.sh", lift);
  CHECK_THROWS_WITH(
      write_config(test::shipped_plugins(), any_gpt, kConfigs + "megatron/small_gpt.sh", lift,
                   {resolved(any_gpt, "tp=2,pp=2,vpp=1,schedule=gpipe"), {}, {}, {}}),
      Catch::Contains("Megatron-LM runs 1F1B and interleaved 1F1B"));
  const Model titan = read(kConfigs + "torchtitan/pipeline_interleaved.toml");
  // ZeRO-1 is past TorchTitan's stated limits (the check `zero`); lifted
  // (--any-trainer), its writer still refuses it.
  s = resolved(titan, "zero=1");
  CHECK_THROWS_WITH(write_config(test::shipped_plugins(), titan,
                                 kConfigs + "torchtitan/pipeline_interleaved.toml", ParseOptions{},
                                 {s, {}, {}, {}}),
                    Catch::Contains("breaks the check `zero`") &&
                        Catch::Contains("cannot shard the optimizer states alone"));
  ParseOptions any;
  any.any_trainer = true;
  const Model lifted =
      parse_config(test::shipped_plugins(), kConfigs + "torchtitan/pipeline_interleaved.toml", any);
  CHECK_THROWS_WITH(write_config(test::shipped_plugins(), lifted,
                                 kConfigs + "torchtitan/pipeline_interleaved.toml", any,
                                 {resolved(lifted, "zero=1"), {}, {}, {}}),
                    Catch::Contains("it has no ZeRO-1"));
}

TEST_CASE("apply on an HF config prints the Megatron flags and the TorchTitan block") {
  const ParseOptions o = hf_options();
  const std::string config = kConfigs + "hf/tiny-4-layers.json";
  const Model model = parse_config(test::shipped_plugins(), config, o);
  // zero 0: both trainers run it (TorchTitan has no ZeRO-1, Megatron no ZeRO-2).
  const nds_strategy s = resolved(model, "tp=2,pp=2,mbs=1,zero=0,recompute=full", 8);
  const ConfigWrite w = write_config(test::shipped_plugins(), model, config, o, {s, {}, {}, {}});
  REQUIRE(w.fragments.size() == 2);  // megatron-args and torchtitan-toml write fragments
  std::string all;
  for (const ConfigFragment& f : w.fragments) {
    CHECK(f.refused.empty());
    all += f.text;
  }
  // dp = 8 / (2·2) = 2, mbn = 16 / (2·1) = 8.
  CHECK_THAT(all, Catch::Contains("--tensor-model-parallel-size 2"));
  CHECK_THAT(all, Catch::Contains("--global-batch-size 16"));
  CHECK_THAT(all, Catch::Contains("[parallelism]\ndata_parallel_replicate_degree = 2"));
  CHECK_THAT(all, Catch::Contains("local_batch_size = 8"));  // mbs · mbn with a pipeline
  // The overlaps the estimate assumed for a config that states none (a
  // well-tuned Megatron-Core run, ABI 1.11 nds_applied_strategy.overlap):
  // gradient reduce and TP comm (tp 2 with SP); no parameter all-gather
  // overlap at zero 0, which Megatron-LM refuses without a sharded optimizer.
  CHECK_THAT(all, Catch::Contains("--overlap-grad-reduce"));
  CHECK_THAT(all, Catch::Contains("--tp-comm-overlap"));
  CHECK_THAT(all, !Catch::Contains("--overlap-param-gather"));
  // The TorchTitan block is TOML (defect 8: at pp > 1 it declared
  // [parallelism] twice, around [training]): it parses, each table once.
  const auto titan =
      std::find_if(w.fragments.begin(), w.fragments.end(),
                   [](const ConfigFragment& f) { return f.parser == "torchtitan-toml"; });
  REQUIRE(titan != w.fragments.end());
  toml::table t;
  REQUIRE_NOTHROW(t = toml::parse(titan->text));
  CHECK(t["parallelism"]["data_parallel_replicate_degree"].value<int64_t>() == 2);
  CHECK(t["parallelism"]["tensor_parallel_degree"].value<int64_t>() == 2);
  CHECK(t["parallelism"]["pipeline_parallel_degree"].value<int64_t>() == 2);
  CHECK(t["parallelism"]["pipeline_parallel_microbatch_size"].value<int64_t>() == 1);
  CHECK(t["training"]["local_batch_size"].value<int64_t>() == 8);
}

TEST_CASE("apply on an HF config says which trainer cannot run the strategy") {
  const ParseOptions o = hf_options();
  const std::string config = kConfigs + "hf/tiny-4-layers.json";
  const Model model = parse_config(test::shipped_plugins(), config, o);
  // zero 1: Megatron's distributed optimizer; TorchTitan's FSDP2 has no ZeRO-1.
  const nds_strategy s = resolved(model, "tp=2,pp=1,mbs=1,zero=1", 8);
  const ConfigWrite w = write_config(test::shipped_plugins(), model, config, o, {s, {}, {}, {}});
  REQUIRE(w.fragments.size() == 2);
  for (const ConfigFragment& f : w.fragments) {
    if (f.parser == "megatron-args") {
      CHECK_THAT(f.text, Catch::Contains("--use-distributed-optimizer"));
      // Sharded: the assumed parameter all-gather overlap is written too.
      CHECK_THAT(f.text, Catch::Contains("--overlap-param-gather"));
    }
    if (f.parser == "torchtitan-toml") CHECK_THAT(f.refused, Catch::Contains("it has no ZeRO-1"));
  }
}

TEST_CASE("line_diff lists only the lines that differ") {
  const auto d = line_diff("a\nb\nc\n", "a\nB\nc\nd\n");
  REQUIRE(d.size() == 3);
  CHECK((d[0].kind == '-' && d[0].line == 2 && d[0].text == "b"));
  CHECK((d[1].kind == '+' && d[1].line == 2 && d[1].text == "B"));
  CHECK((d[2].kind == '+' && d[2].line == 4 && d[2].text == "d"));
}

TEST_CASE("explain of a config's own strategy needs one stated") {
  Model model = read(kConfigs + "hf/tiny-4-layers.json");
  CHECK_THROWS_WITH(prepare_own_strategy(model, 0), Catch::Contains("states no strategy"));
  Model mf = read(kConfigs + "mindformers/tiny_llama.yaml");
  CHECK(prepare_own_strategy(mf, 0) == 16);  // dp 2 · tp 2 · pp 4 · cp 1
  CHECK(prepare_own_strategy(mf, 32) == 32);
}

TEST_CASE("explain of a TorchTitan job that leaves dp to the launch takes the devices given") {
  // dp_from_launch.toml: data_parallel_shard_degree = -1, tp 2, local batch 2,
  // no pipeline (mbs 2, mbn 1), no global batch: TorchTitan's is local batch × dp.
  Model tt = read(kConfigs + "torchtitan/dp_from_launch.toml");
  CHECK_THROWS_WITH(prepare_own_strategy(tt, 0),
                    Catch::Contains("leaves its device count to the launch"));
  CHECK(prepare_own_strategy(tt, 64) == 64);
  CHECK(tt.training.global_batch == 32 * 2 * 1);  // dp = 64 / 2, mbs 2, mbn 1
}

TEST_CASE(
    "ndsearch apply prints the config on stdout and the changes on stderr, or writes -o FILE") {
  const std::string config = kConfigs + "mindformers/tiny_llama.yaml";
  const std::string cli = "env -u NDS_PLUGIN_PATH " + test::cli() + " apply " + config;
  auto r = test::run_command(cli + " --strategy \"tp=1,pp=2,zero=0\"");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("pipeline_stage: 2"));
  CHECK_THAT(r.err, Catch::Contains("changes from the config: dp 2 -> 8, tp 2 -> 1, pp 4 -> 2"));
  const std::string out = (std::filesystem::temp_directory_path() /
                           ("ndsearch_apply_cli_" + std::to_string(::getpid()) + ".yaml"))
                              .string();
  r = test::run_command(cli + " --strategy \"tp=1,pp=2,zero=0\" -o " + out);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("read back by mindformers-yaml and checked"));
  CHECK(read(out).stated.pp == 2);
  // A strategy MindSpore cannot run: the reason, exit 2.
  r = test::run_command(cli + " --strategy \"zero=1\"");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("[E-STRATEGY-REFUSED]") &&
                        Catch::Contains("cannot shard the optimizer states alone"));
  // MindSpore's parallel optimizer shards the parameters with the states: no zero 2 either.
  r = test::run_command(cli + " --strategy \"zero=2\"");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err,
             Catch::Contains(
                 "cannot shard gradients without parameters (zero = 2): its sharding is zero 3"));
}

TEST_CASE("search --emit-config writes the ranked strategy into the config") {
  const std::string out = (std::filesystem::temp_directory_path() /
                           ("ndsearch_emit_" + std::to_string(::getpid()) + ".toml"))
                              .string();
  const auto r =
      test::run_command("env -u NDS_PLUGIN_PATH " + test::cli() + " search " +
                        std::string(NDS_TEST_EXAMPLES) + "/llama3-8b-torchtitan/llama3_8b.toml" +
                        " -A nvidia-h100-sxm -t 2 -l \"TP PP\" --emit-config " + out + " --rank 2");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("wrote " + out));
  const Model written = read(out);
  CHECK(written.stated.tp != NDS_UNKNOWN);
  // --rank beyond the ranking is a usage error.
  const auto bad = test::run_command(
      "env -u NDS_PLUGIN_PATH " + test::cli() + " search " + std::string(NDS_TEST_EXAMPLES) +
      "/llama3-8b-torchtitan/llama3_8b.toml" +
      " -A nvidia-h100-sxm -l TP --only tp=2 --emit-config " + out + " --rank 9999");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("(--rank 9999): the ranking has"));
  // A recompute chosen layer by layer is not written as one mode: TorchTitan
  // states one for every layer, so its writer refuses, after the table.
  // 30 GiB leaves the best of tp 2 recomputing 17 layers.
  const auto per_layer = test::run_command(
      "env -u NDS_PLUGIN_PATH " + test::cli() + " search " + std::string(NDS_TEST_EXAMPLES) +
      "/llama3-8b-torchtitan/llama3_8b.toml -A nvidia-h100-sxm -l \"TP PP\" --auto-recompute -M "
      "30GB --emit-config " +
      out);
  CHECK(per_layer.exit_code == 2);
  CHECK_THAT(per_layer.out, Catch::Contains("rank"));
  CHECK_THAT(per_layer.err, Catch::Contains("[E-APPLY]") &&
                                Catch::Contains("do not all recompute alike") &&
                                Catch::Contains("TorchTitan"));
}
