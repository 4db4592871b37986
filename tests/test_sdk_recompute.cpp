// SPDX-License-Identifier: Apache-2.0
// test_sdk_recompute.cpp: "nds.recompute/1" strategies written with the SDK's
// RecomputeStrategyPlugin and in plain C, loaded as the host loads them and
// evaluated through the C table on SampleInputs' menu; and the conformance
// check catching counts that do not sum to a group's layers.
#include <catch2/catch.hpp>

#include <array>
#include <string>
#include <vector>

#include "core/plugin_host/conformance.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/plugin_host/sample_inputs.hpp"
#include "tests/fixtures_paths.hpp"

using namespace ndsearch;
using ndsearch::test::fixture;

namespace {

// SampleInputs' menu (sample_inputs.cpp says how each figure is derived):
// per layer and micro-batch a layer keeps 44,826,624 bytes; full recompute
// frees 44,040,192 of them times the micro-batches in flight (2 on rank 0,
// 1 on rank 1) and adds 4 · 8,858,370,048 / 1e15 s per step; the full
// working set is one layer's 44,826,624 bytes. Rank 0 holds 4.0e9 bytes with
// every layer kept, rank 1 3.0e9; the budget is 3.8e9.
constexpr double kFullSavedRank0 = 2 * 44040192.0;  // 88,080,384
constexpr double kFullSavedRank1 = 44040192.0;
constexpr double kWorkingSet = 44826624.0;
constexpr double kFullExtraS = 4 * 8858370048.0 / 1.0e15;  // 3.5433480192e-5 s

struct Evaluated {
  SampleInputs sample;  // what the item and its ranks point to
  std::array<uint32_t, SampleInputs::kRecomputeCounts> counts{};
  std::array<nds_recompute_rank, SampleInputs::kRecomputeRanks> ranks{};
  nds_recompute_item item{};
};

// Compiles the strategy on the sample, evaluates one item (rank 1's budget
// set to `rank1_budget`) through the C table and releases.
void evaluate(const nds_recompute_v1& table, Evaluated& e, double rank1_budget = 3.8e9) {
  const SampleInputs& sample = e.sample;
  nds_recompute_compiled* compiled = nullptr;
  REQUIRE(table.compile(&sample.compile_input(), &compiled) == nullptr);
  REQUIRE(compiled != nullptr);
  e.ranks = sample.recompute_ranks(e.counts.data());
  e.ranks[1].budget_bytes = rank1_budget;
  e.item.struct_size = sizeof(nds_recompute_item);
  e.item.candidate = &sample.candidate();
  e.item.ranks = e.ranks.data();
  e.item.rank_elem_size = sizeof(nds_recompute_rank);
  e.item.rank_count = static_cast<uint32_t>(e.ranks.size());
  table.evaluate(compiled, &e.item, 1, sizeof(nds_recompute_item));
  if (table.release != nullptr) table.release(compiled);
}

std::vector<uint32_t> counts_of(const Evaluated& e, uint32_t rank) {
  const uint32_t* c = e.counts.data() + rank * NDS_LAYER_OPTION_COUNT_V1;
  return {c[NDS_LAYER_KEEP], c[NDS_LAYER_SELECTIVE], c[NDS_LAYER_FULL], c[NDS_LAYER_OFFLOAD]};
}

}  // namespace

TEST_CASE("An SDK recompute strategy is offered, compiled and evaluated through the C table") {
  auto plugin =
      load_plugin(fixture("recompute/sdk_recompute"), std::make_shared<const PluginOptions>());
  CHECK(plugin->interfaces.ids() == std::vector<std::string>{NDS_RECOMPUTE_INTERFACE_ID});
  REQUIRE(plugin->interfaces.recompute != nullptr);
  const nds_recompute_v1& table = *plugin->interfaces.recompute;
  CHECK(std::string(table.strategy) == "fixture-full-first");
  CHECK(table.struct_size == sizeof(nds_recompute_v1));
  CHECK(table.flags == 0);

  Evaluated e;
  evaluate(table, e);
  CHECK(e.item.code == NDS_OK);
  CHECK(e.item.reason == nullptr);
  // Rank 0: 4.0e9 + the working set 44,826,624 = 4,044,826,624, less
  // 88,080,384 per full layer: 3,956,746,240, 3,868,665,856, then
  // 3,780,585,472 <= 3.8e9 at three layers.
  CHECK(counts_of(e, 0) == std::vector<uint32_t>{3, 0, 3, 0});
  CHECK(e.ranks[0].code == NDS_OK);
  CHECK(e.ranks[0].peak_bytes == 4.0e9 + kWorkingSet - 3 * kFullSavedRank0);
  CHECK(e.ranks[0].peak_bytes == 3780585472.0);
  CHECK(e.ranks[0].extra_s == Approx(3 * kFullExtraS).epsilon(1e-12));
  CHECK(e.ranks[0].extra_s == Approx(1.06300440576e-4).epsilon(1e-12));
  // Rank 1 fits with every layer kept: no working set, no extra time.
  CHECK(counts_of(e, 1) == std::vector<uint32_t>{6, 0, 0, 0});
  CHECK(e.ranks[1].code == NDS_OK);
  CHECK(e.ranks[1].peak_bytes == 3.0e9);
  CHECK(e.ranks[1].extra_s == 0);
}

