// SPDX-License-Identifier: Apache-2.0
// test_calibration_file.cpp: the calibration file (docs/cli.md,
// "Calibration"): read strictly, written back to the same file, checked
// against the priced device, and applied by `--calibration FILE` on eval,
// search, explain and compare. Every bad input exits 2 with E-CALIBRATION
// (or E-CALIBRATION-DEVICE) and names the key.
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include <ndsearch/core/planner.hpp>

#include "core/input/parse_config.hpp"
#include "core/output/time_json.hpp"
#include "core/price/calibration_file.hpp"
#include "core/price/evaluate_strategy.hpp"
#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/shipped.hpp"
#include "tests/support/temp_csv.hpp"
#include "tests/support/unwrapped.hpp"

using ndsearch::test::cli;
using ndsearch::test::run_command;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kDevice = "nvidia-h100-sxm";
const std::string kTiny = std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/tiny-4-layers.json";
const std::string kLlama8b =
    std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/llama-3.1-8b.json";

// A device of two topology levels, as the file's bandwidth array sees it.
ndsearch::Device two_level_device() {
  ndsearch::Device d;
  d.id = "test-device";
  d.levels.resize(2);
  d.levels[0].name = "NVLink";
  d.levels[1].name = "InfiniBand";
  return d;
}

fs::path calibration_file(const std::string& text) {
  return ndsearch::test::temp_file("calibration", ".toml", text);
}

std::string with_factors(const std::string& factors, const std::string& device = kDevice) {
  return fmt::format("[calibration]\ndevice = \"{}\"\n[factors]\n{}\n", device, factors);
}

// The UserError parse_calibration throws for `text`, as "ID: message".
std::string parse_error(const std::string& text) {
  try {
    ndsearch::parse_calibration(text, "cal.toml", two_level_device());
  } catch (const ndsearch::UserError& e) {
    return e.id() + ": " + e.what();
  }
  return "no error";
}

struct Run {
  int exit_code;
  std::string out, err;
};
Run ndsearch_cli(const std::string& args) {
  auto r = run_command("env -u NDS_PLUGIN_PATH " + cli() + " " + args);
  return {r.exit_code, r.out, r.err};
}

std::string eval_args(const std::string& config, const std::string& more) {
  return fmt::format("eval {} -A {} --seq-len 512 -b 16 --strategy dp=1,tp=1,pp=1,mbs=1 {}", config,
                     kDevice, more);
}

// The eval table's output with `file` applied.
std::string calibrated_table(const fs::path& file, const std::string& more = "") {
  const Run r = ndsearch_cli(eval_args(kTiny, more + " --calibration " + file.string()));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

}  // namespace

TEST_CASE("A calibration file reads every factor under its key") {
  const ndsearch::CalibrationFile f = ndsearch::parse_calibration(
      "[calibration]\ndevice = \"test-device\"\ntrainer = \"megatron\"\nfitted_on = \"runs.csv\"\n"
      "[factors]\nstep_overhead_s = 0.05\ngemm_efficiency = 0.9\nbandwidth = [1.0, 0.7]\n"
      "[factors.communication]\ntp = 1.5\n",
      "cal.toml", two_level_device());
  CHECK(f.device == "test-device");
  CHECK(f.trainer == "megatron");
  CHECK(f.fitted_on == "runs.csv");
  CHECK(f.factors.step_s == 0.05);
  CHECK(f.factors.gemm == 0.9);
  CHECK(f.factors.level_bandwidth(0) == 1.0);
  CHECK(f.factors.level_bandwidth(1) == 0.7);
  CHECK(f.factors.comm(ndsearch::CommPart::tp) == 1.5);
  CHECK(f.factors.comm(ndsearch::CommPart::dp) == 1.0);  // absent: neutral
  CHECK(f.factors.attention == 1.0);
}

