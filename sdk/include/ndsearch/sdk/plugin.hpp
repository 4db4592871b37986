// SPDX-License-Identifier: Apache-2.0
// plugin.hpp: the base of every SDK plugin: the module entry, the host's
// services (log, options, statuses) and the guard that keeps exceptions from
// crossing the C ABI. One plugin object per library and initialisation.
#ifndef NDSEARCH_SDK_PLUGIN_HPP_INCLUDED
#define NDSEARCH_SDK_PLUGIN_HPP_INCLUDED

#include <ndsearch/nds_abi.h>

#include <cstring>    // std::strcmp
#include <exception>  // std::exception
#include <optional>   // option()
#include <stdexcept>  // std::runtime_error
#include <string>     // messages, ids
#include <string_view>
#include <utility>  // std::pair
#include <vector>   // the offered interfaces

namespace ndsearch::sdk {

// Throw it to fail with a code other than NDS_INTERNAL; the message should name
// the file, field, bad value and fix.
class Error : public std::runtime_error {
 public:
  Error(nds_status_code code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  nds_status_code code() const noexcept { return code_; }

 private:
  nds_status_code code_;
};

// A status the host handed us (from a builder call): carried as an exception
// through the plugin's code and returned onward by the SDK's trampoline. Code
// that catches it and goes on must not drop it: its destructor releases it.
class HostStatus : public std::exception {
 public:
  explicit HostStatus(nds_status* status) noexcept;  // defined after Host
  HostStatus(HostStatus&& other) noexcept
      : status_(other.status_), message_(std::move(other.message_)) {
    other.status_ = nullptr;
  }
  HostStatus(const HostStatus&) = delete;
  HostStatus& operator=(const HostStatus&) = delete;
  HostStatus& operator=(HostStatus&&) = delete;
  ~HostStatus() override;
  // Hands the status over (to return it to the host); it is no longer released here.
  nds_status* release() noexcept {
    nds_status* s = status_;
    status_ = nullptr;
    return s;
  }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  nds_status* status_;
  std::string message_;
};

// The host of this library's module; valid between init and shutdown.
class Host {
 public:
  void attach(const nds_host* host) noexcept { host_ = host; }
  const nds_host* raw() const noexcept { return host_; }

  bool should_log(nds_log_level level) const noexcept {
    return host_ != nullptr && level >= host_->log_threshold(host_->context);
  }
  void log(nds_log_level level, std::string_view message) const noexcept {
    if (should_log(level)) host_->log(host_->context, level, message.data(), message.size());
  }
  // The value of a plugin option (e.g. "device-file"), if the user gave one:
  // that of the run the host makes the current call for. Read it in the call
  // that uses it (describe, compile); it may differ at the next call.
  std::optional<std::string> option(const char* key) const {
    if (host_ == nullptr) return std::nullopt;
    nds_str value = host_->get_option(host_->context, key);
    std::optional<std::string> read;
    if (value.data != nullptr) read.emplace(value.data, value.size);
    if (OptionsRead* record = recording()) record->emplace_back(key, read);
    return read;
  }

  // The options a piece of work read, each key with the value it saw (unset:
  // nullopt), in the order read: what HardwarePlugin keys a description by.
  using OptionsRead = std::vector<std::pair<std::string, std::optional<std::string>>>;
  // While alive, every option() this thread reads is appended to `into`.
  class Recording {
   public:
    explicit Recording(OptionsRead& into) noexcept : previous_(recording()) { recording() = &into; }
    ~Recording() { recording() = previous_; }
    Recording(const Recording&) = delete;
    Recording& operator=(const Recording&) = delete;

   private:
    OptionsRead* previous_;
  };
  // Whether each option `read` names still has the value it had then.
  bool still_reads(const OptionsRead& read) const {
    for (const auto& [key, value] : read)
      if (option(key.c_str()) != value) return false;
    return true;
  }
  nds_status* make_status(nds_status_code code, std::string_view message) const noexcept {
    if (host_ == nullptr) return nullptr;
    return host_->make_status(host_->context, code, message.data(), message.size());
  }
  void release_status(nds_status* status) const noexcept {
    if (host_ != nullptr) host_->release_status(host_->context, status);
  }

