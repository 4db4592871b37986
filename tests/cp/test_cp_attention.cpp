// SPDX-License-Identifier: Apache-2.0
// test_cp_attention.cpp: the shipped CP attention models (cp-ring,
// cp-ulysses, cp-hybrid, cp-allgather-kv) through the C ABI: the refusal
// checks of nd_behaviour.md §7.1 (checks 3 to 5) with their messages, bytes
// derived by hand (docs/cp.md), hybrid's Ulysses degree and --cp-ulysses N.
#include <catch2/catch.hpp>

#include <ndsearch/nds_cp_attention.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/model/builder.hpp"
#include "core/model/finalize.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/support/status.hpp"
#include "tests/support/shipped.hpp"

using namespace ndsearch;
using Value = ModelBuilder::Value;

namespace {

// A shipped CP plugin loaded with `options`: a module no other run holds is
// initialised afresh with the options of its load (registry.hpp), so the
// helper's callers hold one at a time and the test program's long-lived
// registry, loaded without options, lets go first.
std::unique_ptr<LoadedPlugin> cp_plugin(const std::string& name,
                                        const PluginOptions& options = {}) {
  ndsearch::test::release_shipped_plugins();
  auto plugin = load_plugin(std::filesystem::path(NDS_TEST_SHIPPED_PLUGINS) / (name + ".so"),
                            std::make_shared<const PluginOptions>(options));
  REQUIRE(plugin->interfaces.cp_attention != nullptr);
  return plugin;
}

struct Shape {
  int64_t hidden, heads, kv_heads, head_dim, seq;
  // MLA (0: none): kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim.
  int64_t kv_lora = 0, qk_nope = 0, qk_rope = 0, v_head = 0;
  // What the trainer states of Ulysses (ABI 1.16; 0: nothing): its degree
  // inside hybrid's rings, and K and V repeated to the query heads first.
  int64_t ulysses_degree = 0, kv_repeated = 0;
};

// Llama-3.1-8B's attention: h 4096, 32 heads, 8 KV heads of 128; seq 8192.
const Shape kLlama8B{4096, 32, 8, 128, 8192};

// A 4-layer model of `shape`, bf16 compute.
Model model(const Shape& shape) {
  Model m;
  m.file = "test";
  m.framework = "test";
  ModelBuilder b(m, "test", false);
  auto set = [&](const char* key, Value v) { REQUIRE(b.set(key, v, "test") == nullptr); };
  REQUIRE(b.begin_block("decoder", 4, "test") == nullptr);
  set("hidden_size", shape.hidden);
  set("heads", shape.heads);
  set("kv_heads", shape.kv_heads);
  if (shape.kv_lora > 0) {
    set("q_lora_rank", int64_t{1536});
    set("kv_lora_rank", shape.kv_lora);
    set("qk_nope_head_dim", shape.qk_nope);
    set("qk_rope_head_dim", shape.qk_rope);
    set("v_head_dim", shape.v_head);
  } else {
    set("head_dim", shape.head_dim);
  }
  set("ffn", std::string("swiglu"));
  set("ffn_hidden_size", int64_t{4 * shape.hidden});
  REQUIRE(b.end_block() == nullptr);
  set("vocab_size", int64_t{32000});
  set("seq_len", shape.seq);
  set("params_dtype", std::string("bf16"));
  set("compute_dtype", std::string("bf16"));
  if (shape.ulysses_degree > 0) set("cp_ulysses_degree", shape.ulysses_degree);
  if (shape.kv_repeated > 0) set("cp_kv_heads_repeated", shape.kv_repeated);
  finalize_model(m);
  return m;
}

nds_strategy strategy(int32_t dp, int32_t tp, int32_t cp, int32_t mbs = 1) {
  nds_strategy s{};
  s.struct_size = sizeof(s);
  s.dp = dp, s.tp = tp, s.pp = 1, s.cp = cp, s.ep = 1, s.etp = tp, s.vpp = 1;
  s.sp = tp > 1 ? 1 : 0, s.zero = 1, s.op = dp * cp, s.mbs = mbs, s.mbn = 1;
  s.recompute = NDS_RECOMPUTE_NONE;
  s.schedule = NDS_SCHEDULE_1F1B;
  return s;
}

struct Result {
  nds_status_code code = NDS_INTERNAL;
  std::string reason;
  std::vector<nds_cp_comm> comms;
  double extra = -1;
};

// Compiles `plugin` for `m` and evaluates one (candidate, block 0).
Result evaluate(const LoadedPlugin& plugin, Model& m, const nds_strategy& s) {
  const nds_cp_attention_v1& cp = *plugin.interfaces.cp_attention;
  nds_device device{};
  device.struct_size = sizeof(device);
  const nds_compile_input input{sizeof(nds_compile_input), &m.view(), &device, 0.1};
  nds_cp_compiled* compiled = nullptr;
  StatusPtr failure(cp.compile(&input, &compiled));
  REQUIRE(failure == nullptr);
  nds_candidate candidate{};
  candidate.struct_size = sizeof(candidate);
  candidate.strategy = &s;
  std::vector<nds_cp_comm> comms(8);
  nds_cp_item item{};
  item.struct_size = sizeof(item);
  item.candidate = &candidate;
  item.block_index = 0;
  item.comms = comms.data();
  item.comm_capacity = static_cast<uint32_t>(comms.size());
  item.comm_elem_size = sizeof(nds_cp_comm);
  item.code = NDS_OK;
  cp.evaluate(compiled, &item, 1, sizeof(item));
  cp.release(compiled);
  Result r;
  r.code = item.code;
  if (item.reason != nullptr) r.reason = item.reason;
  comms.resize(item.comm_count);
  r.comms = comms;
  r.extra = item.extra_activation_bytes;
  return r;
}

Result evaluate(const std::string& name, const Shape& shape, const nds_strategy& s,
                const PluginOptions& options = {}) {
  auto plugin = cp_plugin(name, options);
  Model m = model(shape);
  return evaluate(*plugin, m, s);
}

const std::vector<std::string> kAll{"cp_ring", "cp_ulysses", "cp_hybrid", "cp_allgather_kv"};

}  // namespace