TEST_CASE("Each bad calibration file is E-CALIBRATION naming the key") {
  using Catch::Matchers::Contains;
  const std::string any = "E-CALIBRATION: cal.toml";
  // Each row: the file's text, and the words the message must hold.
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases{
      {with_factors("gemm_eficiency = 0.9"), {"`factors.gemm_eficiency`", "gemm_efficiency"}},
      {"[calibrate]\ndevice = \"x\"\n", {"`calibrate`", "calibration, factors"}},
      {with_factors("gemm_efficiency = 3.0"), {"`factors.gemm_efficiency`", "= 3", "[0.25, 2]"}},
      {with_factors("step_overhead_s = -0.1"), {"`factors.step_overhead_s`", "-0.1", "[0, 10]"}},
      {with_factors("hbm_efficiency = nan"), {"`factors.hbm_efficiency`", "not finite"}},
      {with_factors("gemm_efficiency = inf"), {"`factors.gemm_efficiency`", "not finite"}},
      {with_factors("gemm_efficiency = \"0.9\""),
       {"`factors.gemm_efficiency`", "must be a number"}},
      {with_factors("bandwidth = [1.0]"),
       {"`factors.bandwidth`", "has 1 element;", "2 topology levels"}},
      {with_factors("bandwidth = [1.0, 0.01]"), {"`factors.bandwidth[1]`", "[0.05, 2]"}},
      {with_factors("bandwidth = 0.7"), {"`factors.bandwidth`", "array of 2 numbers"}},
      {with_factors("[factors.communication]\nzz = 1.0"),
       {"`factors.communication.zz`", "dp, tp, pp, ep, cp"}},
      {with_factors("[factors.communication]\ntp = 5"),
       {"`factors.communication.tp`", "[0.25, 4]"}},
      {"[factors]\ngemm_efficiency = 0.9\n", {"`calibration.device` is missing"}},
      {"[calibration]\ndevice = 3\n", {"`calibration.device` must be a string"}},
      {"[calibration\ndevice = \"x\"\n", {"cal.toml:1:", "not valid TOML"}},
  };
  for (const auto& [text, words] : cases) {
    INFO(text);
    const std::string error = parse_error(text);
    CHECK_THAT(error, Contains(any));
    for (const std::string& w : words) CHECK_THAT(error, Contains(w));
  }
}

TEST_CASE("calibration_toml writes a file that reads back the same") {
  const ndsearch::Device device = two_level_device();
  ndsearch::CalibrationFile f;
  f.path = "cal.toml";
  f.device = "test-device";
  f.trainer = "megatron";
  f.fitted_on = "runs.csv, \"12\" runs";  // a quote TOML must escape
  f.factors = ndsearch::identity_calibration(device);
  // A value of every factor, each distinct, inside its bounds and with no
  // short decimal form: (0.2 + i/21) of the way from its lower bound up.
  const std::vector<ndsearch::CalibrationFactor> factors = ndsearch::calibration_factors(device);
  for (size_t i = 0; i < factors.size(); ++i)
    factors[i].set(f.factors, factors[i].lower + (factors[i].upper - factors[i].lower) *
                                                     (0.2 + static_cast<double>(i) / 21.0));
  factors[0].set(f.factors, 0.123456789012345);  // step_overhead_s, full precision
  const std::string text = ndsearch::calibration_toml(f, device, {"fitted by a test", "2 lines"});
  INFO(text);
  CHECK(text.find("# fitted by a test\n# 2 lines\n") != std::string::npos);
  const ndsearch::CalibrationFile back = ndsearch::parse_calibration(text, "cal.toml", device);
  CHECK(back.device == f.device);
  CHECK(back.trainer == f.trainer);
  CHECK(back.fitted_on == f.fitted_on);
  for (const ndsearch::CalibrationFactor& factor : factors) {
    INFO(factor.key);
    CHECK(factor.get(back.factors) == factor.get(f.factors));
  }
}

TEST_CASE("A calibration fitted on another device is E-CALIBRATION-DEVICE unless forced") {
  const fs::path file = calibration_file(with_factors("gemm_efficiency = 0.9", "nvidia-a100-80g"));
  const Run refused =
      ndsearch_cli(eval_args(kTiny, "--format json --calibration " + file.string()));
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.err, Catch::Matchers::Contains("[E-CALIBRATION-DEVICE]"));
  CHECK_THAT(refused.err, Catch::Matchers::Contains("fitted on nvidia-a100-80g"));
  CHECK_THAT(refused.err, Catch::Matchers::Contains("(--force)"));  // the CLI's flag, not the key
  const Run forced =
      ndsearch_cli(eval_args(kTiny, "--format json --force --calibration " + file.string()));
  INFO(forced.err);
  REQUIRE(forced.exit_code == 0);
  const json j = json::parse(forced.out);
  CHECK(j["calibration"]["forced"] == true);
  CHECK(j["calibration"]["device"] == "nvidia-a100-80g");
  CHECK_THAT(calibrated_table(file, "--force"),
             Catch::Matchers::Contains("forced onto another device"));

  // The device is checked before the factors: a bandwidth array of another
  // device's length is not what the user needs to hear first.
  const fs::path other_levels =
      calibration_file(with_factors("bandwidth = [1.0, 1.0, 1.0]", "nvidia-a100-80g"));
  const Run first = ndsearch_cli(eval_args(kTiny, "--calibration " + other_levels.string()));
  CHECK(first.exit_code == 2);
  CHECK_THAT(first.err, Catch::Matchers::Contains("[E-CALIBRATION-DEVICE]"));
}

