// SPDX-License-Identifier: Apache-2.0
#include "core/output/plugins_text.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include "core/output/text_settings.hpp"

namespace ndsearch {
namespace {

std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

}  // namespace

void write_plugins_text(std::ostream& out, const PluginRegistry& registry,
                        const TextSettings& text) {
  if (registry.plugins().empty()) {
    out << spelled(text, fmt::format("No plugins loaded. Plugins are searched in {}, "
                                     "NDS_PLUGIN_PATH and the install directory",
                                     Setting("plugin_dirs").named()))
        << (default_plugin_dir() ? " (" + default_plugin_dir()->string() + ")"
                                 : std::string(" (not found)"))
        << ".\n";
  } else {
    out << fmt::format("{:<22} {:<9} {:<5} {:<42} {}\n", "ID", "VERSION", "ABI", "KINDS", "PATH");
    for (const auto& p : registry.plugins()) {
      out << fmt::format("{:<22} {:<9} {:<5} {:<42} {}\n", p->id, p->version,
                         fmt::format("{}.{}", p->abi_major, p->abi_minor),
                         joined(p->interfaces.ids(), ","), p->path.string());
    }
  }
  for (const SkippedPlugin& s : registry.skipped())
    out << fmt::format("skipped [{}] {}\n", s.error_id, spelled(text, s.message));
}

}  // namespace ndsearch
