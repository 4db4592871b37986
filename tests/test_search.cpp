// SPDX-License-Identifier: Apache-2.0
// test_search.cpp: `ndsearch search` end to end on configs we wrote: counts
// by reason against a hand enumeration, the same bytes whatever -j, --only,
// the batch-unreachable and nothing-fits paths, the JSON keys, and the Pareto
// set on a hand-checked case.
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/search/search.hpp"
#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/unwrapped.hpp"

using ndsearch::PricedCandidate;
using ndsearch::test::cli;
using ndsearch::test::run_command;
using nlohmann::json;

namespace {
std::string hf(const std::string& name) {
  return std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/" + name + ".json";
}
std::string example(const std::string& path) {
  return std::string(NDS_TEST_EXAMPLES) + "/" + path;
}

struct Search {
  int exit_code;
  json j;
  std::string out, err;
};
Search search(const std::string& config, const std::string& args, bool as_json = true) {
  auto r = run_command("env -u NDS_PLUGIN_PATH " + cli() + " search " + config +
                       (as_json ? " --format json " : " ") + args);
  INFO(r.out << r.err);
  return {r.exit_code, as_json && r.exit_code != 2 ? json::parse(r.out) : json(), r.out, r.err};
}
}  // namespace

TEST_CASE("search counts every candidate and each refusal as a hand enumeration does") {
  // tiny-4-layers: 4 layers, 2 KV heads; 8 devices, global batch 4, -l "TP PP VPP".
  // By hand (reference §3.4 bounds: tp | 8 and tp <= 2 KV heads; pp | 8/tp,
  // pp <= 4 layers; vpp 2..min(4, layers/pp) when pp > 1):
  //   tp=1: pp=1 (dp 8: 8·1·mbn cannot be 4 -> global-batch), pp=2 (dp 4, mbn 1:
  //         vpp 1 ok, vpp 2 needs mbn % pp == 0 -> vpp), pp=4 (dp 2, vpp 1 ok)
  //   tp=2: pp=1 (dp 4, mbn 1), pp=2 (dp 2, mbn 2: vpp 1 and 2 ok), pp=4 (dp 1)
  // = 8 tested, 1 global-batch, 1 vpp, 6 priced; the tiny model fits all.
  Search s = search(hf("tiny-4-layers"),
                    "-A nvidia-h100-sxm -d 8 -b 4 --seq-len 1024 -l \"TP PP VPP\" -j 1 -t 100");
  REQUIRE(s.exit_code == 0);
  const json& c = s.j["counts"];
  CHECK(c["tested"] == 8);
  CHECK(c["refused"] == json({{"global-batch", 1}, {"vpp", 1}}));
  CHECK(c["priced"] == 6);
  CHECK(c["fit"] == 6);
  CHECK(c["dropped"] == 0);
  // The bounds the enumeration used, as the config states them (one source
  // for the table's "bounds" line and the JSON): 2 KV heads, 4 layers, dense.
  CHECK(s.j["bounds"] == json({{"kv_heads", 2},
                               {"layers", 4},
                               {"global_batch", 4},
                               {"routed_experts", 0},
                               {"max_ep", 0},  // no fast-tuner setup bounds ep
                               {"max_vpp", 4},
                               {"pipeline_bound", 8}}));
  REQUIRE(s.j["ranking"].size() == 6);
  for (size_t i = 1; i < s.j["ranking"].size(); ++i)
    CHECK(s.j["ranking"][i - 1]["time"]["step_s"].get<double>() <=
          s.j["ranking"][i]["time"]["step_s"].get<double>());
}