TEST_CASE("eval, search, explain and compare refuse a bad calibration file with exit 2") {
  const fs::path bad = calibration_file(with_factors("gemm_efficiency = 9"));
  const std::string flag = " --calibration " + bad.string();
  const fs::path runs =
      ndsearch::test::temp_csv("calibration-runs", "dp,tp,pp,mbs,step_s\n1,1,1,1,0.5\n");
  for (const std::string& args :
       {eval_args(kTiny, flag),
        fmt::format("search {} -A {} -d 1 --seq-len 512 -b 16{}", kTiny, kDevice, flag),
        fmt::format("explain {} -A {} --seq-len 512 -b 16 --strategy dp=1{}", kTiny, kDevice, flag),
        fmt::format("compare {} -A {} --seq-len 512 -b 16 --measured {}{}", kTiny, kDevice,
                    runs.string(), flag)}) {
    INFO(args);
    const Run r = ndsearch_cli(args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Matchers::Contains("[E-CALIBRATION]"));
    CHECK_THAT(r.err, Catch::Matchers::Contains("`factors.gemm_efficiency`"));
  }
  const Run missing = ndsearch_cli(eval_args(kTiny, "--calibration /nonexistent/cal.toml"));
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Matchers::Contains("[E-CALIBRATION]"));
  CHECK_THAT(missing.err, Catch::Matchers::Contains("/nonexistent/cal.toml: no such file"));
}

TEST_CASE("A neutral calibration changes no number and is recorded") {
  const fs::path neutral = calibration_file(with_factors("gemm_efficiency = 1.0"));
  const Run plain = ndsearch_cli(eval_args(kTiny, "--format json"));
  const Run calibrated =
      ndsearch_cli(eval_args(kTiny, "--format json --calibration " + neutral.string()));
  REQUIRE(plain.exit_code == 0);
  REQUIRE(calibrated.exit_code == 0);
  json a = json::parse(plain.out), b = json::parse(calibrated.out);
  CHECK(a["calibration"].is_null());
  CHECK(b["calibration"]["file"] == neutral.string());
  CHECK(b["calibration"]["factors"]["gemm_efficiency"] == 1.0);
  CHECK(a["trainer_overheads"] == b["trainer_overheads"]);
  CHECK(a["trainer_overheads"].contains("overheads_source"));
  b.erase("calibration");
  a.erase("calibration");
  CHECK(a == b);  // every number the same
}

TEST_CASE("eval --calibration with gemm_efficiency 0.5 prices as the time model with that factor") {
  // llama-3.1-8b at sequence 4096: per layer the GEMMs do 2 x 218 M params x
  // 4096 tokens = 1.8 TFLOP against attention's 4 x 4096^2 x 4096 = 0.27 TFLOP,
  // so the forward pass is GEMM-bound: halving the GEMM efficiency nearly
  // doubles it (more than 1.5x, at most 2x, the other kernels unchanged).
  const fs::path half = calibration_file(with_factors("gemm_efficiency = 0.5"));
  const std::string args = fmt::format(
      "eval {} -A {} -d 8 --seq-len 4096 -b 8 --strategy dp=8,tp=1,pp=1,mbs=1 --format json",
      kLlama8b, kDevice);
  const Run plain = ndsearch_cli(args);
  const Run calibrated = ndsearch_cli(args + " --calibration " + half.string());
  INFO(plain.err << calibrated.err);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(calibrated.exit_code == 0);
  const json a = json::parse(plain.out), b = json::parse(calibrated.out);
  REQUIRE(a["valid"] == true);
  const double ratio =
      b["time"]["parts"]["forward"].get<double>() / a["time"]["parts"]["forward"].get<double>();
  CHECK(ratio > 1.5);
  CHECK(ratio <= 2.0);
  CHECK(b["calibration"]["factors"]["gemm_efficiency"] == 0.5);
  CHECK(b["calibration"]["summary"] == "GEMM efficiency scale x 0.500");

  // The same Calibration given to the pricing directly: the file reaches the model unchanged.
  ndsearch::ParseOptions parse;
  parse.overrides.seq_len = 4096;
  parse.overrides.global_batch = 8;
  ndsearch::Model model =
      ndsearch::parse_config(ndsearch::test::shipped_plugins(), kLlama8b, parse);
  const ndsearch::Machine machine =
      ndsearch::evaluation_machine(ndsearch::test::shipped_devices(), kDevice, 8);
  ndsearch::EvaluationRequest request;
  request.strategy = "dp=8,tp=1,pp=1,mbs=1";
  request.devices = 8;
  request.calibration.gemm = 0.5;
  const ndsearch::StrategyEvaluation direct =
      ndsearch::evaluate_strategy(ndsearch::test::shipped_plugins(), model, machine, request);
  REQUIRE(direct.time);
  CHECK(ndsearch::time_json(*direct.time) == b["time"]);
}

