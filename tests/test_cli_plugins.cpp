// SPDX-License-Identifier: Apache-2.0
// test_cli_plugins.cpp: `ndsearch --version`, `plugins list` and `plugins
// check` end to end, as a user runs them.
#include <ndsearch/nds_abi.h>  // NDS_ABI_MINOR, NDS_ABI_VERSION_STRING
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"

using ndsearch::test::cli;
using ndsearch::test::fixture;
using ndsearch::test::run_command;
using nlohmann::json;

namespace {
std::string isolated(const std::string& name) {
  return std::string(NDS_TEST_FIXTURES) + "/isolated/" + name + ".so";
}
std::string templ(const std::string& name) {
  return std::string(NDS_TEST_FIXTURES) + "/templates/" + name + ".so";
}
json check_json(const std::string& plugin, const std::string& extra = "") {
  auto r = run_command(cli() + " plugins check --format json " + extra + " " + plugin);
  INFO(r.out << r.err);
  json j = json::parse(r.out);
  j["exit_code"] = r.exit_code;
  return j;
}
}  // namespace

TEST_CASE("The version flag names the program and the plugin ABI") {
  auto r = run_command(cli() + " --version");
  CHECK(r.exit_code == 0);
  CHECK(r.out == "ndsearch 0.1.0 (plugin ABI " NDS_ABI_VERSION_STRING ")\n");
}

TEST_CASE("A usage error exits 2 with E-USAGE") {
  auto r = run_command(cli() + " plugins list --format xml");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("[E-USAGE]"));
  CHECK_THAT(r.err, Catch::Contains("xml"));
}

TEST_CASE("plugins list --format json prints the documented object") {
  auto r =
      run_command(cli() + " --plugin-path " + NDS_TEST_FIXTURES + " plugins list --format json");
  REQUIRE(r.exit_code == 0);
  json j = json::parse(r.out);
  CHECK(j["schema_version"] == 1);
  REQUIRE(j["plugins"].is_array());
  json current;
  for (const json& p : j["plugins"])
    if (p["id"] == "compat-current") current = p;
  REQUIRE(current.is_object());
  CHECK(current["version"] == "1.0.0");
  CHECK(current["kinds"] == json::array({"nds.hardware/1"}));
  CHECK(current["abi_major"] == 1);
  CHECK(current["abi_minor"] == NDS_ABI_MINOR);
  CHECK(current["path"] == fixture("compat_current").string());
  // A plugin built against the released 1.0 headers lists its own minor.
  json previous;
  for (const json& p : j["plugins"])
    if (p["id"] == "compat-1-0") previous = p;
  REQUIRE(previous.is_object());
  CHECK(previous["abi_minor"] == 0);
  std::map<std::string, std::string> skipped;
  for (const json& s : j["skipped"]) skipped[s["path"]] = s["error_id"];
  CHECK(skipped[fixture("wrong_major").string()] == "E-PLUGIN-ABI-MAJOR");
  CHECK(skipped[fixture("no_entry").string()] == "E-PLUGIN-NO-ENTRY");
}

TEST_CASE("plugins check passes both SDK templates") {
  for (const char* name : {"example_npu", "example_weights"}) {
    json j = check_json(templ(name));
    INFO(j.dump(2));
    CHECK(j["exit_code"] == 0);
    CHECK(j["passed"] == true);
    CHECK(j["end"] == "completed");
  }
  json npu = check_json(templ("example_npu"));
  std::vector<std::string> checks;
  for (const json& c : npu["checks"]) checks.push_back(c["check"]);
  CHECK(checks == std::vector<std::string>{"module.load", "module.unknown-interface",
                                           "module.offers-interface", "hardware.get_devices",
                                           "hardware.devices", "hardware.stable",
                                           "module.shutdown"});
}

TEST_CASE("plugins check reports a crashing plugin and survives it") {
  json j = check_json(isolated("crashes"));
  CHECK(j["exit_code"] == 2);
  CHECK(j["passed"] == false);
  CHECK(j["end"] == "crashed");
  CHECK(j["error"]["id"] == "E-PLUGIN-CRASH");
  CHECK_THAT(j["error"]["message"].get<std::string>(), Catch::Contains("during module.load"));
}

TEST_CASE("plugins check kills a plugin that hangs") {
  json j = check_json(isolated("hangs"), "--timeout 3");
  CHECK(j["exit_code"] == 2);
  CHECK(j["end"] == "timed_out");
  CHECK(j["error"]["id"] == "E-PLUGIN-HANG");
  CHECK_THAT(j["error"]["message"].get<std::string>(), Catch::Contains("during module.load"));
}

TEST_CASE("A plugin that prints cannot garble the events of plugins check") {
  json j = check_json(isolated("compat_noisy"));
  INFO(j.dump(2));
  CHECK(j["passed"] == true);
  CHECK(j["checks"][0]["check"] == "module.load");
  CHECK(j["checks"][0]["result"] == "pass");
  CHECK_THAT(j["plugin_stderr"].get<std::string>(), Catch::Contains("noisy plugin says hi"));
  CHECK_THAT(j["plugin_stderr"].get<std::string>(), Catch::Contains("noisy plugin warns"));
}

TEST_CASE("plugins check bounds its timeout") {
  auto r =
      run_command(cli() + " plugins check --timeout 1e300 " + fixture("compat_current").string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("[E-USAGE]"));
}

