// SPDX-License-Identifier: Apache-2.0
// test_compare_metrics.cpp: the scores `ndsearch compare` reports
// (core/compare/metrics.hpp) on small data sets whose values are derived by
// hand beside each case (cross-checked with Python's statistics.correlation),
// and on the degenerate inputs (no run, one run, identical times, a zero
// measured time or part), which give NaN / null and never divide by zero.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "core/compare/metrics.hpp"
#include "core/output/compare_json.hpp"

using namespace ndsearch;

namespace {

std::vector<PricedRun> step_runs(const std::vector<double>& measured,
                                 const std::vector<double>& predicted) {
  std::vector<PricedRun> runs;
  for (size_t i = 0; i < measured.size(); ++i) runs.push_back({measured[i], predicted[i], {}, {}});
  return runs;
}

const PartMetrics& part(const CompareMetrics& m, const std::string& name) {
  const auto found = std::find_if(m.parts.begin(), m.parts.end(),
                                  [&](const PartMetrics& p) { return p.name == name; });
  REQUIRE(found != m.parts.end());
  return *found;
}

}  // namespace

TEST_CASE("Errors, MAPE, Pearson, ranks, top-k and regret of four well-ordered runs") {
  // measured 10 12 15 20, predicted 11 12 14 24.
  // errors: 11/10-1 = 0.1, 0, 14/15-1 = -1/15, 24/20-1 = 0.2
  // mape = (0.1 + 0 + 1/15 + 0.2) / 4 = 0.0916667; mean = (0.1 - 1/15 + 0.2) / 4 = 0.0583333
  // Pearson: means 15.25 (pred), 14.25 (meas); deviations -4.25 -3.25 -1.25 8.75 and
  // -4.25 -2.25 0.75 5.75; Sxy = 74.75, Sxx = 106.75, Syy = 56.75;
  // r = 74.75 / sqrt(106.75 * 56.75) = 0.9603827.
  // Same order in both: Spearman 1, top_k 4 (every run is the minimum of the rest), regret 1.
  const CompareMetrics m = compare_metrics(step_runs({10, 12, 15, 20}, {11, 12, 14, 24}));
  REQUIRE(m.runs.size() == 4);
  CHECK(m.runs[0].error == Approx(0.1));
  CHECK(m.runs[1].error == Approx(0.0).margin(1e-12));
  CHECK(m.runs[2].error == Approx(-1.0 / 15));
  CHECK(m.runs[3].error == Approx(0.2));
  CHECK(m.mape == Approx(0.0916667).epsilon(1e-6));
  CHECK(m.mean_error == Approx(0.0583333).epsilon(1e-6));
  CHECK(m.pearson == Approx(0.9603827).epsilon(1e-7));
  CHECK(m.spearman == Approx(1.0));
  CHECK(m.top_k == 4);
  CHECK(m.top1_regret == Approx(1.0));
  for (size_t i = 0; i < 4; ++i) {
    CHECK(m.runs[i].measured_rank == i + 1);
    CHECK(m.runs[i].predicted_rank == i + 1);
    CHECK(std::isnan(m.runs[i].share_distance));  // no parts were measured
  }
  CHECK(m.parts.empty());
}

TEST_CASE("A predicted tie shares the lower rank, Spearman averages it, top-k counts it") {
  // predicted 11 13 13 24: competition ranks 1 2 2 4; average ranks 1 2.5 2.5 4.
  // Spearman = Pearson of (1 2.5 2.5 4) and (1 2 3 4): deviations -1.5 0 0 1.5 and
  // -1.5 -0.5 0.5 1.5; Sxy = 4.5, Sxx = 4.5, Syy = 5; r = 4.5 / sqrt(22.5) = sqrt(0.9).
  // top_k: in measured order the predictions 11 13 13 24 are each the minimum of the
  // rest (13 ties with 13): 4.
  const CompareMetrics m = compare_metrics(step_runs({10, 12, 15, 20}, {11, 13, 13, 24}));
  CHECK(m.runs[1].predicted_rank == 2);
  CHECK(m.runs[2].predicted_rank == 2);
  CHECK(m.runs[3].predicted_rank == 4);
  CHECK(m.spearman == Approx(std::sqrt(0.9)));
  CHECK(m.top_k == 4);
  CHECK(average_ranks({11, 13, 13, 24}) == std::vector<double>{1, 2.5, 2.5, 4});
  CHECK(competition_ranks({5, 3, 5, 1}) == std::vector<size_t>{3, 2, 3, 1});
}

