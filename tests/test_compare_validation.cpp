// SPDX-License-Identifier: Apache-2.0
// test_compare_validation.cpp: `compare` on the shipped validation CSVs gives
// the errors of the time model's validation (issue 13, "done when"): for
// every CSV of validation/, each run's error equals RowResult::error of
// run_validation with the shipped overheads (both the step time's error,
// predicted / measured - 1, the measured step implied by the published
// metric), and compare's MAPE equals the report's mean |error| of that
// source (docs/validation.md's "mean abs step-time error" column). And the
// command line: a validation CSV takes no CONFIG nor -A, the other formats
// need both (E-USAGE).
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include "core/compare/compare_file.hpp"
#include "core/fit/validation_report.hpp"
#include "core/support/user_error.hpp"
#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/shipped.hpp"
#include "tests/support/temp_csv.hpp"

using namespace ndsearch;
namespace fs = std::filesystem;

namespace {

const fs::path kValidation = fs::path(NDS_TEST_SOURCE_DIR) / "validation";

std::vector<fs::path> validation_csvs() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kValidation))
    if (entry.path().extension() == ".csv") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

TEST_CASE("compare on every validation CSV gives the validation's errors and mean abs error") {
  const ValidationReport report = run_validation(test::shipped_plugins(), test::shipped_devices(),
                                                 kValidation, ValidationOptions{});
  const std::vector<fs::path> files = validation_csvs();
  REQUIRE(files.size() == 9);  // the nine sources of docs/validation.md
  size_t compared = 0;
  for (const fs::path& file : files) {
    INFO(file.string());
    REQUIRE(is_validation_csv(file));
    const ComparedRuns c = compare_measured_file(test::shipped_plugins(), test::shipped_devices(),
                                                 CompareRequest{}, file);
    CHECK(c.format == MeasuredFormat::validation);
    CHECK(c.skipped.empty());
    double sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < report.rows.size(); ++i) {
      if (report.rows[i].source != file.stem().string()) continue;
      const RowResult& expected = report.reports[i].result;
      const ComparedRun* run = nullptr;
      for (const ComparedRun& r : c.runs)
        if (r.measured.line == report.rows[i].line) run = &r;
      INFO(report.rows[i].name << ": validation error " << expected.error);
      REQUIRE(run != nullptr);
      REQUIRE(run->metric_index.has_value());  // every published strategy fits (the validation)
      const double error = c.metrics.runs[*run->metric_index].error;
      CHECK(error == Approx(expected.error).margin(1e-12));
      CHECK(*run->predicted_s == expected.time.step_s);
      CHECK(run->measured.step_s == Approx(measured_step_s(expected)).epsilon(1e-15));
      sum += std::abs(expected.error), ++n, ++compared;
    }
    REQUIRE(n == c.runs.size());
    CHECK(c.priced() == n);
    CHECK(c.metrics.mape == Approx(sum / static_cast<double>(n)).margin(1e-12));
  }
  CHECK(compared == report.rows.size());
}

TEST_CASE("A validation CSV that names no run, or a broken row, is E-VALIDATION-CSV") {
  const fs::path empty = test::temp_csv(
      "validation_empty",
      "name,config,device,devices,global_batch,seq_len,strategy,metric,published,search_only\n");
  CHECK(is_validation_csv(empty));
  CHECK_THROWS_WITH(compare_measured_file(test::shipped_plugins(), test::shipped_devices(),
                                          CompareRequest{}, empty),
                    Catch::Contains("a header and no published run"));
  // The config a row names does not exist: that run is listed with the
  // reason, and with no run priced the metrics are NaN.
  const fs::path missing = test::temp_csv(
      "validation_missing",
      "name,config,device,devices,global_batch,seq_len,strategy,metric,published,search_only\n"
      "r,no-such-script.sh,nvidia-h100-sxm,8,64,4096,\"tp=1\",mfu,0.4,\n");
  const ComparedRuns c = compare_measured_file(test::shipped_plugins(), test::shipped_devices(),
                                               CompareRequest{}, missing);
  REQUIRE(c.runs.size() == 1);
  REQUIRE(c.runs[0].refused.has_value());
  CHECK_THAT(c.runs[0].refused->reason, Catch::Contains("no-such-script.sh"));
  CHECK(c.priced() == 0);
}

TEST_CASE("compare takes a validation CSV alone, and CONFIG and -A for the other formats") {
  using test::cli;
  using test::run_command;
  const std::string nemo = (kValidation / "nemo-24.07-h100-fp8.csv").string();
  const auto ok = run_command("env -u NDS_PLUGIN_PATH " + cli() + " compare --measured " + nemo +
                              " --format json");
  INFO(ok.out << ok.err);
  REQUIRE(ok.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(ok.out);
  CHECK(j["format"] == "validation");
  CHECK(j["priced"] == 7);  // the 7 rows of NeMo 24.07's FP8 table
  CHECK(j["metrics"]["mape"].is_number());

  const std::string config =
      std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/tiny-4-layers.json";
  const auto with_config =
      run_command("env -u NDS_PLUGIN_PATH " + cli() + " compare " + config + " --measured " + nemo);
  CHECK(with_config.exit_code == 2);
  CHECK_THAT(with_config.err, Catch::Contains("[E-USAGE]"));
  CHECK_THAT(with_config.err, Catch::Contains("is a validation CSV"));
  CHECK_THAT(with_config.err, Catch::Contains("the config (CONFIG) '" + config + "' is not used"));
  const auto with_device = run_command("env -u NDS_PLUGIN_PATH " + cli() +
                                       " compare -A nvidia-h100-sxm --measured " + nemo);
  CHECK(with_device.exit_code == 2);
  CHECK_THAT(with_device.err, Catch::Contains("[E-USAGE]"));
  CHECK_THAT(with_device.err, Catch::Contains("the device (-A) 'nvidia-h100-sxm' is not used"));

  const fs::path ours = test::temp_csv("compare_no_config", "dp,tp,pp,mbs,step_s\n1,1,1,1,0.5\n");
  const auto no_config = run_command("env -u NDS_PLUGIN_PATH " + cli() +
                                     " compare -A nvidia-h100-sxm --measured " + ours.string());
  CHECK(no_config.exit_code == 2);
  CHECK_THAT(no_config.err, Catch::Contains("[E-USAGE]"));
  CHECK_THAT(no_config.err, Catch::Contains("in the ndsearch format"));
  CHECK_THAT(no_config.err, Catch::Contains("the config (CONFIG) is missing"));
  const auto no_device = run_command("env -u NDS_PLUGIN_PATH " + cli() + " compare " + config +
                                     " --measured " + ours.string());
  CHECK(no_device.exit_code == 2);
  CHECK_THAT(no_device.err, Catch::Contains("the device (-A) is missing"));
}

TEST_CASE(
    "A validation CSV takes neither --calibration nor --fit: it is the shipped model's check") {
  using test::cli;
  using test::run_command;
  const std::string nemo = (kValidation / "nemo-24.07-h100-fp8.csv").string();
  for (const std::string more : {" --calibration any.toml", " --fit out.toml"}) {
    const auto r =
        run_command("env -u NDS_PLUGIN_PATH " + cli() + " compare --measured " + nemo + more);
    INFO(more << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(
        r.err,
        Catch::Contains("[E-USAGE]") && Catch::Contains("is a validation CSV") &&
            Catch::Contains(
                "(--calibration FILE) and the calibration file to fit (--fit FILE) do not apply"));
  }
  CHECK_FALSE(fs::exists("out.toml"));
}
