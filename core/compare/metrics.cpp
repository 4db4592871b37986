// SPDX-License-Identifier: Apache-2.0
#include "core/compare/metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

namespace ndsearch {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A strict weak order on doubles with NaN after every number, so that a NaN
// that slipped through never breaks std::sort.
bool faster(double a, double b) {
  return !std::isnan(a) && (std::isnan(b) || a < b);
}

// Indices of `values`, smallest first; equal values keep their input order.
std::vector<size_t> ascending_order(const std::vector<double>& values) {
  std::vector<size_t> order(values.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return faster(values[a], values[b]); });
  return order;
}

double mean(const std::vector<double>& values) {
  if (values.empty()) return kNaN;
  return std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double share_distance(const PricedRun& run) {
  if (!(run.measured_step_s > 0) || !(run.predicted_step_s > 0)) return kNaN;
  double sum_of_squares = 0;
  size_t parts = 0;
  for (const auto& [name, measured_s] : run.measured_parts_s) {
    const auto predicted = run.predicted_parts_s.find(name);
    if (predicted == run.predicted_parts_s.end()) continue;
    const double gap = measured_s / run.measured_step_s - predicted->second / run.predicted_step_s;
    sum_of_squares += gap * gap;
    ++parts;
  }
  return parts > 0 ? std::sqrt(sum_of_squares) : kNaN;
}

PartMetrics part_metrics(const std::string& name, const std::vector<double>& measured,
                         const std::vector<double>& predicted) {
  PartMetrics part;
  part.name = name;
  part.runs = measured.size();
  part.pearson = pearson_correlation(predicted, measured);
  std::vector<double> abs_errors_s, relative_errors;
  for (size_t i = 0; i < measured.size(); ++i) {
    abs_errors_s.push_back(std::abs(predicted[i] - measured[i]));
    if (measured[i] != 0) relative_errors.push_back(std::abs(predicted[i] / measured[i] - 1));
  }
  part.mean_abs_error_s = mean(abs_errors_s);
  part.mape = mean(relative_errors);
  part.mape_runs = relative_errors.size();
  return part;
}

// Every part measured and predicted in at least two runs, by name.
std::vector<PartMetrics> parts_metrics(const std::vector<PricedRun>& runs) {
  std::set<std::string> names;
  for (const PricedRun& run : runs)
    for (const auto& [name, seconds] : run.measured_parts_s) names.insert(name);
  std::vector<PartMetrics> parts;
  for (const std::string& name : names) {
    std::vector<double> measured, predicted;
    for (const PricedRun& run : runs) {
      const auto m = run.measured_parts_s.find(name);
      const auto p = run.predicted_parts_s.find(name);
      if (m == run.measured_parts_s.end() || p == run.predicted_parts_s.end()) continue;
      measured.push_back(m->second);
      predicted.push_back(p->second);
    }
    if (measured.size() >= 2) parts.push_back(part_metrics(name, measured, predicted));
  }
  return parts;
}

}  // namespace

double pearson_correlation(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() < 2 || x.size() != y.size()) return kNaN;
  const double mean_x = mean(x), mean_y = mean(y);
  double sxx = 0, syy = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mean_x) * (x[i] - mean_x);
    syy += (y[i] - mean_y) * (y[i] - mean_y);
    sxy += (x[i] - mean_x) * (y[i] - mean_y);
  }
  if (!(sxx > 0) || !(syy > 0)) return kNaN;  // a constant series (or a NaN in one)
  // Rounding can put |r| a hair above 1.
  return std::clamp(sxy / std::sqrt(sxx * syy), -1.0, 1.0);
}

std::vector<size_t> competition_ranks(const std::vector<double>& values) {
  const std::vector<size_t> order = ascending_order(values);
  std::vector<size_t> ranks(values.size());
  for (size_t at = 0; at < order.size(); ++at)
    ranks[order[at]] =
        at > 0 && !faster(values[order[at - 1]], values[order[at]]) ? ranks[order[at - 1]] : at + 1;
  return ranks;
}

