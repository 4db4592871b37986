// SPDX-License-Identifier: Apache-2.0
#include "core/plugin_host/watchdog.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <mutex>
#include <utility>

#include "core/plugin_host/bounded_call.hpp"
#include "core/support/status.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {

struct WatchedPlugin : std::enable_shared_from_this<WatchedPlugin> {
  std::string id;
  std::filesystem::path path;
  const nds_parser_v1* parser = nullptr;
  const nds_hardware_v1* hardware = nullptr;
  std::chrono::milliseconds timeout{};
  std::atomic<bool> hung{false};
  std::shared_ptr<SerializedCalls> serialized;       // the module's, outlives a hung call
  std::shared_ptr<const PluginOptions> run_options;  // of the run whose plugin this is
};

namespace {

constexpr size_t kSlots = 128;
std::array<std::atomic<WatchedPlugin*>, kSlots> slots{};

// Runs `body` on a worker thread and waits for it up to the plugin's limit.
template <class Result, class Body>
Result bounded(WatchedPlugin& plugin, const char* call, Body body) {
  return bounded_call<Result>(BoundedTarget{plugin.path, plugin.id, plugin.timeout, plugin.hung},
                              call, std::move(body));
}

// ---- The builder a guarded parse hands the plugin ---------------------------
// Forwards to the host's builder until the parse is abandoned; from then on
// every call is refused, so a late plugin never touches a builder that is gone.
struct BuilderProxy {
  const nds_builder_v1* real = nullptr;
  std::mutex mutex;
  bool abandoned = false;
  nds_builder_v1 table{};
};

template <class F, F nds_builder_v1::*Member>
struct Forward;
template <class... Args, nds_status* (*nds_builder_v1::*Member)(nds_model_builder*, Args...)>
struct Forward<nds_status* (*)(nds_model_builder*, Args...), Member> {
  static nds_status* call(nds_model_builder* self, Args... args) {
    auto* proxy = reinterpret_cast<BuilderProxy*>(self);
    std::lock_guard lock(proxy->mutex);
    if (proxy->abandoned)
      return make_status(NDS_FAILED_PRECONDITION,
                         "the host gave up on this parse (it took too long)");
    return (proxy->real->*Member)(proxy->real->builder, args...);
  }
};
#define NDS_FORWARD(field) &Forward<decltype(nds_builder_v1::field), &nds_builder_v1::field>::call

std::shared_ptr<BuilderProxy> builder_proxy(const nds_builder_v1* real) {
  auto proxy = std::make_shared<BuilderProxy>();
  proxy->real = real;
  proxy->table.struct_size = std::min(real->struct_size, sizeof(nds_builder_v1));
  proxy->table.builder = reinterpret_cast<nds_model_builder*>(proxy.get());
  proxy->table.begin_block = NDS_FORWARD(begin_block);
  proxy->table.end_block = NDS_FORWARD(end_block);
  proxy->table.begin_submodel = NDS_FORWARD(begin_submodel);
  proxy->table.end_submodel = NDS_FORWARD(end_submodel);
  proxy->table.set_int = NDS_FORWARD(set_int);
  proxy->table.set_real = NDS_FORWARD(set_real);
  proxy->table.set_string = NDS_FORWARD(set_string);
  proxy->table.set_int_list = NDS_FORWARD(set_int_list);
  proxy->table.set_unknown = NDS_FORWARD(set_unknown);
  proxy->table.unknown_field = NDS_FORWARD(unknown_field);
  return proxy;
}
#undef NDS_FORWARD

// ---- The guarded calls --------------------------------------------------------
std::shared_ptr<WatchedPlugin> watched(size_t slot) {
  WatchedPlugin* plugin = slots[slot].load();
  return plugin == nullptr ? nullptr : plugin->shared_from_this();
}

nds_status* released_slot() {
  return make_status(NDS_INTERNAL,
                     "ndsearch called a plugin after releasing it (a bug in ndsearch)");
}

nds_status* guarded_probe(size_t slot, const char* path, double* confidence) {
  auto plugin = watched(slot);
  if (plugin == nullptr) return released_slot();
  struct Probed {
    nds_status* status = nullptr;
    double confidence = 0;
  };
  Probed probed = bounded<Probed>(*plugin, "probe", [plugin, file = std::string(path)] {
    Probed p;
    const SerializedCall call(*plugin->serialized, &SerializedCalls::probe, plugin->run_options);
    p.status = plugin->parser->probe(file.c_str(), &p.confidence);
    return p;
  });
  *confidence = probed.confidence;
  return probed.status;
}

nds_status* guarded_parse(size_t slot, const char* path, const nds_builder_v1* builder) {
  auto plugin = watched(slot);
  if (plugin == nullptr) return released_slot();
  auto proxy = builder_proxy(builder);
  try {
    return bounded<nds_status*>(*plugin, "parse", [plugin, proxy, file = std::string(path)] {
      const SerializedCall call(*plugin->serialized, &SerializedCalls::parse, plugin->run_options);
      return plugin->parser->parse(file.c_str(), &proxy->table);
    });
  } catch (const UserError&) {
    std::lock_guard lock(proxy->mutex);
    proxy->abandoned = true;
    throw;
  }
}

nds_status* guarded_get_devices(size_t slot, const nds_device* const** devices, size_t* count) {
  auto plugin = watched(slot);
  if (plugin == nullptr) return released_slot();
  struct Listed {
    nds_status* status = nullptr;
    const nds_device* const* devices = nullptr;
    size_t count = 0;
  };
  Listed listed = bounded<Listed>(*plugin, "get_devices", [plugin] {
    Listed l;
    const SerializedCall call(*plugin->serialized, &SerializedCalls::get_devices,
                              plugin->run_options);
    l.status = plugin->hardware->get_devices(&l.devices, &l.count);
    return l;
  });
  *devices = listed.devices;
  *count = listed.count;
  return listed.status;
}

// One trampoline per slot: the C tables carry no context pointer.
template <size_t Slot>
nds_status* probe_slot(const char* path, double* confidence) {
  return guarded_probe(Slot, path, confidence);
}
template <size_t Slot>
nds_status* parse_slot(const char* path, const nds_builder_v1* builder) {
  return guarded_parse(Slot, path, builder);
}
template <size_t Slot>
nds_status* get_devices_slot(const nds_device* const** devices, size_t* count) {
  return guarded_get_devices(Slot, devices, count);
}

struct Trampolines {
  decltype(nds_parser_v1::probe) probe;
  decltype(nds_parser_v1::parse) parse;
  decltype(nds_hardware_v1::get_devices) get_devices;
};
template <size_t... Slot>
constexpr std::array<Trampolines, kSlots> make_trampolines(std::index_sequence<Slot...>) {
  return {Trampolines{&probe_slot<Slot>, &parse_slot<Slot>, &get_devices_slot<Slot>}...};
}
constexpr std::array<Trampolines, kSlots> trampolines =
    make_trampolines(std::make_index_sequence<kSlots>());

// A copy of a plugin's table, no longer than what this host knows.
template <class Table>
void copy_table(Table& into, const Table* from) {
  const size_t size = std::min(from->struct_size, sizeof(Table));
  std::memcpy(static_cast<void*>(&into), from, size);
  into.struct_size = size;
}

}  // namespace