TEST_CASE(
    "search -l SCHEDULE prices each schedule with each vpp it runs with, and --schedule restricts "
    "them") {
  // tiny-4-layers, 8 devices, global batch 8, -l "PP VPP SCHEDULE" (tp 1):
  //   pp=1 (dp 8, mbn 1): vpp 1 -> 1f1b, gpipe
  //   pp=2 (dp 4, mbn 2): vpp 1 -> 1f1b, gpipe; vpp 2 -> interleaved, zb-v,
  //         dualpipe and dualpipe-v, the last two refused (mbn 2 < 2·pp)
  //   pp=4 (dp 2, mbn 4): vpp 1 only (4 layers / pp 4) -> 1f1b, gpipe
  // = 10 tested, 2 refused by the DualPipe check, 8 priced.
  Search s =
      search(hf("tiny-4-layers"),
             "-A nvidia-h100-sxm -d 8 -b 8 --seq-len 1024 -l \"PP VPP SCHEDULE\" -j 1 -t 100");
  REQUIRE(s.exit_code == 0);
  CHECK(s.j["counts"]["tested"] == 10);
  CHECK(s.j["counts"]["refused"] == json({{"dualpipe", 2}}));
  CHECK(s.j["counts"]["priced"] == 8);
  for (const json& row : s.j["ranking"]) {
    const std::string schedule = row["strategy"]["schedule"];
    CHECK(row["strategy"]["vpp"] == (schedule == "1f1b" || schedule == "gpipe" ? 1 : 2));
  }
  // --schedule names them (comma or space separated); only those are priced.
  Search some = search(hf("tiny-4-layers"),
                       "-A nvidia-h100-sxm -d 8 -b 16 --seq-len 1024 -l \"PP VPP\" --schedule "
                       "dualpipe,1f1b -j 1 -t 100");
  REQUIRE(some.exit_code == 0);
  // b 16: pp=1 (mbn 2) 1f1b; pp=2 (mbn 4) 1f1b and dualpipe; pp=4 (mbn 8) 1f1b.
  CHECK(some.j["counts"]["tested"] == 4);
  std::set<std::string> seen;
  for (const json& row : some.j["ranking"])
    seen.insert(row["strategy"]["schedule"].get<std::string>());
  CHECK(seen == std::set<std::string>{"1f1b", "dualpipe"});
  Search wrong =
      search(hf("tiny-4-layers"), "-A nvidia-h100-sxm -d 8 -b 8 --seq-len 1024 --schedule 2f2b");
  CHECK(wrong.exit_code == 2);
  CHECK_THAT(wrong.err, Catch::Contains("(--schedule 2f2b): not a schedule"));
  Search both =
      search(hf("tiny-4-layers"),
             "-A nvidia-h100-sxm -d 8 -b 8 --seq-len 1024 --schedule zb-v --only schedule=1f1b");
  CHECK(both.exit_code == 2);
  CHECK_THAT(both.err, Catch::Contains("both restrict the schedule"));
}

TEST_CASE(
    "search --balance-layers gives a heavy output head's stage fewer layers and a shorter step") {
  // heavy-head: 8 layers of about 16.8 M parameters (4·1024² attention,
  // 3·1024·4096 MLP) and an untied 131072 x 1024 output head, 134 M: the head
  // is some 8 layers' GEMMs. Over pp 4 the even split (2 a stage) leaves the
  // last stage at about 2 + 8 layers' work; one layer moved off it to the
  // fastest stage (rank 1: rank 0 also gathers the embedding) shortens the
  // slowest stage, and so the step; a second move would make rank 1 the slowest.
  const std::string args = "-A nvidia-h100-sxm -d 4 -b 16 --seq-len 2048 -l PP --only pp=4 -j 1";
  Search even = search(hf("heavy-head"), args);
  Search balanced = search(hf("heavy-head"), args + " --balance-layers");
  REQUIRE(even.exit_code == 0);
  REQUIRE(balanced.exit_code == 0);
  const json& e = even.j["ranking"][0];
  const json& b = balanced.j["ranking"][0];
  CHECK_FALSE(e.contains("stage_layers"));  // nothing moved: the default split
  CHECK(b["stage_layers"] == json({2, 3, 2, 1}));
  CHECK(b["stage_offsets"] == json({0, 1, 0, -1}));  // against 8 // 4 = 2, the reference's offsets
  CHECK(b["time"]["step_s"].get<double>() < e["time"]["step_s"].get<double>());
  // The stages the JSON lists are priced on that split.
  for (size_t r = 0; r < 4; ++r) CHECK(b["memory"]["stages"][r]["layers"] == b["stage_layers"][r]);
  // The table shows the split under its row.
  Search table = search(hf("heavy-head"), args + " --balance-layers", false);
  CHECK_THAT(table.out, Catch::Contains("layers per stage: 2 3 2 1"));
}