TEST_CASE("Top-k is the measured-order prefix our predictions put first") {
  // Predicted 11 14 13 24 in measured order: 11 is the minimum; 14 is not (13 follows): 1.
  CHECK(top_k_agreement({10, 12, 15, 20}, {11, 14, 13, 24}) == 1);
  // The measured fastest (predicted 13) has two runs predicted faster (12, 11): -2.
  CHECK(top_k_agreement({10, 12, 15, 20}, {13, 12, 11, 24}) == -2);
  // One run predicted ahead of the measured best: -1.
  CHECK(top_k_agreement({10, 12}, {12, 11}) == -1);
  // A measured tie (10, 10) is taken in predicted order: 11 12 14, all minima: 3
  // (input order would start with 12 and give -1).
  CHECK(top_k_agreement({10, 10, 15}, {12, 11, 14}) == 3);
  CHECK(top_k_agreement({}, {}) == 0);
  CHECK(top_k_agreement({7}, {9}) == 1);
}

TEST_CASE("Top-1 regret is our pick's measured time over the measured best") {
  // We predict run 2 fastest (11); it measured 15 against the best 10: 1.5.
  CHECK(top1_regret({10, 12, 15, 20}, {13, 12, 11, 24}) == Approx(1.5));
  CHECK(top1_regret({10, 12, 15, 20}, {11, 12, 14, 24}) == Approx(1.0));
  // Runs 0 and 1 tie for our fastest (11): the slower measured of them (12) counts: 1.2.
  CHECK(top1_regret({10, 12, 15}, {11, 11, 14}) == Approx(1.2));
  CHECK(std::isnan(top1_regret({}, {})));
}

TEST_CASE("Per-part Pearson, error and MAPE skip constant series and zero measured parts") {
  // Three runs (measured | predicted part seconds, step seconds):
  //   run 0: compute 6 | 5, dp 2 | 3, bubble 0 | 1, idle 2 | 1; step 10 | 10
  //   run 1: compute 8 | 8, dp 2 | 2, bubble 2 | 1;            step 12 | 12
  //   run 2: compute 9 | 10, dp 2 | 2, bubble 4 | 3;           step 15 | 14
  // compute: deviations (x3) -5 1 4 and -8 1 7: r = 69 / sqrt(42 * 114) = 0.9971765;
  //   MAE (1 + 0 + 1) / 3; MAPE (1/6 + 0 + 1/9) / 3 = 0.0925926.
  // dp: measured 2 2 2 is constant: Pearson null; MAE 1/3; MAPE (0.5 + 0 + 0) / 3.
  // bubble: deviations -2 0 2 and -2/3 -2/3 4/3: Sxy 4, Sxx 8, Syy 8/3: r = sqrt(3)/2;
  //   MAE 1; MAPE over runs 1 and 2 only (run 0 measured 0): (0.5 + 0.25) / 2 = 0.375.
  // idle: one run only, no metrics.
  std::vector<PricedRun> runs{{10,
                               10,
                               {{"compute", 6}, {"dp", 2}, {"bubble", 0}, {"idle", 2}},
                               {{"compute", 5}, {"dp", 3}, {"bubble", 1}, {"idle", 1}}},
                              {12,
                               12,
                               {{"compute", 8}, {"dp", 2}, {"bubble", 2}},
                               {{"compute", 8}, {"dp", 2}, {"bubble", 1}}},
                              {15,
                               14,
                               {{"compute", 9}, {"dp", 2}, {"bubble", 4}},
                               {{"compute", 10}, {"dp", 2}, {"bubble", 3}}}};
  const CompareMetrics m = compare_metrics(runs);
  REQUIRE(m.parts.size() == 3);
  const PartMetrics& compute = part(m, "compute");
  CHECK(compute.runs == 3);
  CHECK(compute.pearson == Approx(0.9971765).epsilon(1e-7));
  CHECK(compute.mean_abs_error_s == Approx(2.0 / 3));
  CHECK(compute.mape == Approx(0.0925926).epsilon(1e-6));
  const PartMetrics& dp = part(m, "dp");
  CHECK(std::isnan(dp.pearson));
  CHECK(dp.mean_abs_error_s == Approx(1.0 / 3));
  CHECK(dp.mape == Approx(1.0 / 6));
  const PartMetrics& bubble = part(m, "bubble");
  CHECK(bubble.pearson == Approx(std::sqrt(3.0) / 2));
  CHECK(bubble.mean_abs_error_s == Approx(1.0));
  CHECK(bubble.mape == Approx(0.375));
  CHECK(bubble.mape_runs == 2);

  // Share distances: run 0 shares .6 .2 0 .2 vs .5 .3 .1 .1: sqrt(4 * 0.01) = 0.2;
  // run 1 differs in bubble only, 2/12 vs 1/12: 1/12;
  // run 2: (9/15 - 10/14, 2/15 - 2/14, 4/15 - 3/14): sqrt(0.0158957) = 0.1260781.
  CHECK(m.runs[0].share_distance == Approx(0.2));
  CHECK(m.runs[1].share_distance == Approx(1.0 / 12));
  CHECK(m.runs[2].share_distance == Approx(0.1260781).epsilon(1e-6));
}