TEST_CASE("A calibration's allocator share replaces the shipped one, named in the assumptions") {
  // The allocator pass adds share x (activations + communication buffers)
  // of a rank (allocator_share.hpp): at 0.25 in place of the shipped share
  // s, the peak rank grows by (0.25 - s) x those bytes, exactly (to a byte
  // of rounding per term).
  const fs::path file = calibration_file(with_factors("allocator_fraction = 0.25"));
  const std::string args = fmt::format(
      "eval {} -A {} -d 8 --seq-len 4096 -b 8 --strategy dp=8,tp=1,pp=1,mbs=1 --format json",
      kLlama8b, kDevice);
  const Run plain = ndsearch_cli(args);
  const Run calibrated = ndsearch_cli(args + " --calibration " + file.string());
  INFO(plain.err << calibrated.err);
  REQUIRE(plain.exit_code == 0);
  REQUIRE(calibrated.exit_code == 0);
  const json a = json::parse(plain.out), b = json::parse(calibrated.out);
  const json& s = a["memory"]["stages"][0];
  const double dynamic =
      s["activations_bytes"].get<double>() + s["comm_buffers_bytes"].get<double>();
  const double shipped = s["other_bytes"].get<double>() / dynamic;  // the allocator is `other` here
  CHECK(shipped == Approx(0.073).epsilon(0.05));
  CHECK(b["memory"]["stages"][0]["other_bytes"].get<double>() == Approx(0.25 * dynamic).margin(2));
  CHECK(b["calibration"]["factors"]["allocator_fraction"] == 0.25);
  CHECK(a["time"] == b["time"]);  // memory only
  bool named = false;
  for (const json& line : b["assumptions"])
    named =
        named || line.get<std::string>() ==
                     fmt::format(
                         "memory: the allocator holds 25.0 % of the activations and communication "
                         "buffers reserved beyond them (the calibration {})",
                         file.string());
  CHECK(named);
  // Out of its bounds: E-CALIBRATION naming the key.
  const Run bad = ndsearch_cli(args + " --calibration " +
                               calibration_file(with_factors("allocator_fraction = 0.6")).string());
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Catch::Matchers::Contains("`factors.allocator_fraction`"));
  CHECK_THAT(bad.err, Catch::Matchers::Contains("outside its bounds [0, 0.5]"));
}

TEST_CASE("The table header says which calibration is applied, on top of the trainer overheads") {
  const fs::path file = calibration_file(with_factors("step_overhead_s = 0.05"));
  CHECK_THAT(ndsearch::test::unwrapped(calibrated_table(file)),
             Catch::Matchers::Contains(fmt::format(
                 "calibration: {} (fitted on {}): +50.0 ms per step; on top of the trainer "
                 "overheads (",
                 file.string(), kDevice)));
}

TEST_CASE("Planner applies a calibration and records it in every document") {
  const fs::path file = calibration_file(with_factors("step_overhead_s = 0.05"));
  const ndsearch::Planner planner(ndsearch::test::shipped_plugin_settings());
  ndsearch::EvaluateSettings e;
  e.model.config = kTiny;
  e.model.seq_len = 512;
  e.model.global_batch = 16;
  e.device = kDevice;
  e.strategy = "dp=1,tp=1,pp=1,mbs=1";
  const json plain = planner.evaluate(e).to_json();
  e.calibration = file;
  const json calibrated = planner.evaluate(e).to_json();
  // +50 ms per step added to the step (calibration.hpp: an overhead adds).
  CHECK(calibrated["time"]["step_s"].get<double>() ==
        Approx(plain["time"]["step_s"].get<double>() + 0.05));
  CHECK(calibrated["calibration"]["factors"]["step_overhead_s"] == 0.05);
  const Run cli_run =
      ndsearch_cli(eval_args(kTiny, "--format json --calibration " + file.string()));
  CHECK(json::parse(cli_run.out) == calibrated);

  ndsearch::SearchSettings s;
  s.model = e.model;
  s.device = kDevice;
  s.devices = 1;
  s.calibration = file;
  CHECK(planner.search(s).to_json()["calibration"]["file"] == file.string());
  ndsearch::ExplainSettings x;
  x.evaluate = e;
  CHECK(planner.explain(x).to_json()["calibration"]["file"] == file.string());
  // compare prices its run with the calibration: the same strategy, batch and
  // sequence as `e`, so the prediction is eval's calibrated step.
  ndsearch::CompareSettings c;
  c.evaluate = e;
  c.measured = ndsearch::test::temp_csv("calibration-runs", "dp,tp,pp,mbs,step_s\n1,1,1,1,0.5\n");
  const json compared = planner.compare(c).to_json();
  CHECK(compared["calibration"]["file"] == file.string());
  CHECK(compared["trainer_overheads"] == calibrated["trainer_overheads"]);
  REQUIRE(compared["runs"].size() == 1);
  CHECK(compared["runs"][0]["predicted_s"].get<double>() ==
        Approx(calibrated["time"]["step_s"].get<double>()));
}
