// SPDX-License-Identifier: Apache-2.0
#include "core/fit/fit_calibration.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>

#include <ndsearch/core/settings.hpp>

#include "core/compare/run_pricing.hpp"
#include "core/compile/allocator_share.hpp"
#include "core/compile/trainer_settings.hpp"
#include "core/fit/fit_report.hpp"
#include "core/price/calibration_file.hpp"
#include "core/support/least_squares.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// A factor matters when moving it by this share of its range, up or down,
// moves some run's predicted step by at least kLeastEffect (relative).
constexpr double kProbeShare = 0.1, kLeastEffect = 1e-3;
// It is told apart from the factors already taken when at least this share
// of its (normalised) effect on the runs lies outside theirs.
constexpr double kLeastIndependent = 0.1;
// Forward-difference steps: this share of a factor's range.
constexpr double kStepShare = 1e-3;
// A fit that lowers the runs' MAPE by less than this (absolute) changes
// nothing worth a calibration file.
constexpr double kLeastGain = 1e-4;
// A fit whose relative errors have an RMS under this matches the runs: more
// factors would only trade one another off.
constexpr double kExplained = 1e-3;

// The runs fitted on, priced again under trial calibrations.
class RunSet {
 public:
  RunSet(const PluginRegistry& registry, const DeviceCatalog& catalog,
         const CompareRequest& request, const ComparedRuns& compared)
      : registry_(registry), models_(registry, request) {
    for (const ComparedRun& run : compared.runs) {
      if (!run.metric_index) continue;
      runs_.push_back(run_pricing(catalog, request, models_, run.measured));
      measured_.push_back(run.measured.step_s);
      peaks_.push_back(run.measured.peak_bytes.value_or(0));
      lines_.push_back(run.measured.line);
    }
  }
  size_t size() const { return runs_.size(); }
  const std::vector<int>& lines() const { return lines_; }
  const Model& model() const { return *runs_.front().model; }
  const Device& device() const { return *runs_.front().machine.device; }

  // predicted / measured - 1 of run `i` under `calibration` (NaN: not priced).
  double error(size_t i, const Calibration& calibration) const {
    RunPricing p = runs_[i];
    p.request.calibration = calibration;
    const StrategyEvaluation e = evaluate_strategy(registry_, *p.model, p.machine, p.request);
    return e.time ? e.time->step_s / measured_[i] - 1 : kNaN;
  }

  // Whether run `i` measured its peak.
  bool has_peak(size_t i) const { return peaks_[i] > 0; }
  int line(size_t i) const { return lines_[i]; }
  // Its predicted peak / measured - 1 at allocator share `share` (unset: the
  // model's own), NaN when not priced.
  double peak_error(size_t i, std::optional<double> share) const {
    const RunPricing& p = runs_[i];
    Model model = *p.model;
    if (share)
      model.allocator_fraction = share, model.allocator_fraction_source = "the fit being made";
    const StrategyEvaluation e = evaluate_strategy(registry_, model, p.machine, p.request);
    return e.valid() ? static_cast<double>(e.peak_bytes) / peaks_[i] - 1 : kNaN;
  }

 private:
  const PluginRegistry& registry_;
  ModelCache models_;
  std::vector<RunPricing> runs_;
  std::vector<double> measured_;
  std::vector<double> peaks_;  // bytes; 0: not measured
  std::vector<int> lines_;
};

// The factors' values as a calibration: `chosen` (indices into `all`) set
// from `values`, every other neutral.
Calibration calibration_of(const Device& device, const std::vector<CalibrationFactor>& all,
                           const std::vector<size_t>& chosen, const std::vector<double>& values) {
  Calibration c = identity_calibration(device);
  for (size_t k = 0; k < chosen.size(); ++k) all[chosen[k]].set(c, values[k]);
  return c;
}

std::vector<double> errors(const RunSet& runs, const std::vector<size_t>& rows,
                           const Calibration& c) {
  std::vector<double> out;
  for (size_t r : rows) out.push_back(runs.error(r, c));
  return out;
}

double mape_of(const std::vector<double>& e) {
  double sum = 0;
  int n = 0;
  for (double x : e)
    if (!std::isnan(x)) sum += std::abs(x), ++n;
  return n == 0 ? kNaN : sum / n;
}

