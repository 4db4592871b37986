// SPDX-License-Identifier: Apache-2.0
#include "core/plugin_host/registry.hpp"

#include <boost/dll/runtime_symbol_info.hpp>  // program_location

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <regex>
#include <set>
#include <system_error>

#include "core/plugin_host/bounded_call.hpp"
#include "core/plugin_host/file_safety.hpp"
#include "core/plugin_host/library.hpp"
#include "core/plugin_host/run_options.hpp"
#include "core/support/status.hpp"
#include "core/support/user_error.hpp"

#ifndef NDS_RELATIVE_PLUGIN_DIR
#define NDS_RELATIVE_PLUGIN_DIR "../lib/ndsearch/plugins"
#endif

namespace ndsearch {
namespace fs = std::filesystem;
namespace {

bool valid_module_id(const char* id) {
  static const std::regex pattern("[a-z0-9][a-z0-9._-]*");
  return id != nullptr && std::regex_match(id, pattern);
}

// The plugin libraries of a directory, in name order (so loading is repeatable).
std::vector<fs::path> libraries_in(const fs::path& directory) {
  std::vector<fs::path> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(directory, ec)) {
    if (entry.path().extension() == ".so" && entry.is_regular_file(ec))
      found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

const nds_module& checked_module(const nds_module* module, const fs::path& path) {
  if (module->struct_size < offsetof(nds_module, abi_minor) + sizeof(uint32_t)) {
    throw UserError("E-PLUGIN-MODULE",
                    fmt::format("{}: its module table has struct_size {}, too small to hold the "
                                "ABI version; rebuild it against ndsearch's headers",
                                path.string(), module->struct_size));
  }
  if (module->abi_major != NDS_ABI_MAJOR) {
    throw UserError(
        "E-PLUGIN-ABI-MAJOR",
        fmt::format("{}: built for ndsearch plugin ABI {}.{}, but this ndsearch speaks ABI {}; "
                    "rebuild the plugin against this ndsearch's headers, or use an ndsearch "
                    "that speaks ABI {}.x",
                    path.string(), module->abi_major, module->abi_minor, NDS_ABI_VERSION_STRING,
                    module->abi_major));
  }
  if (!NDS_HAS_FIELD(module, nds_module, get_interface) || module->init == nullptr ||
      module->get_interface == nullptr) {
    throw UserError("E-PLUGIN-MODULE",
                    fmt::format("{}: its module table (struct_size {}) lacks init or "
                                "get_interface; rebuild it against ndsearch's headers",
                                path.string(), module->struct_size));
  }
  if (!valid_module_id(module->id)) {
    throw UserError(
        "E-PLUGIN-MODULE",
        fmt::format("{}: module id \"{}\" is not a valid id; use lower-case "
                    "letters, digits, '.', '_' and '-', starting with a letter or digit",
                    path.string(), module->id == nullptr ? "(null)" : module->id));
  }
  return *module;
}

}  // namespace

std::vector<fs::path> split_path_list(std::string_view list) {
  std::vector<fs::path> parts;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(':', start);
    if (end == std::string_view::npos) end = list.size();
    if (end > start) parts.emplace_back(list.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

namespace {

// Modules given up on (E-PLUGIN-HANG) in this process: a thread may still be
// inside one, so it is never initialised again ([once]: never concurrent).
std::mutex abandoned_mutex;
std::set<const nds_module*>& abandoned_modules() {
  static auto* modules = new std::set<const nds_module*>();
  return *modules;
}
void never_initialise_again(const nds_module* module) {
  if (module == nullptr) return;
  std::lock_guard lock(abandoned_mutex);
  abandoned_modules().insert(module);
}
bool given_up_on(const nds_module* module) {
  std::lock_guard lock(abandoned_mutex);
  return abandoned_modules().count(module) > 0;
}

}  // namespace

ModuleInstance::~ModuleInstance() {
  if (abandoned) {
    never_initialise_again(module);
    // The hung call may still log through the host: kept, reachable, until exit.
    static auto* kept = new std::vector<std::unique_ptr<ModuleHost>>();
    static std::mutex kept_mutex;
    std::lock_guard lock(kept_mutex);
    kept->push_back(std::move(host));
    return;
  }
  if (module != nullptr && module->shutdown != nullptr) module->shutdown();
}

namespace {

// The initialised modules of this process, by module table.
std::mutex instances_mutex;
std::map<const nds_module*, std::weak_ptr<ModuleInstance>>& instances() {
  static auto* by_module = new std::map<const nds_module*, std::weak_ptr<ModuleInstance>>();
  return *by_module;
}

// Runs a call into plugin code, turning a C++ exception that crossed the C ABI
// (a plugin written without the SDK) into the UserError `id`.
template <class Call>
auto plugin_call(const fs::path& path, const char* id, const char* what, Call&& call) {
  try {
    return call();
  } catch (const UserError&) {
    throw;
  } catch (const std::exception& e) {
    throw UserError(id, fmt::format("{}: {} threw a C++ exception across the C ABI: {}; a plugin "
                                    "must return a status instead (the SDK does this for you)",
                                    path.string(), what, e.what()));
  } catch (...) {
    throw UserError(id, fmt::format("{}: {} threw across the C ABI; a plugin must return a "
                                    "status instead (the SDK does this for you)",
                                    path.string(), what));
  }
}

bool reads_options_per_call(const nds_module& module) {
  return NDS_HAS_FIELD(&module, nds_module, flags) &&
         (module.flags & NDS_MODULE_OPTIONS_PER_CALL) != 0;
}

// The module's init, bounded by the watchdog: a library vetted in a child
// process may still behave otherwise in this one. An init given up on leaves
// its instance abandoned (no shutdown; the worker keeps it and its host alive).
std::shared_ptr<ModuleInstance> initialised(const nds_module& module, const fs::path& path,
                                            const std::string& id,
                                            std::shared_ptr<const PluginOptions> options,
                                            std::chrono::milliseconds timeout) {
  std::lock_guard lock(instances_mutex);
  if (auto alive = instances()[&module].lock()) {
    // One library is one module per process. One that reads its options per
    // call serves every run (get_option answers for the calling run); any
    // other is fixed to its options until the run that holds it lets go.
    if (alive->host->options_per_call()) return alive;
    const std::string differences = option_differences(alive->host->options(), *options);
    if (differences.empty()) return alive;
    throw UserError(
        "E-PLUGIN-OPTIONS",
        fmt::format("{}: plugin \"{}\" is in use by another run in this process that has other "
                    "plugin options: {}; this plugin reads its options once per initialisation "
                    "(its module does not set NDS_MODULE_OPTIONS_PER_CALL), so close the other "
                    "run (release its plugin registry) before starting this one, or give both "
                    "the same options",
                    path.string(), id, differences));
  }
  if (given_up_on(&module)) {
    throw UserError("E-PLUGIN-HANG",
                    fmt::format("{}: plugin \"{}\" hung in an earlier run of this process and "
                                "may still be running that call, so it is not initialised again; "
                                "start a new process, or leave this plugin out",
                                path.string(), id));
  }
  auto instance = std::make_shared<ModuleInstance>();
  instance->host =
      std::make_unique<ModuleHost>(id, std::move(options), reads_options_per_call(module));
  std::atomic<bool> hung{false};
  nds_status* status = nullptr;
  try {
    // The host, not the instance: an instance owned by the worker could be
    // shut down from there. A hung init's host is kept (~ModuleInstance).
    status = bounded_call<nds_status*>(BoundedTarget{path, id, timeout, hung}, "init",
                                       [host = instance->host->host(), &module, file = path] {
                                         return plugin_call(file, "E-PLUGIN-INIT", "init", [&] {
                                           return module.init(host, file.c_str());
                                         });
                                       });
  } catch (const UserError&) {
    if (hung) {
      instance->abandoned = true;
      never_initialise_again(&module);
    }
    throw;
  }
  StatusPtr failure(status);
  if (failure) {
    throw UserError("E-PLUGIN-INIT",
                    fmt::format("{}: plugin \"{}\" failed to initialise ({}): {}", path.string(),
                                id, status_code_name(failure->code), failure->message));
  }
  instance->module = &module;  // from here on its destructor shuts the module down
  instances()[&module] = instance;
  return instance;
}

}  // namespace

std::unique_ptr<LoadedPlugin> load_plugin(const fs::path& path,
                                          std::shared_ptr<const PluginOptions> options,
                                          const std::vector<std::string>& known_ids,
                                          const std::vector<std::string>& shipped_ids,
                                          std::chrono::milliseconds init_timeout) {
  std::error_code ec;
  fs::path absolute = fs::absolute(path, ec).lexically_normal();
  if (ec) absolute = path;
  const nds_module& module =
      checked_module(plugin_call(absolute, "E-PLUGIN-ENTRY", NDS_ENTRY_SYMBOL,
                                 [&] { return open_plugin_library(absolute); }),
                     absolute);
  const std::string id = module.id;
  if (std::find(known_ids.begin(), known_ids.end(), id) != known_ids.end()) {
    throw UserError("W-PLUGIN-DUPLICATE",
                    fmt::format("{}: a plugin with id \"{}\" was already loaded from earlier in "
                                "the search path; this one is ignored",
                                absolute.string(), id));
  }
  if (std::find(shipped_ids.begin(), shipped_ids.end(), id) != shipped_ids.end()) {
    throw UserError(
        "E-PLUGIN-SHADOW",
        fmt::format("{}: plugin id \"{}\" is the id of a plugin shipped with ndsearch; a "
                    "plugin from the search path may not replace it, so this one is not "
                    "loaded. Give it another id, or allow the override (`allow_override={}`) "
                    "to let it replace the shipped one",
                    absolute.string(), id, id));
  }
  auto plugin = std::make_unique<LoadedPlugin>();
  plugin->path = absolute;
  plugin->id = id;
  plugin->version = module.version == nullptr ? "" : module.version;
  if (NDS_HAS_FIELD(&module, nds_module, description) && module.description != nullptr)
    plugin->description = module.description;
  plugin->abi_major = module.abi_major;
  plugin->abi_minor = module.abi_minor;
  plugin->options_per_call = reads_options_per_call(module);
  plugin->options = options;
  plugin->module = &module;
  if (module.abi_minor > NDS_ABI_MINOR) {
    spdlog::info(
        "{}: built for ABI {}.{}, newer than this ndsearch's {}; the fields it added "
        "are ignored",
        absolute.string(), module.abi_major, module.abi_minor, NDS_ABI_VERSION_STRING);
  }
  plugin->instance = initialised(module, absolute, id, std::move(options), init_timeout);
  plugin->interfaces = plugin_call(absolute, "E-PLUGIN-INTERFACE", "get_interface",
                                   [&] { return query_interfaces(module, absolute.string()); });
  return plugin;
}

namespace {

fs::path shown_path(const fs::path& path) {
  std::error_code ec;
  fs::path shown = fs::absolute(path, ec).lexically_normal();
  return ec ? path : shown;
}

// Throws E-PLUGIN-UNSAFE when the library or its folder could have been
// written by someone other than root or the user.
void require_safe(const fs::path& library) {
  const fs::path absolute = shown_path(library);
  // The link and the file it resolves to, each with its folder: a link in a
  // safe folder to a library in a group-writable one is not safe.
  std::error_code ec;
  const fs::path resolved = fs::canonical(absolute, ec);
  std::vector<fs::path> parts{absolute.parent_path(), absolute};
  if (!ec && resolved != absolute) parts.insert(parts.end(), {resolved.parent_path(), resolved});
  for (const fs::path& part : parts) {
    if (std::string reason = unsafe_reason(part); !reason.empty())
      throw UserError("E-PLUGIN-UNSAFE",
                      fmt::format("{}: not loaded: {}", absolute.string(), reason));
  }
}

// Throws the vetting verdict's error when the library fails it.
void require_vetted(const fs::path& library, const PluginSearch& search) {
  if (!search.vetting.enabled) return;
  const VetVerdict verdict = vet_plugin(shown_path(library), *search.options, search.vetting);
  if (!verdict.notes.empty())
    spdlog::debug("{}: passed vetting with problems the host checks again: {}", library.string(),
                  verdict.notes);
  if (verdict.wrote_stdout)
    spdlog::debug("{}: writes on stdout; its output goes to stderr", library.string());
  if (!verdict.passed) {
    throw UserError(verdict.error_id.empty() ? "E-PLUGIN-CRASH" : verdict.error_id,
                    fmt::format("failed vetting, not loaded: {}", verdict.message));
  }
}

// One PluginRegistry::load under way: the registry's lists it fills, the
// shipped plugins it holds back until last, and the ids taken and reserved.
class Loading {
 public:
  Loading(const PluginSearch& search, std::vector<std::unique_ptr<LoadedPlugin>>& plugins,
          std::vector<SkippedPlugin>& skipped)
      : search_(search), plugins_(plugins), skipped_(skipped) {}

  // Shipped first: trusted, not vetted, and their ids are reserved.
  void load_shipped() {
    if (!search_.install_dir) return;
    for (const fs::path& file : libraries_in(*search_.install_dir)) {
      try {
        shipped_.push_back(load_plugin(file, search_.options, {}, {}, search_.call_timeout));
        shipped_.back()->origin = PluginOrigin::shipped;
        guard(*shipped_.back());
        shipped_ids_.push_back(shipped_.back()->id);
      } catch (const UserError& e) {
        skip(file, e);
      }
    }
  }

  // The shipped ids the search path's plugins may not take: all but those
  // --allow-override names.
  void reserve_shipped_ids(const PluginRegistry& registry) {
    for (const std::string& id : shipped_ids_)
      if (!registry.override_allowed(id)) reserved_.push_back(id);
  }

  // A library named or found on the search path, once it is safe and vetted;
  // one that fails is skipped, unless `fatal` and its error is not a warning.
  void try_load(const fs::path& path, PluginOrigin origin, bool fatal) {
    try {
      require_safe(path);  // also the folder a link resolves to, not only the scanned one
      require_vetted(path, search_);
      plugins_.push_back(load_plugin(path, search_.options, ids_, reserved_, search_.call_timeout));
      plugins_.back()->origin = origin;
      guard(*plugins_.back());
      ids_.push_back(plugins_.back()->id);
    } catch (const UserError& e) {
      if (fatal && e.id().rfind("W-", 0) != 0) throw;  // a warning never stops the run
      skip(path, e);
    }
  }

  // The --plugin-path directories: one that does not exist stops the run.
  void load_directories() {
    std::error_code ec;
    for (const fs::path& directory : search_.directories) {
      if (!fs::is_directory(directory, ec)) {
        throw UserError(
            "E-PLUGIN-PATH",
            fmt::format("the plugin directory (`plugin_dirs={}`): no such directory; give a "
                        "directory that holds plugin libraries (*.so)",
                        directory.string()));
      }
      load_folder(directory, PluginOrigin::directory);
    }
  }

  // The folders of NDS_PLUGIN_PATH: one that is not a directory is only a warning.
  void load_environment_path() {
    std::error_code ec;
    for (const fs::path& directory : split_path_list(search_.environment_path)) {
      if (directory.is_relative()) {
        spdlog::warn(
            "[W-PLUGIN-RELATIVE] NDS_PLUGIN_PATH names {}, a relative folder: which plugins "
            "load then depends on the folder ndsearch runs in; give an absolute path",
            directory.string());
      }
      if (!fs::is_directory(directory, ec)) {
        spdlog::warn("[W-PLUGIN-PATH] NDS_PLUGIN_PATH names {}, which is not a directory; ignored",
                     directory.string());
        continue;
      }
      load_folder(directory, PluginOrigin::environment);
    }
  }

  // The shipped plugins last (the search order), but for one --allow-override replaced.
  void add_shipped() {
    for (auto& plugin : shipped_) {
      if (std::find(ids_.begin(), ids_.end(), plugin->id) != ids_.end()) {
        skip(plugin->path,
             UserError(
                 "W-PLUGIN-DUPLICATE",
                 fmt::format("{}: the shipped plugin \"{}\" is replaced by a plugin of the same id "
                             "from the search path, as the override (`allow_override={}`) allows",
                             plugin->path.string(), plugin->id, plugin->id)));
        continue;
      }
      plugins_.push_back(std::move(plugin));
    }
  }

 private:
  // Records a library that is not loaded, with a warning.
  void skip(const fs::path& path, const UserError& e) {
    // Not the library's fault, and a run without it would price otherwise:
    // another run of this process holds it with other options.
    if (e.id() == "E-PLUGIN-OPTIONS") throw e;
    spdlog::warn("[{}] {}", e.id(), e.what());
    skipped_.push_back({shown_path(path), e.id(), e.what()});
  }

  // Puts the watchdog's copies of the plugin's blocking tables in front of it.
  void guard(LoadedPlugin& plugin) const {
    plugin.guard = std::make_unique<GuardedTables>(plugin.interfaces, plugin.id, plugin.path,
                                                   search_.call_timeout,
                                                   plugin.instance->serialized, plugin.options);
    plugin.interfaces = plugin.guard->interfaces();
  }

  // A folder others can write: none of its libraries is loaded.
  void load_folder(const fs::path& directory, PluginOrigin origin) {
    const std::string reason = unsafe_reason(shown_path(directory));
    for (const fs::path& file : libraries_in(directory)) {
      if (reason.empty()) {
        try_load(file, origin, /*fatal=*/false);
      } else {
        skip(file, UserError("E-PLUGIN-UNSAFE",
                             fmt::format("{}: not loaded: {}", shown_path(file).string(), reason)));
      }
    }
  }

  const PluginSearch& search_;
  std::vector<std::unique_ptr<LoadedPlugin>>& plugins_;
  std::vector<SkippedPlugin>& skipped_;
  std::vector<std::unique_ptr<LoadedPlugin>> shipped_;
  std::vector<std::string> ids_;          // of the plugins loaded from the search path
  std::vector<std::string> shipped_ids_;  // that those may not take
  std::vector<std::string> reserved_;     // shipped ids that --allow-override does not free
};

}  // namespace

bool PluginRegistry::override_allowed(std::string_view id) const {
  return std::find(allow_override_.begin(), allow_override_.end(), id) != allow_override_.end();
}

PluginRegistry PluginRegistry::load(const PluginSearch& search) {
  const RunScope run(search.options);  // init and get_interface work for this run
  PluginRegistry registry;
  registry.allow_override_ = search.allow_override;
  // Declared after the registry, so the shipped plugins it holds back (replaced,
  // or all of them on a throw) go first, while the run scope still holds.
  Loading loading(search, registry.plugins_, registry.skipped_);
  loading.load_shipped();
  loading.reserve_shipped_ids(registry);
  for (const fs::path& file : search.files)
    loading.try_load(file, PluginOrigin::named, /*fatal=*/true);
  loading.load_directories();
  loading.load_environment_path();
  loading.add_shipped();
  return registry;
}

PluginRegistry::~PluginRegistry() {
  // A plugin whose call was given up on is never shut down (its module may be
  // running that call still); the others are, last loaded first released.
  for (const auto& plugin : plugins_)
    if (plugin->guard != nullptr && plugin->guard->hung() && plugin->instance != nullptr)
      plugin->instance->abandoned = true;
  while (!plugins_.empty()) plugins_.pop_back();
}

std::optional<fs::path> default_plugin_dir() {
  std::error_code ec;
  const fs::path bindir = boost::dll::program_location(ec).parent_path();
  if (ec) return std::nullopt;
  for (const char* relative : {NDS_RELATIVE_PLUGIN_DIR, "../lib/ndsearch/plugins"}) {
    fs::path candidate = (bindir / relative).lexically_normal();
    if (fs::is_directory(candidate)) return candidate;
  }
  return std::nullopt;
}

}  // namespace ndsearch