TEST_CASE("Each shipped CP model names its algorithm") {
  CHECK(std::string(cp_plugin("cp_ring")->interfaces.cp_attention->algorithm) == "ring");
  CHECK(std::string(cp_plugin("cp_ulysses")->interfaces.cp_attention->algorithm) == "ulysses");
  CHECK(std::string(cp_plugin("cp_hybrid")->interfaces.cp_attention->algorithm) == "hybrid");
  CHECK(std::string(cp_plugin("cp_allgather_kv")->interfaces.cp_attention->algorithm) ==
        "allgather-kv");
  CHECK(cp_plugin("cp_allgather_kv")->id == "cp-allgather-kv");
}

TEST_CASE("CP models add nothing and refuse nothing when cp is 1") {
  // seq 8191 is odd, not divisible even by 2·1: check 1 (cp ≤ 1: valid) comes
  // first, so nothing is refused.
  Shape odd = kLlama8B;
  odd.seq = 8191;
  for (const std::string& name : kAll) {
    INFO(name);
    const Result r = evaluate(name, odd, strategy(8, 2, 1));
    CHECK(r.code == NDS_OK);
    CHECK(r.comms.empty());
    CHECK(r.extra == 0);
  }
}

TEST_CASE("CP models refuse a sequence not divisible by 2 cp") {
  // Check 3: 8192 = 2^13 is not divisible by 2·3 = 6; 8196 is divisible by
  // cp = 4 but not by 2·4 = 8 (the zig-zag needs 2·cp chunks).
  Shape s8196 = kLlama8B;
  s8196.seq = 8196;
  const std::string message =
      "sequence length must be divisible by 2·cp (each CP rank takes two of 2·cp load-balanced "
      "chunks)";
  for (const std::string& name : kAll) {
    INFO(name);
    const Result three = evaluate(name, kLlama8B, strategy(1, 2, 3));
    CHECK(three.code == NDS_INFEASIBLE);
    CHECK(three.reason == message);
    CHECK(three.comms.empty());
    CHECK(three.extra == 0);
    const Result four = evaluate(name, s8196, strategy(1, 2, 4));
    CHECK(four.code == NDS_INFEASIBLE);
    CHECK(four.reason == message);
  }
}

