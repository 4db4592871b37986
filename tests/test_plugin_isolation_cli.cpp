// SPDX-License-Identifier: Apache-2.0
// test_plugin_isolation_cli.cpp: each hostile plugin of issue 11 on
// NDS_PLUGIN_PATH (or named with --plugin), as a user meets it: the host keeps
// running, says which file it skipped and why, and a shipped device still
// prices a model. Verdicts go to a cache folder of each test's own.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "tests/fixtures_paths.hpp"
#include "tests/support/hostile_fixtures.hpp"
#include "tests/support/run_command.hpp"

namespace fs = std::filesystem;
using ndsearch::test::cli;
using ndsearch::test::CommandResult;
using ndsearch::test::fixture;
using ndsearch::test::run_command;
using ndsearch::test::TempDir;
using nlohmann::json;

namespace {

std::string hostile_dir(const std::string& mode) {
  return ndsearch::test::hostile_dir(mode).string();
}
std::string hostile(const std::string& mode) {
  return ndsearch::test::hostile(mode).string();
}
std::string tiny_config() {
  return std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/tiny-4-layers.json";
}

struct Timed {
  CommandResult r;
  double seconds;
};

// `ndsearch ARGS` with its own verdict cache, the given NDS_PLUGIN_PATH and a
// 1 s plugin limit, at -v 2 so that warnings show.
Timed run_ndsearch(const fs::path& cache, const std::string& plugin_path, const std::string& args,
                   const std::string& plugin_timeout_s = "1") {
  const auto start = std::chrono::steady_clock::now();
  CommandResult r =
      run_command(std::string("env ") +
                  (plugin_path.empty() ? "-u NDS_PLUGIN_PATH" : "NDS_PLUGIN_PATH=" + plugin_path) +
                  " XDG_CACHE_HOME=" + cache.string() + " " + cli() + " -v 2 --plugin-timeout " +
                  plugin_timeout_s + " " + args);
  return {r, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

// eval of a tiny Llama on 8 H100 SXM: every run below must still price it.
const std::string kEval =
    "eval " + tiny_config() +
    " -A nvidia-h100-sxm -d 8 --seq-len 1024 -b 8 --strategy tp=1,pp=1,dp=8,mbs=1 --format json";
constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

// The run went on and priced kEval on the shipped H100 SXM: 80 GiB less its
// 2 GiB reserve (plugins/hardware/nvidia), not a fixture's device.
void require_shipped_h100_priced(const Timed& t) {
  INFO(t.r.out << t.r.err);
  REQUIRE(t.r.exit_code == 0);
  CHECK(json::parse(t.r.out)["memory"]["budget_bytes"].get<double>() == 78 * GiB);
}

// What each hostile library must be refused with when vetted (a sanitizer
// build turns a signal into an exit status, so the words name no signal).
struct Case {
  const char* mode;
  const char* error_id;
  const char* words;  // in the warning, after the file name
};
const Case kRefused[] = {
    {"ctor_segv", "E-PLUGIN-CRASH", "crashed during module.load"},
    {"ctor_abort", "E-PLUGIN-CRASH", "crashed during module.load"},
    {"ctor_hang", "E-PLUGIN-HANG", "hung during module.load"},
    {"init_segv", "E-PLUGIN-CRASH", "crashed during module.load"},
    {"init_abort", "E-PLUGIN-CRASH", "crashed during module.load"},
    {"init_hang", "E-PLUGIN-HANG", "hung during module.load"},
    {"init_exit", "E-PLUGIN-CRASH", "exited with status 0 in the middle of a check"},
    {"garbage_entry", "E-PLUGIN-CRASH", "crashed during module.load"},
    {"garbage_interface", "E-PLUGIN-CRASH", "crashed during module.load"},
    {"devices_segv", "E-PLUGIN-CRASH", "during hardware.get_devices"},
    {"parse_segv", "E-PLUGIN-CRASH", "during parser.parse-sample"},
    {"probe_hang", "E-PLUGIN-HANG", "hung during parser.probe-missing-file"},
};

}  // namespace

TEST_CASE(
    "Each hostile plugin on the search path is skipped with its reason and eval on a shipped "
    "device works") {
  for (const Case& c : kRefused) {
    INFO(c.mode);
    TempDir cache;
    Timed t = run_ndsearch(cache.path, hostile_dir(c.mode), kEval);
    require_shipped_h100_priced(t);  // the whole stdout is one JSON document
    INFO(t.r.out << t.r.err);
    CHECK(t.seconds < 5);
    CHECK_THAT(t.r.err, Catch::Contains(std::string("[") + c.error_id + "] failed vetting"));
    CHECK_THAT(t.r.err, Catch::Contains(hostile(c.mode)));
    CHECK_THAT(t.r.err, Catch::Contains(c.words));
  }
}

TEST_CASE("Each hostile plugin named with --plugin is an error with its id and exit 2") {
  for (const Case& c : kRefused) {
    INFO(c.mode);
    TempDir cache;
    Timed t = run_ndsearch(cache.path, "", "--plugin " + hostile(c.mode) + " " + kEval);
    INFO(t.r.out << t.r.err);
    CHECK(t.r.exit_code == 2);
    CHECK(t.seconds < 5);
    CHECK(t.r.out.empty());
    CHECK_THAT(t.r.err, Catch::Contains(std::string("ndsearch: error [") + c.error_id + "]"));
    CHECK_THAT(t.r.err, Catch::Contains(hostile(c.mode)));
  }
}

TEST_CASE("A verdict is kept: a hanging plugin is vetted again only under a longer time limit") {
  TempDir cache;
  Timed first = run_ndsearch(cache.path, hostile_dir("init_hang"), kEval);
  REQUIRE(first.r.exit_code == 0);
  CHECK(first.seconds >= 1);  // the helper was killed after the 1 s limit
  Timed second = run_ndsearch(cache.path, hostile_dir("init_hang"), kEval);
  REQUIRE(second.r.exit_code == 0);
  // From the cache: no child waited on (the first run's time less its 1 s kill).
  CHECK(second.seconds < first.seconds);
  CHECK_THAT(second.r.err, Catch::Contains("[E-PLUGIN-HANG] failed vetting"));
  CHECK_THAT(second.r.err, Catch::Contains("remove that file to vet it again"));
  CHECK_THAT(second.r.err, Catch::Contains("a plugin time limit over 1 s is given"));
  // A longer limit may be what a slow plugin needed: it is vetted again, and
  // the new verdict (a hang within 2 s) is kept in turn.
  Timed longer = run_ndsearch(cache.path, hostile_dir("init_hang"), kEval, "2");
  REQUIRE(longer.r.exit_code == 0);
  CHECK(longer.seconds >= 2);
  CHECK_THAT(longer.r.err, Catch::Contains("a plugin time limit over 2 s is given"));
  // Under a shorter limit the 2 s verdict is kept: no child is waited on.
  // Compared with the first run (its eval plus the 1 s kill), not with 1 s:
  // under the sanitizers the eval alone took 1.07 s on the 2-core machine.
  Timed shorter = run_ndsearch(cache.path, hostile_dir("init_hang"), kEval, "1");
  CHECK(shorter.seconds < first.seconds);
  CHECK_THAT(shorter.r.err, Catch::Contains("remove that file to vet it again"));
}

TEST_CASE(
    "A plugin printing on stdout in init, get_devices, probe and parse cannot corrupt the JSON") {
  TempDir cache;
  Timed t = run_ndsearch(cache.path, hostile_dir("stdout"), kEval);
  INFO(t.r.out << t.r.err);
  REQUIRE(t.r.exit_code == 0);
  CHECK_NOTHROW(json::parse(t.r.out));
  CHECK(t.r.out.find("hostile plugin") == std::string::npos);
  CHECK_THAT(t.r.err, Catch::Contains("hostile plugin prints in init"));
  CHECK_THAT(t.r.err, Catch::Contains("hostile plugin prints in probe"));
  CHECK_THAT(t.r.err, Catch::Contains("hostile plugin writes(1)"));
  // Its parse, chosen with -f: the refusal is an error, its print goes to stderr.
  Timed parsed = run_ndsearch(cache.path, hostile_dir("stdout"),
                              "model " + tiny_config() + " -f hostile-stdout --format json");
  INFO(parsed.r.out << parsed.r.err);
  CHECK(parsed.r.exit_code == 2);
  CHECK(parsed.r.out.empty());
  CHECK_THAT(parsed.r.err, Catch::Contains("hostile plugin prints in parse"));
  CHECK_THAT(parsed.r.err, Catch::Contains("this fixture reads no configs"));
}

TEST_CASE(
    "A same-id device does not replace the shipped H100 SXM unless --allow-override says so") {
  TempDir cache;
  // plugins/hardware/nvidia: 80 GiB less a 2 GiB reserve; the fixture: 96 GiB less 1 GiB.
  Timed t = run_ndsearch(cache.path, hostile_dir("shadow_device"), kEval);
  require_shipped_h100_priced(t);
  INFO(t.r.out << t.r.err);
  CHECK_THAT(
      t.r.err,
      Catch::Contains("[W-DEVICE-SHADOW] device nvidia-h100-sxm of plugin hostile-shadow-device"));
  Timed allowed = run_ndsearch(cache.path, hostile_dir("shadow_device"),
                               "--allow-override nvidia-h100-sxm " + kEval);
  REQUIRE(allowed.r.exit_code == 0);
  CHECK(json::parse(allowed.r.out)["memory"]["budget_bytes"].get<double>() == 95 * GiB);
  Timed named = run_ndsearch(cache.path, "", "--plugin " + hostile("shadow_device") + " " + kEval);
  CHECK(named.r.exit_code == 2);
  CHECK_THAT(named.r.err, Catch::Contains("[E-DEVICE-SHADOW]"));
}

TEST_CASE("A plugin with the shipped nvidia plugin's id is skipped, or an error when named") {
  TempDir cache;
  Timed t = run_ndsearch(cache.path, hostile_dir("shadow_id"), kEval);
  require_shipped_h100_priced(t);
  INFO(t.r.out << t.r.err);
  CHECK_THAT(t.r.err, Catch::Contains("[E-PLUGIN-SHADOW]"));
  Timed named = run_ndsearch(cache.path, "", "--plugin " + hostile("shadow_id") + " " + kEval);
  CHECK(named.r.exit_code == 2);
  CHECK_THAT(named.r.err, Catch::Contains("ndsearch: error [E-PLUGIN-SHADOW]"));
  CHECK_THAT(named.r.err, Catch::Contains("--allow-override nvidia"));
}

TEST_CASE(
    "A malformed device table from a plugin skips its devices and eval on a shipped device works") {
  TempDir cache;
  Timed t = run_ndsearch(cache.path, hostile_dir("malformed_devices"), kEval);
  require_shipped_h100_priced(t);
  INFO(t.r.out << t.r.err);
  CHECK_THAT(t.r.err, Catch::Contains("[W-DEVICE-PLUGIN]"));
  CHECK_THAT(t.r.err, Catch::Contains("struct_size 4"));
}

TEST_CASE("A probe that hangs at run time stops the run with E-PLUGIN-HANG naming the plugin") {
  // The fixture's shutdown aborts while a call is stuck: exit 2, not SIGABRT,
  // shows the host never shuts a module down under its hung call.
  TempDir cache;
  const fs::path config = cache.path / "hang-in-probe.json";
  fs::copy_file(tiny_config(), config);
  Timed t = run_ndsearch(cache.path, hostile_dir("hang_at_run"),
                         "eval " + config.string() + " -A nvidia-h100-sxm -d 8 --format json");
  INFO(t.r.out << t.r.err);
  CHECK(t.r.exit_code == 2);
  CHECK(t.seconds < 5);
  CHECK(t.r.out.empty());
  CHECK_THAT(t.r.err, Catch::Contains("ndsearch: error [E-PLUGIN-HANG]"));
  CHECK_THAT(t.r.err, Catch::Contains(
                          "plugin \"hostile-hang-at-run\" did not return from probe within 1 s"));
  // A parse that hangs (the parser named with -f).
  const fs::path parsed = cache.path / "hang-in-parse.json";
  fs::copy_file(tiny_config(), parsed);
  Timed p = run_ndsearch(cache.path, hostile_dir("hang_at_run"),
                         "model " + parsed.string() + " -f hostile-hang-at-run");
  CHECK(p.r.exit_code == 2);
  CHECK(p.seconds < 5);
  CHECK_THAT(p.r.err, Catch::Contains("did not return from parse within 1 s"));
}

TEST_CASE(
    "An init or get_devices that hangs in the host after passing vetting is given up on, and a "
    "shipped device still prices the model") {
  for (const char* call : {"init", "get_devices"}) {
    INFO(call);
    TempDir cache;
    REQUIRE(setenv("HOSTILE_HANG_IN", call, 1) == 0);  // inherited by ndsearch and its vetting
    Timed t = run_ndsearch(cache.path, hostile_dir("hang_at_run"), kEval);
    unsetenv("HOSTILE_HANG_IN");
    require_shipped_h100_priced(t);
    INFO(t.r.out << t.r.err);
    CHECK(t.seconds < 5);  // the 1 s limit, then the run goes on
    CHECK_THAT(t.r.err, Catch::Contains(std::string("plugin \"hostile-hang-at-run\" did not return "
                                                    "from ") +
                                        call + " within 1 s"));
  }
}

TEST_CASE(
    "A world-writable plugin folder is refused with the reason and a relative entry is warned") {
  TempDir cache;
  TempDir folder;
  fs::copy_file(fixture("compat_current"), folder.path / "compat_current.so");
  REQUIRE(chmod(folder.path.c_str(), 0777) == 0);
  Timed t = run_ndsearch(cache.path, folder.path.string(), "plugins list --format json");
  INFO(t.r.out << t.r.err);
  REQUIRE(t.r.exit_code == 0);
  const json j = json::parse(t.r.out);
  REQUIRE(j["skipped"].size() == 1);
  CHECK(j["skipped"][0]["error_id"] == "E-PLUGIN-UNSAFE");
  CHECK_THAT(j["skipped"][0]["message"].get<std::string>(),
             Catch::Contains("writable by others (mode 0777)"));
  // A link in a safe folder to that library: the file it resolves to counts.
  TempDir safe;
  REQUIRE(chmod(safe.path.c_str(), 0755) == 0);
  fs::create_symlink(folder.path / "compat_current.so", safe.path / "linked.so");
  Timed linked = run_ndsearch(cache.path, safe.path.string(), "plugins list --format json");
  INFO(linked.r.out << linked.r.err);
  REQUIRE(linked.r.exit_code == 0);
  const json l = json::parse(linked.r.out);
  REQUIRE(l["skipped"].size() == 1);
  CHECK(l["skipped"][0]["error_id"] == "E-PLUGIN-UNSAFE");
  CHECK_THAT(l["skipped"][0]["message"].get<std::string>(),
             Catch::Contains("writable by others (mode 0777)"));
  Timed relative = run_ndsearch(cache.path, "relative/plugins", "plugins list");
  CHECK(relative.r.exit_code == 0);
  CHECK_THAT(relative.r.err,
             Catch::Contains("[W-PLUGIN-RELATIVE] NDS_PLUGIN_PATH names relative/plugins"));
}

TEST_CASE("plugins check parses a sample config and flags writes to stdout") {
  TempDir cache;
  auto check = [&](const std::string& plugin, const std::string& extra = "") {
    Timed t = run_ndsearch(cache.path, "", "plugins check --format json " + extra + " " + plugin);
    INFO(t.r.out << t.r.err);
    json j = json::parse(t.r.out);
    j["exit_code"] = t.r.exit_code;
    return j;
  };
  json crashing = check(hostile("parse_segv"));
  CHECK(crashing["exit_code"] == 2);
  CHECK(crashing["error"]["id"] == "E-PLUGIN-CRASH");
  CHECK_THAT(crashing["error"]["message"].get<std::string>(),
             Catch::Contains("during parser.parse-sample"));
  json noisy = check(hostile("stdout"));
  CHECK(noisy["passed"] == true);
  REQUIRE(noisy["warnings"].size() == 1);
  CHECK(noisy["warnings"][0]["id"] == "W-PLUGIN-STDOUT");
  CHECK_THAT(noisy["warnings"][0]["message"].get<std::string>(),
             Catch::Contains("hostile plugin prints in init"));
  // The shipped HF parser parses the config it is given.
  json hf = check(std::string(NDS_TEST_SHIPPED_PLUGINS) + "/hf_config_json.so",
                  "--sample-config " + tiny_config());
  INFO(hf.dump(2));
  CHECK(hf["passed"] == true);
  CHECK(hf["warnings"].empty());
  bool parsed = false;
  for (const json& c : hf["checks"])
    parsed = parsed || (c["check"] == "parser.parse-sample" && c["result"] == "pass");
  CHECK(parsed);
}
