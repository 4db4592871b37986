// SPDX-License-Identifier: Apache-2.0
#include "core/hardware/device_catalog.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "core/plugins/status.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

// The reference's device names (reference/nd_behaviour.md §4) and ours.
struct Alias {
  std::string_view name, id;
};
constexpr Alias kAliases[] = {{"A2", "ascend-a2"}, {"A3", "ascend-a3"}};

std::string joined(const std::vector<std::string>& problems) {
  std::string text;
  for (const std::string& p : problems) text += (text.empty() ? "" : "; ") + p;
  return text;
}

}  // namespace

DeviceCatalog DeviceCatalog::load(const PluginRegistry& registry, bool strict_devices) {
  DeviceCatalog catalog;
  auto problem = [&](const char* warning_id, const std::string& message) {
    if (strict_devices) throw UserError("E-DEVICE-FILE", message);
    spdlog::warn("[{}] {}", warning_id, message);
    catalog.warnings_.push_back(fmt::format("[{}] {}", warning_id, message));
  };
  for (const auto& plugin : registry.plugins()) {
    const nds_hardware_v1* hardware = plugin->interfaces.hardware;
    if (hardware == nullptr) continue;
    const nds_device* const* table = nullptr;
    size_t count = 0;
    StatusPtr failure(hardware->get_devices(&table, &count));
    if (failure) {
      problem("W-DEVICE-PLUGIN", fmt::format("hardware plugin {} ({}) could not describe its "
                                             "devices: {}",
                                             plugin->id, plugin->path.string(), failure->message));
      continue;
    }
    for (size_t i = 0; i < count; ++i) {
      if (table == nullptr || table[i] == nullptr) {
        problem("W-DEVICE-INVALID", fmt::format("hardware plugin {} returned a NULL device", plugin->id));
        break;
      }
      Device device = copy_device(*table[i], plugin->id);
      if (auto problems = device_problems(device); !problems.empty()) {
        problem("W-DEVICE-INVALID", fmt::format("hardware plugin {}: device {}", plugin->id, joined(problems)));
        continue;
      }
      bool seen = false;
      for (const Device& d : catalog.devices_) seen = seen || d.id == device.id;
      if (seen) {
        problem("W-DEVICE-DUPLICATE",
                fmt::format("device {} of plugin {} is already described by an earlier plugin; "
                            "this one is ignored (give it another id)",
                            device.id, plugin->id));
        continue;
      }
      catalog.devices_.push_back(std::move(device));
    }
  }
  return catalog;
}

const Device& DeviceCatalog::resolve(std::string_view name, std::string_view asked_as) const {
  std::string_view id = name;
  for (const Alias& alias : kAliases)
    if (alias.name == name) id = alias.id;
  for (const Device& d : devices_)
    if (d.id == id) return d;
  std::string known;
  for (const Device& d : devices_) known += (known.empty() ? "" : ", ") + d.id;
  for (const Alias& alias : kAliases) known += fmt::format(", {} (= {})", alias.name, alias.id);
  throw UserError("E-DEVICE-UNKNOWN",
                  fmt::format("{} {}: no loaded hardware plugin describes this device; known "
                              "devices: {}. Describe a new one in a TOML file (--device-file, "
                              "docs/device-toml.md)",
                              asked_as, name, known.empty() ? "none (no hardware plugin loaded)" : known));
}

}  // namespace ndsearch
