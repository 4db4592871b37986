// SPDX-License-Identifier: Apache-2.0
// test_hardware.cpp: devices end to end: `ndsearch hardware` against the
// reviewed golden files, TOML device files and their errors, -A names.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/stat.h>  // mkfifo
#include <unistd.h>    // getpid

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"

using ndsearch::test::cli;
using ndsearch::test::run_command;
using nlohmann::json;

namespace {
const char* kShippedIds[] = {"nvidia-a100-80g", "nvidia-h100-sxm", "nvidia-h100-gt96",
                             "nvidia-h200",     "nvidia-b200",     "amd-mi300x",
                             "ascend-a2",       "ascend-a2-podc",  "ascend-a3",
                             "ascend-a2-nd",    "ascend-a3-nd"};

std::string device_file(const std::string& name) {
  return std::string(NDS_TEST_FIXTURES_SOURCE) + "/devices/" + name + ".toml";
}

// `ndsearch hardware` without any TOML path from the user's environment.
ndsearch::test::CommandResult hardware(const std::string& args) {
  return run_command("env -u NDS_DEVICE_PATH -u NDS_PLUGIN_PATH " + cli() + " hardware " + args);
}
}  // namespace

TEST_CASE("Each shipped device's JSON matches its reviewed golden file") {
  for (const char* id : kShippedIds) {
    INFO(id);
    auto r = hardware(std::string(id) + " --format json");
    REQUIRE(r.exit_code == 0);
    std::ifstream golden(std::string(NDS_TEST_GOLDEN) + "/hardware/" + id + ".json");
    REQUIRE(golden.good());
    // To review a change: diff the output with tests/golden/hardware/<id>.json.
    CHECK(json::parse(r.out) == json::parse(golden));
  }
}

TEST_CASE("hardware --format json lists the eleven shipped devices and the example TOML ones") {
  auto r = run_command("env -u NDS_PLUGIN_PATH NDS_DEVICE_PATH=" + std::string(NDS_TEST_EXAMPLES) +
                       "/devices " + cli() + " hardware --format json");
  REQUIRE(r.exit_code == 0);
  json j = json::parse(r.out);
  CHECK(j["schema_version"] == 1);
  std::vector<std::string> ids;
  for (const json& d : j["devices"]) ids.push_back(d["id"]);
  CHECK(ids == std::vector<std::string>{"amd-mi300x", "ascend-a2", "ascend-a2-podc", "ascend-a3",
                                        "ascend-a2-nd", "ascend-a3-nd", "nvidia-a100-80g",
                                        "nvidia-h100-sxm", "nvidia-h100-gt96", "nvidia-h200",
                                        "nvidia-b200", "acme-x1", "h100-roce"});
  for (const json& d : j["devices"]) {
    for (const char* key :
         {"id", "name", "vendor", "peak_flops", "memory_bytes", "memory_bandwidth_bytes_per_s",
          "reserved_bytes", "levels", "host_link_bytes_per_s", "assumes", "source"})
      CHECK(d.contains(key));
  }
  const json& roce = j["devices"][12];
  CHECK(roce["source"] == std::string(NDS_TEST_EXAMPLES) + "/devices/h100-roce-cluster.toml");
  CHECK(roce["levels"][1]["bandwidth_bytes_per_s"] == 25e9);  // overridden: 2 x 100 Gb/s
  CHECK(roce["peak_flops"]["bf16"] == 989.4e12);              // kept from the base
  CHECK(roce["levels"][0]["all_reduce_speedup"] == 1.29);     // restated: levels replace the base's
  CHECK(roce["levels"][0]["half_bandwidth_bytes"] == 12.0e6);  // restated too
  CHECK(roce["levels"][1]["half_bandwidth_bytes"] == 0);  // not stated: every size at the plateau
  CHECK(roce["levels"][1]["bus_efficiency"] == 0);        // not stated: the host's default
  CHECK(roce["memory_bandwidth_efficiency"] == 0.887);    // kept from the base
  const json& acme = j["devices"][11];
  CHECK(acme["memory_bandwidth_efficiency"] == 0.85);
  CHECK(acme["matmul_small_dim_efficiency"]["bf16"]["smallest_dim"] == json::array({64, 128, 256}));
  CHECK(acme["attention_backward_efficiency"]["bf16"]["fraction"] ==
        json::array({0.20, 0.40, 0.50}));
  CHECK(acme["levels"][1]["bus_efficiency"] == 0.75);
}

