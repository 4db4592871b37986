// SPDX-License-Identifier: Apache-2.0
#include "fuzz/support/shipped_plugin.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <memory>

namespace ndsearch::fuzz {

const PluginRegistry& shipped_plugin(const std::string& folder, const std::string& id,
                                     const PluginOptions& options) {
  // Plugin loggers clone the default logger's level: a warning per input
  // would cost more than the parse.
  spdlog::set_level(spdlog::level::off);
  PluginSearch search;
  search.install_dir = folder;
  search.options = std::make_shared<const PluginOptions>(options);
  static PluginRegistry registry;
  registry = PluginRegistry::load(search);
  plugin_in(registry, id);
  return registry;
}

const LoadedPlugin& plugin_in(const PluginRegistry& registry, const std::string& id) {
  for (const auto& p : registry.plugins())
    if (p->id == id) return *p;
  std::fprintf(stderr, "nds fuzz: plugin %s is not loaded (%zu skipped); rebuild the fuzz build\n",
               id.c_str(), registry.skipped().size());
  for (const auto& s : registry.skipped())
    std::fprintf(stderr, "  %s: [%s] %s\n", s.path.c_str(), s.error_id.c_str(), s.message.c_str());
  std::abort();
}

}  // namespace ndsearch::fuzz