TEST_CASE("search --balance-layers moves interleaved chunks' layers too, per virtual stage") {
  // heavy-head over pp 2, vpp 2: 2 layers a chunk; virtual stages chunk·pp +
  // rank, so rank 1 holds virtual stages 1 and 3 (with the head, some 8
  // layers' work) and paces the pipeline. Each move takes a layer from rank
  // 1's fullest chunk (the first on a tie) to rank 0's emptiest: 3 1 2 2, then
  // 3 1 3 1; rank 1's chunks then hold one layer each and give no more.
  const std::string args =
      "-A nvidia-h100-sxm -d 4 -b 16 --seq-len 2048 -l \"PP VPP\" --only \"pp=2 vpp=2\" -j 1";
  Search even = search(hf("heavy-head"), args);
  Search balanced = search(hf("heavy-head"), args + " --balance-layers");
  REQUIRE(even.exit_code == 0);
  REQUIRE(balanced.exit_code == 0);
  const json& b = balanced.j["ranking"][0];
  CHECK(b["stage_layers"] == json({3, 1, 3, 1}));
  CHECK(b["stage_offsets"] ==
        json({1, -1, 1, -1}));  // against 8 // (2·2) = 2, the reference's 2-D form
  CHECK(b["time"]["step_s"].get<double>() < even.j["ranking"][0]["time"]["step_s"].get<double>());
  CHECK(b["memory"]["stages"][0]["layers"] == 6);
  CHECK(b["memory"]["stages"][1]["layers"] == 2);
}

TEST_CASE("search writes the same JSON whatever -j") {
  const std::string args =
      "-A nvidia-h100-sxm -d 64 -b 64 --seq-len 8192 -t 50 --only recompute=none,full";
  Search one = search(example("llama-3.1-70b/config.json"), args + " -j 1");
  Search two = search(example("llama-3.1-70b/config.json"), args + " -j 2");
  Search three = search(example("llama-3.1-70b/config.json"), args + " -j 3");
  for (Search* s : {&one, &two, &three}) {
    REQUIRE(s->exit_code == 0);
    s->j.erase("elapsed_s");
    s->j.erase("candidates_per_s");
  }
  CHECK(one.j.dump() == two.j.dump());
  CHECK(one.j.dump() == three.j.dump());
  CHECK(one.j["counts"]["tested"].get<int>() > 1000);
}

TEST_CASE("search --only restricts a dimension to the listed values") {
  // tp in {1, 2}, pp fixed to 2: two candidates (dp 4 and 2).
  Search s = search(hf("tiny-4-layers"),
                    "-A nvidia-h100-sxm -d 8 -b 8 --seq-len 1024 -l \"TP PP\" --only pp=2");
  REQUIRE(s.exit_code == 0);
  CHECK(s.j["counts"]["tested"] == 2);
  for (const json& r : s.j["ranking"]) CHECK(r["strategy"]["pp"] == 2);
  Search bad = search(hf("tiny-4-layers"), "-A nvidia-h100-sxm -d 8 -b 8 --only pp=two");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Contains("--only pp=two") && Catch::Contains("whole number"));
  Search unknown = search(hf("tiny-4-layers"), "-A nvidia-h100-sxm -d 8 -b 8 -l \"TP QQ\"");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("-l QQ"));
}

