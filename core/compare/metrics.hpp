// SPDX-License-Identifier: Apache-2.0
// metrics.hpp: how far the time model is from a user's measured runs, the
// scores `ndsearch compare` reports (docs/cli.md, "Comparing with measured
// runs: metrics"). Pure functions over runs already priced: no model, no
// CSV, no pricing here.
//
// The reference (nd_behaviour.md §9.4) prints Pearson of estimate vs measured
// time, its "top-k", per-part Pearson (skipped for constant series) and a
// per-run Euclidean distance between measured and estimated part shares; we
// add MAPE, the mean signed error, Spearman and the top-1 regret.
//
// Degenerate inputs never divide by zero: a value that cannot be computed is
// NaN (null in JSON). Fewer than 2 runs, or a constant series, gives NaN
// correlations; no runs gives NaN everywhere and top_k 0.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace ndsearch {

// One measured run and what the model predicts for it. Parts are optional and
// named (our time-part names, or the reference's "real" parts, §6.8); a part
// counts for a run when both maps hold it.
struct PricedRun {
  double measured_step_s = 0;
  double predicted_step_s = 0;
  std::map<std::string, double> measured_parts_s;
  std::map<std::string, double> predicted_parts_s;
};

struct RunScore {
  double error = 0;  // predicted / measured − 1 (NaN when measured is not > 0)
  // 1 = fastest; equal times share the lower rank (1, 2, 2, 4).
  size_t measured_rank = 0, predicted_rank = 0;
  // sqrt(Σ_p (measured_p / measured_step − predicted_p / predicted_step)²)
  // over the run's parts with both values (reference §9.4); NaN without parts.
  double share_distance = 0;
};

struct PartMetrics {
  std::string name;
  size_t runs = 0;              // runs with a measured and a predicted value (≥ 2)
  double pearson = 0;           // predicted vs measured seconds; NaN for a constant series
  double mean_abs_error_s = 0;  // mean |predicted − measured|
  double mape = 0;              // mean |predicted / measured − 1| where measured ≠ 0
  size_t mape_runs = 0;         // the runs MAPE is over (measured part non-zero)
};

struct CompareMetrics {
  std::vector<RunScore> runs;      // one per input run, same order
  double mape = 0;                 // mean |error| over the runs with an error
  double mean_error = 0;           // mean signed error
  double pearson = 0;              // of predicted vs measured step time
  double spearman = 0;             // Pearson of the ranks, ties given their average rank
  int top_k = 0;                   // see top_k_agreement
  double top1_regret = 0;          // see top1_regret
  std::vector<PartMetrics> parts;  // parts measured in ≥ 2 runs, by name
};

CompareMetrics compare_metrics(const std::vector<PricedRun>& runs);

// predicted / measured − 1; NaN when there is no positive measured value to divide by.
double signed_error(double measured, double predicted);

// The mean and mean absolute of a series of signed errors (NaN with none).
struct ErrorSummary {
  size_t runs = 0;
  double mape = 0;        // mean |error|
  double mean_error = 0;  // mean signed error: positive, we say more than was measured
};
ErrorSummary error_summary(const std::vector<double>& errors);

// The pieces, for tests and other reports. x and y have the same length.

// Pearson's r; NaN for fewer than 2 values or a constant series.
double pearson_correlation(const std::vector<double>& x, const std::vector<double>& y);
// Pearson of the average ranks (ties share the mean of the ranks they span).
double spearman_correlation(const std::vector<double>& x, const std::vector<double>& y);
// Competition ranks, 1 = smallest; equal values share the lower rank.
std::vector<size_t> competition_ranks(const std::vector<double>& values);
// Fractional ranks, 1 = smallest; equal values share their mean rank (2.5).
std::vector<double> average_ranks(const std::vector<double>& values);

// The reference's top-k (§9.4). Take the runs in measured order (fastest
// first; runs with equal measured times in predicted order, either being
// right). top_k is the length of the longest prefix in which every run's
// predicted time is the minimum of the predicted times of itself and the runs
// after it: the first k measured-fastest runs are exactly our k predicted
// fastest, in order. A predicted tie with the minimum counts as the minimum.
// When the measured fastest run is not our predicted fastest, top_k is minus
// the number of runs we predict strictly faster than it (−1: one run is
// predicted ahead of the measured best). So top_k ≥ 1 or ≤ −1 for any runs,
// and 0 only for none.
int top_k_agreement(const std::vector<double>& measured, const std::vector<double>& predicted);

// The measured time of our predicted-fastest run over the measured fastest:
// 1 when we pick the best, 1.2 when our pick is 20 % slower. When several runs
// tie for our fastest prediction, the slowest of them measured counts (the
// user could pick any). NaN for no runs.
double top1_regret(const std::vector<double>& measured, const std::vector<double>& predicted);

}  // namespace ndsearch