TEST_CASE("Ulysses refuses KV heads not divisible by tp times cp") {
  // Check 4: 8 KV heads, tp 2, cp 8: 8 % 16 != 0; with cp 4, 8 % 8 == 0.
  const Result refused = evaluate("cp_ulysses", kLlama8B, strategy(1, 2, 8));
  CHECK(refused.code == NDS_INFEASIBLE);
  CHECK(refused.reason == "KV heads must be divisible by tp·cp (Ulysses splits heads)");
  CHECK(refused.comms.empty());
  CHECK(evaluate("cp_ulysses", kLlama8B, strategy(1, 2, 4)).code == NDS_OK);
  // A ring and an all-gather do not split heads: the same candidate is fine.
  CHECK(evaluate("cp_ring", kLlama8B, strategy(1, 2, 8)).code == NDS_OK);
  CHECK(evaluate("cp_allgather_kv", kLlama8B, strategy(1, 2, 8)).code == NDS_OK);
  // Hybrid picks a Ulysses degree the heads allow (here 4, so 2 rings of 4).
  CHECK(evaluate("cp_hybrid", kLlama8B, strategy(1, 2, 8)).code == NDS_OK);
}

TEST_CASE("CP models refuse a candidate whose degrees leave no devices") {
  // Check 5: tp·cp·pp must fit the devices, dp·tp·pp·cp: a dp of 0 does not.
  for (const std::string& name : kAll) {
    INFO(name);
    const Result r = evaluate(name, kLlama8B, strategy(0, 2, 4));
    CHECK(r.code == NDS_INFEASIBLE);
    CHECK(r.reason ==
          "tp·cp·pp must not exceed the devices: every degree of the candidate must be at least 1");
  }
}

TEST_CASE("Ring and Ulysses price a Llama 3.1 8B layer differently") {
  // h 4096, 32 heads, 8 KV heads of 128, seq 8192, cp 4, tp 2, mbs 1, bf16.
  // A device holds T = 8192/4 = 2048 tokens, 32/2 = 16 query heads and
  // 8/2 = 4 KV heads: q = o = 16·128 = 2048, k = v = 4·128 = 512 per token.
  const nds_strategy s = strategy(2, 2, 4);
  // Ring: block = T·(k + v)·2 B = 2048·1024·2 = 4,194,304 B, passed cp−1 = 3
  // times: 12,582,912 B forward in 3 steps; backward the blocks and their
  // gradients: 25,165,824 B. The group is the cp = 4 ranks tp = 2 apart, half
  // hidden behind block attention; the double buffer holds 2 blocks = 8 MiB.
  const Result ring = evaluate("cp_ring", kLlama8B, s);
  REQUIRE(ring.code == NDS_OK);
  REQUIRE(ring.comms.size() == 1);
  CHECK(ring.comms[0].collective == NDS_COLLECTIVE_SEND_RECV);
  CHECK(ring.comms[0].group_size == 4);
  CHECK(ring.comms[0].group_stride == 2);
  CHECK(ring.comms[0].forward_bytes == 12582912.0);
  CHECK(ring.comms[0].backward_bytes == 25165824.0);
  CHECK(ring.comms[0].forward_steps == 3);
  CHECK(ring.comms[0].backward_steps == 3);
  CHECK(ring.comms[0].overlap_fraction == 0.5);
  CHECK(ring.extra == 8388608.0);
  // Ulysses: a device sends (cp−1)/cp = 3/4 of what it holds.
  //  Q, K, V: T·(q + k + v)·2 = 2048·3072·2 = 12,582,912 B; 3/4 = 9,437,184 B.
  //  output:  T·o·2 = 2048·2048·2 = 8,388,608 B; 3/4 = 6,291,456 B.
  // Both ways the same; not overlapped. Forward 15,728,640 B in all against
  // the ring's 12,582,912: the ring passes only K and V (GQA keeps them 4x
  // narrower than Q), Ulysses moves Q and the output too, but Ulysses's
  // backward moves no more than its forward while the ring's doubles.
  // Staging: the receive buffer of Q, K, V, 12,582,912 B.
  const Result ulysses = evaluate("cp_ulysses", kLlama8B, s);
  REQUIRE(ulysses.code == NDS_OK);
  REQUIRE(ulysses.comms.size() == 2);
  for (const nds_cp_comm& c : ulysses.comms) {
    CHECK(c.collective == NDS_COLLECTIVE_ALL_TO_ALL);
    CHECK(c.group_size == 4);
    CHECK(c.group_stride == 2);
    CHECK(c.overlap_fraction == 0);
    CHECK(c.backward_bytes == c.forward_bytes);
  }
  CHECK(ulysses.comms[0].forward_bytes == 9437184.0);
  CHECK(ulysses.comms[1].forward_bytes == 6291456.0);
  CHECK(ulysses.extra == 12582912.0);
  CHECK(ulysses.comms[0].forward_bytes + ulysses.comms[1].forward_bytes !=
        ring.comms[0].forward_bytes);
}