TEST_CASE("A global batch no candidate can make stops before pricing") {
  // --only tp=1, pp=1,2 on 8 devices leaves dp 8 and 4; neither divides 3.
  Search s =
      search(hf("tiny-4-layers"),
             "-A nvidia-h100-sxm -d 8 -b 3 --seq-len 1024 -l \"TP PP\" --only tp=1 --only pp=1,2");
  CHECK(s.exit_code == 2);
  CHECK_THAT(s.err, Catch::Contains("E-SEARCH-BATCH") && Catch::Contains("4, 8") &&
                        Catch::Contains("global batch 3"));
}

TEST_CASE("Nothing fits: exit 3 with the closest misses") {
  // Llama-3.1-70B on 8 devices in 20 GiB: its bf16 weights are 131.4 GiB, 16.4
  // GiB a device at the most sharding (under the 18 GiB budget, so no
  // E-BUDGET), but TP x PP alone leaves gradients and Adam unsharded too.
  Search s = search(example("llama-3.1-70b/config.json"),
                    "-A nvidia-h100-sxm -d 8 -b 8 --seq-len 8192 -M 20GB -l \"TP PP\"");
  CHECK(s.exit_code == 3);
  CHECK(s.j["counts"]["fit"] == 0);
  CHECK(s.j["ranking"].empty());
  REQUIRE(s.j["closest_misses"].size() == 5);
  const double budget = s.j["budget_bytes"].get<double>();
  CHECK(budget == 18.0 * 1024 * 1024 * 1024);  // 20 GiB less H100's 2 GiB reserve
  for (const json& m : s.j["closest_misses"])
    CHECK(m["miss_bytes"].get<double>() == Approx(m["peak_bytes"].get<double>() - budget));
  CHECK_THAT(s.err, Catch::Contains("E-SEARCH-NO-FIT"));
}

TEST_CASE("The bounds an MoE search reports are the config's, and the table prints the same") {
  // Mixtral-8x7B's config.json: 8 KV heads, 32 layers, 8 routed experts
  // (num_local_experts). The machine allows pp up to its 8 devices per node.
  Search s = search(hf("mixtral-8x7b"),
                    "-A nvidia-h100-sxm -d 16 -b 32 --seq-len 1024 -l \"TP EP ZERO\" -t 1");
  REQUIRE(s.exit_code == 0);
  CHECK(s.j["bounds"] == json({{"kv_heads", 8},
                               {"layers", 32},
                               {"global_batch", 32},
                               {"routed_experts", 8},
                               {"max_ep", 0},  // no fast-tuner setup bounds ep
                               {"max_vpp", 4},
                               {"pipeline_bound", 8}}));
  Search table =
      search(hf("mixtral-8x7b"),
             "-A nvidia-h100-sxm -d 16 -b 32 --seq-len 1024 -l \"TP EP ZERO\" -t 1", false);
  CHECK_THAT(
      ndsearch::test::unwrapped(table.out),
      Catch::Contains("tp <= 8 KV heads; pp <= min(8 the machine allows, 32 layers, batch 32); "
                      "ep <= 8 routed experts; vpp <= min(4, pp, layers / pp)"));
}

