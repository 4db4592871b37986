// SPDX-License-Identifier: Apache-2.0
// registry.hpp: finds, loads, checks and keeps the plugins of one run
// (DESIGN §4, step 1): search order, precedence and failure rules.
#pragma once

#include <ndsearch/core/planner.hpp>

#include <ndsearch/nds_abi.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>  // SerializedCalls
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/plugin_host/interfaces.hpp"
#include "core/plugin_host/module_host.hpp"
#include "core/plugin_host/serialized_calls.hpp"
#include "core/plugin_host/vetting.hpp"
#include "core/plugin_host/watchdog.hpp"

namespace ndsearch {

// Where to look, in order of precedence. Every library but the shipped ones
// (install_dir, trusted) must sit in a folder and file only root or the user
// can write, and pass vetting in a child process (vetting.hpp) before it is
// loaded; none may take the id of a shipped plugin or device unless
// `allow_override` names that id.
struct PluginSearch {
  std::vector<std::filesystem::path> files;          // --plugin FILE: a failure is fatal
  std::vector<std::filesystem::path> directories;    // --plugin-path DIR (and DIR:DIR)
  std::string environment_path;                      // NDS_PLUGIN_PATH, colon-separated
  std::optional<std::filesystem::path> install_dir;  // the shipped plugins
  std::shared_ptr<const PluginOptions> options = std::make_shared<PluginOptions>();
  std::vector<std::string> allow_override;  // --allow-override ID: plugin or device ids
  VetSettings vetting;
  // The limit on each probe, parse and get_devices call (watchdog.hpp).
  std::chrono::milliseconds call_timeout = kDefaultPluginCallTimeout;
};

// Where a loaded plugin came from.
enum class PluginOrigin { named, directory, environment, shipped };

// A module after its init: one per library at a time, shared by every live
// LoadedPlugin of that library (all with the options it was initialised with,
// or any options when it reads them per call), so init and shutdown each run
// once per initialisation ([once]); after the last owner shut it down, a
// later load initialises it again.
struct ModuleInstance {
  const nds_module* module = nullptr;
  std::unique_ptr<ModuleHost> host;  // outlives the module's shutdown
  // Its [serialized] functions, one call at a time whichever run makes it.
  std::shared_ptr<SerializedCalls> serialized = std::make_shared<SerializedCalls>();
  // A call into the module was given up on (E-PLUGIN-HANG) and its thread may
  // still be inside it: no shutdown then, and the host it logs through stays.
  std::atomic<bool> abandoned{false};
  ModuleInstance() = default;
  ModuleInstance(const ModuleInstance&) = delete;
  ModuleInstance& operator=(const ModuleInstance&) = delete;
  ~ModuleInstance();  // calls the module's shutdown, unless abandoned
};

struct LoadedPlugin {
  std::filesystem::path path;
  std::string id;
  std::string version;
  std::string description;
  uint32_t abi_major = 0;
  uint32_t abi_minor = 0;
  // NDS_MODULE_OPTIONS_PER_CALL: live runs with other options share the module.
  bool options_per_call = false;
  // The options of the run that loaded it: every call the core makes through
  // this plugin is made for that run (SerializedCall, the guarded tables).
  std::shared_ptr<const PluginOptions> options;
  Interfaces interfaces;
  const nds_module* module = nullptr;
  PluginOrigin origin = PluginOrigin::named;
  std::shared_ptr<ModuleInstance> instance;  // the last owner shuts the module down
  // The watchdog's copies of the blocking tables (`interfaces` points to them);
  // released before the module shuts down.
  std::unique_ptr<GuardedTables> guard;
};

// A library that was found but not loaded, and why.
struct SkippedPlugin {
  std::filesystem::path path;
  std::string error_id;  // "E-PLUGIN-ABI-MAJOR", ...
  std::string message;
};

class PluginRegistry {
 public:
  // Loads every plugin `search` finds. A bad library is skipped and recorded
  // (a warning), except one named with --plugin or a --plugin-path directory
  // that does not exist: those throw UserError (exit 2). Two plugins with one
  // id: the first in search order wins, the other is skipped with W-PLUGIN-DUPLICATE.
  // Refused before loading: an unsafe file or folder (E-PLUGIN-UNSAFE), a
  // library that fails vetting (the id of what failed: E-PLUGIN-CRASH,
  // E-PLUGIN-HANG, E-PLUGIN-INIT, ...; E-PLUGIN-VET when it cannot be vetted)
  // and one with a shipped plugin's id (E-PLUGIN-SHADOW). A library another
  // live registry holds with other options, whose module does not read them
  // per call, throws E-PLUGIN-OPTIONS, whatever its origin (load_plugin).
  // The load works for the run of `search.options` (run_options.hpp).
  static PluginRegistry load(const PluginSearch& search);

