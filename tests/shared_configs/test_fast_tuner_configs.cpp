// SPDX-License-Identifier: Apache-2.0
// test_fast_tuner_configs.cpp: the reference's three fast-tuner setups for
// the parallel tool. Their paths are relative to a fast-tuner checkout
// ("./config/pretrain_deepseek3_671b.yaml"), which ../shared does not hold:
// each is followed to its config when that exists, and otherwise gives the
// error that names the key, the path and the places tried.
#include <catch2/catch.hpp>

#include <filesystem>

#include "core/input/parse_config.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/support/user_error.hpp"

namespace {

namespace fs = std::filesystem;

const ndsearch::PluginRegistry& shipped() {
  static const ndsearch::PluginRegistry registry = [] {
    ndsearch::PluginSearch search;
    search.install_dir = NDS_TEST_SHIPPED_PLUGINS;
    return ndsearch::PluginRegistry::load(search);
  }();
  return registry;
}

struct Setup {
  const char* file;
  const char* key;
  const char* path;
  uint64_t devices;
};

}  // namespace

TEST_CASE("The shared fast-tuner setups are followed to their configs, or say where they looked") {
  const std::string dir = std::string(NDS_TEST_SHARED_CONFIGS) + "/fasttuner";
  const Setup setups[] = {
      {"fast_tuner_args_for_parallel_tool.json", "yaml_path",
       "./config/pretrain_deepseek3_671b.yaml", 64},
      {"fast_tuner_args_for_parallel_tool_mcore.json", "shell_path",
       "./config/example/mcore/pretrain_deepseek3_671b_4k_A3_ptd.sh", 512},
      {"fast_tuner_args_for_parallel_tool_titan.json", "toml_path",
       "./config/example/torchtitan/debug_model.toml", 8},
  };
  for (const Setup& s : setups) {
    const std::string file = dir + "/" + s.file;
    INFO(file);
    // Where the first place tried, beside the JSON, would be.
    const std::string beside = (fs::path(dir) / s.path).lexically_normal().string();
    try {
      const ndsearch::Model m = ndsearch::parse_config(shipped(), file, {});
      CHECK(m.setup.devices == s.devices);  // a checkout that holds the config
    } catch (const ndsearch::UserError& e) {
      CHECK(e.id() == "E-SETUP-PATH");
      CHECK_THAT(e.what(), Catch::StartsWith(file + ": `" + s.key + "` = \"" + s.path +
                                             "\": no such file in the JSON's folder, a folder "
                                             "above it or the current folder (tried " +
                                             beside + ", "));
    }
  }
}