TEST_CASE("All-gather KV gathers K and V forward and again backward") {
  // The Llama 3.1 8B layer above: a device's K and V, T·(k + v)·2 = 4,194,304
  // B; a ring all-gather sends the cp−1 = 3 others' share: 12,582,912 B
  // forward, the same backward (gathered again), and a reduce-scatter of dK,
  // dV of 12,582,912 B backward. The gathered copies of the 3 other ranks are
  // the working set: 12,582,912 B. Nothing hidden (Llama 3 §3.3.2).
  const Result r = evaluate("cp_allgather_kv", kLlama8B, strategy(2, 2, 4));
  REQUIRE(r.code == NDS_OK);
  REQUIRE(r.comms.size() == 2);
  CHECK(r.comms[0].collective == NDS_COLLECTIVE_ALL_GATHER);
  CHECK(r.comms[0].forward_bytes == 12582912.0);
  CHECK(r.comms[0].backward_bytes == 12582912.0);
  CHECK(r.comms[1].collective == NDS_COLLECTIVE_REDUCE_SCATTER);
  CHECK(r.comms[1].forward_bytes == 0);
  CHECK(r.comms[1].backward_bytes == 12582912.0);
  for (const nds_cp_comm& c : r.comms) {
    CHECK(c.group_size == 4);
    CHECK(c.group_stride == 2);
    CHECK(c.overlap_fraction == 0);
  }
  CHECK(r.extra == 12582912.0);
}

TEST_CASE("A ring passes the MLA latent where Ulysses moves whole heads") {
  // DeepSeek-V3's attention: 128 heads, kv_lora_rank 512, RoPE key 64, nope
  // 128, v 128; seq 4096, cp 2, tp 4: T = 2048 tokens.
  const Shape mla{7168, 128, 128, 0, 4096, 512, 128, 64, 128};
  const nds_strategy s = strategy(1, 4, 2);
  // Ring: the latent and the RoPE key, 512 + 64 = 576 per token, whole on
  // every TP rank: 2048·576·2 = 2,359,296 B passed cp−1 = 1 time.
  const Result ring = evaluate("cp_ring", mla, s);
  REQUIRE(ring.code == NDS_OK);
  REQUIRE(ring.comms.size() == 1);
  CHECK(ring.comms[0].forward_bytes == 2359296.0);
  CHECK(ring.extra == 2 * 2359296.0);
  // Ulysses: 128/4 = 32 heads per TP rank: q = k = 32·192 = 6144, v = o =
  // 32·128 = 4096; Q, K, V 2048·16384·2 = 67,108,864 B, half of it sent.
  const Result ulysses = evaluate("cp_ulysses", mla, s);
  REQUIRE(ulysses.code == NDS_OK);
  REQUIRE(ulysses.comms.size() == 2);
  CHECK(ulysses.comms[0].forward_bytes == 33554432.0);
  CHECK(ulysses.comms[1].forward_bytes == 2048.0 * 4096 * 2 / 2);
}