std::vector<double> average_ranks(const std::vector<double>& values) {
  const std::vector<size_t> order = ascending_order(values);
  std::vector<double> ranks(values.size());
  for (size_t first = 0; first < order.size();) {
    size_t last = first;  // the tie group is order[first..last]
    while (last + 1 < order.size() && !faster(values[order[first]], values[order[last + 1]]))
      ++last;
    const double rank = static_cast<double>(first + last) / 2 + 1;
    for (size_t at = first; at <= last; ++at) ranks[order[at]] = rank;
    first = last + 1;
  }
  return ranks;
}

double spearman_correlation(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size()) return kNaN;
  return pearson_correlation(average_ranks(x), average_ranks(y));
}

int top_k_agreement(const std::vector<double>& measured, const std::vector<double>& predicted) {
  const size_t n = std::min(measured.size(), predicted.size());
  if (n == 0) return 0;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (faster(measured[a], measured[b])) return true;
    if (faster(measured[b], measured[a])) return false;
    return faster(predicted[a], predicted[b]);  // a measured tie: either order is right
  });
  // The smallest prediction of each suffix of the measured order.
  std::vector<double> suffix_min(n);
  suffix_min[n - 1] = predicted[order[n - 1]];
  for (size_t at = n - 1; at-- > 0;)
    suffix_min[at] = faster(predicted[order[at]], suffix_min[at + 1]) ? predicted[order[at]]
                                                                      : suffix_min[at + 1];
  int prefix = 0;
  for (size_t at = 0; at < n && !faster(suffix_min[at], predicted[order[at]]); ++at) ++prefix;
  if (prefix > 0) return prefix;
  const double measured_best_predicted = predicted[order.front()];
  int ahead = 0;
  for (size_t i = 0; i < n; ++i) ahead += faster(predicted[i], measured_best_predicted) ? 1 : 0;
  return -ahead;
}

double top1_regret(const std::vector<double>& measured, const std::vector<double>& predicted) {
  const size_t n = std::min(measured.size(), predicted.size());
  if (n == 0) return kNaN;
  double measured_best = measured[0], predicted_best = predicted[0];
  for (size_t i = 1; i < n; ++i) {
    if (faster(measured[i], measured_best)) measured_best = measured[i];
    if (faster(predicted[i], predicted_best)) predicted_best = predicted[i];
  }
  double picked = -std::numeric_limits<double>::infinity();  // the slowest of our tied picks
  for (size_t i = 0; i < n; ++i)
    if (!faster(predicted_best, predicted[i])) picked = std::max(picked, measured[i]);
  return measured_best > 0 ? picked / measured_best : kNaN;
}

double signed_error(double measured, double predicted) {
  return measured > 0 && std::isfinite(measured) ? predicted / measured - 1 : kNaN;
}

ErrorSummary error_summary(const std::vector<double>& errors) {
  std::vector<double> absolute(errors.size());
  std::transform(errors.begin(), errors.end(), absolute.begin(),
                 [](double e) { return std::abs(e); });
  return {errors.size(), mean(absolute), mean(errors)};
}

CompareMetrics compare_metrics(const std::vector<PricedRun>& runs) {
  CompareMetrics out;
  std::vector<double> measured, predicted, errors;
  for (const PricedRun& run : runs) {
    measured.push_back(run.measured_step_s);
    predicted.push_back(run.predicted_step_s);
  }
  const std::vector<size_t> measured_ranks = competition_ranks(measured);
  const std::vector<size_t> predicted_ranks = competition_ranks(predicted);
  for (size_t i = 0; i < runs.size(); ++i) {
    const double error = signed_error(measured[i], predicted[i]);
    out.runs.push_back({error, measured_ranks[i], predicted_ranks[i], share_distance(runs[i])});
    if (std::isfinite(error)) errors.push_back(error);
  }
  const ErrorSummary summary = error_summary(errors);
  out.mean_error = summary.mean_error;
  out.mape = summary.mape;
  out.pearson = pearson_correlation(predicted, measured);
  out.spearman = spearman_correlation(predicted, measured);
  out.top_k = top_k_agreement(measured, predicted);
  out.top1_regret = top1_regret(measured, predicted);
  out.parts = parts_metrics(runs);
  return out;
}

}  // namespace ndsearch
