// SPDX-License-Identifier: Apache-2.0
// test_evaluate_strategy.cpp: the one pricing of a strategy (core/price/)
// that eval, explain and the search's rows use: the search's winner priced
// again by evaluate_strategy gives the same step and peak, its parameters as
// counted by hand; a refusal is a value; explain's "why faster ones win".
#include <catch2/catch.hpp>

#include "core/analyses/explain_strategy.hpp"
#include "core/input/parse_config.hpp"
#include "core/output/evaluation_json.hpp"
#include "core/price/evaluate_strategy.hpp"
#include "core/search/search.hpp"
#include "core/search/search_request.hpp"
#include "core/support/byte_counts.hpp"
#include "tests/support/shipped.hpp"
#include "tests/support/tiny_model.hpp"

using namespace ndsearch;
using ndsearch::test::tiny_model;

namespace {

Machine h100s(uint64_t devices) {
  return make_machine(test::shipped_devices(), "nvidia-h100-sxm", devices);
}

// The tiny model's parameters on one of `tp` ranks without a pipeline: the
// embedding and the head (1024 x 256 each) and every layer's q, o (256 x 256),
// k, v (256 x 2·64) and gate, up, down (256 x 512) split over tp (Megatron's
// vocabulary- and tensor-parallel layers); each layer's two RMSNorms and the
// final one (256 each) whole on every rank.
double tiny_params_per_rank(int tp) {
  const double split = 2 * 1024 * 256 + 4 * (2 * 256 * 256 + 2 * 256 * 128 + 3 * 256 * 512);
  const double whole = 4 * 2 * 256 + 256;
  return split / tp + whole;
}

}  // namespace

TEST_CASE(
    "The search's winner, priced again by evaluate_strategy, has the search's step time and peak") {
  Model model = tiny_model(8);
  const Machine machine = h100s(8);
  SearchRequest search;
  search.devices = 8;
  search.space.dimensions = "TP";  // tp 1 or 2 (2 KV heads), dp 8 / tp, the rest the defaults
  search.space.threads = 1;
  const SearchResult r = run_search(test::shipped_plugins(), model, *machine.device,
                                    search_options(model, machine, search));
  REQUIRE(r.counts.fit == 2);
  const PricedCandidate& winner = r.ranking.front();

  EvaluationRequest request;
  request.strategy = strategy_text(winner.strategy);
  request.devices = 8;
  const StrategyEvaluation e = evaluate_strategy(test::shipped_plugins(), model, machine, request);
  REQUIRE(e.valid());
  CHECK(same_keys(e.strategy, winner.strategy));
  REQUIRE(e.time.has_value());
  CHECK(e.time->step_s == winner.time.step_s);
  CHECK(e.time->mfu == winner.time.mfu);
  REQUIRE(e.stages.size() == 1);
  CHECK(e.peak_bytes == whole_bytes(winner.peak_bytes));
  CHECK(e.stages[0].layers == 4);
  // bf16 parameters: 2 bytes each, as counted by hand above.
  CHECK(e.stages[0].bytes[NDS_MEMORY_PARAMS] == 2 * tiny_params_per_rank(winner.strategy.tp));
  CHECK(e.stages[0].bytes == winner.peak_terms);
  // 80 GiB of H100 HBM less its 2 GiB runtime reserve.
  CHECK(e.budget.budget_bytes == 78.0 * 1024 * 1024 * 1024);
  CHECK(e.fits);
}

TEST_CASE("A strategy a check refuses comes back refused, unpriced, not thrown") {
  Model model = tiny_model(8);
  EvaluationRequest request;
  request.strategy = "tp=4";  // 4 heads but 2 KV heads: tp must divide them
  request.devices = 8;
  const StrategyEvaluation e = evaluate_strategy(test::shipped_plugins(), model, h100s(8), request);
  REQUIRE_FALSE(e.valid());
  CHECK(e.refusal->id == "tp-heads");
  CHECK(e.stages.empty());
  CHECK_FALSE(e.time.has_value());
  CHECK(evaluation_json(e)["refusal"]["id"] == "tp-heads");
  CHECK_FALSE(evaluation_json(e).contains("memory"));
}

TEST_CASE("explain's reason names the part where the faster strategy saves the most") {
  // Steps of 1.3 s and 1.1 s: forward 1.0 s in both, dp 0.3 s against 0.1 s.
  TimeEstimate self, faster;
  self.parts.forward = faster.parts.forward = 1.0;
  self.parts.dp = 0.3;
  faster.parts.dp = 0.1;
  self.step_s = 1.3;
  faster.step_s = 1.1;
  // 0.3 / 1.3 = 23.1 %, 0.1 / 1.1 = 9.1 %.
  CHECK(main_reason(self, faster) == "dp 23.1 % vs 9.1 % of the step (0.200 s less)");
}