TEST_CASE("Hybrid takes the largest Ulysses degree the KV heads allow") {
  // 32 heads, 4 KV heads of 128, seq 8192, tp 2, cp 4: tp·u must divide 4,
  // so u = 2 (u = 4 would need 8), and r = cp/u = 2 rings.
  const Shape gqa4{4096, 32, 4, 128, 8192};
  const Result r = evaluate("cp_hybrid", gqa4, strategy(2, 2, 4));
  REQUIRE(r.code == NDS_OK);
  REQUIRE(r.comms.size() == 3);
  // T = 2048 tokens; q = o = 16·128 = 2048, k = v = 2·128 = 256 per token.
  // Ulysses over u = 2 (stride tp = 2), half sent: Q, K, V 2048·2560·2 =
  // 10,485,760 B → 5,242,880; output 2048·2048·2 = 8,388,608 B → 4,194,304.
  CHECK(r.comms[0].collective == NDS_COLLECTIVE_ALL_TO_ALL);
  CHECK(r.comms[0].group_size == 2);
  CHECK(r.comms[0].group_stride == 2);
  CHECK(r.comms[0].forward_bytes == 5242880.0);
  CHECK(r.comms[1].forward_bytes == 4194304.0);
  // Ring over r = 2 (stride tp·u = 4): after the all-to-all a device holds
  // 2·2048 tokens of 1 KV head: 4096·(128 + 128)·2 = 2,097,152 B, passed once.
  CHECK(r.comms[2].collective == NDS_COLLECTIVE_SEND_RECV);
  CHECK(r.comms[2].group_size == 2);
  CHECK(r.comms[2].group_stride == 4);
  CHECK(r.comms[2].forward_bytes == 2097152.0);
  CHECK(r.comms[2].backward_bytes == 2 * 2097152.0);
  // Working set: the larger of Q, K, V's receive buffer (10,485,760 B) and
  // the ring's two blocks (4,194,304 B).
  CHECK(r.extra == 10485760.0);

  // Llama 3.1 8B (8 KV heads), tp 2, cp 4: u = 4 = cp, hybrid is Ulysses.
  const Result all_ulysses = evaluate("cp_hybrid", kLlama8B, strategy(2, 2, 4));
  const Result ulysses = evaluate("cp_ulysses", kLlama8B, strategy(2, 2, 4));
  REQUIRE(all_ulysses.comms.size() == 2);
  CHECK(all_ulysses.comms[0].forward_bytes == ulysses.comms[0].forward_bytes);
  CHECK(all_ulysses.comms[1].forward_bytes == ulysses.comms[1].forward_bytes);
  CHECK(all_ulysses.extra == ulysses.extra);
  // tp 8, cp 4: 8 % (8·2) != 0, so u = 1: hybrid is the ring.
  const Result all_ring = evaluate("cp_hybrid", kLlama8B, strategy(1, 8, 4));
  const Result ring = evaluate("cp_ring", kLlama8B, strategy(1, 8, 4));
  REQUIRE(all_ring.comms.size() == 1);
  CHECK(all_ring.comms[0].collective == NDS_COLLECTIVE_SEND_RECV);
  CHECK(all_ring.comms[0].forward_bytes == ring.comms[0].forward_bytes);
  CHECK(all_ring.comms[0].group_stride == 8);
  CHECK(all_ring.extra == ring.extra);
}