TEST_CASE("plugins check names what is wrong in a device table") {
  json j = check_json(fixture("bad_device").string());
  CHECK(j["exit_code"] == 2);
  CHECK(j["end"] == "completed");
  CHECK(j["error"]["id"] == "E-PLUGIN-CONFORMANCE");
  const std::string message = j["error"]["message"];
  CHECK_THAT(message, Catch::Contains("level 1 joins 8 devices, not more than level 0 (16)"));
  CHECK_THAT(message, Catch::Contains("level 1 bandwidths must be > 0"));
}

TEST_CASE("plugins check gives each refused fixture its error id") {
  CHECK(check_json(fixture("wrong_major").string())["error"]["id"] == "E-PLUGIN-ABI-MAJOR");
  CHECK(check_json(fixture("no_entry").string())["error"]["id"] == "E-PLUGIN-NO-ENTRY");
  CHECK(check_json(fixture("init_fails").string())["error"]["id"] == "E-PLUGIN-INIT");
  CHECK(check_json(fixture("throws").string())["error"]["id"] == "E-PLUGIN-INIT");
  CHECK(check_json(fixture("bad_interface").string())["error"]["id"] == "E-PLUGIN-INTERFACE");
}

TEST_CASE("plugins check of a missing file says so") {
  auto r = run_command(cli() + " plugins check /nonexistent/x.so");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("[E-PLUGIN-NOT-FOUND]"));
  CHECK_THAT(r.err, Catch::Contains("/nonexistent/x.so"));
}

TEST_CASE("plugins check prints a readable report") {
  auto r = run_command(cli() + " plugins check " + fixture("bad_device").string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.out, Catch::Contains("  pass  hardware.get_devices"));
  CHECK_THAT(r.out, Catch::Contains("  FAIL  hardware.devices [E-PLUGIN-CONFORMANCE]"));
  CHECK_THAT(r.out, Catch::Contains("passed, 1 failed"));
}

TEST_CASE("plugins list finds the shipped plugins beside the program") {
  auto r = run_command("env -u NDS_PLUGIN_PATH " + cli() + " plugins list --format json");
  REQUIRE(r.exit_code == 0);
  json j = json::parse(r.out);
  std::map<std::string, json> kinds;
  for (const json& p : j["plugins"]) {
    kinds[p["id"]] = p["kinds"];
    CHECK(p["path"].get<std::string>().rfind(NDS_TEST_SHIPPED_PLUGINS, 0) == 0);
  }
  for (const char* id : {"amd", "ascend", "nvidia", "toml-device"})
    CHECK(kinds[id] == json::array({"nds.hardware/1"}));
  CHECK(kinds["hf-config-json"] == json::array({"nds.parser/1"}));
  for (const char* id : {"recompute-per-layer", "recompute-offload"})
    CHECK(kinds[id] == json::array({"nds.recompute/1"}));
  CHECK(j["skipped"].empty());
}

TEST_CASE("Every shipped plugin passes plugins check") {
  for (const char* name : {"amd", "ascend", "nvidia", "toml_device", "hf_config_json"}) {
    json j = check_json(std::string(NDS_TEST_SHIPPED_PLUGINS) + "/" + name + ".so");
    INFO(j.dump(2));
    CHECK(j["passed"] == true);
  }
  // toml-device with a device file: its device goes through the device checks too.
  json j = check_json(std::string(NDS_TEST_SHIPPED_PLUGINS) + "/toml_device.so",
                      std::string("--device-file ") + NDS_TEST_EXAMPLES + "/devices/acme-x1.toml");
  INFO(j.dump(2));
  CHECK(j["passed"] == true);
  bool devices_checked = false;
  for (const json& c : j["checks"])
    devices_checked = devices_checked || c["check"] == "hardware.devices";
  CHECK(devices_checked);
}

TEST_CASE("plugins check exercises a parser and a CP model") {
  json j = check_json(fixture("sdk_parser_cp").string());
  INFO(j.dump(2));
  CHECK(j["passed"] == true);
  std::vector<std::string> checks;
  for (const json& c : j["checks"]) checks.push_back(c["check"]);
  CHECK(checks == std::vector<std::string>{
                      "module.load", "module.unknown-interface", "module.offers-interface",
                      "parser.format", "parser.probe-missing-file", "parser.probe-empty-file",
                      "parser.parse-sample", "cp_attention.algorithm", "cp_attention.compile",
                      "cp_attention.evaluate", "cp_attention.release", "module.shutdown"});
}

TEST_CASE("plugins check passes each shipped CP attention model and recompute strategy") {
  struct Shipped {
    std::string name, kind, first;  // the library, its kind's checks, the first of them
  };
  for (const Shipped& p : {Shipped{"cp_ring", "cp_attention", "algorithm"},
                           Shipped{"cp_ulysses", "cp_attention", "algorithm"},
                           Shipped{"cp_hybrid", "cp_attention", "algorithm"},
                           Shipped{"cp_allgather_kv", "cp_attention", "algorithm"},
                           Shipped{"recompute_per_layer", "recompute", "strategy"},
                           Shipped{"recompute_offload", "recompute", "strategy"}}) {
    json j = check_json(std::string(NDS_TEST_SHIPPED_PLUGINS) + "/" + p.name + ".so");
    INFO(p.name << "\n" << j.dump(2));
    CHECK(j["exit_code"] == 0);
    CHECK(j["passed"] == true);
    CHECK(j["end"] == "completed");
    std::vector<std::string> checks;
    for (const json& c : j["checks"]) checks.push_back(c["check"]);
    CHECK(checks == std::vector<std::string>{"module.load", "module.unknown-interface",
                                             "module.offers-interface", p.kind + "." + p.first,
                                             p.kind + ".compile", p.kind + ".evaluate",
                                             p.kind + ".release", "module.shutdown"});
  }
}
