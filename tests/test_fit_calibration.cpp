// SPDX-License-Identifier: Apache-2.0
// test_fit_calibration.cpp: `compare --fit` (core/compare/fit_calibration.hpp)
// on synthetic "measured" runs: our own predictions for Llama-3.1-8B
// (tests/fixtures/configs/hf/llama-3.1-8b.json) on H100 nodes with three
// factors of the cluster changed as the issue asks: GEMMs at 0.9x their
// efficiency, inter-node bandwidth (topology level 1) at 0.7x, and 50 ms more
// per step. The fit must recover each within 2 % and, applied, bring the
// runs' MAPE under 1 %.
#include <fmt/format.h>
#include <catch2/catch.hpp>

#include <cmath>

#include "core/compare/compare_runs.hpp"
#include "core/compare/fit_calibration.hpp"
#include "tests/support/shipped.hpp"

using namespace ndsearch;

namespace {

struct Run {
  const char* strategy;
  uint64_t devices;
  int64_t global_batch, seq_len;
};

// Strategies a practitioner might time on one to eight nodes: in-node and
// cross-node data parallelism (ZeRO 1 and 3), TP within a node, pipelines
// whose stages sit on different nodes, and three sequence lengths so that
// attention's share of the step varies.
const std::vector<Run> kRuns = {
    {"dp=8,tp=1,pp=1,zero=1", 8, 64, 4096},   {"dp=16,tp=1,pp=1,zero=1", 16, 32, 4096},
    {"dp=4,tp=2,pp=1,zero=1", 8, 32, 4096},   {"dp=2,tp=4,pp=2,zero=1", 16, 32, 4096},
    {"dp=1,tp=8,pp=2,zero=1", 16, 16, 8192},  {"dp=32,tp=1,pp=1,zero=1", 32, 64, 2048},
    {"dp=8,tp=2,pp=1,zero=1", 16, 16, 2048},  {"dp=4,tp=8,pp=1,zero=1", 32, 32, 8192},
    {"dp=2,tp=1,pp=4,zero=1", 8, 32, 2048},   {"dp=16,tp=2,pp=1,zero=3", 32, 32, 4096},
    {"dp=64,tp=1,pp=1,zero=1", 64, 64, 1024}, {"dp=8,tp=4,pp=2,zero=1", 64, 128, 4096},
};

CompareRequest request() {
  CompareRequest r;
  r.config = std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/llama-3.1-8b.json";
  r.parse.overrides.global_batch = 64;
  r.parse.overrides.seq_len = 4096;
  r.device = "nvidia-h100-sxm";
  return r;
}

MeasuredRuns runs_measured_at(const std::vector<double>& step_s) {
  MeasuredRuns m;
  m.file = "synthetic.csv";
  for (size_t i = 0; i < kRuns.size(); ++i) {
    MeasuredRun run;
    run.line = static_cast<int>(i) + 2;
    run.strategy = kRuns[i].strategy;
    run.step_s = step_s[i];
    run.devices = kRuns[i].devices;
    run.global_batch = kRuns[i].global_batch;
    run.seq_len = kRuns[i].seq_len;
    m.runs.push_back(run);
  }
  return m;
}

}  // namespace

TEST_CASE("compare --fit recovers GEMM 0.9x, inter-node bandwidth 0.7x and +50 ms per step") {
  const PluginRegistry& registry = test::shipped_plugins();
  const DeviceCatalog& catalog = test::shipped_devices();
  const Device& h100 = catalog.resolve("nvidia-h100-sxm");
  REQUIRE(h100.levels.size() == 2);  // NVLink in the node, InfiniBand between nodes

  Calibration truth = identity_calibration(h100);
  truth.gemm = 0.9;
  truth.bandwidth[1] = 0.7;
  truth.step_s = 0.05;
  CompareRequest req = request();
  req.base.calibration = truth;
  const Comparison cluster =
      compare_runs(registry, catalog, req, runs_measured_at(std::vector<double>(kRuns.size(), 1)));
  std::vector<double> measured;
  for (const ComparedRun& run : cluster.runs) {
    INFO(run.measured.strategy << (run.refused ? " refused: " + run.refused->reason : ""));
    REQUIRE(run.predicted_s);
    REQUIRE(run.fits);
    measured.push_back(*run.predicted_s);
  }

  req.base.calibration = Calibration{};
  const MeasuredRuns runs = runs_measured_at(measured);
  const Comparison before = compare_runs(registry, catalog, req, runs);
  REQUIRE(before.priced() == kRuns.size());
  CHECK(before.metrics.mape > 0.05);  // the changed cluster is well off the shipped model

  const CalibrationFit fit = fit_calibration(registry, catalog, req, before);
  std::string report;
  for (const FittedFactor& f : fit.factors)
    report += fmt::format("{} = {} ({})\n", f.factor.key, f.value,
                          f.fitted ? "fitted" : f.left_because);
  INFO(report);
  CHECK(fit.calibration.gemm == Approx(0.9).epsilon(0.02));
  CHECK(fit.calibration.level_bandwidth(1) == Approx(0.7).epsilon(0.02));
  CHECK(fit.calibration.step_s == Approx(0.05).epsilon(0.02));
  CHECK(fit.mape_before == Approx(before.metrics.mape).epsilon(1e-9));
  CHECK(fit.mape_after < 0.01);
  CHECK(fit.leave_one_out_mape < 0.01);  // noise-free runs: the fit generalises

  req.base.calibration = fit.calibration;
  const Comparison after = compare_runs(registry, catalog, req, runs);
  CHECK(after.metrics.mape < 0.01);
}