TEST_CASE("search JSON carries the documented keys") {
  Search s = search(hf("tiny-4-layers"), "-A nvidia-h100-sxm -d 8 -b 8 --seq-len 1024 -t 2");
  REQUIRE(s.exit_code == 0);
  for (const char* key : {"schema_version", "model", "device", "devices", "global_batch",
                          "budget_bytes", "assumptions", "bounds", "counts", "elapsed_s",
                          "candidates_per_s", "ranking", "pareto", "closest_misses"})
    CHECK(s.j.contains(key));
  for (const char* key : {"tested", "refused", "priced", "fit", "dropped"})
    CHECK(s.j["counts"].contains(key));
  const json& r = s.j["ranking"][0];
  for (const char* key :
       {"rank", "strategy", "memory", "time", "mfu", "mfu_causal", "hfu", "tokens_per_s"})
    CHECK(r.contains(key));
  CHECK(r["rank"] == 1);
  CHECK(r["time"]["parts"].size() == 11);  // kTimeParts, overhead the last
  CHECK(r["time"]["hidden"].size() == 5);  // tp, cp, ep, dp, pp
  // An HF config states no trainer: the assumptions say what was taken.
  CHECK_THAT(s.j["assumptions"][0].get<std::string>(), Catch::Contains("well-tuned Megatron-Core"));
  // One stage per pipeline rank (DESIGN §8.8), the largest the peak.
  REQUIRE(r["memory"]["stages"].size() == static_cast<size_t>(r["strategy"]["pp"].get<int>()));
  int64_t largest = 0;
  for (const json& stage : r["memory"]["stages"])
    largest = std::max(largest, stage["peak_bytes"].get<int64_t>());
  CHECK(static_cast<double>(largest) == Approx(r["memory"]["peak_bytes"].get<double>()).margin(6));
  CHECK(s.j["ranking"].size() == 2);
}

TEST_CASE("The Pareto set keeps what nothing beats on both time and memory") {
  // (step s, peak bytes) by hand: E (0.5, 20) is fastest; A (1, 10) is slower but
  // smaller; B (2, 5) smaller still; C (2, 8) loses to B on memory at the same
  // time; D (3, 5) loses to B on time at the same memory; F is B's twin,
  // enumerated later. Front: E, A, B.
  auto make = [](uint64_t index, double step, double peak) {
    PricedCandidate c;
    c.index = index;
    c.time.step_s = step;
    c.peak_bytes = peak;
    return c;
  };
  const std::vector<PricedCandidate> all = {make(0, 1, 10), make(1, 2, 5),    make(2, 2, 8),
                                            make(3, 3, 5),  make(4, 0.5, 20), make(5, 2, 5)};
  const std::vector<PricedCandidate> front = ndsearch::pareto_front(all);
  REQUIRE(front.size() == 3);
  CHECK(front[0].index == 4);
  CHECK(front[1].index == 0);
  CHECK(front[2].index == 1);
}

TEST_CASE("The search's Pareto set is the front of its fitting candidates") {
  Search s = search(example("llama-3.1-70b/config.json"),
                    "-A nvidia-h100-sxm -d 64 -b 64 --seq-len 8192 -l \"TP PP RECOMPUTE\"");
  REQUIRE(s.exit_code == 0);
  const json& p = s.j["pareto"];
  REQUIRE(p.size() >= 2);
  CHECK(p[0]["time"]["step_s"] == s.j["ranking"][0]["time"]["step_s"]);  // the fastest is on it
  for (size_t i = 1; i < p.size(); ++i) {  // each slower one needs less memory
    CHECK(p[i]["time"]["step_s"].get<double>() >= p[i - 1]["time"]["step_s"].get<double>());
    CHECK(p[i]["memory"]["peak_bytes"].get<double>() <
          p[i - 1]["memory"]["peak_bytes"].get<double>());
  }
}