  PluginRegistry() = default;
  PluginRegistry(PluginRegistry&&) noexcept = default;
  PluginRegistry& operator=(PluginRegistry&&) noexcept = default;
  ~PluginRegistry();  // releases the plugins, last loaded first

  const std::vector<std::unique_ptr<LoadedPlugin>>& plugins() const noexcept { return plugins_; }
  const std::vector<SkippedPlugin>& skipped() const noexcept { return skipped_; }
  // Whether --allow-override names `id` (a plugin or device id).
  bool override_allowed(std::string_view id) const;

 private:
  std::vector<std::unique_ptr<LoadedPlugin>> plugins_;
  std::vector<SkippedPlugin> skipped_;
  std::vector<std::string> allow_override_;
};

// Loads and initialises one library, whatever its id, with the options of
// this run. A library whose module another live LoadedPlugin holds is shared,
// not initialised again, when its options are the same or its module reads
// them per call (NDS_MODULE_OPTIONS_PER_CALL), and refused with
// E-PLUGIN-OPTIONS (naming the keys that differ) otherwise; once the last
// holder is gone, the next load initialises it afresh with its own options.
// Throws UserError with the failure's id (E-PLUGIN-LOAD, E-PLUGIN-NO-ENTRY,
// E-PLUGIN-ENTRY, E-PLUGIN-ABI-MAJOR, E-PLUGIN-MODULE, E-PLUGIN-INIT,
// E-PLUGIN-INTERFACE); an exception a plugin throws across the
// C ABI is caught and reported under the id of the call it escaped from.
// `known_ids`, when given, makes a module whose id is in it fail with
// W-PLUGIN-DUPLICATE before its init runs; `shipped_ids` (the ids of shipped
// plugins it may not take) with E-PLUGIN-SHADOW. An init that does not return
// within `init_timeout` is E-PLUGIN-HANG (bounded_call.hpp).
std::unique_ptr<LoadedPlugin> load_plugin(
    const std::filesystem::path& path, std::shared_ptr<const PluginOptions> options,
    const std::vector<std::string>& known_ids = {},
    const std::vector<std::string>& shipped_ids = {},
    std::chrono::milliseconds init_timeout = kDefaultPluginCallTimeout);

// A call of the [serialized] function `call` through `plugin` (compile and
// release, which the core makes on its own thread): one at a time for the
// module, made for `plugin`'s run. Construct it as
// `const SerializedCall c = serialized_call(plugin, &SerializedCalls::memory_compile);`.
inline SerializedCall serialized_call(const LoadedPlugin& plugin,
                                      std::mutex SerializedCalls::*call) {
  return SerializedCall(*plugin.instance->serialized, call, plugin.options);
}

// split_path_list, the directories of a colon-separated list, is public: planner.hpp.

// The plugin directory of this installation or build tree, if it exists:
// <bindir>/<relative plugin dir> (install) or <bindir>/../lib/ndsearch/plugins.
std::optional<std::filesystem::path> default_plugin_dir();

}  // namespace ndsearch
