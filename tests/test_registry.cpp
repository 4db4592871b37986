// SPDX-License-Identifier: Apache-2.0
// test_registry.cpp: loading plugins: every broken fixture is refused with its
// stable error id and a message naming the file; search order and precedence.
#include <ndsearch/nds_abi.h>  // NDS_ABI_MAJOR, NDS_ABI_MINOR, NDS_ABI_VERSION_STRING
#include <catch2/catch.hpp>

#include "core/plugin_host/registry.hpp"
#include "core/support/user_error.hpp"
#include "tests/fixtures_paths.hpp"

using ndsearch::load_plugin;
using ndsearch::PluginOptions;
using ndsearch::PluginRegistry;
using ndsearch::PluginSearch;
using ndsearch::UserError;
using ndsearch::test::fixture;

namespace {
auto options() {
  return std::make_shared<const PluginOptions>();
}

// The id and message of the UserError that loading `path` throws.
std::pair<std::string, std::string> load_error(const std::filesystem::path& path) {
  try {
    load_plugin(path, options());
  } catch (const UserError& e) {
    return {e.id(), e.what()};
  }
  return {"(loaded)", ""};
}
}  // namespace

TEST_CASE("A plugin built for another ABI major is refused naming the file and both versions") {
  auto [id, message] = load_error(fixture("wrong_major"));
  CHECK(id == "E-PLUGIN-ABI-MAJOR");
  CHECK_THAT(message, Catch::Contains("wrong_major.so"));
  // The plugin's: major + 1 at our minor (fixtures/wrong_major.c); then ours.
  CHECK_THAT(message, Catch::Contains("ABI " + std::to_string(NDS_ABI_MAJOR + 1) + "." +
                                      std::to_string(NDS_ABI_MINOR)));
  CHECK_THAT(message, Catch::Contains("speaks ABI " NDS_ABI_VERSION_STRING));
  CHECK_THAT(message, Catch::Contains("rebuild the plugin"));
}

TEST_CASE("A library without nds_get_module is not an ndsearch plugin") {
  auto [id, message] = load_error(fixture("no_entry"));
  CHECK(id == "E-PLUGIN-NO-ENTRY");
  CHECK_THAT(message, Catch::Contains("no_entry.so"));
  CHECK_THAT(message, Catch::Contains("nds_get_module"));
}

TEST_CASE("A file that is not a shared library cannot be loaded") {
  auto [id, message] =
      load_error(std::filesystem::path(NDS_TEST_FIXTURES) / "../../CMakeCache.txt");
  CHECK(id == "E-PLUGIN-LOAD");
  CHECK_THAT(message, Catch::Contains("CMakeCache.txt"));
}

TEST_CASE("A failing init is reported with the plugin's own message") {
  auto [id, message] = load_error(fixture("init_fails"));
  CHECK(id == "E-PLUGIN-INIT");
  CHECK_THAT(message, Catch::Contains("NDS_FAILED_PRECONDITION"));
  CHECK_THAT(message, Catch::Contains("licence file /opt/vendor/licence.dat not found"));
}

TEST_CASE("An exception thrown in an SDK plugin's init comes back as a status and not a crash") {
  auto [id, message] = load_error(fixture("throws"));
  CHECK(id == "E-PLUGIN-INIT");
  CHECK_THAT(message, Catch::Contains("NDS_INTERNAL"));
  CHECK_THAT(message,
             Catch::Contains("plugin threw: device table /etc/vendor/npu.json is unreadable"));
}

TEST_CASE("An interface table too small for its required functions is refused") {
  auto [id, message] = load_error(fixture("bad_interface"));
  CHECK(id == "E-PLUGIN-INTERFACE");
  CHECK_THAT(message, Catch::Contains("nds.hardware/1"));
  CHECK_THAT(message, Catch::Contains("struct_size 8"));
}

