// SPDX-License-Identifier: Apache-2.0
// test_checks.cpp: the checks a trainer's stated capabilities add to DESIGN
// §8.2's, and the order the checks run in.
#include <catch2/catch.hpp>

#include "core/model/builder.hpp"
#include "core/model/finalize.hpp"
#include "core/strategy/checks.hpp"
#include "core/strategy/strategy.hpp"

using namespace ndsearch;

namespace {
// A 4-layer model of 8 heads whose trainer states `capabilities` only.
Model model_with(const std::vector<const char*>& capabilities) {
  Model m;
  m.file = "test.yaml";
  m.framework = "mindformers-yaml";
  ModelBuilder b(m, "test", false);
  REQUIRE(b.begin_block("decoder", 4, "t") == nullptr);
  REQUIRE(b.set("hidden_size", ModelBuilder::Value(int64_t{512}), "t") == nullptr);
  REQUIRE(b.set("heads", ModelBuilder::Value(int64_t{8}), "t") == nullptr);
  REQUIRE(b.end_block() == nullptr);
  REQUIRE(b.set("seq_len", ModelBuilder::Value(int64_t{4096}), "t") == nullptr);
  for (const char* c : capabilities)
    REQUIRE(b.set(c, ModelBuilder::Value(int64_t{1}), "t") == nullptr);
  finalize_model(m);
  return m;
}

std::vector<std::string> failed(const Model& m, const char* strategy, uint64_t devices,
                                int64_t batch) {
  const nds_strategy s = resolve_strategy(parse_strategy(strategy), m, devices, batch);
  std::vector<std::string> ids;
  for (const CheckOutcome& c : run_checks(s, m, devices, batch))
    if (!c.passed) ids.push_back(c.id);
  return ids;
}
}  // namespace

TEST_CASE("A trainer that cannot combine SP and CP refuses sp with cp") {
  // The MindSpore runtime behind MindFormers (reference §3.5, check 1).
  const Model mindformers = model_with({"capabilities.interleave"});
  CHECK(failed(mindformers, "tp=2,cp=2,sp=1", 8, 2) == std::vector<std::string>{"sp-cp"});
  CHECK(failed(mindformers, "tp=2,cp=2,sp=0", 8, 2).empty());
  const Model megatron = model_with({"capabilities.sp_with_cp", "capabilities.interleave"});
  CHECK(failed(megatron, "tp=2,cp=2,sp=1", 8, 2).empty());
}

TEST_CASE(
    "A trainer without CP beside a sliding window refuses cp above 1 only where a layer has one") {
  // MindSpeed-LLM's argument checks refuse --sliding-window with CP.
  Model windowed = model_with({"capabilities.sp_with_cp", "capabilities.no_cp_with_window"});
  const Model whole = windowed;
  windowed.main.blocks[0].c.attention_window = 1025;
  CHECK(failed(windowed, "cp=2", 2, 1) == std::vector<std::string>{"cp-window"});
  CHECK(failed(windowed, "cp=1,dp=2", 2, 2).empty());
  CHECK(failed(whole, "cp=2", 2, 1).empty());
  // A trainer that states no such limit runs it.
  Model megatron = model_with({"capabilities.sp_with_cp"});
  megatron.main.blocks[0].c.attention_window = 1025;
  CHECK(failed(megatron, "cp=2", 2, 1).empty());
  // The refusal names the trainer's config, the window and the fix.
  const nds_strategy s = resolve_strategy(parse_strategy("cp=2"), windowed, 2, 1);
  std::string message;
  for (const CheckOutcome& c : run_checks(s, windowed, 2, 1))
    if (c.id == "cp-window") message = c.message;
  CHECK(message ==
        "mindformers-yaml runs no context parallelism with sliding-window attention (cp = 2, a "
        "window of 1025 keys); set cp=1");
}

TEST_CASE("A trainer that needs a power-of-two TP refuses tp 6 but not tp 4") {
  Model m = model_with({"capabilities.needs_pow2_tp"});
  m.main.blocks[0].c.heads = m.main.blocks[0].c.kv_heads = 24;  // tp 6 divides the heads
  CHECK(failed(m, "tp=6", 6, 1) == std::vector<std::string>{"tp-pow2"});
  CHECK(failed(m, "tp=4", 4, 1).empty());
}

TEST_CASE("A trainer without interleaving refuses vpp above 1") {
  const Model m = model_with({});
  CHECK(failed(m, "pp=2,vpp=2,mbn=4", 2, 4) == std::vector<std::string>{"schedule"});
}

TEST_CASE("DualPipe needs an even pipeline and 2·pp micro-batches, fed from both ends") {
  // deepseek-ai/DualPipe asserts an even rank count, an even micro-batch count
  // and at least 2 per rank; DualPipe-V (dualpipev.py) the last only.
  const Model m = model_with({"capabilities.interleave"});
  CHECK(failed(m, "pp=4,schedule=dualpipe,mbn=8", 4, 8).empty());
  CHECK(failed(m, "pp=4,schedule=dualpipe,mbn=6", 4, 6) == std::vector<std::string>{"dualpipe"});
  CHECK(failed(m, "pp=2,schedule=dualpipe,mbn=5", 2, 5) == std::vector<std::string>{"dualpipe"});
  // An odd pp passes DualPipe-V's check (and meets the 4 layers' bound next: 6 chunks).
  CHECK(failed(m, "pp=3,schedule=dualpipe-v,mbn=6", 3, 6) == std::vector<std::string>{"layers"});
  // DualPipe's two chunks per rank are two of pp stages: 4 layers hold pp 4.
  CHECK(failed(m, "pp=4,schedule=dualpipe,mbn=8", 4, 8).empty());
  CHECK(failed(m, "pp=3,schedule=dualpipe,mbn=6", 3, 6) == std::vector<std::string>{"dualpipe"});
  CHECK(failed(m, "pp=4,vpp=4,schedule=dualpipe,mbn=8", 4, 8) ==
        std::vector<std::string>{"schedule"});
}

TEST_CASE("Unknown degrees are refused before any other check") {
  const Model m = model_with({"capabilities.interleave"});
  const nds_strategy s =
      resolve_strategy(parse_strategy("tp=3"), m, 8, NDS_UNKNOWN);  // 8 does not divide by 3
  const auto first = first_refusal(s, m, 8, NDS_UNKNOWN);
  REQUIRE(first.has_value());
  CHECK(first->id == "degrees");
  CHECK_THAT(first->message, Catch::Contains("dp"));
}