TEST_CASE("An SDK recompute strategy's refusal reaches the host with its reason") {
  auto plugin =
      load_plugin(fixture("recompute/sdk_recompute"), std::make_shared<const PluginOptions>());
  Evaluated e;
  // Rank 1 at a budget of 1e9: all six layers full leave 3.0e9 + 44,826,624 -
  // 6 · 44,040,192 = 2,780,585,472 bytes, still over: infeasible.
  evaluate(*plugin->interfaces.recompute, e, 1.0e9);
  CHECK(e.item.code == NDS_INFEASIBLE);
  REQUIRE(e.item.reason != nullptr);
  CHECK(std::string(e.item.reason) == "a rank does not fit with its first group fully recomputed");
  CHECK(e.ranks[0].code == NDS_OK);
  CHECK(e.ranks[1].code == NDS_INFEASIBLE);
  CHECK(counts_of(e, 1) == std::vector<uint32_t>{0, 0, 6, 0});
  CHECK(e.ranks[1].peak_bytes == 3.0e9 + kWorkingSet - 6 * kFullSavedRank1);
  CHECK(e.ranks[1].peak_bytes == 2780585472.0);
}

TEST_CASE("A plain-C recompute strategy is offered and evaluated through its table") {
  auto plugin =
      load_plugin(fixture("recompute/c_recompute"), std::make_shared<const PluginOptions>());
  CHECK(plugin->interfaces.ids() == std::vector<std::string>{NDS_RECOMPUTE_INTERFACE_ID});
  REQUIRE(plugin->interfaces.recompute != nullptr);
  CHECK(std::string(plugin->interfaces.recompute->strategy) == "fixture-keep-all");
  Evaluated e;
  evaluate(*plugin->interfaces.recompute, e);
  // Every layer kept: rank 0's 4.0e9 exceeds 3.8e9, rank 1's 3.0e9 does not.
  CHECK(counts_of(e, 0) == std::vector<uint32_t>{6, 0, 0, 0});
  CHECK(counts_of(e, 1) == std::vector<uint32_t>{6, 0, 0, 0});
  CHECK(e.ranks[0].code == NDS_INFEASIBLE);
  CHECK(e.ranks[1].code == NDS_OK);
  CHECK(e.item.code == NDS_INFEASIBLE);
  CHECK(e.item.reason != nullptr);
}

TEST_CASE(
    "The recompute conformance check passes a sound strategy and catches counts that do not sum") {
  const auto run = [](const std::string& name, std::vector<CheckEvent>& failures) {
    return run_conformance_checks(fixture(name), std::make_shared<const PluginOptions>(),
                                  [&](const CheckEvent& event) {
                                    if (event.kind == CheckEvent::Kind::fail)
                                      failures.push_back(event);
                                  });
  };
  for (const char* sound : {"recompute/sdk_recompute", "recompute/c_recompute"}) {
    std::vector<CheckEvent> failures;
    INFO(sound);
    CHECK(run(sound, failures));
    CHECK(failures.empty());
  }
  std::vector<CheckEvent> failures;
  CHECK_FALSE(run("recompute/c_recompute_bad_sum", failures));
  REQUIRE(failures.size() == 1);
  CHECK(failures[0].check == "recompute.evaluate");
  CHECK(failures[0].error_id == "E-PLUGIN-CONFORMANCE");
  // Rank 0's group of six layers: 5 kept and nothing else.
  CHECK(failures[0].detail ==
        "rank 0 group 0: counts 5 + 0 + 0 + 0 = 5 (must sum to its 6 layers)");
}
