// SPDX-License-Identifier: Apache-2.0
// watchdog.hpp: bounds the plugin calls that may block (a parser's probe and
// parse, a hardware plugin's get_devices) to a time limit (bounded_call.hpp).
//
// Design: the call runs on a worker thread while the caller waits up to the
// limit. A call that has not returned by then is abandoned: the caller gets
// UserError E-PLUGIN-HANG naming the plugin and goes on (the CLI prints the
// error and exits 2); the worker thread is left blocked in the plugin, which
// is marked hung so no later call enters it again. The trade-off: the process
// is not killed (a library host survives), but a hung plugin keeps its thread
// and whatever it holds until the process ends, and everything it was given
// must stay valid: the worker owns copies of the arguments, and a parser's
// builder is reached through a proxy that refuses calls once abandoned.
// The C tables have no context pointer, so each guarded plugin takes one of
// a fixed number of trampoline slots; plugins past them are called unguarded.
// A module's init is bounded the same way (registry.cpp). Not bounded in the
// host: compile, evaluate and release. Evaluate is the hot path (a thread
// per call would cost more than the call), and compile reads the model view
// and device table in place, which an abandoned call would outlive; vetting
// runs a sample compile and evaluate of each kind in a child process under
// the same limit, so a plugin that always hangs there never loads.
#pragma once

#include <ndsearch/nds.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "core/plugin_host/interfaces.hpp"
#include "core/plugin_host/serialized_calls.hpp"

namespace ndsearch {

struct WatchedPlugin;  // watchdog.cpp: the plugin behind one trampoline slot

inline constexpr std::chrono::milliseconds kDefaultPluginCallTimeout{10'000};

// The guarded copies of one plugin's parser and hardware tables; they hold a
// trampoline slot until destroyed. Each guarded call is made, on the worker
// thread, for the run of `run_options` and under its lock of `serialized`
// (the module's, shared by every run that holds it), so a call another run's
// thread is making is waited for within the limit, and one left hung keeps
// later ones out.
class GuardedTables {
 public:
  GuardedTables(const Interfaces& real, std::string plugin_id, std::filesystem::path path,
                std::chrono::milliseconds timeout, std::shared_ptr<SerializedCalls> serialized,
                std::shared_ptr<const PluginOptions> run_options);
  GuardedTables(const GuardedTables&) = delete;
  GuardedTables& operator=(const GuardedTables&) = delete;
  ~GuardedTables();

  // `real` with parser and hardware replaced by the guarded copies (the
  // others are not blocking calls: compile/evaluate are the hot path).
  Interfaces interfaces() const;
  bool guarded() const noexcept { return slot_ >= 0; }
  // A call into the plugin was given up on and may still be running.
  bool hung() const noexcept;

 private:
  Interfaces real_;
  nds_parser_v1 parser_{};
  nds_hardware_v1 hardware_{};
  std::shared_ptr<WatchedPlugin> watched_;
  int slot_ = -1;
};

}  // namespace ndsearch
