// SPDX-License-Identifier: Apache-2.0
// test_options_per_call.cpp: the host's side of NDS_MODULE_OPTIONS_PER_CALL
// (ABI 1.2) with fixture modules (tests/fixtures/options_per_call.c) and the
// shipped toml-device. One module shared by two live runs with other options
// answers each call made through a run's plugin with that run's options,
// also from two threads at once, and never runs two calls of a [serialized]
// function at once; a call made for no run reads the options of init; a
// module without the flag (flags = 0, or built against the 1.1 headers) is
// still given one set of options at a time (E-PLUGIN-OPTIONS), and shared
// when they are equal.
#include <catch2/catch.hpp>

#include <ndsearch/nds.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/plugin_host/registry.hpp"
#include "core/plugin_host/run_options.hpp"
#include "core/support/status.hpp"
#include "core/support/user_error.hpp"
#include "tests/fixtures_paths.hpp"
#include "tests/support/hostile_fixtures.hpp"  // TempDir
#include "tests/support/shipped.hpp"

using namespace ndsearch;

namespace {

using Options = std::shared_ptr<const PluginOptions>;

Options options_of(const std::string& memory_gib, const std::string& other_bytes) {
  return std::make_shared<const PluginOptions>(
      PluginOptions{{"fixture-memory-gib", memory_gib}, {"fixture-other-bytes", other_bytes}});
}

// A run of one fixture as PluginRegistry::load makes it (its get_devices
// guarded by the watchdog, which takes the module's call lock); the fixture
// lies in the build tree, trusted as the tests' --plugin files are.
PluginRegistry run_of(const std::string& fixture, Options options) {
  PluginSearch search;
  search.files = {test::fixture(fixture)};
  search.options = std::move(options);
  search.vetting.enabled = false;
  return PluginRegistry::load(search);
}

// What get_devices answers (its status's message, if it fails).
struct Listed {
  uint64_t memory_bytes = 0;
  const nds_device* device = nullptr;
  std::string failure;
};
Listed devices_of(const LoadedPlugin& plugin) {
  const nds_device* const* devices = nullptr;
  size_t count = 0;
  StatusPtr failure(plugin.interfaces.hardware->get_devices(&devices, &count));
  if (failure) return {0, nullptr, failure->message};
  REQUIRE(count == 1);
  return {devices[0]->memory_bytes, devices[0], ""};
}

// What the fixture's memory pass, compiled through this run's plugin as the
// memory evaluator compiles it, puts in "other".
double other_bytes_of(const LoadedPlugin& plugin) {
  const nds_memory_v1& memory = *plugin.interfaces.memory;
  const nds_compile_input input{sizeof(nds_compile_input), nullptr, nullptr, 0.1};  // it reads none
  nds_memory_compiled* compiled = nullptr;
  {
    const SerializedCall call = serialized_call(plugin, &SerializedCalls::memory_compile);
    StatusPtr failure(memory.compile(&input, &compiled));
    REQUIRE(!failure);
  }
  nds_strategy strategy{};
  strategy.struct_size = sizeof(strategy);
  strategy.pp = 1;
  nds_candidate candidate{};
  candidate.struct_size = sizeof(candidate);
  candidate.strategy = &strategy;
  double prior[NDS_MEMORY_TERM_COUNT_V1] = {}, bytes[NDS_MEMORY_TERM_COUNT_V1] = {};
  nds_memory_item item{sizeof(item), &candidate, NDS_MEMORY_TERM_COUNT_V1, prior, bytes,
                       NDS_OK,       nullptr};
  memory.evaluate(compiled, &item, 1, sizeof(item));
  memory.release(compiled);
  return bytes[NDS_MEMORY_OTHER];
}

constexpr uint64_t kGiB = uint64_t{1} << 30;

}  // namespace

TEST_CASE("A module that reads its options per call serves two live runs, each with its own") {
  const Options a = options_of("16", "1000"), b = options_of("32", "2000");
  const PluginRegistry first = run_of("options/options_per_call", a);
  const PluginRegistry second = run_of("options/options_per_call", b);
  const LoadedPlugin& in_first = *first.plugins().at(0);
  const LoadedPlugin& in_second = *second.plugins().at(0);
  CHECK(in_first.options_per_call);
  CHECK(in_first.instance == in_second.instance);  // one init for both runs

  // Each call through a run's plugin is made for that run, whatever run the
  // calling thread works for (none here, then the other one).
  const Listed in_a = devices_of(in_first);
  CHECK(in_a.failure.empty());
  CHECK(in_a.memory_bytes == 16 * kGiB);
  CHECK(devices_of(in_second).memory_bytes == 32 * kGiB);
  CHECK(other_bytes_of(in_first) == 1000);
  CHECK(other_bytes_of(in_second) == 2000);
  {
    const RunScope other_run(b);
    CHECK(devices_of(in_first).memory_bytes == 16 * kGiB);
    CHECK(other_bytes_of(in_first) == 1000);
  }
  // Back to the first run: its table again, still valid.
  CHECK(devices_of(in_first).device == in_a.device);
  CHECK(in_a.device->memory_bytes == 16 * kGiB);

  SECTION("two threads at once: each reads its own run's, and get_devices runs one at a time") {
    // The fixture's get_devices fails when it finds another call of it
    // running: the watchdog's worker takes the module's lock, whichever run
    // calls. Each call sleeps 0.2 ms inside, so 100 unserialized pairs would
    // overlap.
    std::vector<std::vector<Listed>> seen(2);
    std::vector<std::thread> threads;
    const std::vector<const LoadedPlugin*> runs{&in_first, &in_second};
    for (size_t i = 0; i < runs.size(); ++i)
      threads.emplace_back([&, i] {
        for (int call = 0; call < 100; ++call) seen[i].push_back(devices_of(*runs[i]));
      });
    for (std::thread& thread : threads) thread.join();
    for (size_t i = 0; i < runs.size(); ++i) {
      INFO("run " << i + 1);
      REQUIRE(seen[i].size() == 100);
      for (const Listed& listed : seen[i]) {
        CHECK(listed.failure.empty());
        CHECK(listed.memory_bytes == (i == 0 ? 16 : 32) * kGiB);
      }
    }
  }
}