TEST_CASE("Each closest miss says which single change makes it fit, priced as eval prices it") {
  // Llama-3.1-70B on 64 H100 in 40 GiB (38 usable), tp 8, pp searched, no
  // recompute: nothing fits. The closest (pp 8, dp 1) fits with full
  // recompute; ZeRO-3 is no fix with dp·cp = 1.
  const std::string config = example("llama-3.1-70b/config.json");
  Search s = search(
      config, "-A nvidia-h100-sxm -d 64 -b 64 --seq-len 8192 -M 40GB -l \"TP PP\" --only tp=8");
  REQUIRE(s.exit_code == 3);
  const json& closest = s.j["closest_misses"][0];
  CHECK(closest["strategy"]["pp"] == 8);
  REQUIRE(closest["fits_with"].size() >= 1);
  const std::string fix = closest["fits_with"][0].get<std::string>();
  CHECK_THAT(fix, Catch::StartsWith("recompute=full: "));
  auto r = run_command("env -u NDS_PLUGIN_PATH " + cli() + " eval " + config +
                       " -A nvidia-h100-sxm -d 64 -b 64 --seq-len 8192 -M 40GB --format json "
                       "--strategy tp=8,pp=8,dp=1,mbs=1,recompute=full");
  REQUIRE(r.exit_code == 0);
  const json e = json::parse(r.out);
  CHECK(e["memory"]["fits"] == true);
  CHECK(fix == fmt::format("recompute=full: {:.2f} GiB",
                           e["memory"]["peak_bytes"].get<double>() / (1024.0 * 1024 * 1024)));
  for (const json& m : s.j["closest_misses"])
    for (const json& f : m["fits_with"])
      CHECK_THAT(f.get<std::string>(), !Catch::StartsWith("zero=3") || !Catch::Contains("op=1)"));
  CHECK_THAT(s.err, Catch::Contains("fits with recompute=full"));
}