 private:
  // Per thread: another interface of the module may be called meanwhile
  // ([serialized] holds per function) and its reads are not this work's.
  static OptionsRead*& recording() noexcept {
    static thread_local OptionsRead* record = nullptr;
    return record;
  }
  const nds_host* host_ = nullptr;
};

// The host of this library's module. (A function-local static: built with
// nds_add_plugin's hidden visibility it is the library's own; exported, GCC
// would share it between plugins as a "unique" symbol.)
inline Host& host() noexcept {
  static Host the_host;
  return the_host;
}

inline HostStatus::HostStatus(nds_status* status) noexcept : status_(status) {
  try {
    const nds_host* h = host().raw();
    if (h != nullptr) {
      nds_str text = h->status_message(h->context, status);
      message_.assign(text.data, text.size);
    }
  } catch (...) {
    // an empty message; the status itself still travels
  }
}
inline HostStatus::~HostStatus() {
  host().release_status(status_);
}

// Runs `body` and turns whatever it throws into a status for the C caller.
// (Only between init and shutdown, when the host is attached: the host never
// calls a module outside them.)
template <class Body>
nds_status* guard(Body&& body) noexcept {
  try {
    body();
    return nullptr;
  } catch (HostStatus& passed_on) {
    return passed_on.release();
  } catch (const Error& e) {
    return host().make_status(e.code(), e.what());
  } catch (const std::exception& e) {
    return host().make_status(NDS_INTERNAL, std::string("plugin threw: ") + e.what());
  } catch (...) {
    return host().make_status(NDS_INTERNAL, "plugin threw a non-standard exception");
  }
}

// Base of a plugin object. Kind bases (HardwarePlugin, MemoryPassPlugin, ...)
// derive from it virtually and offer their interface tables in their
// constructors; the plugin class derives from one or more kind bases. The SDK
// constructs the object at each init and destroys it after shutdown.
//
// Options: an SDK module tells the host it reads them per call
// (NDS_MODULE_OPTIONS_PER_CALL), so one initialisation may serve live runs
// with different options. Read them in the call that uses them (describe,
// compile) and keep what you derive in what that call returns (the compiled
// object; HardwarePlugin keeps one description per set of values read),
// never in members or statics. A plugin that reads options in its
// constructor or init() must say so: `static constexpr uint64_t module_flags
// = 0;` in its class, and the host then gives it one set of options per
// initialisation.
class Plugin {
 public:
  static constexpr uint64_t module_flags = NDS_MODULE_OPTIONS_PER_CALL;

  virtual ~Plugin() = default;
  // After the host is attached; throw to fail init (the message is shown).
  virtual void init() {}
  virtual void shutdown() noexcept {}

  const void* interface(const char* interface_id) const noexcept {
    for (const auto& [id, table] : interfaces_)
      if (std::strcmp(id, interface_id) == 0) return table;
    return nullptr;
  }

 protected:
  Plugin() = default;
  void offer(const char* interface_id, const void* table) {
    interfaces_.emplace_back(interface_id, table);
  }

 private:
  std::vector<std::pair<const char*, const void*>> interfaces_;
};

namespace detail {
// The library's one plugin object, alive from init to shutdown only: a module
// initialised again in the same process (a later run) gets a fresh object, so
// nothing it or its kind bases kept (devices described, options read) carries
// over from the previous run. (Storage is a function-local static, see host().)
template <class PluginClass>
std::optional<PluginClass>& plugin_slot() noexcept {
  static std::optional<PluginClass> slot;
  return slot;
}

template <class PluginClass>
nds_status* module_init(const nds_host* h, const char* /*module_path*/) noexcept {
  host().attach(h);
  std::optional<PluginClass>& slot = plugin_slot<PluginClass>();
  nds_status* failure = guard([&] {
    // An object left by an init without its shutdown (the host abandoned a
    // call into it) may still be in use: kept, never destroyed under it.
    if (!slot) slot.emplace();
    slot->init();
  });
  // A failed init gets no shutdown: what it built goes now.
  if (failure != nullptr) slot.reset();
  return failure;
}

template <class PluginClass>
void module_shutdown() noexcept {
  std::optional<PluginClass>& slot = plugin_slot<PluginClass>();
  if (slot) {
    slot->shutdown();
    slot.reset();
  }
  host().attach(nullptr);
}

template <class PluginClass>
const void* module_get_interface(const char* interface_id) noexcept {
  const std::optional<PluginClass>& slot = plugin_slot<PluginClass>();
  return slot ? slot->interface(interface_id) : nullptr;  // none outside init..shutdown
}
}  // namespace detail

}  // namespace ndsearch::sdk

// Defines the library's entry point for `PluginClass` (default-constructible,
// derived from sdk::Plugin through its kind bases). Use once per library.
#define NDS_SDK_MODULE(PluginClass, id_literal, version_literal, description_literal) \
  extern "C" NDS_EXPORT const nds_module* nds_get_module(void) {                      \
    static const nds_module module = {                                                \
        sizeof(nds_module),                                                           \
        NDS_ABI_MAJOR,                                                                \
        NDS_ABI_MINOR,                                                                \
        id_literal,                                                                   \
        version_literal,                                                              \
        &::ndsearch::sdk::detail::module_init<PluginClass>,                           \
        &::ndsearch::sdk::detail::module_shutdown<PluginClass>,                       \
        &::ndsearch::sdk::detail::module_get_interface<PluginClass>,                  \
        description_literal,                                                          \
        PluginClass::module_flags,                                                    \
    };                                                                                \
    return &module;                                                                   \
  }

#endif  // NDSEARCH_SDK_PLUGIN_HPP_INCLUDED
