// SPDX-License-Identifier: Apache-2.0
// test_plugin_isolation.cpp: the host's guards against hostile plugins, in
// process: the watchdog on blocking calls, the vetting cache, unsafe files and
// folders, a malformed device table and ids that shadow shipped ones. The
// hostile fixtures are tests/fixtures/hostile/hostile.c, one build per fault.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "core/input/device_catalog.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/plugin_host/vetting.hpp"
#include "core/support/status.hpp"
#include "core/support/user_error.hpp"
#include "tests/fixtures_paths.hpp"
#include "tests/support/hostile_fixtures.hpp"

namespace fs = std::filesystem;
using namespace ndsearch;
using ndsearch::test::fixture;
using ndsearch::test::hostile;
using ndsearch::test::hostile_dir;
using ndsearch::test::TempDir;

namespace {

VetSettings settings_in(const fs::path& cache) {
  VetSettings s;
  s.helper = fs::path(NDS_TEST_VET);
  s.cache_dir = cache;
  s.timeout = std::chrono::milliseconds(3000);
  return s;
}

std::vector<std::string> skipped_ids(const PluginRegistry& registry, const std::string& file) {
  std::vector<std::string> ids;
  for (const auto& s : registry.skipped())
    if (s.path.filename() == file) ids.push_back(s.error_id);
  return ids;
}

std::string skipped_message(const PluginRegistry& registry, const std::string& file) {
  for (const auto& s : registry.skipped())
    if (s.path.filename() == file) return s.message;
  return "";
}

}  // namespace

TEST_CASE(
    "A probe that does not return is abandoned after the limit with E-PLUGIN-HANG naming the "
    "plugin") {
  PluginSearch search;
  search.files = {hostile("hang_at_run")};  // sound under vetting; hangs on these names
  search.vetting.enabled = false;
  search.call_timeout = std::chrono::milliseconds(300);
  std::optional<PluginRegistry> held = PluginRegistry::load(search);
  PluginRegistry& registry = *held;
  REQUIRE(registry.plugins().size() == 1);
  const nds_parser_v1& parser = *registry.plugins()[0]->interfaces.parser;
  double confidence = -1;
  StatusPtr fine(parser.probe("/nonexistent/config.json", &confidence));
  CHECK(fine == nullptr);
  CHECK(confidence == 0);  // the fixture never claims a file
  const auto start = std::chrono::steady_clock::now();
  try {
    StatusPtr never(parser.probe("/nonexistent/hang-in-probe.json", &confidence));
    FAIL("the hanging probe returned");
  } catch (const UserError& e) {
    CHECK(e.id() == "E-PLUGIN-HANG");
    CHECK_THAT(e.what(), Catch::Contains("hostile-hang-at-run"));
    CHECK_THAT(e.what(), Catch::Contains("hostile_hang_at_run.so"));
    CHECK_THAT(e.what(), Catch::Contains("probe within 0.3 s"));
    CHECK_THAT(e.what(), Catch::Contains("the plugin time limit (`plugin_timeout_s`)"));
  }
  const auto waited = std::chrono::steady_clock::now() - start;
  CHECK(waited >= std::chrono::milliseconds(300));
  CHECK(waited < std::chrono::milliseconds(2000));
  // The hung call still holds the plugin: it is not entered again.
  try {
    StatusPtr again(parser.probe("/nonexistent/config.json", &confidence));
    FAIL("a hung plugin was called again");
  } catch (const UserError& e) {
    CHECK(e.id() == "E-PLUGIN-HANG");
    CHECK_THAT(e.what(), Catch::Contains("not called again"));
  }
  // Nor is it initialised again by a later run of this process: init and
  // shutdown never run beside another call ([once]).
  held.reset();
  try {
    PluginRegistry::load(search);
    FAIL("a plugin that hung was initialised again");
  } catch (const UserError& e) {
    CHECK(e.id() == "E-PLUGIN-HANG");
    CHECK_THAT(e.what(), Catch::Contains("hung in an earlier run of this process"));
    CHECK_THAT(e.what(), Catch::Contains("hostile_hang_at_run.so"));
  }
}

TEST_CASE("The watchdog passes a plugin's answers through unchanged") {
  PluginSearch search;
  search.install_dir = NDS_TEST_SHIPPED_PLUGINS;
  PluginRegistry registry = PluginRegistry::load(search);
  const LoadedPlugin* hf = nullptr;
  for (const auto& p : registry.plugins())
    if (p->id == "hf-config-json") hf = p.get();
  REQUIRE(hf != nullptr);
  CHECK(hf->guard->guarded());
  double confidence = 0;
  const std::string config =
      std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/tiny-4-layers.json";
  StatusPtr failure(hf->interfaces.parser->probe(config.c_str(), &confidence));
  CHECK(failure == nullptr);
  CHECK(confidence > 0.5);  // the HF parser is sure of a config.json with model_type
  const auto catalog = DeviceCatalog::load(registry, false);
  CHECK(catalog.resolve("nvidia-h100-sxm").memory_bytes == 80ull << 30);
}