namespace {
std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::stringstream cells_in(line);
    for (std::string cell; std::getline(cells_in, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}
size_t column(const std::vector<std::string>& header, const std::string& name) {
  const auto it = std::find(header.begin(), header.end(), name);
  REQUIRE(it != header.end());
  return static_cast<size_t>(it - header.begin());
}
}  // namespace

TEST_CASE("search -o writes every fitting, dropped and (at -v 3) priced candidate as CSV") {
  const std::string dir = std::string(NDS_TEST_FIXTURES) + "/search-output";
  std::filesystem::remove_all(dir);
  Search s = search(
      example("llama-3.1-70b/config.json"),
      "-A nvidia-h100-sxm -d 64 -b 64 --seq-len 8192 -l \"TP PP RECOMPUTE\" -t 3 -v 3 -o " + dir);
  REQUIRE(s.exit_code == 0);
  const json& c = s.j["counts"];
  REQUIRE(c["dropped"].get<int>() > 0);
  const auto ranking = read_csv(dir + "/ranking.csv");
  const auto dropped = read_csv(dir + "/dropped.csv");
  const auto priced = read_csv(dir + "/priced.csv");
  // One header row, then one row per candidate of each kind.
  CHECK(ranking.size() == c["fit"].get<size_t>() + 1);
  CHECK(dropped.size() == c["dropped"].get<size_t>() + 1);
  CHECK(priced.size() == c["priced"].get<size_t>() + 1);
  CHECK(s.j["ranking"].size() == 3);  // the screen keeps -t
  // The first row is the JSON's winner; the step times rise; the terms sum to the peak.
  const auto& h = ranking[0];
  CHECK(std::stod(ranking[1][column(h, "step_s")]) ==
        Approx(s.j["ranking"][0]["time"]["step_s"].get<double>()));
  const size_t rows = std::min<size_t>(ranking.size(), 300);  // enough to see the order and sums
  for (size_t i = 2; i < rows; ++i)
    CHECK(std::stod(ranking[i][column(h, "step_s")]) >=
          std::stod(ranking[i - 1][column(h, "step_s")]));
  for (size_t i = 1; i < rows; ++i) {
    double sum = 0;
    for (const char* term : {"params_bytes", "grads_bytes", "optimizer_bytes", "activations_bytes",
                             "comm_buffers_bytes", "other_bytes"})
      sum += std::stod(ranking[i][column(h, term)]);
    CHECK(sum ==
          Approx(std::stod(ranking[i][column(h, "peak_bytes")])).margin(6));  // six roundings
  }
  const double budget = s.j["budget_bytes"].get<double>();
  for (size_t i = 1; i < std::min<size_t>(dropped.size(), 300); ++i)
    CHECK(std::stod(dropped[i][column(dropped[0], "peak_bytes")]) > budget);
}

TEST_CASE("search names the output it cannot write") {
  Search s =
      search(hf("tiny-4-layers"),
             "-A nvidia-h100-sxm -d 8 -b 8 --seq-len 1024 --ranking-csv /nonexistent/dir/r.csv");
  CHECK(s.exit_code == 2);
  CHECK_THAT(s.err, Catch::Contains("E-OUTPUT") && Catch::Contains("/nonexistent/dir/r.csv"));
}

TEST_CASE(
    "explain shows every check, and with -l the strategy's rank and why the faster ones win") {
  const std::string config = example("llama-3.1-70b/config.json");
  const std::string common =
      " -A nvidia-h100-sxm -d 64 -b 64 --seq-len 8192 -l \"TP PP RECOMPUTE\" --format json";
  auto r = run_command("env -u NDS_PLUGIN_PATH " + cli() + " explain " + config + common +
                       " --strategy tp=8,pp=4,dp=2,mbs=1,recompute=full");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const json e = json::parse(r.out);
  // DESIGN §8.2's checks, DualPipe's and the trainer's cp-window, sp-tp, split, zero and etp, in
  // order.
  REQUIRE(e["checks"].size() == 18);
  CHECK(e["checks"][0]["id"] == "degrees");
  for (const json& c : e["checks"]) CHECK(c["passed"] == true);
  // Its rank is its place in the search's ranking with the same flags.
  Search s =
      search(config, "-A nvidia-h100-sxm -d 64 -b 64 --seq-len 8192 -l \"TP PP RECOMPUTE\" -t 100");
  REQUIRE(s.exit_code == 0);
  size_t place = 0;
  for (const json& row : s.j["ranking"])
    if (row["strategy"] == e["strategy"]) place = row["rank"].get<size_t>();
  REQUIRE(place > 1);
  CHECK(e["search"]["rank"] == place);
  CHECK(e["search"]["fit"] == s.j["counts"]["fit"]);
  // The winner beats it most on the part where the winner saves the most seconds.
  const json& winner = e["search"]["beaten_by"][0];
  CHECK(winner["rank"] == 1);
  const json& a = s.j["ranking"][place - 1]["time"]["parts"];
  const json& b = s.j["ranking"][0]["time"]["parts"];
  std::string best;
  double saving = -1;
  for (const auto& [part, seconds] : a.items())
    if (seconds.get<double>() - b[part].get<double>() > saving) {
      saving = seconds.get<double>() - b[part].get<double>();
      best = part;
    }
  CHECK_THAT(winner["reason"].get<std::string>(), Catch::StartsWith(best + " "));
  CHECK(winner["step_s"].get<double>() ==
        Approx(s.j["ranking"][0]["time"]["step_s"].get<double>()));
}

TEST_CASE("explain of a refused strategy names the failing check and exits 2") {
  auto r = run_command("env -u NDS_PLUGIN_PATH " + cli() + " explain " +
                       example("llama-3.1-70b/config.json") +
                       " -A nvidia-h100-sxm -d 64 -b 64 --seq-len 8192 --format json --strategy "
                       "tp=8,pp=4,dp=2,vpp=2,schedule=1f1b");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 2);
  const json e = json::parse(r.out);
  CHECK(e["valid"] == false);
  // 1F1B runs one chunk per rank: the schedule check fails, the others pass.
  for (const json& c : e["checks"]) CHECK(c["passed"] == (c["id"] != "schedule"));
  CHECK(e["refusal"]["id"] == "schedule");
  CHECK_THAT(r.err, Catch::Contains("E-STRATEGY-REFUSED"));
}

