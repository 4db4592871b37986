// SPDX-License-Identifier: Apache-2.0
// test_moe_routing.cpp: the routing an estimate assumes (--routing) and how
// MoE layers reach their experts: the most loaded EP rank's share derived by
// hand, priced in time and memory by the one rule (sdk::routed_rank_load),
// the dispatchers and routers the parsers read, and the bad inputs.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <cmath>

#include "core/input/parse_config.hpp"
#include "core/model/routing.hpp"
#include "core/price/time/collectives.hpp"
#include "core/price/time/moe_dispatch.hpp"
#include "core/price/time/time_model.hpp"
#include "core/strategy/placement.hpp"
#include "core/strategy/strategy.hpp"
#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/shipped.hpp"

using namespace ndsearch;
using nlohmann::json;

namespace {

const std::string kFixtures = NDS_TEST_FIXTURES_SOURCE;
const std::string kRouting = kFixtures + "/configs/megatron/moe_routing.sh";
const std::string kPadded = kFixtures + "/configs/megatron/moe_routing_padded.sh";
const std::string kSkew = kFixtures + "/routing/skew8.txt";

Model parsed(const std::string& config, const std::optional<std::string>& routing = {}) {
  ParseOptions options;
  options.overrides.routing = routing;
  return parse_config(test::shipped_plugins(), config, options);
}

// The step on 8 H100 at ep 4 (dp 8, 8 micro-batches of one sequence), with
// no trainer overhead: what the layers' kernels and exchanges take.
TimeEstimate step(const Model& m) {
  const nds_strategy s = resolve_strategy(parse_strategy("dp=8,ep=4,mbs=1"), m, 8, 64);
  const Placement p = place_layers(s, m, false);
  const CompiledModel compiled(m, test::shipped_device("nvidia-h100-sxm"),
                               {TrainerOverheads{}, {}, {}});
  return TimeModel(compiled).estimate(p.candidate(), 8);
}

json eval_json(const std::string& config, const std::string& flags) {
  const auto r = test::run_command("env -u NDS_PLUGIN_PATH " + std::string(NDS_TEST_CLI) +
                                   " eval " + config + " -A nvidia-h100-sxm -d 8 " +
                                   "--strategy dp=8,ep=4,mbs=1 --format json " + flags);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

test::CommandResult model_with(const std::string& routing) {
  return test::run_command("env -u NDS_PLUGIN_PATH " + std::string(NDS_TEST_CLI) + " model " +
                           kRouting + " --routing '" + routing + "'");
}

}  // namespace

TEST_CASE("The most loaded EP rank's share of a histogram, by hand") {
  // Tokens 4, 2, 1, 1 over 4 experts, each rank a contiguous run: at ep 2
  // rank 0 holds 4 + 2 = 6 of 8, an even share being 4: 1.5x; at ep 4 the
  // hottest expert alone, 4 of an even 2: 2x; at ep 1 all of it: 1x.
  const std::vector<double> tokens{4, 2, 1, 1};
  CHECK(hottest_rank_load(tokens, 1) == 1.0);
  CHECK(hottest_rank_load(tokens, 2) == 1.5);
  CHECK(hottest_rank_load(tokens, 4) == 2.0);
}

TEST_CASE("A Zipf skew's hottest rank where placement cannot matter, by hand") {
  // One expert a rank (ep = E): the hottest rank is the hottest expert
  // wherever it sits. Zipf 1 over 4 experts: loads 1, 1/2, 1/3, 1/4, total
  // 25/12; an even share 25/48: the first holds 48/25 = 1.92x.
  const std::vector<double> zipf1{1, 0.5, 1.0 / 3, 0.25};
  CHECK(expected_hottest_rank_load(zipf1, 4) == Approx(1.92));
  // Exponent 0 is balanced at every ep.
  const std::vector<double> flat(8, 1.0);
  for (int64_t ep : {1, 2, 4, 8}) CHECK(expected_hottest_rank_load(flat, ep) == Approx(1.0));
  // Random placements spread the hot experts: at ep 2 of the four Zipf-1
  // experts, a rank holds the hottest with one of the others, never more
  // than the sorted worst case (1 + 1/2 of 25/12 over 2: 1.44) nor less than
  // the best split (1 + 1/4 against 1/2 + 1/3: 1.2).
  const double ep2 = expected_hottest_rank_load(zipf1, 2);
  CHECK(ep2 > 1.2);
  CHECK(ep2 < 1.44);
}

TEST_CASE("An imbalanced routing prices the hottest rank: as an expert padded to its share") {
  // skew8.txt puts 1.6x an even share on rank 0 of 4 (its header derives
  // it). The padded fixture gives every expert exactly 1.6x its share under
  // balanced routing, so the one rule (sdk::routed_rank_load) prices both
  // alike, in time (with no trainer overhead: the padded layer pays no host
  // cost) and in memory, and both above balanced routing.
  const Model skewed = parsed(kRouting, kSkew);
  REQUIRE(skewed.expert_rank_load.size() == 9);
  CHECK(skewed.expert_rank_load[4] == Approx(1.6));
  CHECK(skewed.expert_rank_load[2] == Approx(1.2));  // 6 of 10 over an even 5
  CHECK(skewed.expert_rank_load[8] == Approx(2.4));  // 3 of 10 over an even 1.25
  const TimeEstimate skew = step(skewed), padded = step(parsed(kPadded)),
                     balanced = step(parsed(kRouting));
  CHECK(skew.step_s == Approx(padded.step_s).epsilon(1e-9));
  CHECK(skew.step_s > balanced.step_s);
  // Every overlap is off: the exposed all-to-alls, by hand. Per layer and
  // micro-batch a device sends 4096 tokens x top-2 copies of 1024 x 2
  // bytes; rank 0 receives 1.6x that; dispatch and combine, forward and
  // backward: 4 all-to-alls over 4 ranks; 4 layers, 8 micro-batches.
  const double received = 4096 * 2 * 1024 * 2.0 * 1.6;
  const Device& h100 = test::shipped_device("nvidia-h100-sxm");
  CHECK(skew.parts.ep ==
        Approx(8 * 4 * 4 * collective_seconds(h100, Collective::all_to_all, 4, 1, received)));
  // The memory peak moves with it: the hottest rank holds 1.6x the routed
  // activations.
  const json s = eval_json(kRouting, "--routing " + kSkew), p = eval_json(kPadded, ""),
             b = eval_json(kRouting, "");
  const double act_s = s["memory"]["stages"][0]["activations_bytes"].get<double>();
  CHECK(act_s == Approx(p["memory"]["stages"][0]["activations_bytes"].get<double>()));
  CHECK(act_s > b["memory"]["stages"][0]["activations_bytes"].get<double>());
  CHECK(s["memory"]["stages"][0]["peak_bytes"].get<double>() >
        b["memory"]["stages"][0]["peak_bytes"].get<double>());
  // The output says which routing it assumed.
  bool said = false;
  for (const json& a : s["assumptions"])
    said = said || a.get<std::string>().find("skew8.txt") != std::string::npos;
  CHECK(said);
}

TEST_CASE("A padded expert layer pays no host cost, a dropless one pays it per local expert") {
  // The shipped H100 fit's cost per local expert, per MoE layer and
  // micro-batch, on the dropless layers only: 4 layers x 2 local experts
  // (8 / ep 4) x 8 micro-batches.
  const Model dropless = parsed(kRouting), padded = parsed(kPadded);
  const nds_strategy s = resolve_strategy(parse_strategy("dp=8,ep=4,mbs=1"), dropless, 8, 64);
  const Device& h100 = test::shipped_device("nvidia-h100-sxm");
  TrainerOverheads host;
  host.moe_expert_s = 1e-3;
  const CompiledModel dropless_host(dropless, h100, {host, {}, {}}),
      dropless_none(dropless, h100, {TrainerOverheads{}, {}, {}});
  const TimeModel with_host(dropless_host), without(dropless_none);
  const Placement p = place_layers(s, dropless, false);
  CHECK(with_host.estimate(p.candidate(), 8).parts.overhead -
            without.estimate(p.candidate(), 8).parts.overhead ==
        Approx(4 * 2 * 8 * 1e-3));
  const CompiledModel padded_with(padded, h100, {host, {}, {}}),
      padded_without(padded, h100, {TrainerOverheads{}, {}, {}});
  const TimeModel padded_host(padded_with), padded_none(padded_without);
  const Placement q = place_layers(s, padded, false);
  CHECK(padded_host.estimate(q.candidate(), 8).parts.overhead ==
        Approx(padded_none.estimate(q.candidate(), 8).parts.overhead));
}

TEST_CASE("DeepEP sends a token once per other node its experts sit on, by hand") {
  nds_layer_block l{};
  l.experts_per_token = 8;
  // DeepSeek-V3 on 8 nodes, any experts: 8 (1 - (7/8)^8) nodes hit, 7/8 of
  // them another's: 4.595.
  CHECK(remote_nodes_per_token(l, 8) == Approx(8 * (1 - std::pow(7.0 / 8, 8)) * 7 / 8));
  // Its 8 groups of 32 experts, one a node, at most 4 a token: a node is
  // missed when all 4 groups fall on the 7 others, C(7,4)/C(8,4) = 35/70:
  // 4 nodes hit, 3.5 of them another's.
  l.router_groups = 8;
  l.router_group_topk = 4;
  CHECK(remote_nodes_per_token(l, 8) == Approx(3.5));
  CHECK(remote_nodes_per_token(l, 1) == 0);
}

TEST_CASE("Megatron's dispatcher, padding, router groups and shared-expert overlap are read") {
  const json padded =
      json::parse(test::run_command("env -u NDS_PLUGIN_PATH " + std::string(NDS_TEST_CLI) +
                                    " model " + kPadded + " --format json")
                      .out);
  CHECK(padded["moe_dispatcher"] == "alltoall");
  CHECK(padded["blocks"][0]["moe_padded"] == true);
  CHECK(padded["blocks"][0]["capacity_factor"] == 1.6);
  const json deepep = json::parse(
      test::run_command("env -u NDS_PLUGIN_PATH " + std::string(NDS_TEST_CLI) + " model " +
                        kFixtures + "/configs/megatron/moe_deepep.sh --format json")
          .out);
  CHECK(deepep["moe_dispatcher"] == "node_dedup");
  CHECK(deepep["blocks"][0]["router_groups"] == 4);
  CHECK(deepep["blocks"][0]["router_group_topk"] == 2);
  CHECK(deepep["warnings"].empty());
  // --moe-shared-expert-overlap hides the exchange behind the same
  // micro-batch's shared experts, not another micro-batch's compute.
  const json dsv3 =
      json::parse(test::run_command(
                      "env -u NDS_PLUGIN_PATH " + std::string(NDS_TEST_CLI) + " model " +
                      std::string(NDS_TEST_SOURCE_DIR) +
                      "/validation/configs/megatron-bridge-2511/deepseek-v3-b200.sh --format json")
                      .out);
  CHECK(dsv3["overlap"]["moe_shared"] == true);
  CHECK(dsv3["overlap"]["moe_a2a"] == false);
  CHECK(dsv3["blocks"][1]["router_groups"] == 8);
  CHECK(dsv3["blocks"][1]["router_group_topk"] == 4);
}

TEST_CASE(
    "A routing that does not fit is E-ROUTING naming the flag or file, the value and what is "
    "expected") {
  struct Bad {
    std::string routing, expect;
  };
  const std::vector<Bad> bad = {
      {kFixtures + "/routing/seven.txt", "7 token counts, but the model has 8 routed experts"},
      {kFixtures + "/routing/negative.txt", "negative.txt:2: '-2' is not a token count"},
      {kFixtures + "/routing/nan.txt", "nan.txt:1: 'nan' is not a token count"},
      {kFixtures + "/routing/zeros.txt", "no expert got a token (8 counts, all 0)"},
      {"zipf:4", "'4' is not a Zipf exponent; give zipf:S with S a number from 0 (balanced) to 3"},
      {"zipf:-1", "is not a Zipf exponent"},
      {"zipf:x", "is not a Zipf exponent"},
      {"zipf", "give balanced, zipf:S"},
      {kFixtures + "/routing/missing.txt", "missing.txt"},
  };
  for (const Bad& b : bad) {
    INFO(b.routing);
    const auto r = model_with(b.routing);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("[E-ROUTING]"));
    CHECK_THAT(r.err, Catch::Contains(b.expect));
  }
  CHECK_THAT(model_with("zipf:9").err, Catch::Contains("--routing zipf:9"));
  CHECK(model_with("balanced").exit_code == 0);
  CHECK(model_with("zipf:1.2").exit_code == 0);
}