TEST_CASE("A vetting verdict is cached per file version and a changed file is vetted again") {
  TempDir cache;
  TempDir plugins;
  const fs::path copy = plugins.path / "compat_current.so";
  fs::copy_file(fixture("compat_current"), copy);
  const VetSettings settings = settings_in(cache.path);
  VetVerdict first = vet_plugin(copy, {}, settings);
  CHECK(first.passed);
  // One JSON file per plugin under <cache>/plugin-verdicts/.
  std::vector<fs::path> entries;
  for (const auto& e : fs::directory_iterator(cache.path / "plugin-verdicts"))
    entries.push_back(e.path());
  REQUIRE(entries.size() == 1);
  nlohmann::json j = nlohmann::json::parse(std::ifstream(entries[0]));
  CHECK(j["path"] == copy.string());
  CHECK(j["size"] == fs::file_size(copy));
  CHECK(j["sha256"].get<std::string>().size() == 64);
  CHECK(j["passed"] == true);
  // The next vetting reads the verdict instead of running the helper: a
  // verdict edited in the cache comes back as edited.
  j["passed"] = false;
  j["error_id"] = "edited-in-the-cache";
  std::ofstream(entries[0]) << j.dump();
  CHECK(vet_plugin(copy, {}, settings).error_id == "edited-in-the-cache");
  // The same size and mtime but other bytes: the hash no longer matches.
  const auto mtime = fs::last_write_time(copy);
  {
    std::fstream f(copy, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(-1, std::ios::end);
    f.put('\x01');
  }
  fs::last_write_time(copy, mtime);
  CHECK(vet_plugin(copy, {}, settings).error_id != "edited-in-the-cache");
}

TEST_CASE("A plugin that fails vetting is skipped with its reason and the run goes on") {
  TempDir cache;
  PluginSearch search;
  search.environment_path = hostile_dir("init_segv").string();
  search.install_dir = NDS_TEST_SHIPPED_PLUGINS;
  search.vetting = settings_in(cache.path);
  PluginRegistry registry = PluginRegistry::load(search);
  CHECK(skipped_ids(registry, "hostile_init_segv.so") ==
        std::vector<std::string>{"E-PLUGIN-CRASH"});
  const std::string message = skipped_message(registry, "hostile_init_segv.so");
  CHECK_THAT(message, Catch::Contains("failed vetting"));
  CHECK_THAT(message, Catch::Contains("during module.load"));
  CHECK(DeviceCatalog::load(registry, false).resolve("nvidia-h100-sxm").memory_bytes == 80ull
                                                                                            << 30);
  // Named with --plugin it is an error (exit 2).
  search.files = {hostile("init_segv")};
  try {
    PluginRegistry::load(search);
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(e.id() == "E-PLUGIN-CRASH");
    CHECK(e.exit_code() == 2);
  }
}

TEST_CASE("Plugins in a folder or file others can write, or owned by another user, are refused") {
  TempDir cache;
  TempDir folder;
  const fs::path copy = folder.path / "compat_current.so";
  fs::copy_file(fixture("compat_current"), copy);
  PluginSearch search;
  search.vetting = settings_in(cache.path);
  search.environment_path = folder.path.string();
  auto reason = [&] {
    PluginRegistry registry = PluginRegistry::load(search);
    CHECK(registry.plugins().empty());
    CHECK(skipped_ids(registry, "compat_current.so") ==
          std::vector<std::string>{"E-PLUGIN-UNSAFE"});
    return skipped_message(registry, "compat_current.so");
  };
  SECTION("a world-writable file") {
    REQUIRE(chmod(copy.c_str(), 0757) == 0);
    const std::string why = reason();
    CHECK_THAT(why, Catch::Contains("writable by others (mode 0757)"));
    CHECK_THAT(why, Catch::Contains("chmod go-w " + copy.string()));
  }
  SECTION("a group-writable folder") {
    REQUIRE(chmod(folder.path.c_str(), 0770) == 0);
    CHECK_THAT(reason(), Catch::Contains("plugin folder " + folder.path.string() +
                                         " is writable by its group"));
  }
  SECTION("a file owned by another user") {
    if (geteuid() != 0) {
      WARN("not root: cannot give a file to another user; skipped");
      return;
    }
    REQUIRE(chown(copy.c_str(), 65534, 65534) == 0);
    CHECK_THAT(reason(), Catch::Contains("owned by user id 65534, neither root nor you"));
  }
  SECTION("named with --plugin, it is an error") {
    REQUIRE(chmod(copy.c_str(), 0777) == 0);
    search.environment_path.clear();
    search.files = {copy};
    try {
      PluginRegistry::load(search);
      FAIL("no error");
    } catch (const UserError& e) {
      CHECK(e.id() == "E-PLUGIN-UNSAFE");
    }
  }
}

TEST_CASE("A malformed device table skips that plugin's devices, not the shipped ones") {
  PluginSearch search;
  search.environment_path = hostile_dir("malformed_devices").string();
  search.install_dir = NDS_TEST_SHIPPED_PLUGINS;
  search.vetting.enabled = false;  // in process, as after a verdict that passed
  PluginRegistry registry = PluginRegistry::load(search);
  const DeviceCatalog catalog = DeviceCatalog::load(registry, false);
  CHECK(catalog.resolve("nvidia-h100-sxm").memory_bytes == 80ull << 30);
  bool warned = false;
  for (const std::string& w : catalog.warnings())
    warned = warned || (w.rfind("[W-DEVICE-PLUGIN]", 0) == 0 &&
                        w.find("hostile_malformed_devices.so") != std::string::npos &&
                        w.find("struct_size 4") != std::string::npos);
  CHECK(warned);
  CHECK_THROWS_AS(catalog.resolve("hostile-malformed-devices-device"), UserError);
}

TEST_CASE("A device with a shipped device's id is refused unless allowed to override it") {
  TempDir cache;
  PluginSearch search;
  search.environment_path = hostile_dir("shadow_device").string();
  search.install_dir = NDS_TEST_SHIPPED_PLUGINS;
  search.vetting = settings_in(cache.path);
  // The shipped H100 SXM has 80 GiB of HBM3 (plugins/hardware/nvidia); the
  // fixture claims 96 GiB for the same id.
  {
    PluginRegistry registry = PluginRegistry::load(search);
    const DeviceCatalog catalog = DeviceCatalog::load(registry, false);
    CHECK(catalog.resolve("nvidia-h100-sxm").memory_bytes == 80ull << 30);
    bool warned = false;
    for (const std::string& w : catalog.warnings())
      warned = warned || w.rfind("[W-DEVICE-SHADOW]", 0) == 0;
    CHECK(warned);
  }
  {
    search.allow_override = {"nvidia-h100-sxm"};
    PluginRegistry registry = PluginRegistry::load(search);
    CHECK(DeviceCatalog::load(registry, false).resolve("nvidia-h100-sxm").memory_bytes ==
          96ull << 30);
  }
  {
    search.allow_override.clear();
    search.environment_path.clear();
    search.files = {hostile("shadow_device")};
    PluginRegistry registry = PluginRegistry::load(search);
    try {
      DeviceCatalog::load(registry, false);
      FAIL("no error");
    } catch (const UserError& e) {
      CHECK(e.id() == "E-DEVICE-SHADOW");
      CHECK_THAT(e.what(), Catch::Contains("the override (`allow_override=nvidia-h100-sxm`)"));
    }
  }
}

TEST_CASE("A plugin with a shipped plugin's id is refused unless allowed to override it") {
  TempDir cache;
  PluginSearch search;
  search.environment_path = hostile_dir("shadow_id").string();
  search.install_dir = NDS_TEST_SHIPPED_PLUGINS;
  search.vetting = settings_in(cache.path);
  auto nvidia_path = [](const PluginRegistry& registry) {
    for (const auto& p : registry.plugins())
      if (p->id == "nvidia") return p->path.filename().string();
    return std::string();
  };
  {
    PluginRegistry registry = PluginRegistry::load(search);
    CHECK(skipped_ids(registry, "hostile_shadow_id.so") ==
          std::vector<std::string>{"E-PLUGIN-SHADOW"});
    CHECK(nvidia_path(registry) == "nvidia.so");
  }
  {
    search.allow_override = {"nvidia"};
    PluginRegistry registry = PluginRegistry::load(search);
    CHECK(nvidia_path(registry) == "hostile_shadow_id.so");
    CHECK(skipped_ids(registry, "nvidia.so") == std::vector<std::string>{"W-PLUGIN-DUPLICATE"});
  }
  {
    search.allow_override.clear();
    search.environment_path.clear();
    search.files = {hostile("shadow_id")};
    CHECK_THROWS_WITH(PluginRegistry::load(search),
                      Catch::Contains("the override (`allow_override=nvidia`)"));
  }
}