TEST_CASE("A TOML device starts from its base and overrides what it states") {
  auto r = hardware("a100-40g --format json --device-file " + device_file("good"));
  REQUIRE(r.exit_code == 0);
  json d = json::parse(r.out);
  CHECK(d["memory_bytes"] == 40ull << 30);             // 40 GiB
  CHECK(d["memory_bandwidth_bytes_per_s"] == 1555e9);  // 1,555 GB/s
  CHECK(d["peak_flops"]["bf16"] == 312e12);            // the A100's
  CHECK(d["name"] == "NVIDIA A100 SXM4 40GB");
  CHECK(d["source"] == device_file("good"));
  // What the file does not state stays the base's, ABI 1.1 figures included.
  CHECK(d["levels"][0]["bus_efficiency"] == 0.77);
  CHECK(d["levels"][0]["half_bandwidth_bytes"] == 16.0e6);
  CHECK(d["attention_forward_efficiency"]["bf16"]["seq_len"].size() == 4);
}

TEST_CASE("A bad device file given with --device-file stops the run naming file and key") {
  struct Case {
    const char* file;
    std::vector<std::string> said;
  };
  const Case cases[] = {
      {"malformed", {"malformed.toml:3:", "not valid TOML"}},
      {"missing_key", {"missing_key.toml", "missing key `memory_gib`", "GiB", "base ="}},
      {"negative_bandwidth",
       {"negative_bandwidth.toml:12", "`levels[1].device_gb_per_s` = -5",
        "GB/s per direction, > 0"}},
      {"levels_shrink",
       {"levels_shrink.toml", "`levels[1].devices` = 8 is not more than `levels[0].devices` = 16"}},
      {"unknown_base",
       {"unknown_base.toml:2", "`base` = \"nvidia-h300\" is not a shipped device",
        "nvidia-h100-sxm"}},
      {"unknown_key", {"unknown_key.toml:3", "unknown key `memory_gb`", "memory_gib"}},
      {"bus_efficiency_above_one",
       {"bus_efficiency_above_one.toml:9", "`levels[0].bus_efficiency` = 1.5", "in (0, 1]",
        "leave it out for the default 0.8"}},
      {"speedup_below_one",
       {"speedup_below_one.toml:9", "`levels[0].all_reduce_speedup` = 0.5", ">= 1"}},
      {"half_bandwidth_negative",
       {"half_bandwidth_negative.toml:9", "`levels[0].half_bandwidth_bytes` = -12000000",
        "message size in bytes", ">= 0"}},
      {"attention_descending",
       {"attention_descending.toml",
        "`attention_forward_efficiency.bf16.seq_len` must be "
        "strictly ascending"}},
      {"bandwidth_efficiency_zero",
       {"bandwidth_efficiency_zero.toml:3", "`memory_bandwidth_efficiency` = 0",
        "leave it out for the default 0.85"}},
  };
  for (const Case& c : cases) {
    INFO(c.file);
    auto r = hardware("--device-file " + device_file(c.file));
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("[E-DEVICE-FILE]"));
    CHECK_THAT(r.err, Catch::Contains("--device-file"));
    for (const std::string& text : c.said) CHECK_THAT(r.err, Catch::Contains(text));
  }
}

