// SPDX-License-Identifier: Apache-2.0
// test_timeline.cpp: `explain --timeline` writes the step's pipeline
// schedule as Chrome Trace Event JSON (core/output/timeline_json.hpp): one
// track per rank, one forward and one backward per micro-batch and chunk,
// each rank busy for what the time model prices, ending at the predicted step.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"

using ndsearch::test::cli;
using ndsearch::test::run_command;
using nlohmann::json;

namespace {

std::string llama_70b() {
  return std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/llama-3.1-70b.json";
}

struct Explained {
  json timeline, explain;
};

// Llama-3.1-70B (vocabulary 128 256: the output head makes the last rank the
// slowest) on 64 H100, 64 sequences of 4096 a step.
Explained explain_with_timeline(const std::string& strategy) {
  const auto file = std::filesystem::temp_directory_path() / "ndsearch_test_timeline.json";
  std::filesystem::remove(file);
  auto r = run_command(
      "env -u NDS_PLUGIN_PATH " + cli() + " explain " + llama_70b() +
      " -A nvidia-h100-sxm -d 64 --global-batch 64 --seq-len 4096 --format json --strategy " +
      strategy + " --timeline " + file.string());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  std::ifstream in(file);
  REQUIRE(in);
  return {json::parse(in), json::parse(r.out)};
}

}  // namespace

TEST_CASE(
    "The timeline has a track per rank, a forward and a backward per micro-batch and chunk, and "
    "ends at the step") {
  for (const char* strategy : {"tp=8,pp=4,dp=2,vpp=1", "tp=8,pp=4,dp=2,vpp=2,recompute=full"}) {
    INFO(strategy);
    const Explained e = explain_with_timeline(strategy);
    const json& events = e.timeline["traceEvents"];
    const int vpp = strategy[std::string(strategy).find("vpp=") + 4] - '0';
    const int mbn = 32, pp = 4;  // 64 sequences over dp 2, mbs 1
    std::set<int> tracks;
    std::map<int, std::map<std::string, int>> per_rank;  // rank -> name -> count
    std::map<int, double> busy;                          // rank -> seconds of its ops
    double last_end = 0;
    for (const json& x : events) {
      if (x["ph"] == "M" && x["name"] == "thread_name") tracks.insert(x["tid"].get<int>());
      if (x["ph"] != "X") continue;
      const int rank = x["tid"].get<int>();
      const std::string name = x["name"];
      ++per_rank[rank][name];
      last_end = std::max(last_end, (x["ts"].get<double>() + x["dur"].get<double>()) / 1e6);
      if (x["cat"] != "step") busy[rank] += x["dur"].get<double>() / 1e6;
    }
    CHECK(tracks == std::set<int>{0, 1, 2, 3});
    const json& time = e.explain["time"];
    for (int rank = 0; rank < pp; ++rank) {
      CHECK(per_rank[rank]["forward"] == mbn * vpp);
      CHECK(per_rank[rank]["backward"] == mbn * vpp);
      CHECK(per_rank[rank]["recompute"] ==
            (std::string(strategy).find("full") != std::string::npos ? mbn * vpp : 0));
    }
    // The last rank (the output head's) is the slowest: busy for all the
    // step's forward, backward, recompute, exposed communication and
    // per-layer overhead; the pipeline's run and the predicted step agree.
    const json& parts = time["parts"];
    double slowest = 0;
    for (const char* part : {"forward", "backward", "recompute", "tp", "cp", "ep", "pp"})
      slowest += parts[part].get<double>();
    CHECK(busy[pp - 1] == Approx(slowest).epsilon(1e-3));
    for (int rank = 0; rank < pp - 1; ++rank) CHECK(busy[rank] < busy[pp - 1]);
    CHECK(last_end == Approx(time["step_s"].get<double>()).epsilon(1e-3));
    CHECK(e.timeline["otherData"]["simulated_step_s"].get<double>() ==
          Approx(time["step_s"].get<double>()).epsilon(1e-3));
  }
}

TEST_CASE("A timeline of zb-v is refused with the schedules that have one") {
  const auto file = std::filesystem::temp_directory_path() / "ndsearch_test_timeline_zbv.json";
  auto r = run_command("env -u NDS_PLUGIN_PATH " + cli() + " explain " + llama_70b() +
                       " -A nvidia-h100-sxm -d 64 --global-batch 64 --seq-len 4096 --strategy "
                       "tp=8,pp=4,dp=2,vpp=2,schedule=zb-v --timeline " +
                       file.string());
  CHECK(r.exit_code != 0);
  CHECK_THAT(r.err, Catch::Contains("E-USAGE") && Catch::Contains("--timeline") &&
                        Catch::Contains("1f1b, interleaved and gpipe"));
}