TEST_CASE("Bad libraries found in a directory are skipped and listed but not fatal") {
  PluginSearch search;
  search.directories = {NDS_TEST_FIXTURES};
  PluginRegistry registry = PluginRegistry::load(search);
  std::map<std::string, std::string> skipped;  // file name -> error id
  for (const auto& s : registry.skipped()) skipped[s.path.filename().string()] = s.error_id;
  CHECK(skipped["wrong_major.so"] == "E-PLUGIN-ABI-MAJOR");
  CHECK(skipped["no_entry.so"] == "E-PLUGIN-NO-ENTRY");
  CHECK(skipped["init_fails.so"] == "E-PLUGIN-INIT");
  CHECK(skipped["throws.so"] == "E-PLUGIN-INIT");
  CHECK(skipped["bad_interface.so"] == "E-PLUGIN-INTERFACE");
  std::vector<std::string> loaded;
  for (const auto& p : registry.plugins()) loaded.push_back(p->id);
  // Name order within a directory: bad_device, compat_1_0, compat_1_1,
  // compat_1_10 .. compat_1_17 (before compat_1_2: '.' sorts before '0'), compat_1_2 .. compat_1_9,
  // compat_current, compat_newer, compat_older, sdk_parser_cp.
  CHECK(loaded == std::vector<std::string>{
                      "fixture-bad-device", "compat-1-0",   "compat-1-1",       "compat-1-10",
                      "compat-1-11",        "compat-1-12",  "compat-1-13",      "compat-1-14",
                      "compat-1-15",        "compat-1-16",  "compat-1-17",      "compat-1-2",
                      "compat-1-3",         "compat-1-4",   "compat-1-5",       "compat-1-6",
                      "compat-1-7",         "compat-1-8",   "compat-1-9",       "compat-current",
                      "compat-newer",       "compat-older", "fixture-sdk-kinds"});
}

TEST_CASE("A plugin named with the plugin flag must load or the run stops") {
  PluginSearch search;
  search.files = {fixture("wrong_major")};
  REQUIRE_THROWS_AS(PluginRegistry::load(search), UserError);
  try {
    PluginRegistry::load(search);
  } catch (const UserError& e) {
    CHECK(e.id() == "E-PLUGIN-ABI-MAJOR");
    CHECK(e.exit_code() == 2);
  }
}

TEST_CASE("A plugin-path directory that does not exist is an error naming it") {
  PluginSearch search;
  search.directories = {"/nonexistent/ndsearch-plugins"};
  try {
    PluginRegistry::load(search);
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(e.id() == "E-PLUGIN-PATH");
    CHECK_THAT(e.what(), Catch::Contains("/nonexistent/ndsearch-plugins"));
  }
}

TEST_CASE("Two plugins with one id: the first in search order wins and the other is skipped") {
  PluginSearch search;
  search.directories = {std::filesystem::path(NDS_TEST_FIXTURES) / "duplicate"};
  search.environment_path = std::string("/nonexistent-dir:") + NDS_TEST_FIXTURES;
  PluginRegistry registry = PluginRegistry::load(search);
  const auto& first = *registry.plugins().front();
  CHECK(first.id == "compat-current");
  CHECK(first.path.parent_path().filename() == "duplicate");
  bool duplicate_skipped = false;
  for (const auto& s : registry.skipped())
    duplicate_skipped = duplicate_skipped || (s.error_id == "W-PLUGIN-DUPLICATE" &&
                                              s.path.filename() == "compat_current.so");
  CHECK(duplicate_skipped);
}

TEST_CASE("A library loaded twice in one process is initialised once and shut down once") {
  // compat_current refuses a second init before its shutdown.
  PluginSearch search;
  search.files = {fixture("compat_current")};
  {
    PluginRegistry first = PluginRegistry::load(search);
    PluginRegistry second = PluginRegistry::load(search);  // shares the initialised module
    CHECK(first.plugins().front()->instance == second.plugins().front()->instance);
    auto direct = load_plugin(fixture("compat_current"), options());
    CHECK(direct->instance == first.plugins().front()->instance);
  }
  // Every owner is gone, so the module was shut down and may start again.
  PluginRegistry again = PluginRegistry::load(search);
  CHECK(again.plugins().size() == 1);
}

TEST_CASE("Two plugin files with one id warn and keep the first") {
  PluginSearch search;
  search.files = {fixture("compat_current"),
                  std::filesystem::path(NDS_TEST_FIXTURES) / "duplicate" / "compat_duplicate.so"};
  PluginRegistry registry = PluginRegistry::load(search);
  REQUIRE(registry.plugins().size() == 1);
  CHECK(registry.plugins().front()->path == fixture("compat_current"));
  REQUIRE(registry.skipped().size() == 1);
  CHECK(registry.skipped().front().error_id == "W-PLUGIN-DUPLICATE");
}

TEST_CASE("split_path_list drops empty entries of a colon-separated list") {
  auto parts = ndsearch::split_path_list("a::b:/c/d:");
  CHECK(parts == std::vector<std::filesystem::path>{"a", "b", "/c/d"});
}