GuardedTables::GuardedTables(const Interfaces& real, std::string plugin_id,
                             std::filesystem::path path, std::chrono::milliseconds timeout,
                             std::shared_ptr<SerializedCalls> serialized,
                             std::shared_ptr<const PluginOptions> run_options)
    : real_(real) {
  if (real.parser == nullptr && real.hardware == nullptr) return;
  watched_ = std::make_shared<WatchedPlugin>();
  watched_->id = std::move(plugin_id);
  watched_->path = std::move(path);
  watched_->parser = real.parser;
  watched_->hardware = real.hardware;
  watched_->timeout = timeout;
  watched_->serialized = std::move(serialized);
  watched_->run_options = std::move(run_options);
  for (size_t slot = 0; slot < kSlots; ++slot) {
    WatchedPlugin* expected = nullptr;
    if (slots[slot].compare_exchange_strong(expected, watched_.get())) {
      slot_ = static_cast<int>(slot);
      break;
    }
  }
  if (slot_ < 0) {
    spdlog::debug("{}: all {} watchdog slots are taken; its calls are not bounded",
                  watched_->path.string(), kSlots);
    return;
  }
  if (real.parser != nullptr) {
    copy_table(parser_, real.parser);
    parser_.probe = trampolines[slot_].probe;
    parser_.parse = trampolines[slot_].parse;
  }
  if (real.hardware != nullptr) {
    copy_table(hardware_, real.hardware);
    hardware_.get_devices = trampolines[slot_].get_devices;
  }
}

GuardedTables::~GuardedTables() {
  if (slot_ >= 0) slots[slot_].store(nullptr);
}

bool GuardedTables::hung() const noexcept {
  return watched_ != nullptr && watched_->hung;
}

Interfaces GuardedTables::interfaces() const {
  Interfaces guarded = real_;
  if (slot_ < 0) return guarded;
  if (real_.parser != nullptr) guarded.parser = &parser_;
  if (real_.hardware != nullptr) guarded.hardware = &hardware_;
  return guarded;
}

}  // namespace ndsearch