// The factors to fit on `rows`, at most `limit`, in priority order, but for
// those `set_aside` names (a reason: a fit left them at their neutral value);
// `why` (one per factor) says why each other is left neutral.
std::vector<size_t> choose(const RunSet& runs, const std::vector<size_t>& rows,
                           const std::vector<CalibrationFactor>& all, size_t limit,
                           const std::vector<std::string>& set_aside,
                           std::vector<std::string>* why) {
  const Calibration neutral = identity_calibration(runs.device());
  const std::vector<double> base = errors(runs, rows, neutral);
  std::vector<size_t> chosen;
  std::vector<std::vector<double>> basis;    // orthonormal, spanning the chosen factors' effects
  std::vector<std::vector<double>> effects;  // normalised, of the chosen
  for (size_t j = 0; j < all.size(); ++j) {
    const CalibrationFactor& f = all[j];
    std::string reason;
    // Probed both ways where the bounds allow (an overlap's max() hides a
    // faster link but not a slower one); the larger effect counts.
    const double probe = kProbeShare * (f.upper - f.lower);
    std::vector<double> effect(rows.size());
    double largest = 0, norm = 0;
    for (const double to : {f.neutral + probe, f.neutral - probe}) {
      if (to > f.upper || to < f.lower) continue;
      Calibration moved = neutral;
      f.set(moved, to);
      const std::vector<double> shifted = errors(runs, rows, moved);
      std::vector<double> delta(rows.size());
      double big = 0, sum = 0;
      for (size_t i = 0; i < rows.size(); ++i) {
        delta[i] = std::isnan(shifted[i]) || std::isnan(base[i]) ? 0 : shifted[i] - base[i];
        big = std::max(big, std::abs(delta[i]));
        sum += delta[i] * delta[i];
      }
      if (big > largest) largest = big, norm = std::sqrt(sum), effect = std::move(delta);
    }
    if (!set_aside[j].empty()) {
      reason = set_aside[j];
    } else if (chosen.size() >= limit) {
      reason = fmt::format("{} runs fit at most {} factors", rows.size(), limit);
    } else if (largest < kLeastEffect) {
      reason = "the runs do not depend on it";
    } else {
      for (double& x : effect) x /= norm;
      std::vector<double> rest = effect;
      for (const std::vector<double>& b : basis) {
        double dot = 0;
        for (size_t i = 0; i < rest.size(); ++i) dot += rest[i] * b[i];
        for (size_t i = 0; i < rest.size(); ++i) rest[i] -= dot * b[i];
      }
      double left = 0;
      for (double x : rest) left += x * x;
      left = std::sqrt(left);
      if (left < kLeastIndependent) {
        // Name the chosen factor whose effect is most like this one's.
        size_t closest = 0;
        double best = -1;
        for (size_t k = 0; k < effects.size(); ++k) {
          double dot = 0;
          for (size_t i = 0; i < effect.size(); ++i) dot += effect[i] * effects[k][i];
          if (std::abs(dot) > best) best = std::abs(dot), closest = k;
        }
        reason =
            fmt::format("these runs cannot tell it apart from the {}", all[chosen[closest]].words);
      } else {
        for (double& x : rest) x /= left;
        basis.push_back(std::move(rest));
        effects.push_back(std::move(effect));
        chosen.push_back(j);
      }
    }
    if (why) why->push_back(std::move(reason));
  }
  return chosen;
}

struct Fitted {
  std::vector<size_t> chosen;
  Calibration calibration;
};

// One least-squares fit of the factors `chosen`.
Calibration fit_chosen(const RunSet& runs, const std::vector<size_t>& rows,
                       const std::vector<CalibrationFactor>& all,
                       const std::vector<size_t>& chosen) {
  std::vector<FitFactor> factors;
  for (size_t j : chosen) {
    const CalibrationFactor& f = all[j];
    factors.push_back({f.key, f.neutral, f.lower, f.upper, kStepShare * (f.upper - f.lower)});
  }
  const LeastSquaresFit fit = fit_least_squares(factors, [&](const std::vector<double>& values) {
    return errors(runs, rows, calibration_of(runs.device(), all, chosen, values));
  });
  return calibration_of(runs.device(), all, chosen, fit.values);
}

// Whether the fit pinned factor `f` at a bound that is also its neutral
// value (within one forward-difference step): an overhead at 0, where runs
// priced slow push it. It then lowers no error, and the runs ask for what it
// cannot give. (A factor fitted to its neutral value inside its bounds is a
// finding, not a failure: it stays.)
bool pinned_at_neutral_bound(const CalibrationFactor& f, const Calibration& c) {
  const double tolerance = kStepShare * (f.upper - f.lower), v = f.get(c);
  const bool neutral = std::abs(v - f.neutral) <= tolerance;
  const bool at_bound = std::abs(v - f.lower) <= tolerance || std::abs(v - f.upper) <= tolerance;
  return neutral && at_bound;
}