TEST_CASE("A bad file in NDS_DEVICE_PATH is a warning naming it and the good ones load") {
  auto r = run_command(
      "env -u NDS_PLUGIN_PATH NDS_DEVICE_PATH=" + std::string(NDS_TEST_FIXTURES_SOURCE) +
      "/devices " + cli() + " -v 2 hardware --format json");
  REQUIRE(r.exit_code == 0);
  const json listed = json::parse(r.out);
  std::vector<std::string> ids;
  for (const json& d : listed["devices"]) ids.push_back(d["id"]);
  CHECK(std::find(ids.begin(), ids.end(), "a100-40g") != ids.end());
  CHECK_THAT(r.err, Catch::Contains("plugin.toml-device"));
  CHECK_THAT(r.err, Catch::Contains("malformed.toml:3"));
  CHECK_THAT(r.err, Catch::Contains("levels_shrink.toml"));
}

TEST_CASE("Devices are named by id or by the reference's A2 and A3") {
  auto a2 = hardware("A2 --format json");
  REQUIRE(a2.exit_code == 0);
  CHECK(json::parse(a2.out)["id"] == "ascend-a2");
  auto unknown = hardware("nvidia-h300");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("[E-DEVICE-UNKNOWN]"));
  CHECK_THAT(unknown.err, Catch::Contains("nvidia-h300"));
  CHECK_THAT(unknown.err, Catch::Contains("nvidia-h100-sxm, nvidia-h100-gt96, nvidia-h200"));
  CHECK_THAT(unknown.err, Catch::Contains("A3 (= ascend-a3)"));
}

TEST_CASE(
    "A device TOML that is a FIFO, too large in memory or in its id is refused, not read or "
    "wrapped") {
  // Found in review of the hardening work: the device reader bypassed the
  // configs' safe reader (a FIFO blocked get_devices), std::regex recursed
  // once per character of `id`, and memory_gib above 2^63 bytes wrapped.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("nds-device-hostile-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string fifo = (dir / "fifo.toml").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  auto r = run_command("timeout 5 env -u NDS_DEVICE_PATH -u NDS_PLUGIN_PATH " + cli() +
                       " hardware --device-file " + fifo);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("[E-DEVICE-FILE]"));
  CHECK_THAT(r.err, Catch::Contains("fifo.toml: is a FIFO (named pipe), not a regular file"));

  std::ifstream good(device_file("good"));
  const std::string text((std::istreambuf_iterator<char>(good)), std::istreambuf_iterator<char>());
  auto with_line = [&](const std::string& key, const std::string& line) {
    std::string out;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);)
      out += (l.rfind(key + " =", 0) == 0 ? line : l) + "\n";
    const std::string path = (dir / (key + ".toml")).string();
    std::ofstream(path) << out;
    return path;
  };
  r = hardware("--device-file " + with_line("memory_gib", "memory_gib = 1e30"));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("`memory_gib` = 1000000000000000019884624838656"));
  CHECK_THAT(r.err, Catch::Contains("above 1048576 GiB"));
  r = hardware("--device-file " + with_line("id", "id = \"" + std::string(100000, 'a') + "\""));
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("`id` is 100000 characters long; use at most 128"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("A device file in error stops the verbs that price, not those that read no device") {
  // The Planner reads the devices at the first call that needs them: as
  // before the hosts shared it, `plugins list`, `model` and `apply` load no
  // device, so a broken --device-file does not stop the command a user
  // reaches for to see what loaded; `hardware` and `eval` stop on it.
  const std::string bad = " --device-file " + device_file("speedup_below_one");
  const std::string run = "env -u NDS_PLUGIN_PATH -u NDS_DEVICE_PATH " + cli();
  const std::string config =
      std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/llama-3.1-8b.json";
  CHECK(run_command(run + bad + " plugins list").exit_code == 0);
  CHECK(run_command(run + bad + " model " + config).exit_code == 0);
  for (const std::string& verb :
       {std::string(" hardware"), " eval " + config + " -A nvidia-h100-sxm -d 8"}) {
    INFO(verb);
    const auto r = run_command(run + bad + verb);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("[E-DEVICE-FILE]"));
  }
}
