// SPDX-License-Identifier: Apache-2.0
#include "core/planner/plugin_settings.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include <cmath>
#include <cstdlib>  // std::getenv

#include "core/support/user_error.hpp"

namespace ndsearch {

PluginSearch plugin_search(const PluginSettings& settings) {
  if (!(settings.plugin_timeout_s >= 0.1 && settings.plugin_timeout_s <= 3600))
    throw UserError(
        "E-USAGE",
        fmt::format(
            "{}: give 0.1 to 3600 seconds",
            Setting("plugin_timeout_s").named(fmt::format("{}", settings.plugin_timeout_s))));
  PluginSearch search;
  search.files = settings.plugin_files;
  search.directories = settings.plugin_dirs;
  if (const char* env = std::getenv("NDS_PLUGIN_PATH"); env != nullptr && settings.use_environment)
    search.environment_path = env;
  search.install_dir = settings.shipped_dir ? settings.shipped_dir : default_plugin_dir();
  auto options = std::make_shared<PluginOptions>(settings.options.begin(), settings.options.end());
  if (settings.device_file)
    (*options)["device-file"] = std::filesystem::absolute(*settings.device_file).string();
  if (const char* env = std::getenv("NDS_DEVICE_PATH"); env != nullptr && settings.use_environment)
    (*options)["device-path"] = env;
  search.options = std::move(options);
  search.allow_override = settings.allow_override;
  const auto limit = std::chrono::milliseconds(std::llround(settings.plugin_timeout_s * 1000));
  search.call_timeout = limit;
  search.vetting.timeout = limit;
  if (settings.vet_helper) search.vetting.helper = settings.vet_helper;
  return search;
}

}  // namespace ndsearch