TEST_CASE("No runs give NaN metrics, top-k 0 and null in JSON") {
  const CompareMetrics m = compare_metrics({});
  CHECK(m.runs.empty());
  CHECK(std::isnan(m.mape));
  CHECK(std::isnan(m.mean_error));
  CHECK(std::isnan(m.pearson));
  CHECK(std::isnan(m.spearman));
  CHECK(m.top_k == 0);
  CHECK(std::isnan(m.top1_regret));
  const nlohmann::json j = metrics_json(m);
  for (const char* key : {"mape", "mean_error", "pearson", "spearman", "top1_regret"}) {
    INFO(key);
    CHECK(j.at(key).is_null());
  }
  CHECK(j.at("top_k") == 0);
  CHECK(j.at("parts").empty());
  CHECK(j.size() == 7);
}

TEST_CASE("One run has an error but no correlation") {
  // 12 / 10 - 1 = 0.2; a single pair has no correlation; it is its own best.
  const CompareMetrics m = compare_metrics(step_runs({10}, {12}));
  CHECK(m.mape == Approx(0.2));
  CHECK(m.mean_error == Approx(0.2));
  CHECK(std::isnan(m.pearson));
  CHECK(std::isnan(m.spearman));
  CHECK(m.top_k == 1);
  CHECK(m.top1_regret == Approx(1.0));
}

TEST_CASE("Identical times give zero error, rank 1 for all and no correlation") {
  const CompareMetrics m = compare_metrics(step_runs({10, 10, 10}, {10, 10, 10}));
  CHECK(m.mape == 0);
  CHECK(std::isnan(m.pearson));   // constant series
  CHECK(std::isnan(m.spearman));  // every average rank is 2
  CHECK(m.top_k == 3);
  CHECK(m.top1_regret == Approx(1.0));
  for (const RunScore& r : m.runs) {
    CHECK(r.measured_rank == 1);
    CHECK(r.predicted_rank == 1);
  }
  const nlohmann::json j = metrics_json(m);
  CHECK(j.at("pearson").is_null());
  CHECK(j.at("mape") == 0.0);
}

TEST_CASE("A zero measured step time has no error and leaves the others' MAPE") {
  // Run 0 measured 0 s: no ratio; MAPE over run 1 only: |12 / 10 - 1| = 0.2.
  // The measured best is 0 s: no regret can be given.
  const CompareMetrics m = compare_metrics(step_runs({0, 10}, {5, 12}));
  CHECK(std::isnan(m.runs[0].error));
  CHECK(std::isnan(m.runs[0].share_distance));
  CHECK(m.mape == Approx(0.2));
  CHECK(std::isnan(m.top1_regret));
  CHECK(metrics_json(m).at("top1_regret").is_null());
}

TEST_CASE("Metrics JSON has exactly the documented keys and parts by name") {
  std::vector<PricedRun> runs{{10, 11, {{"dp", 1}}, {{"dp", 2}}},
                              {12, 12, {{"dp", 2}}, {{"dp", 2}}}};
  const nlohmann::json j = metrics_json(compare_metrics(runs));
  for (const char* key :
       {"mape", "mean_error", "pearson", "spearman", "top_k", "top1_regret", "parts"}) {
    INFO(key);
    CHECK(j.contains(key));
  }
  CHECK(j.size() == 7);
  // dp: predicted 2 2 is constant: null; MAE (1 + 0) / 2; MAPE (1 + 0) / 2.
  CHECK(j.at("parts").at("dp").at("pearson").is_null());
  CHECK(j.at("parts").at("dp").at("mean_abs_error_s").get<double>() == Approx(0.5));
  CHECK(j.at("parts").at("dp").at("mape").get<double>() == Approx(0.5));
  CHECK(j.at("parts").at("dp").at("runs") == 2);
  CHECK(j.at("pearson").get<double>() == Approx(1.0));  // two points always lie on a line
}

TEST_CASE("A NaN time is ranked last and breaks neither the sort nor the other runs") {
  // The CSV reader refuses such times; the metrics still must not crash on one.
  // Run 1 predicted NaN: no error; MAPE over runs 0 and 2: (0.1 + 0.2) / 2 = 0.15;
  // its predicted rank comes after the two numbers (3); our fastest is run 0 (11).
  const double nan = std::nan("");
  const CompareMetrics m = compare_metrics(step_runs({10, 12, 15}, {11, nan, 18}));
  CHECK(std::isnan(m.runs[1].error));
  CHECK(m.mape == Approx(0.15));
  CHECK(m.runs[0].predicted_rank == 1);
  CHECK(m.runs[2].predicted_rank == 2);
  CHECK(m.runs[1].predicted_rank == 3);
  CHECK(std::isnan(m.pearson));
  CHECK(m.top_k == 1);  // 11 leads; 18 after the NaN is not taken as the minimum
  CHECK(m.top1_regret == Approx(1.0));
}
