// SPDX-License-Identifier: Apache-2.0
// gpt_memory.hpp: a small GPT-style model, strategies from text and the shipped
// memory passes' bytes per rank, for the tests that check those passes against
// published formulas (test_memory.cpp, test_activations_layer_option.cpp).
#pragma once

#include <catch2/catch.hpp>

#include <numeric>
#include <string>
#include <vector>

#include "core/model/builder.hpp"
#include "core/model/finalize.hpp"
#include "core/price/memory/memory_evaluator.hpp"
#include "core/strategy/placement.hpp"
#include "core/strategy/strategy.hpp"
#include "tests/support/shipped.hpp"

namespace ndsearch::test {

struct Shape {
  int64_t layers, hidden, heads, ffn, vocab, seq;
  const char* dtype;  // params and compute
  const char* grads;
  const char* master;  // "none" or "fp32"
  int64_t optimizer_states;
  const char* compute = nullptr;      // default: dtype
  const char* fp8_recipe = nullptr;   // default: none stated
  const char* activations = nullptr;  // default: none stated
};

// A GPT-style model (MHA, GeLU, LayerNorm, biases, dropout 0.1, no flash
// attention), as Korthikanti et al. and Megatron-LM's GPT-3 runs have it.
inline Model gpt(const Shape& s) {
  Model m;
  m.file = "test";
  m.framework = "test";
  ModelBuilder b(m, "test", false);
  auto set = [&](const char* key, ModelBuilder::Value v) {
    REQUIRE(b.set(key, v, "test") == nullptr);
  };
  REQUIRE(b.begin_block("decoder", s.layers, "test") == nullptr);
  set("hidden_size", s.hidden);
  set("heads", s.heads);
  set("ffn", std::string("gelu"));
  set("ffn_hidden_size", s.ffn);
  set("norm", std::string("layernorm"));
  set("linear_bias", int64_t{1});
  set("hidden_dropout", 0.1);
  set("attention_dropout", 0.1);
  REQUIRE(b.end_block() == nullptr);
  set("vocab_size", s.vocab);
  set("tied_embeddings", int64_t{0});
  set("position_embedding", std::string("rope"));
  set("flash_attention", int64_t{0});
  set("seq_len", s.seq);
  set("params_dtype", std::string(s.dtype));
  set("compute_dtype", std::string(s.compute != nullptr ? s.compute : s.dtype));
  if (s.fp8_recipe != nullptr) set("fp8_recipe", std::string(s.fp8_recipe));
  if (s.activations != nullptr) set("activation_dtype", std::string(s.activations));
  set("grads_dtype", std::string(s.grads));
  set("master_dtype", std::string(s.master));
  set("optimizer_dtype", std::string("fp32"));
  set("optimizer_states", s.optimizer_states);
  finalize_model(m);
  return m;
}

// A strategy from text; keys not given take DESIGN §8.1's defaults.
inline nds_strategy strategy(const char* text) {
  nds_strategy s = parse_strategy(text);
  for (int32_t* key : {&s.dp, &s.tp, &s.pp, &s.cp, &s.ep, &s.vpp, &s.mbs, &s.mbn})
    if (*key == NDS_UNKNOWN) *key = 1;
  if (s.etp == NDS_UNKNOWN) s.etp = s.tp;
  if (s.sp == NDS_UNKNOWN) s.sp = s.tp > 1 ? 1 : 0;
  if (s.zero == NDS_UNKNOWN) s.zero = 1;
  if (s.op == NDS_UNKNOWN) s.op = s.dp * s.cp;
  if (s.schedule == NDS_UNKNOWN)
    s.schedule = s.vpp > 1 ? NDS_SCHEDULE_INTERLEAVED : NDS_SCHEDULE_1F1B;
  if (s.recompute == NDS_UNKNOWN) s.recompute = NDS_RECOMPUTE_NONE;
  return s;
}

// `s` with the given layers per rank (one chunk each), every layer of a rank
// recomputed under s.recompute, and DESIGN §8.6's micro-batches in flight.
inline Placement placement(const nds_strategy& s, const std::vector<uint32_t>& layers_per_rank) {
  Placement p;
  p.strategy = s;
  p.chunk_layers = layers_per_rank;
  p.chunk_first_layer.resize(layers_per_rank.size());
  std::exclusive_scan(layers_per_rank.begin(), layers_per_rank.end(), p.chunk_first_layer.begin(),
                      0u);
  p.chunk_recomputed_layers = s.recompute == NDS_RECOMPUTE_NONE
                                  ? std::vector<uint32_t>(layers_per_rank.size(), 0)
                                  : layers_per_rank;
  p.in_flight = micro_batches_in_flight(s);
  return p;
}

// Memory of every rank of candidate `c` with the shipped passes on an H100.
inline std::vector<RankMemory> memory(Model& model, const nds_candidate& c) {
  const MemoryPasses passes(shipped_plugins(), model, shipped_device("nvidia-h100-sxm"));
  MemoryEvaluator evaluator(passes, static_cast<uint32_t>(c.strategy->pp));
  std::vector<RankMemory> ranks;
  const std::string error = evaluator.evaluate(c, ranks);
  INFO(error);
  REQUIRE(error.empty());
  return ranks;
}

// Memory of every rank for `s` with the given layers per rank (one chunk each).
inline std::vector<RankMemory> memory(Model& model, const nds_strategy& s,
                                      const std::vector<uint32_t>& layers_per_rank) {
  const Placement p = placement(s, layers_per_rank);
  return memory(model, p.candidate());
}

}  // namespace ndsearch::test