// The fewest of `candidates`, taken in their order, whose fit matches the
// runs within kExplained (all of them when none does): factors past what the
// runs need only trade one another off (a degenerate fit) and are left
// neutral, said in `reasons`.
Fitted fewest_that_explain(const RunSet& runs, const std::vector<size_t>& rows,
                           const std::vector<CalibrationFactor>& all,
                           const std::vector<size_t>& candidates,
                           std::vector<std::string>& reasons) {
  Fitted out;
  out.calibration = identity_calibration(runs.device());
  for (size_t k = 1; k <= candidates.size(); ++k) {
    out.chosen.assign(candidates.begin(), candidates.begin() + static_cast<std::ptrdiff_t>(k));
    out.calibration = fit_chosen(runs, rows, all, out.chosen);
    if (rms_of(errors(runs, rows, out.calibration)) < kExplained) {
      for (size_t rest = k; rest < candidates.size(); ++rest)
        reasons[candidates[rest]] = "the runs are matched within 0.1 % without it";
      break;
    }
  }
  return out;
}

// Fits at most `limit` factors in priority order, the fewest that match the
// runs; a chosen factor the fit pins at a neutral bound (runs priced slow
// ask for a negative overhead) is set aside and the next one is taken in its
// place, so that n runs fit the n - 1 factors that move them.
Fitted fit_on(const RunSet& runs, const std::vector<size_t>& rows,
              const std::vector<CalibrationFactor>& all, size_t limit,
              std::vector<std::string>* why) {
  std::vector<std::string> set_aside(all.size());
  for (;;) {
    std::vector<std::string> reasons;
    const std::vector<size_t> candidates = choose(runs, rows, all, limit, set_aside, &reasons);
    Fitted out = fewest_that_explain(runs, rows, all, candidates, reasons);
    bool again = false;
    for (size_t j : out.chosen)
      if (pinned_at_neutral_bound(all[j], out.calibration)) {
        set_aside[j] = fmt::format(
            "fitted, it stays at {:g}, its bound: these runs ask for a value beyond it, so the "
            "next factor was fitted instead",
            all[j].neutral);
        again = true;
      }
    if (!again) {
      if (why) *why = std::move(reasons);
      return out;
    }
  }
}

// The share that minimises the squared peak errors of `rows`, from the
// shipped `start`, within the calibration file's bounds.
double fit_share(const RunSet& runs, const std::vector<size_t>& rows, double start) {
  const std::vector<FitFactor> factor{
      {kAllocatorFactorKey, start, kAllocatorShareLower, kAllocatorShareUpper, 0.001}};
  return fit_least_squares(factor,
                           [&](const std::vector<double>& values) {
                             std::vector<double> residuals;
                             for (size_t r : rows)
                               residuals.push_back(runs.peak_error(r, values[0]));
                             return residuals;
                           })
      .values[0];
}

AllocatorShareFit fit_allocator(const RunSet& runs) {
  AllocatorShareFit out;
  std::vector<size_t> rows;
  for (size_t i = 0; i < runs.size(); ++i)
    if (runs.has_peak(i)) rows.push_back(i), out.lines.push_back(runs.line(i));
  out.shipped = allocator_share(runs.model()).fraction;
  out.mape_before = out.mape_after = out.leave_one_out_mape = kNaN;
  out.leave_one_out_errors.assign(rows.size(), kNaN);
  if (rows.size() < 2) {
    out.left_because = fmt::format("{} run{} measured a peak; a fit of the allocator share needs 2",
                                   rows.size(), rows.size() == 1 ? "" : "s");
    return out;
  }
  std::vector<double> before, after;
  for (size_t r : rows) before.push_back(runs.peak_error(r, std::nullopt));
  const double share = fit_share(runs, rows, out.shipped);
  for (size_t r : rows) after.push_back(runs.peak_error(r, share));
  out.mape_before = mape_of(before);
  out.mape_after = mape_of(after);
  if (rows.size() >= 3)
    for (size_t k = 0; k < rows.size(); ++k) {
      std::vector<size_t> others;
      for (size_t r : rows)
        if (r != rows[k]) others.push_back(r);
      out.leave_one_out_errors[k] = runs.peak_error(rows[k], fit_share(runs, others, out.shipped));
    }
  out.leave_one_out_mape = mape_of(out.leave_one_out_errors);
  if (out.mape_after < out.mape_before - kLeastGain)
    out.value = share;
  else
    out.left_because = "the shipped share matches these peaks as well";
  return out;
}

}  // namespace

