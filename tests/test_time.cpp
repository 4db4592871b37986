// SPDX-License-Identifier: Apache-2.0
// test_time.cpp: the time model's accounting: parts that sum to the step, the
// bubble of each schedule (Narayanan et al. 2021 §2.2; Qi et al. 2024 for
// ZB-V), model FLOPs as DESIGN §8.7 defines them, and eval's time JSON.
#include <catch2/catch.hpp>
#include <ndsearch/sdk/model_math.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "core/input/device_catalog.hpp"
#include "core/model/builder.hpp"
#include "core/model/finalize.hpp"
#include "core/model/params.hpp"
#include "core/price/recompute/recompute_settings.hpp"
#include "core/price/time/collectives.hpp"
#include "core/price/time/time_model.hpp"
#include "core/strategy/placement.hpp"
#include "core/strategy/strategy.hpp"
#include "tests/fixtures_paths.hpp"
#include "tests/support/overlap_fields.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/shipped.hpp"
#include "tests/support/temp_csv.hpp"

using namespace ndsearch;
using Value = ModelBuilder::Value;

namespace {

const Device& h100() {
  return test::shipped_device("nvidia-h100-sxm");
}

using test::Fields;
struct Block {
  const char* kind;
  int64_t layers;
  Fields fields;
};

// A model of `blocks` with `fields`, trained on sequences of 2048, 64 a step,
// bf16 weights and compute, fp32 gradients.
Model build(const std::vector<Block>& blocks, Fields fields) {
  Model m;
  m.file = "test";
  ModelBuilder b(m, "test", false);
  auto set = [&](const Fields& f) {
    for (const auto& [key, value] : f) REQUIRE(b.set(key, value, "t") == nullptr);
  };
  for (const Block& block : blocks) {
    REQUIRE(b.begin_block(block.kind, block.layers, "t") == nullptr);
    set(block.fields);
    REQUIRE(b.end_block() == nullptr);
  }
  fields.insert(fields.end(), {{"seq_len", int64_t{2048}},
                               {"global_batch", int64_t{64}},
                               {"params_dtype", std::string("bf16")},
                               {"compute_dtype", std::string("bf16")},
                               {"grads_dtype", std::string("fp32")}});
  set(fields);
  finalize_model(m);
  return m;
}

// One layer of a 2048-wide GPT (MHA, GeLU 4h).
Fields gpt_layer() {
  return {{"hidden_size", int64_t{2048}},
          {"heads", int64_t{16}},
          {"ffn", std::string("gelu")},
          {"ffn_hidden_size", int64_t{8192}},
          {"norm", std::string("layernorm")}};
}
const Fields kGptVocabulary = {{"vocab_size", int64_t{50000}}, {"tied_embeddings", int64_t{1}}};

// Every overlap switch stated off: communication fully exposed.
const Fields kNoOverlap = test::overlap_fields(0);
Fields with(Fields a, const Fields& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// 16 layers of that GPT (no overlap stated: a well-tuned Megatron-Core run),
// and the same with every overlap off.
Model gpt() {
  return build({{"decoder", 16, gpt_layer()}}, kGptVocabulary);
}
Model gpt_without_overlap() {
  return build({{"decoder", 16, gpt_layer()}}, with(kGptVocabulary, kNoOverlap));
}

TimeEstimate estimate(const Model& m, const char* text) {
  const nds_strategy s = resolve_strategy(parse_strategy(text), m, 16, 64);
  const Placement p = place_layers(s, m, false);
  const CompiledModel compiled(m, h100());
  return TimeModel(compiled).estimate(p.candidate(), 16);
}

// One micro-batch of the slowest rank, as the parts state it.
double slot(const TimeEstimate& e, double mbn) {
  const TimeParts& t = e.parts;
  return (t.forward + t.backward + t.recompute + t.tp + t.cp + t.ep + t.pp) / mbn;
}

}  // namespace

TEST_CASE("A step is the sum of its eleven parts and the outputs list each part once") {
  // Powers of two, one per part: a part left out of step(), or one the
  // outputs' list (kTimeParts: the JSON, the CSV, the table) misses or
  // lists twice, changes the sum away from 2^11 - 1 = 2047.
  TimeParts p;
  double bit = 1;
  for (double* part : {&p.forward, &p.backward, &p.recompute, &p.optimizer, &p.tp, &p.cp, &p.ep,
                       &p.dp, &p.pp, &p.bubble, &p.overhead}) {
    *part = bit;
    bit *= 2;
  }
  CHECK(p.step() == 2047);
  double listed = 0;
  for (const auto& [name, member] : kTimeParts) listed += p.*member;
  CHECK(listed == 2047);
}

TEST_CASE("1F1B and GPipe idle p - 1 micro-batch slots and interleaving divides that by v") {
  // Narayanan et al. 2021 §2.2: bubble = (p - 1)·t_mb for 1F1B and GPipe,
  // (p - 1)/v·t_mb with v interleaved chunks per rank, where the ranks are
  // alike: a vocabulary of 8 leaves the output head's kernels (about 10 us of
  // launches) making its rank 0.3 % slower than the others; the bubble is
  // the others' (p - 1) slots (the schedule's run, pipeline_schedule.hpp).
  const Model m = build({{"decoder", 16, gpt_layer()}},
                        {{"vocab_size", int64_t{8}}, {"tied_embeddings", int64_t{1}}});
  const TimeEstimate one =
      estimate(m, "dp=2,tp=2,pp=4,mbs=1,schedule=1f1b");  // mbn = 64/(2·1) = 32
  CHECK(one.parts.bubble == Approx(3 * slot(one, 32)).epsilon(5e-3));
  const TimeEstimate gpipe = estimate(m, "dp=2,tp=2,pp=4,mbs=1,schedule=gpipe");
  CHECK(gpipe.parts.bubble == Approx(3 * slot(gpipe, 32)).epsilon(5e-3));
  const TimeEstimate interleaved = estimate(m, "dp=2,tp=2,pp=4,vpp=2,mbs=1");
  CHECK(interleaved.parts.bubble == Approx(3.0 / 2 * slot(interleaved, 32)).epsilon(5e-3));
  CHECK(interleaved.parts.bubble < one.parts.bubble);
}

TEST_CASE("ZB-V fills the bubble but for F + B - 2W, communication in F and B") {
  // Qi et al. 2024: ZB-V idles (p - 1)·(T_F + T_B - 2·T_W) per micro-batch
  // slot. W is the weight-gradient GEMMs and sends nothing; F carries the
  // forward's TP collectives, B (the rest of the backward) the input
  // gradients' and the recompute that precedes them: T_F + T_B - 2·T_W =
  // forward + recompute + tp + cp + ep + pp + (backward - W) - 2·W.
  const Model m = gpt_without_overlap();
  // Per micro-batch: the parts over mbn (64 / (dp·mbs)).
  auto expected = [](const TimeEstimate& e, double mbn) {
    const TimeParts& t = e.parts;
    // (pipeline sends ride on F and B too; the H100 fit has no per-layer cost)
    return 3 *
           std::max(0.0, t.forward + t.recompute + t.tp + t.cp + t.ep + t.pp + t.backward -
                             3 * e.weight_gradients_s) /
           mbn;
  };
  const TimeEstimate pure = estimate(m, "dp=4,tp=1,pp=4,vpp=2,mbs=1,schedule=zb-v");  // mbn 16
  REQUIRE(pure.weight_gradients_s > 0);
  CHECK(pure.weight_gradients_s <
        pure.parts.backward / 2);  // attention's backward and the norms' are B's
  CHECK(pure.parts.bubble == Approx(expected(pure, 16)));
  // Against interleaving on ranks alike (the paper's setting; a vocabulary of 8).
  const Model alike =
      build({{"decoder", 16, gpt_layer()}},
            with({{"vocab_size", int64_t{8}}, {"tied_embeddings", int64_t{1}}}, kNoOverlap));
  CHECK(estimate(alike, "dp=4,tp=1,pp=4,vpp=2,mbs=1,schedule=zb-v").parts.bubble <
        estimate(alike, "dp=4,tp=1,pp=4,vpp=2,mbs=1,schedule=interleaved").parts.bubble);
  const TimeEstimate zbv = estimate(m, "dp=2,tp=2,pp=4,vpp=2,mbs=1,schedule=zb-v");  // mbn 32
  REQUIRE(zbv.parts.tp > 0);
  CHECK(zbv.parts.bubble == Approx(expected(zbv, 32)));
  const TimeEstimate recomputed =
      estimate(m, "dp=2,tp=2,pp=4,vpp=2,mbs=1,schedule=zb-v,recompute=full");
  CHECK(recomputed.parts.bubble == Approx(expected(recomputed, 32)));
  CHECK(recomputed.parts.bubble > zbv.parts.bubble);  // the recompute precedes B
}

TEST_CASE("DualPipe and DualPipe-V idle (stages/2 - 1)·(F&B + B - 3W) and hide their sends") {
  // DeepSeek's table (github.com/deepseek-ai/DualPipe): a bubble of
  // (PP/2 - 1)·(F&B + B - 3W) per stage, F&B the overlapped forward and
  // backward (their compute adds: F + B), B the full backward with its
  // recompute, W the weight gradients. A stage is half a rank's two chunks.
  const Model m = gpt_without_overlap();
  // Per micro-batch through a rank (mbn / 2 for DualPipe, whose two
  // directions take half each; mbn for DualPipe-V), from the parts.
  auto stage_bubble = [](const TimeEstimate& e, double passes) {
    const TimeParts& t = e.parts;
    const double rank = (t.forward + t.backward + t.recompute + t.tp + t.cp + t.ep + t.pp) / passes;
    return std::max(0.0, rank + (t.backward + t.recompute - 3 * e.weight_gradients_s) / passes) / 2;
  };
  // pp 4 (two DualPipe stages per half), mbn 16 = 8 a direction.
  const TimeEstimate dual = estimate(m, "dp=4,tp=1,pp=4,mbs=1,schedule=dualpipe");
  CHECK(dual.parts.bubble == Approx((4 / 2 - 1) * stage_bubble(dual, 8)));
  const TimeEstimate v = estimate(m, "dp=4,tp=1,pp=4,mbs=1,schedule=dualpipe-v");
  CHECK(v.parts.bubble == Approx((4 - 1) * stage_bubble(v, 16)));
  // Every overlap stated off, 1F1B exposes the pipeline sends; the DualPipes
  // hide them under the paired chunk's compute (the report's 1:1 ratio).
  const TimeEstimate one = estimate(m, "dp=4,tp=1,pp=4,mbs=1,schedule=1f1b");
  REQUIRE(one.parts.pp > 0);
  CHECK(dual.parts.pp == 0);
  CHECK(dual.hidden.pp > 0);
  CHECK(v.parts.pp == 0);
  // Both hold every layer's work once per micro-batch: DualPipe's two stages
  // per rank at half the micro-batches each do what a 1F1B rank's one stage
  // does at all of them. The parts are the slowest rank's: 1F1B's last,
  // which runs the output head and the loss for every micro-batch, where
  // DualPipe's rank 0 runs them for the half going its way: DualPipe's is
  // lighter, by less than the head's share.
  CHECK(dual.parts.forward < one.parts.forward);
  CHECK(dual.parts.forward > 0.7 * one.parts.forward);
  // The same tokens: DualPipe's two copies do not count twice in the FLOPs.
  CHECK(dual.hardware_flops_per_step == Approx(one.hardware_flops_per_step));
}

TEST_CASE("A ring that crosses nodes goes at the slowest hop's pace") {
  // H100 DGX: 8 GPUs on NVSwitch (450 GB/s per GPU), then 50 GB/s NICs, at
  // the bus efficiency each level states (nccl-tests: 0.81, 0.92). 8 ranks
  // at stride 2 span 16 GPUs: two nodes.
  const Device& d = h100();
  const double bytes = 64e6;
  const double inside = collective_seconds(d, Collective::send_recv, 8, 1, bytes);
  const double across = collective_seconds(d, Collective::send_recv, 8, 2, bytes);
  // Each at its size's reach: the bus efficiency x S / (S + the level's
  // half-bandwidth size).
  const double reach0 =
      d.levels[0].bus_efficiency * bytes / (bytes + d.levels[0].half_bandwidth_bytes);
  const double reach1 =
      d.levels[1].bus_efficiency * bytes / (bytes + d.levels[1].half_bandwidth_bytes);
  CHECK(inside == Approx(d.levels[0].latency_s + bytes / (reach0 * 450e9)));
  CHECK(across == Approx(d.levels[1].latency_s + bytes / (reach1 * 50e9)));
  // A pipeline neighbour (n = 2) at stride 8 is in the next node too.
  CHECK(collective_seconds(d, Collective::send_recv, 2, 8, bytes) == Approx(across));
  CHECK(collective_seconds(d, Collective::send_recv, 2, 4, bytes) == Approx(inside));
}

namespace {
// 8 layers of an 8-expert top-2 MoE (Mixtral's shape at 1/4 width: 1024
// hidden, experts 3584 wide, SwiGLU), seq 2048, global batch 64.
Model moe(const Fields& extra = {}) {
  return build({{"decoder",
                 8,
                 {{"hidden_size", int64_t{1024}},
                  {"heads", int64_t{8}},
                  {"ffn", std::string("swiglu")},
                  {"ffn_hidden_size", int64_t{0}},
                  {"experts", int64_t{8}},
                  {"experts_per_token", int64_t{2}},
                  {"moe_ffn_hidden_size", int64_t{3584}},
                  {"grouped_gemm", int64_t{1}}}}},
               with({{"vocab_size", int64_t{32000}}}, extra));
}
}  // namespace

TEST_CASE("Expert work per device is the same whatever etp: tokens/tp of it") {
  const Model m = moe();
  const TimeEstimate etp1 = estimate(m, "dp=8,tp=2,ep=8,etp=1,mbs=1,sp=1");
  const TimeEstimate etp2 = estimate(m, "dp=8,tp=2,ep=8,etp=2,mbs=1,sp=1");
  CHECK(etp1.parts.forward == Approx(etp2.parts.forward));
  CHECK(etp1.parts.backward == Approx(etp2.parts.backward));
  CHECK(etp1.model_flops_per_step == Approx(etp2.model_flops_per_step));
}

TEST_CASE("EP all-to-alls carry the tokens a device routes: tokens/tp") {
  // tp = 2, ep = 8, etp = 1 on 16 H100: per layer and micro-batch a device
  // routes 2048/2 tokens x top-2 x 1024 hidden x 2 bytes, dispatched and
  // combined (2 all-to-alls over 8 ranks at stride 1), forward and backward
  // (2 passes): 4 all-to-alls, 8 layers, 4 micro-batches (64 / dp 8 / mbs 2).
  // The config states every overlap off: all of it is exposed.
  const Model m = moe(kNoOverlap);
  const TimeEstimate e = estimate(m, "dp=8,tp=2,ep=8,etp=1,mbs=2,sp=1");
  const double routed = 2 * 2048 / 2 * 2 * 1024 * 2.0;  // mbs 2 sequences
  const double per_layer = 4 * collective_seconds(h100(), Collective::all_to_all, 8, 1, routed);
  CHECK(e.parts.ep == Approx(per_layer * 8 * 4));
}

TEST_CASE("MTP modules are priced: a layer, its projection and the output head again") {
  // gpt() plus one MTP module of the same layer (DeepSeek-V3 §2.2). Model FLOPs
  // per step grow by tokens x (6 x (the layer's parameters + the 2h x h
  // projection) + 6 h V for the head + 12 s h_attn for attention).
  const Model plain = gpt();
  const Model with_mtp =
      build({{"decoder", 16, gpt_layer()}, {"mtp", 1, gpt_layer()}}, kGptVocabulary);
  const char* strategy = "dp=4,tp=2,pp=2,mbs=1";
  const TimeEstimate a = estimate(plain, strategy), b = estimate(with_mtp, strategy);
  const double h = 2048, V = 50000, s = 2048, tokens = 64 * s;
  const double layer = sdk::layer_parameters(plain.main.blocks[0].c).active();
  CHECK(b.model_flops_per_step - a.model_flops_per_step ==
        Approx(tokens * (6 * (layer + 2 * h * h) + 6 * h * V + 12 * s * h)));
  // The last rank carries it: 8 layers and a head become 9 layers, a projection and two heads.
  CHECK(b.parts.forward > a.parts.forward * 1.1);
  CHECK(b.parts.backward > a.parts.backward * 1.1);
}

TEST_CASE("ZeRO-3 gathers the parameters before every micro-batch's forward and backward") {
  // ZeRO-1 reduces (R) and gathers (G) once a step; ZeRO-3 keeps a shard of
  // parameters and gradients, so it gathers 2·mbn times and reduce-scatters
  // each micro-batch's gradients (Rajbhandari et al. 2020 §5.3):
  // dp(zero 1) = R + G, dp(zero 3, mbn) = mbn·(R + 2G).
  const Model m = gpt_without_overlap();                               // every collective exposed
  const double z1 = estimate(m, "dp=8,tp=2,mbs=2,zero=1").parts.dp;    // mbn 4
  const double z3_4 = estimate(m, "dp=8,tp=2,mbs=2,zero=3").parts.dp;  // mbn 4
  const double z3_8 = estimate(m, "dp=8,tp=2,mbs=1,zero=3").parts.dp;  // mbn 8
  CHECK(z3_8 == Approx(2 * z3_4));
  CHECK(z3_4 > 4 * z1);  // 4·(R + 2G) > 4·(R + G)
  // ZeRO-2 reduce-scatters each micro-batch's gradients too, and gathers once.
  const double z2_4 = estimate(m, "dp=8,tp=2,mbs=2,zero=2").parts.dp;
  const double gather = (z3_4 - z2_4) / 7;  // 8 gathers against 1
  CHECK(z2_4 == Approx(4 * (z1 - gather) + gather));
}

TEST_CASE("Model FLOPs follow DESIGN 8.7 and HFU adds the recomputed forward") {
  const Model m = gpt();
  // Per token: 6 x non-embedding parameters (16 layers of 12h^2 + 13h:
  // 4h^2 + 4h attention... counted by the model's own layer count), 6·h·V for
  // the logits, 12·L·s·h_attn for scores and values.
  const double layer = layer_parameters(m.main.blocks[0].c).active();
  const double tokens = 64.0 * 2048;
  const double expected = tokens * (6 * 16 * layer + 6 * 2048.0 * 50000 + 12 * 16 * 2048.0 * 2048);
  const TimeEstimate plain = estimate(m, "dp=16,mbs=1");
  CHECK(plain.model_flops_per_step == Approx(expected));
  CHECK(plain.hardware_flops_per_step == Approx(expected));
  const TimeEstimate full = estimate(m, "dp=16,mbs=1,recompute=full");
  CHECK(full.hardware_flops_per_step ==
        Approx(expected + tokens * (2 * 16 * layer + 4 * 16 * 2048.0 * 2048)));
  // MFU: model FLOPs over the step time x devices x the bf16 dense peak.
  CHECK(plain.mfu == Approx(expected / (plain.step_s * 16 * 989.4e12)));
  CHECK(plain.tokens_per_s == Approx(tokens / plain.step_s));
}

TEST_CASE("Selective recompute runs again the ops the config states, and their collectives") {
  // Korthikanti et al. 2022 §5's selective recompute, the attention core, is
  // the default: 4·s·h_attn FLOPs per token and layer again (16 layers, h_attn 2048).
  Model m = gpt();
  const double tokens = 64.0 * 2048, s = 2048, h = 2048;
  const TimeEstimate plain = estimate(m, "dp=16,mbs=1");
  const TimeEstimate core = estimate(m, "dp=16,mbs=1,recompute=selective");
  CHECK(core.hardware_flops_per_step ==
        Approx(plain.model_flops_per_step + tokens * 16 * 4 * s * h));
  // Megatron-Core's --recompute-modules core_attn mlp: the dense MLP's forward
  // too, 2 FLOPs per parameter (GeLU 4h, no biases: 2·h·4h) per token.
  m.training.recompute_ops = NDS_RECOMPUTE_OP_CORE_ATTENTION | NDS_RECOMPUTE_OP_MLP;
  REQUIRE(layer_parameters(m.main.blocks[0].c).dense_mlp == 2 * h * 4 * h);
  const TimeEstimate mlp = estimate(m, "dp=16,mbs=1,recompute=selective");
  CHECK(mlp.hardware_flops_per_step ==
        Approx(plain.model_flops_per_step + tokens * 16 * (4 * s * h + 2 * 2 * h * 4 * h)));
  CHECK(mlp.parts.recompute > core.parts.recompute);
  const TimeEstimate full = estimate(m, "dp=16,mbs=1,recompute=full");
  CHECK(mlp.parts.recompute < full.parts.recompute);

  // Under TP with SP and no overlap, the MLP's all-gather and reduce-scatter
  // run again with it: half of what full recompute repeats (the attention's
  // pair and the MLP's), to rounding.
  Model bare = gpt_without_overlap();
  const char* tp = "dp=8,tp=2,sp=1,mbs=1,recompute=";
  const double none_tp = estimate(bare, (std::string(tp) + "none").c_str()).parts.tp;
  const double full_tp = estimate(bare, (std::string(tp) + "full").c_str()).parts.tp;
  bare.training.recompute_ops = NDS_RECOMPUTE_OP_MLP;
  const double mlp_tp = estimate(bare, (std::string(tp) + "selective").c_str()).parts.tp;
  CHECK(mlp_tp - none_tp == Approx((full_tp - none_tp) / 2));
  bare.training.recompute_ops = NDS_RECOMPUTE_OP_CORE_ATTENTION;
  CHECK(estimate(bare, (std::string(tp) + "selective").c_str()).parts.tp == Approx(none_tp));

  // MindSpeed's activation-function recompute (mlp_activation, ABI 1.12)
  // runs the GeLU again, a memory-bound kernel: recompute time, no GEMM
  // FLOPs (HFU as without recompute), no TP collective repeated, and less
  // than the whole MLP's.
  m.training.recompute_ops = NDS_RECOMPUTE_OP_MLP_ACTIVATION;
  const TimeEstimate act = estimate(m, "dp=16,mbs=1,recompute=selective");
  CHECK(act.hardware_flops_per_step == Approx(plain.model_flops_per_step));
  CHECK(act.parts.recompute > 0);
  m.training.recompute_ops = NDS_RECOMPUTE_OP_MLP;
  CHECK(act.parts.recompute < estimate(m, "dp=16,mbs=1,recompute=selective").parts.recompute);
  bare.training.recompute_ops = NDS_RECOMPUTE_OP_MLP_ACTIVATION;
  CHECK(estimate(bare, (std::string(tp) + "selective").c_str()).parts.tp == Approx(none_tp));
}

TEST_CASE("eval counts the model and hardware FLOPs of a step as DESIGN 8.7 does") {
  auto r = ndsearch::test::run_command(
      "env -u NDS_PLUGIN_PATH " + ndsearch::test::cli() + " eval " + NDS_TEST_FIXTURES_SOURCE +
      "/configs/hf/llama-3.1-70b.json -A nvidia-h100-sxm -d 64 --seq-len 8192 -b 64 "
      "--strategy tp=8,pp=4,dp=2,mbs=1,recompute=full --format json");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  // DESIGN §8.7 by hand for Llama 3.1 70B (h 8192, 80 layers, 64 heads of
  // 128 and 8 KV heads, SwiGLU 28672, vocabulary 128256), per token:
  //   a layer's weights: q and o 2·h² = 134,217,728, k and v 2·h·1024 =
  //   16,777,216, the MLP 3·h·28672 = 704,643,072, two norms 2·h = 16,384:
  //   855,654,400; 6·80 of them = 410,714,112,000;
  //   the logits 6·h·V = 6·8192·128256 = 6,304,038,912;
  //   attention 12·L·s·h = 12·80·8192·8192 = 64,424,509,440;
  //   481,442,660,352 FLOPs, x 64·8192 = 524,288 tokens.
  const double per_token = 481442660352.0;
  CHECK(j["model_flops_per_step"].get<double>() == Approx(per_token * 524288).epsilon(1e-12));
  // Full recompute runs each layer's forward again: 2·80·855,654,400 =
  // 136,904,704,000 for the weights and 4·L·s·h = 21,474,836,480 for
  // attention (not the logits): 158,379,540,480 more per token.
  const double recomputed = 158379540480.0;
  CHECK(j["hardware_flops_per_step"].get<double>() ==
        Approx((per_token + recomputed) * 524288).epsilon(1e-12));
  // MFU and HFU share the step's capacity, so their ratio is the FLOPs':
  // 1 + 158,379,540,480 / 481,442,660,352 = 1.32897...
  CHECK(j["hfu"].get<double>() / j["mfu"].get<double>() ==
        Approx(1 + recomputed / per_token).epsilon(1e-12));
  CHECK(j["mfu"].get<double>() > 0.2);
}

TEST_CASE("eval states its assumptions, and --overlap replaces the assumed well-tuned run") {
  const std::string base =
      "env -u NDS_PLUGIN_PATH " + ndsearch::test::cli() + " eval " + NDS_TEST_FIXTURES_SOURCE +
      "/configs/hf/llama-3.1-70b.json -A nvidia-h100-sxm -d 64 --seq-len 8192 -b 64 "
      "--strategy tp=8,pp=4,vpp=2,mbs=1 --format json";
  auto assumed = ndsearch::test::run_command(base);
  REQUIRE(assumed.exit_code == 0);
  const nlohmann::json a = nlohmann::json::parse(assumed.out);
  CHECK_THAT(a["assumptions"][0].get<std::string>(),
             Catch::Contains("assumed a well-tuned Megatron-Core run"));
  CHECK(a["time"]["hidden"]["tp"].get<double>() > 0);
  auto none = ndsearch::test::run_command(base + " --overlap none");
  REQUIRE(none.exit_code == 0);
  const nlohmann::json n = nlohmann::json::parse(none.out);
  CHECK_THAT(n["assumptions"][0].get<std::string>(), Catch::Contains("on: none"));
  CHECK_THAT(n["assumptions"][0].get<std::string>(),
             Catch::Contains("(as the overlap switches (`overlap`) state)"));
  for (const char* part : {"tp", "cp", "ep", "dp", "pp"})
    CHECK(n["time"]["hidden"][part].get<double>() == 0);
  // Nothing hidden and nothing async: each collective's whole time is
  // exposed, so the step is longer. Per layer and pass a TP pair (all-gather
  // + reduce-scatter) of C: the well-tuned run's backward also gathers each
  // column-parallel linear's input again (C / 2 more, 2.5 C in all); a
  // backward with nothing async (Megatron-LM before 2021-09) moves C.
  CHECK(n["time"]["parts"]["tp"].get<double>() ==
        Approx(0.8 *
               (a["time"]["parts"]["tp"].get<double>() + a["time"]["hidden"]["tp"].get<double>())));
  CHECK(n["time"]["step_s"].get<double>() > a["time"]["step_s"].get<double>());
}

TEST_CASE("Swapped optimizer states: copies in, update and copies out pipelined over the pieces") {
  // Three stages per piece (in, update, out) over 16 pieces: the first
  // piece's three stages, then one slowest stage for each of the other 15.
  const OptimizerSwap swap{1e9, 16};  // 1 GB/s each way
  // Link-bound: 16 GB each way is 1 s a piece, the update 0.1 s a piece:
  // 1 + 0.1 + 1 + 15 · 1 = 17.1 s.
  CHECK(swapped_update_s(16e9, 1.6, swap) == Approx(17.1));
  // Update-bound: 0.1 s of copies a piece, 1 s of update: 0.1 + 1 + 0.1 + 15 · 1 = 16.2 s.
  CHECK(swapped_update_s(1.6e9, 16, swap) == Approx(16.2));
  // One piece: nothing overlaps, in + update + out.
  CHECK(swapped_update_s(2e9, 3, OptimizerSwap{1e9, 1}) == Approx(2 + 3 + 2));
}

TEST_CASE(
    "Swapped optimizer states over a device with no host link is an error naming the device and "
    "the fix") {
  Device linkless = h100();
  linkless.id = "linkless-test-device";
  linkless.host_link_bytes_per_s = 0;
  RecomputeSettings settings;
  settings.swap_optimizer = true;
  const nds_training none{};  // the config swaps nothing
  try {
    (void)optimizer_swap_of(settings, linkless, none);
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(e.id() == "E-USAGE");
    CHECK_THAT(e.what(), Catch::Contains("device linkless-test-device states none") &&
                             Catch::Contains("give its bandwidth with") &&
                             Catch::Contains("host_link"));
  }
  // A given link serves: 20 GiB/s per direction, and nothing without the swap.
  settings.host_link_bytes_per_s = 20.0 * (1ull << 30);
  CHECK(optimizer_swap_of(settings, linkless, none).link_bytes_per_s == 20.0 * (1ull << 30));
  settings.swap_optimizer = false;
  CHECK(optimizer_swap_of(settings, linkless, none).link_bytes_per_s == 0);
  // The config's trainer swapping them (MindSpeed's --swap-optimizer, ABI 1.9) swaps too.
  nds_training stated{};
  stated.swap_optimizer = 1;
  CHECK(optimizer_swap_of(settings, linkless, stated).link_bytes_per_s == 20.0 * (1ull << 30));
  // The device's own link at 80 % (pinned copies, microbenchmarks.md §4): H100's 64 GB/s.
  RecomputeSettings swapped;
  swapped.swap_optimizer = true;
  CHECK(optimizer_swap_of(swapped, h100(), none).link_bytes_per_s == Approx(0.8 * 64e9));
}

TEST_CASE(
    "megatron-args: the backward's TP exchange is async unless the script turns it off without "
    "SP") {
  // Megatron-LM of the 2021 paper all-reduced each column-parallel input
  // gradient before its weight gradient: its validation scripts say
  // --no-async-tensor-model-parallel-allreduce. Without the flag the
  // exchange is async (Megatron's default since 2021-09), and with SP it is
  // async whatever the flag says (core_r0.6.0 layers.py).
  const std::string script =
      std::string(NDS_TEST_SOURCE_DIR) + "/validation/configs/megatron-lm-2021/gpt-7.5b.sh";
  auto model_json = [](const std::string& path) {
    const auto r = ndsearch::test::run_command("env -u NDS_PLUGIN_PATH " + ndsearch::test::cli() +
                                               " model " + path + " --format json");
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    return nlohmann::json::parse(r.out);
  };
  const nlohmann::json stated = model_json(script);
  CHECK(stated["overlap"]["tp_async"] == false);
  CHECK_THAT(stated["provenance"]["overlap.tp_async"].get<std::string>(),
             Catch::Contains("--no-async-tensor-model-parallel-allreduce"));
  std::string text;
  {
    std::ifstream in(script);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const std::string flag = "    --no-async-tensor-model-parallel-allreduce \\\n";
  REQUIRE(text.find(flag) != std::string::npos);
  std::string without = text;
  without.erase(without.find(flag), flag.size());
  const auto default_path = ndsearch::test::temp_file("async-default", ".sh", without);
  CHECK(model_json(default_path.string())["overlap"]["tp_async"] == true);
  std::filesystem::remove(default_path);
  std::string with_sp = text;
  with_sp.insert(with_sp.find(flag), "    --sequence-parallel \\\n");
  const auto sp_path = ndsearch::test::temp_file("async-sp", ".sh", with_sp);
  CHECK(model_json(sp_path.string())["overlap"]["tp_async"] == true);
  std::filesystem::remove(sp_path);
}