TEST_CASE("search refuses ZeRO-3 where the trainer cannot shard parameters") {
  // small_gpt.sh is a Megatron-LM launch without FSDP: capabilities.zero3 is 0,
  // and Megatron has no ZeRO-2 (its distributed optimizer is zero 1).
  // -l ZERO alone: zero 0, 1, 2, 3 on the config's stated strategy (16 devices);
  // the zero=2 and zero=3 candidates are refused by the "zero" check.
  Search s = search(std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/megatron/small_gpt.sh",
                    "-A nvidia-h100-sxm -l ZERO");
  REQUIRE(s.exit_code == 0);
  CHECK(s.j["devices"] == 16);  // -d defaults to the stated dp·tp·pp·cp
  CHECK(s.j["counts"]["tested"] == 4);
  CHECK(s.j["counts"]["refused"] == json({{"zero", 2}}));
  for (const json& r : s.j["ranking"]) CHECK(r["strategy"]["zero"].get<int>() <= 1);
}

TEST_CASE("search rejects values it cannot use, without crashing") {
  const std::string tiny = hf("tiny-4-layers");
  for (const char* args : {"--only mbs=0", "--only dp=2", "--only mbn=4", "--only tp="}) {
    Search s = search(tiny, std::string("-A nvidia-h100-sxm -b 8 -d 8 ") + args);
    INFO(args);
    CHECK(s.exit_code == 2);
    CHECK_THAT(s.err, Catch::Contains("E-USAGE"));
  }
  // 2^32 devices: above the device limit (2^24, core/model/model_limits.hpp).
  Search huge = search(tiny, "-A nvidia-h100-sxm -b 8 -d 4294967296");
  CHECK(huge.exit_code == 2);
  CHECK_THAT(huge.err, Catch::Contains("E-DEVICE-COUNT") && Catch::Contains("16777216"));
  // Mixtral's 8 experts: ep must divide them; --only ep=3 leaves nothing to test.
  Search empty =
      search(hf("mixtral-8x7b"), "-A nvidia-h100-sxm -d 16 -b 16 --seq-len 4096 --only ep=3");
  CHECK(empty.exit_code == 2);
  CHECK_THAT(empty.err, Catch::Contains("E-SEARCH-EMPTY"));
}

TEST_CASE("The batch check before pricing respects a fixed micro-batch size") {
  // 8 devices leave dp 8, 4, 2 or 1 (tp <= 2 KV heads, pp <= 4 layers); with mbs
  // fixed to 3, dp·3 would have to divide 16, and 3 does not.
  Search s = search(hf("tiny-4-layers"),
                    "-A nvidia-h100-sxm -d 8 -b 16 --seq-len 1024 -l \"TP PP\" --only mbs=3");
  CHECK(s.exit_code == 2);
  CHECK_THAT(s.err, Catch::Contains("E-SEARCH-BATCH") && Catch::Contains("(3)"));
}

TEST_CASE("search and explain say which missing input they need and the flag that gives it") {
  // tiny-4-layers.json is an HF config: it states neither devices nor a batch.
  const std::string tiny = hf("tiny-4-layers");
  Search no_devices = search(tiny, "-A nvidia-h100-sxm -b 8");
  CHECK(no_devices.exit_code == 2);
  CHECK_THAT(no_devices.err,
             Catch::Contains("tiny-4-layers.json does not state what pricing needs: set the "
                             "device count (-d N) and the sequence length (--seq-len)"));
  Search no_batch = search(tiny, "-A nvidia-h100-sxm -d 8");
  CHECK(no_batch.exit_code == 2);
  CHECK_THAT(no_batch.err,
             Catch::Contains("tiny-4-layers.json does not state what pricing needs: set the "
                             "global batch (-b B) and the sequence length (--seq-len)"));
  auto r = run_command("env -u NDS_PLUGIN_PATH " + cli() + " explain " + tiny +
                       " -A nvidia-h100-sxm -b 8 --seq-len 1024 --strategy tp=2,dp=1 -l TP");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("(-l) or the restrictions of the search (--only)") &&
                        Catch::Contains("-d N"));
}
