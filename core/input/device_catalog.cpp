// SPDX-License-Identifier: Apache-2.0
#include "core/input/device_catalog.hpp"
#include "core/support/closest_name.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <ndsearch/core/settings.hpp>

#include <algorithm>

#include "core/support/status.hpp"
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
  // Each plugin's devices, copied and checked; a plugin whose table cannot be
  // read (get_devices fails, or the table is malformed) gives none.
  struct Described {
    const LoadedPlugin* plugin;
    std::vector<Device> devices;
  };
  std::vector<Described> described;
  for (const auto& plugin : registry.plugins()) {
    const nds_hardware_v1* hardware = plugin->interfaces.hardware;
    if (hardware == nullptr) continue;
    const nds_device* const* table = nullptr;
    size_t count = 0;
    StatusPtr failure;
    try {
      failure.reset(hardware->get_devices(&table, &count));
    } catch (const UserError& e) {  // the watchdog gave up on it: its devices are not known
      if (e.id() != "E-PLUGIN-HANG") throw;
      problem("W-DEVICE-PLUGIN", fmt::format("{}; none of its devices is used", e.what()));
      continue;
    }
    if (failure) {
      problem("W-DEVICE-PLUGIN", fmt::format("hardware plugin {} ({}) could not describe its "
                                             "devices: {}",
                                             plugin->id, plugin->path.string(), failure->message));
      continue;
    }
    Described entry{plugin.get(), {}};
    try {
      for (size_t i = 0; i < count; ++i) {
        if (table == nullptr || table[i] == nullptr) {
          problem("W-DEVICE-INVALID",
                  fmt::format("hardware plugin {} returned a NULL device", plugin->id));
          break;
        }
        Device device = copy_device(*table[i], plugin->id);
        if (auto problems = device_problems(device); !problems.empty()) {
          problem("W-DEVICE-INVALID",
                  fmt::format("hardware plugin {}: device {}", plugin->id, joined(problems)));
          continue;
        }
        entry.devices.push_back(std::move(device));
      }
    } catch (const UserError& e) {
      if (e.id() != "E-HARDWARE-TABLE") throw;
      problem("W-DEVICE-PLUGIN",
              fmt::format("{} ({}); none of its devices is used", e.what(), plugin->path.string()));
      continue;
    }
    described.push_back(std::move(entry));
  }
  // A device id of a shipped plugin is reserved, unless --allow-override names it.
  std::vector<std::string> shipped_ids;
  for (const Described& d : described)
    if (d.plugin->origin == PluginOrigin::shipped)
      for (const Device& device : d.devices) shipped_ids.push_back(device.id);
  for (Described& d : described) {
    for (Device& device : d.devices) {
      const bool shadows =
          d.plugin->origin != PluginOrigin::shipped &&
          std::find(shipped_ids.begin(), shipped_ids.end(), device.id) != shipped_ids.end() &&
          !registry.override_allowed(device.id);
      if (shadows) {
        const std::string message = fmt::format(
            "device {} of plugin {} ({}) has the id of a device shipped with ndsearch; it may not "
            "replace it, so the shipped one is used. Give it another id, or allow {} "
            "to use this one instead",
            device.id, d.plugin->id, d.plugin->path.string(),
            Setting("allow_override").named(device.id));
        if (d.plugin->origin == PluginOrigin::named) throw UserError("E-DEVICE-SHADOW", message);
        spdlog::warn("[W-DEVICE-SHADOW] {}", message);
        catalog.warnings_.push_back("[W-DEVICE-SHADOW] " + message);
        continue;
      }
      bool seen = false;
      for (const Device& known : catalog.devices_) seen = seen || known.id == device.id;
      if (seen) {
        problem("W-DEVICE-DUPLICATE",
                fmt::format("device {} of plugin {} is already described by an earlier plugin; "
                            "this one is ignored (give it another id)",
                            device.id, d.plugin->id));
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
  std::vector<std::string> names;
  for (const Device& d : devices_)
    known += (known.empty() ? "" : ", ") + d.id, names.push_back(d.id);
  for (const Alias& alias : kAliases) {
    known += fmt::format(", {} (= {})", alias.name, alias.id);
    names.emplace_back(alias.name);
  }
  throw UserError(
      "E-DEVICE-UNKNOWN",
      fmt::format(
          "{}: no loaded hardware plugin describes this device{}; known "
          "devices: {}. Describe a new one in a TOML file: {}, "
          "docs/device-toml.md",
          asked_as.empty() ? Setting("device").named(name) : fmt::format("{} {}", asked_as, name),
          did_you_mean(name, names), known.empty() ? "none (no hardware plugin loaded)" : known,
          Setting("device_file").named()));
}

}  // namespace ndsearch
