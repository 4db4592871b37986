// SPDX-License-Identifier: Apache-2.0
#include "core/input/device_catalog.hpp"
#include "core/support/closest_name.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <ndsearch/core/settings.hpp>

#include <algorithm>
#include <optional>

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

// A problem met while loading: an error when the user named a device file
// (strict), else a warning logged and kept for the output.
struct Problems {
  bool strict_devices;
  std::vector<std::string>& warnings;

  void operator()(const char* warning_id, const std::string& message) const {
    if (strict_devices) throw UserError("E-DEVICE-FILE", message);
    spdlog::warn("[{}] {}", warning_id, message);
    warnings.push_back(fmt::format("[{}] {}", warning_id, message));
  }
};

// A plugin's devices, copied and checked.
struct Described {
  const LoadedPlugin* plugin;
  std::vector<Device> devices;
};

// The device table as get_devices hands it over.
struct DeviceTable {
  const nds_device* const* table = nullptr;
  size_t count = 0;
};

// The plugin's table, or none when get_devices fails or hangs: then none of
// its devices is known.
std::optional<DeviceTable> device_table(const LoadedPlugin& plugin, const nds_hardware_v1& hardware,
                                        const Problems& problem) {
  DeviceTable devices;
  StatusPtr failure;
  try {
    failure.reset(hardware.get_devices(&devices.table, &devices.count));
  } catch (const UserError& e) {  // the watchdog gave up on it: its devices are not known
    if (e.id() != "E-PLUGIN-HANG") throw;
    problem("W-DEVICE-PLUGIN", fmt::format("{}; none of its devices is used", e.what()));
    return std::nullopt;
  }
  if (failure) {
    problem("W-DEVICE-PLUGIN", fmt::format("hardware plugin {} ({}) could not describe its "
                                           "devices: {}",
                                           plugin.id, plugin.path.string(), failure->message));
    return std::nullopt;
  }
  return devices;
}

// The table's valid devices, copied; an invalid one is skipped, a NULL entry
// ends the table, and a malformed table gives none at all.
std::optional<std::vector<Device>> copied_devices(const LoadedPlugin& plugin,
                                                  const DeviceTable& devices,
                                                  const Problems& problem) {
  std::vector<Device> copied;
  try {
    for (size_t i = 0; i < devices.count; ++i) {
      if (devices.table == nullptr || devices.table[i] == nullptr) {
        problem("W-DEVICE-INVALID",
                fmt::format("hardware plugin {} returned a NULL device", plugin.id));
        break;
      }
      Device device = copy_device(*devices.table[i], plugin.id);
      if (auto problems = device_problems(device); !problems.empty()) {
        problem("W-DEVICE-INVALID",
                fmt::format("hardware plugin {}: device {}", plugin.id, joined(problems)));
        continue;
      }
      copied.push_back(std::move(device));
    }
  } catch (const UserError& e) {
    if (e.id() != "E-HARDWARE-TABLE") throw;
    problem("W-DEVICE-PLUGIN",
            fmt::format("{} ({}); none of its devices is used", e.what(), plugin.path.string()));
    return std::nullopt;
  }
  return copied;
}

// Each hardware plugin's devices, in load order; a plugin whose table cannot
// be read (get_devices fails, or the table is malformed) gives none.
std::vector<Described> described_plugins(const PluginRegistry& registry, const Problems& problem) {
  std::vector<Described> described;
  for (const auto& plugin : registry.plugins()) {
    const nds_hardware_v1* hardware = plugin->interfaces.hardware;
    if (hardware == nullptr) continue;
    const std::optional<DeviceTable> devices = device_table(*plugin, *hardware, problem);
    if (!devices) continue;
    std::optional<std::vector<Device>> copied = copied_devices(*plugin, *devices, problem);
    if (!copied) continue;
    described.push_back(Described{plugin.get(), std::move(*copied)});
  }
  return described;
}

// The device ids of shipped plugins: reserved, unless --allow-override names them.
std::vector<std::string> shipped_ids(const std::vector<Described>& described) {
  std::vector<std::string> ids;
  for (const Described& d : described)
    if (d.plugin->origin == PluginOrigin::shipped)
      for (const Device& device : d.devices) ids.push_back(device.id);
  return ids;
}

// Whether a device of a plugin not shipped takes a reserved id without leave.
bool shadows(const LoadedPlugin& plugin, const Device& device,
             const std::vector<std::string>& shipped, const PluginRegistry& registry) {
  return plugin.origin != PluginOrigin::shipped &&
         std::find(shipped.begin(), shipped.end(), device.id) != shipped.end() &&
         !registry.override_allowed(device.id);
}

// The shipped device is kept: an error for a plugin the user named, a
// warning (whatever --strict-devices says) for one found on its own.
void refuse_shadow(const LoadedPlugin& plugin, const Device& device,
                   std::vector<std::string>& warnings) {
  const std::string message = fmt::format(
      "device {} of plugin {} ({}) has the id of a device shipped with ndsearch; it may not "
      "replace it, so the shipped one is used. Give it another id, or allow {} "
      "to use this one instead",
      device.id, plugin.id, plugin.path.string(), Setting("allow_override").named(device.id));
  if (plugin.origin == PluginOrigin::named) throw UserError("E-DEVICE-SHADOW", message);
  spdlog::warn("[W-DEVICE-SHADOW] {}", message);
  warnings.push_back("[W-DEVICE-SHADOW] " + message);
}

// Whether an earlier plugin already described a device with this id.
bool already_described(const std::vector<Device>& devices, const std::string& id) {
  bool seen = false;
  for (const Device& known : devices) seen = seen || known.id == id;
  return seen;
}

}  // namespace

DeviceCatalog DeviceCatalog::load(const PluginRegistry& registry, bool strict_devices) {
  DeviceCatalog catalog;
  const Problems problem{strict_devices, catalog.warnings_};
  std::vector<Described> described = described_plugins(registry, problem);
  const std::vector<std::string> shipped = shipped_ids(described);
  for (Described& d : described) {
    for (Device& device : d.devices) {
      if (shadows(*d.plugin, device, shipped, registry)) {
        refuse_shadow(*d.plugin, device, catalog.warnings_);
        continue;
      }
      if (already_described(catalog.devices_, device.id)) {
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