CalibrationFit fit_calibration(const PluginRegistry& registry, const DeviceCatalog& catalog,
                               const CompareRequest& request, const ComparedRuns& compared) {
  if (!request.base.calibration.is_identity())
    throw UserError("E-USAGE", fmt::format("a fit ({}) starts from the shipped model; drop {}",
                                           Setting("fit").named(), Setting("calibration").named()));
  const RunSet runs(registry, catalog, request, compared);
  if (runs.size() < 2)
    throw UserError("E-FIT-RUNS",
                    fmt::format("{}: {} run{} priced; a fit needs at least 2 (with n runs it fits "
                                "at most n - 1 factors)",
                                compared.measured_file.string(), runs.size(),
                                runs.size() == 1 ? " was" : "s were"));
  CalibrationFit out;
  out.device_id = runs.device().id;
  out.trainer = trainer_family(runs.model());
  out.lines = runs.lines();
  const std::vector<CalibrationFactor> all = calibration_factors(runs.device());
  std::vector<size_t> rows(runs.size());
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = i;

  const std::vector<double> before = errors(runs, rows, identity_calibration(runs.device()));
  std::vector<std::string> why;
  const Fitted fit = fit_on(runs, rows, all, rows.size() - 1, &why);
  out.calibration = fit.calibration;
  const std::vector<double> after = errors(runs, rows, fit.calibration);
  for (size_t j = 0; j < all.size(); ++j) {
    FittedFactor f;
    f.factor = all[j];
    f.value = all[j].get(fit.calibration);
    f.fitted = std::find(fit.chosen.begin(), fit.chosen.end(), j) != fit.chosen.end();
    f.left_because = why[j];
    out.factors.push_back(std::move(f));
  }
  out.mape_before = mape_of(before);
  out.mape_after = mape_of(after);
  out.lowers_error = out.mape_after < out.mape_before - kLeastGain;
  out.rms_before = rms_of(before);
  out.rms_after = rms_of(after);

  // Leave one out: each run predicted by a fit on the others (n - 2 factors at most).
  out.leave_one_out_errors.assign(rows.size(), kNaN);
  if (rows.size() >= 3)
    for (size_t i = 0; i < rows.size(); ++i) {
      std::vector<size_t> others;
      for (size_t r : rows)
        if (r != i) others.push_back(r);
      const Fitted fold = fit_on(runs, others, all, others.size() - 1, nullptr);
      out.leave_one_out_errors[i] = runs.error(i, fold.calibration);
    }
  out.leave_one_out_mape = mape_of(out.leave_one_out_errors);
  out.allocator = fit_allocator(runs);
  out.calibration.allocator_fraction = out.allocator.value;
  return out;
}

CalibrationFit fit_calibration_file(const PluginRegistry& registry, const DeviceCatalog& catalog,
                                    const CompareRequest& request, const ComparedRuns& compared,
                                    const std::filesystem::path& file) {
  CalibrationFit fit = fit_calibration(registry, catalog, request, compared);
  if (!fit.writes()) return fit;  // nothing to write: the report says why
  const Device& device = catalog.resolve(fit.device_id, "the device id");
  CalibrationFile written;
  written.path = file;
  written.device = fit.device_id;
  written.trainer = fit.trainer;
  written.fitted_on =
      fmt::format("{}, {} runs", compared.measured_file.filename().string(), fit.lines.size());
  // The time factors only where they lower the step times' error.
  written.factors = fit.lowers_error ? fit.calibration : identity_calibration(device);
  written.factors.allocator_fraction = fit.allocator.value;
  std::vector<std::string> comments{
      fmt::format("written by ndsearch compare, fitted on {}", compared.measured_file.string())};
  for (const std::string& line : fit_report_lines(fit)) comments.push_back(line);
  const std::string text = calibration_toml(written, device, comments);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  if (out) out << text;
  if (!out || !out.flush())
    throw UserError("E-OUTPUT", fmt::format("cannot write the fitted calibration to {}: {}; give a "
                                            "path in a folder that exists and is writable",
                                            file.string(), std::strerror(errno)));
  fit.file = file;
  return fit;
}

}  // namespace ndsearch
