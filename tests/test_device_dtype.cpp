// SPDX-License-Identifier: Apache-2.0
// test_device_dtype.cpp: a device without a dense peak for the dtype a model
// computes in is an error naming the device, the dtype, the dtypes it has
// and both fixes (E-DEVICE-DTYPE), never another dtype's peak in silence.
// Devices: our fixtures bf16_only.toml (bf16 and fp16) and fp8_only.toml
// (fp8), and the shipped Ascend A2 (bf16 and fp16).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"

using ndsearch::test::cli;
using ndsearch::test::run_command;

namespace {

std::string device_file(const std::string& name) {
  return std::string(NDS_TEST_FIXTURES_SOURCE) + "/devices/" + name + ".toml";
}

const std::string kLlama = std::string(NDS_TEST_EXAMPLES) + "/llama3-8b-torchtitan/llama3_8b.toml";

// `ndsearch VERB` on Llama 3.1 8B (TorchTitan, bf16; its stated strategy
// on 64 devices) with `args`, without the user's plugin or device paths.
ndsearch::test::CommandResult run(const std::string& verb, const std::string& args) {
  return run_command("env -u NDS_PLUGIN_PATH -u NDS_DEVICE_PATH " + cli() + " " + verb + " " +
                     kLlama + " -d 64 " + args);
}

}  // namespace

TEST_CASE("fp8 on a device file without an fp8 peak is E-DEVICE-DTYPE naming the dtypes it has") {
  const std::string file = device_file("bf16_only");
  const auto r = run("eval", "-A fixture-bf16-only --device-file " + file + " --dtype fp8");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err ==
        "ndsearch: error [E-DEVICE-DTYPE]: device fixture-bf16-only (" + file +
            ") states no dense peak for fp8, the dtype the linear layers' GEMMs run in; it "
            "states bf16, fp16: set the dtype (--dtype bf16) or another it has, or add "
            "`fp8 = <dense TFLOP/s>` under [peak_tflops] of " +
            file + "\n");
}

TEST_CASE("fp32 and tf32 have no stand-in either: each is named, in eval, search and explain") {
  const std::string file = device_file("bf16_only");
  for (const char* verb : {"eval", "search", "explain"}) {
    for (const char* dtype : {"fp32", "tf32"}) {
      INFO(verb << " --dtype " << dtype);
      const auto r = run(verb, "-A fixture-bf16-only --device-file " + file + " --dtype " + dtype);
      CHECK(r.exit_code == 2);
      CHECK_THAT(r.err,
                 Catch::StartsWith("ndsearch: error [E-DEVICE-DTYPE]: device fixture-bf16-only (" +
                                   file + ") states no dense peak for " + dtype +
                                   ", the dtype the linear layers' GEMMs run in; it states "
                                   "bf16, fp16:"));
    }
  }
}

TEST_CASE("The same device prices a bf16 model and says which peaks it used") {
  const auto r = run(
      "eval", "-A fixture-bf16-only --device-file " + device_file("bf16_only") + " --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  bool named = false;
  for (const auto& a : j["assumptions"])
    named = named || a.get<std::string>().rfind(
                         "linear-layer GEMMs in bf16, attention and output head in bf16", 0) == 0;
  CHECK(named);
  // 8.03 B parameters' worth of FLOPs over a 300 TFLOP/s bf16 peak: MFU's
  // denominator is that peak (model FLOPs / (step · 64 · 300e12)).
  const double step = j["time"]["step_s"].get<double>();
  const double flops = j["model_flops_per_step"].get<double>();
  CHECK(j["mfu"].get<double>() == Approx(flops / (step * 64 * 300e12)).epsilon(1e-9));
}

TEST_CASE(
    "An fp8 recipe on a device with fp8 but no bf16 names the bf16 attention and the head keep") {
  const std::string file = device_file("fp8_only");
  const auto r = run("eval", "-A fixture-fp8-only --device-file " + file + " --dtype fp8");
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "ndsearch: error [E-DEVICE-DTYPE]: device fixture-fp8-only (" + file +
            ") states no dense peak for bf16, the dtype attention, the output head and the "
            "router keep beside fp8 GEMMs; it states fp8: add `bf16 = <dense TFLOP/s>` under "
            "[peak_tflops] of " +
            file + "\n");
}

TEST_CASE("A shipped device without fp8 points to a device file based on it") {
  const auto r = run("eval", "-A ascend-a2 --dtype fp8");
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "ndsearch: error [E-DEVICE-DTYPE]: device ascend-a2 (ascend) states no dense peak for fp8, "
        "the dtype the linear layers' GEMMs run in; it states bf16, fp16: set the dtype (--dtype "
        "bf16) "
        "or another it has, or state its peak in a device file (`base = \"ascend-a2\"` and "
        "`fp8 = <dense TFLOP/s>` under [peak_tflops]; docs/device-toml.md)\n");
}