TEST_CASE("Hybrid follows cp-ulysses N and refuses what N cannot split") {
  const nds_strategy s = strategy(2, 2, 4);
  // Llama 3.1 8B, tp 2, cp 4 would choose u = 4; --cp-ulysses 2 states 2:
  // Ulysses pairs tp = 2 apart inside 2-rank rings tp·u = 4 apart.
  const Result two = evaluate("cp_hybrid", kLlama8B, s, {{"cp-ulysses", "2"}});
  REQUIRE(two.code == NDS_OK);
  REQUIRE(two.comms.size() == 3);
  CHECK(two.comms[0].group_size == 2);
  CHECK(two.comms[0].group_stride == 2);
  CHECK(two.comms[2].group_size == 2);
  CHECK(two.comms[2].group_stride == 4);
  // T = 2048, 4 KV heads of 128 per TP rank, 2 per Ulysses rank over 2·T
  // tokens: the ring block is 4096·(2·128·2)·2 = 4,194,304 B, as cp-ring's.
  CHECK(two.comms[2].forward_bytes == 4194304.0);
  // --cp-ulysses 3 does not divide cp = 4.
  const Result three = evaluate("cp_hybrid", kLlama8B, s, {{"cp-ulysses", "3"}});
  CHECK(three.code == NDS_INFEASIBLE);
  CHECK(three.reason ==
        "cp must be divisible by N, the Ulysses degree (`cp-ulysses`, else the config's): hybrid "
        "runs cp/N rings of "
        "N-way Ulysses");
  // --cp-ulysses 4 with 4 KV heads and tp 2: 4 % (2·4) != 0.
  const Result heads =
      evaluate("cp_hybrid", Shape{4096, 32, 4, 128, 8192}, s, {{"cp-ulysses", "4"}});
  CHECK(heads.code == NDS_INFEASIBLE);
  CHECK(heads.reason ==
        "KV heads must be divisible by tp·N, N the Ulysses degree (`cp-ulysses`, else the "
        "config's): Ulysses splits "
        "heads");
  // cp = 1 ignores N.
  CHECK(evaluate("cp_hybrid", kLlama8B, strategy(8, 2, 1), {{"cp-ulysses", "3"}}).code == NDS_OK);
}

TEST_CASE("Hybrid refuses to compile with a cp-ulysses that is not a number") {
  auto plugin = cp_plugin("cp_hybrid", {{"cp-ulysses", "four"}});
  Model m = model(kLlama8B);
  nds_device device{};
  device.struct_size = sizeof(device);
  const nds_compile_input input{sizeof(nds_compile_input), &m.view(), &device, 0.1};
  nds_cp_compiled* compiled = nullptr;
  StatusPtr failure(plugin->interfaces.cp_attention->compile(&input, &compiled));
  REQUIRE(failure != nullptr);
  CHECK(failure->code == NDS_INVALID_ARGUMENT);
  CHECK_THAT(failure->message,
             Catch::Contains("the Ulysses degree (`cp-ulysses=four`) is not a positive integer"));
}