TEST_CASE(
    "A module without the options flag is still refused to a second live run with other options") {
  // The same fixture with flags = 0, and a real plugin of ABI 1.1 (its module
  // table ends before flags, which then reads as 0).
  for (const char* fixture : {"options/options_at_init", "compat_1_1"}) {
    INFO(fixture);
    const Options a = options_of("16", "1000"), b = options_of("32", "1000");
    const auto first = load_plugin(test::fixture(fixture), a);
    CHECK_FALSE(first->options_per_call);
    try {
      load_plugin(test::fixture(fixture), b);
      FAIL("a module without NDS_MODULE_OPTIONS_PER_CALL served two sets of options at once");
    } catch (const UserError& e) {
      CHECK(e.id() == "E-PLUGIN-OPTIONS");
      CHECK(e.exit_code() == 2);
      const std::string message = e.what();
      CHECK_THAT(message, Catch::Contains("is in use by another run in this process"));
      CHECK_THAT(message, Catch::Contains("fixture-memory-gib (\"16\" there, \"32\" here)"));
      CHECK_THAT(message, Catch::Contains("does not set NDS_MODULE_OPTIONS_PER_CALL"));
      CHECK_THAT(message, Catch::Contains("close the other run"));
      CHECK_THAT(message, !Catch::Contains("fixture-other-bytes ("));
    }
    // The same options: shared, one init.
    const auto same = load_plugin(test::fixture(fixture), options_of("16", "1000"));
    CHECK(same->instance == first->instance);
  }
}

TEST_CASE("A module without the options flag, once let go of, serves the next run's options") {
  std::optional<PluginRegistry> first = run_of("options/options_at_init", options_of("16", "0"));
  CHECK(devices_of(*first->plugins().at(0)).memory_bytes == 16 * kGiB);
  first.reset();
  const PluginRegistry second = run_of("options/options_at_init", options_of("32", "0"));
  // Without the flag it reads the options it was initialised with, in a run or not.
  CHECK(devices_of(*second.plugins().at(0)).memory_bytes == 32 * kGiB);
}

TEST_CASE("Every shipped plugin reads its options per call") {
  for (const auto& plugin : test::shipped_plugins().plugins()) {
    INFO(plugin->id);
    CHECK(plugin->options_per_call);
  }
}

TEST_CASE("An SDK hardware plugin describes again for other option values and keeps each table") {
  // toml-device's describe() reads device-path and device-file (through
  // sdk::Host::option); HardwarePlugin keys each description by their values.
  test::TempDir scratch;
  const auto write = [&](const std::string& name, int memory_gib) {
    const std::filesystem::path file = scratch.path / (name + ".toml");
    std::ofstream(file) << "id = \"sdk-npu\"\nbase = \"nvidia-h100-sxm\"\nmemory_gib = "
                        << memory_gib << "\n";
    return std::make_shared<const PluginOptions>(PluginOptions{{"device-file", file.string()}});
  };
  const Options a = write("a", 40), b = write("b", 20);
  const auto toml = std::filesystem::path(NDS_TEST_SHIPPED_PLUGINS) / "toml_device.so";
  const auto first = load_plugin(toml, a);
  const auto second = load_plugin(toml, b);
  REQUIRE(first->instance == second->instance);
  auto table_of = [](const LoadedPlugin& plugin, const Options& run_options) {
    const RunScope run(run_options);
    const nds_device* const* devices = nullptr;
    size_t count = 0;
    StatusPtr failure(plugin.interfaces.hardware->get_devices(&devices, &count));
    REQUIRE(!failure);
    REQUIRE(count == 1);
    return devices;
  };
  const nds_device* const* in_a = table_of(*first, a);
  const nds_device* const* in_b = table_of(*second, b);
  CHECK(in_a != in_b);
  CHECK(in_b[0]->memory_bytes == 20 * kGiB);
  // The first table is still valid and handed out again for the same values.
  CHECK(in_a[0]->memory_bytes == 40 * kGiB);
  CHECK(table_of(*first, a) == in_a);
  // A call made for no run (these tables are not guarded: no plugin's run is
  // known) reads the options of the run that called init, the first's.
  CHECK(table_of(*second, nullptr) == in_a);
}
