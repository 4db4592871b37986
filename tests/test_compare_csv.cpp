// SPDX-License-Identifier: Apache-2.0
// test_compare_csv.cpp: compare's per-run CSV (core/output/compare_csv.hpp)
// written from a ComparedRuns built here by hand, so every cell is known, and
// the CSV field quoting it uses (core/support/csv.hpp, RFC 4180).
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "core/output/compare_csv.hpp"
#include "core/support/csv.hpp"

using namespace ndsearch;

TEST_CASE("A CSV field with a comma or a quote is quoted and reads back as written") {
  CHECK(csv_field("dp=8") == "dp=8");
  CHECK(csv_field("") == "");
  CHECK(csv_field("tp=2,pp=4") == "\"tp=2,pp=4\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  for (const char* text : {"tp=2,pp=4", "a \"quoted\", b", "plain"})
    CHECK(split_csv_line(csv_field(text)) == std::vector<std::string>{text});
}

namespace {

// A run of `line` with no per-row overrides.
MeasuredRun measured_run(int line, const std::string& strategy, double step_s,
                         std::vector<std::pair<std::string, double>> parts) {
  return {line,         strategy,     step_s,           std::nullopt,
          std::nullopt, std::nullopt, std::move(parts), std::nullopt};
}

// Two runs of our CSV measuring forward and dp, and a third a check refused.
ComparedRuns hand_made() {
  ComparedRuns c;
  c.format = MeasuredFormat::ndsearch;
  ComparedRun& a = c.runs.emplace_back();
  a.measured = measured_run(2, "tp=2,pp=4", 1.25, {{"forward", 0.5}, {"dp", 0.125}});
  a.strategy = "dp=1,tp=2,pp=4";
  a.predicted_s = 1.0;
  a.fits = true;
  a.predicted_parts_s = {{"forward", 0.375}, {"dp", 0.0625}, {"backward", 0.5}};
  a.metric_index = 0;
  ComparedRun& b = c.runs.emplace_back();
  b.measured = measured_run(3, "tp=1", 2.0, {{"forward", 1.5}});
  b.predicted_s = 2.5;
  b.fits = true;
  b.predicted_parts_s = {{"forward", 1.75}, {"dp", 0.25}};
  b.metric_index = 1;
  ComparedRun& refused = c.runs.emplace_back();
  refused.measured = measured_run(5, "tp=3", 0.5, {});
  refused.refused = StrategyRefusal{"tp-divides-heads", "tp 3 does not divide 4 heads, try 1, 2"};
  c.metrics.runs = {RunScore{-0.2, 1, 1, 0}, RunScore{0.25, 2, 2, 0}};
  return c;
}

}  // namespace

TEST_CASE("compare's CSV: a row per run, parts the file measured in our order, empty cells") {
  std::ostringstream out;
  write_compare_csv(out, hand_made());
  // Parts: forward and dp are measured (backward only predicted), listed in
  // kTimeParts' order. Run 1: error 1.0 / 1.25 − 1 = −0.2; its strategy and
  // the refusal's reason hold commas and are quoted. The refused run has no
  // prediction, error or ranks, and fits 0.
  CHECK(out.str() ==
        "line,strategy,measured_s,predicted_s,error,measured_rank,predicted_rank,fits,refused_id,"
        "refused_reason,measured_forward_s,predicted_forward_s,measured_dp_s,predicted_dp_s\n"
        "2,\"tp=2,pp=4\",1.25,1,-0.2,1,1,1,,,0.5,0.375,0.125,0.0625\n"
        "3,tp=1,2,2.5,0.25,2,2,1,,,1.5,1.75,,0.25\n"
        "5,tp=3,0.5,,,,,0,tp-divides-heads,\"tp 3 does not divide 4 heads, try 1, 2\",,,,\n");
}

TEST_CASE("The classified CSV's parts come compute first and idle last") {
  ComparedRuns c;
  c.format = MeasuredFormat::reference_classified;
  ComparedRun& run = c.runs.emplace_back();
  run.measured = measured_run(2, "dp=2", 1.0, {{"compute", 0.5}, {"tp", 0.25}, {"idle", 0.25}});
  CHECK(measured_part_names(c) == std::vector<std::string>{"compute", "tp", "idle"});
}