TEST_CASE("Ulysses and hybrid split K and V repeated to the query heads, as the config states") {
  // ChatGLM3 6B's attention (MindSpeed-LLM RC3's 32K and 64K scripts): h
  // 4096, 32 heads, 2 KV heads of 128, tp 1, with
  // --kv-head-repeat-before-uly-alltoall.
  Shape glm{4096, 32, 2, 128, 32768};
  // Without the repeat, Ulysses over cp 8 needs 8 KV heads: refused.
  const Result bare = evaluate("cp_ulysses", glm, strategy(1, 1, 8));
  CHECK(bare.code == NDS_INFEASIBLE);
  CHECK(bare.reason == "KV heads must be divisible by tp·cp (Ulysses splits heads)");
  // Repeated, K and V are as wide as Q: q = k = v = o = 32·128 = 4096 per
  // token. T = 32768/8 = 4096 tokens. Q, K, V: 4096·12288·2 = 100,663,296 B,
  // 7/8 sent: 88,080,384 B; the output 4096·4096·2 = 33,554,432 B, 7/8 sent:
  // 29,360,128 B. Staging: the receive buffer of Q, K, V, 100,663,296 B.
  glm.kv_repeated = 1;
  const Result ulysses = evaluate("cp_ulysses", glm, strategy(1, 1, 8));
  REQUIRE(ulysses.code == NDS_OK);
  REQUIRE(ulysses.comms.size() == 2);
  CHECK(ulysses.comms[0].group_size == 8);
  CHECK(ulysses.comms[0].forward_bytes == 88080384.0);
  CHECK(ulysses.comms[1].forward_bytes == 29360128.0);
  CHECK(ulysses.extra == 100663296.0);

  // The 64K script: hybrid over cp 16 with --ulysses-degree-in-cp 8, seq
  // 65536: T = 4096 tokens again, so the all-to-all moves what it did above,
  // over u = 8 ranks 1 apart. Then r = 16/8 = 2 rings 8 apart: a device holds
  // 8·4096 = 32768 tokens of 32/8 = 4 repeated K and V heads: a block of
  // 32768·(4·128 + 4·128)·2 = 67,108,864 B passed r−1 = 1 time forward, with
  // its gradient backward (134,217,728 B). Working set: the larger of the
  // all-to-all's 100,663,296 B and the ring's two blocks, 134,217,728 B.
  Shape glm64k{4096, 32, 2, 128, 65536};
  glm64k.ulysses_degree = 8;
  glm64k.kv_repeated = 1;
  const Result hybrid = evaluate("cp_hybrid", glm64k, strategy(1, 1, 16));
  REQUIRE(hybrid.code == NDS_OK);
  REQUIRE(hybrid.comms.size() == 3);
  CHECK(hybrid.comms[0].group_size == 8);
  CHECK(hybrid.comms[0].group_stride == 1);
  CHECK(hybrid.comms[0].forward_bytes == 88080384.0);
  CHECK(hybrid.comms[1].forward_bytes == 29360128.0);
  CHECK(hybrid.comms[2].collective == NDS_COLLECTIVE_SEND_RECV);
  CHECK(hybrid.comms[2].group_size == 2);
  CHECK(hybrid.comms[2].group_stride == 8);
  CHECK(hybrid.comms[2].forward_bytes == 67108864.0);
  CHECK(hybrid.comms[2].backward_bytes == 134217728.0);
  CHECK(hybrid.extra == 134217728.0);
  // The config's degree is the default: the largest the heads allow would be
  // u = 16 (32 repeated heads), all Ulysses, no ring.
  glm64k.ulysses_degree = 0;
  const Result chosen = evaluate("cp_hybrid", glm64k, strategy(1, 1, 16));
  REQUIRE(chosen.code == NDS_OK);
  REQUIRE(chosen.comms.size() == 2);
  CHECK(chosen.comms[0].group_size == 16);
  // --cp-ulysses N still wins over the config's degree.
  glm64k.ulysses_degree = 8;
  const Result option = evaluate("cp_hybrid", glm64k, strategy(1, 1, 16), {{"cp-ulysses", "4"}});
  REQUIRE(option.code == NDS_OK);
  CHECK(option.comms[0].group_size == 4);
  CHECK(option.comms[2].group_size == 4);
  // MindSpeed repeats under hybrid CP whatever the degree: with u = 1 the
  // ring over 16 ranks passes repeated blocks, T·(32·128 + 32·128)·2 =
  // 4096·8192·2 = 67,108,864 B, cp−1 = 15 times: 1,006,632,960 B forward.
  glm64k.ulysses_degree = 1;
  const Result one = evaluate("cp_hybrid", glm64k, strategy(1, 1, 16));
  REQUIRE(one.code == NDS_OK);
  REQUIRE(one.comms.size() == 1);
  CHECK(one.comms[0].forward_bytes == 1006632960.0);
  glm64k.ulysses_degree = 8;
  // Without the repeat, the stated 8 cannot split 2 KV heads.
  glm64k.kv_repeated = 0;
  const Result unrepeated = evaluate("cp_hybrid", glm64k, strategy(1, 1, 16));
  CHECK(unrepeated.code == NDS_INFEASIBLE);
  CHECK(unrepeated.reason ==
        "KV heads must be divisible by tp·N, N the Ulysses degree (`cp-ulysses`, else the "
        "config's): Ulysses splits "
        "heads");
  // A ring passes K and V as the KV heads have them: the repeat is Ulysses'.
  glm.kv_repeated = 1;
  const Result ring = evaluate("cp_ring", glm, strategy(1, 1, 8));
  REQUIRE(ring.code == NDS_OK);
  CHECK(ring.comms[0].forward_bytes == 7 * 4096.0 * (2 * 128 + 2 * 128) * 2);
}
