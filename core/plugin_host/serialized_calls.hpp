// SPDX-License-Identifier: Apache-2.0
// serialized_calls.hpp: the host's side of the ABI's [serialized] tag ("the
// host never runs two calls of this module's function at once"). A module is
// shared by every live run that holds it, each on its own thread, so the lock
// of each such function belongs to the module (ModuleInstance), not to a run.
// [hot] functions (evaluate, estimate_gemm) take none.
#pragma once

#include <memory>
#include <mutex>
#include <utility>

#include "core/plugin_host/run_options.hpp"

namespace ndsearch {

struct SerializedCalls {
  std::mutex probe, parse, get_devices;       // the watchdog's worker takes them (watchdog.cpp)
  std::mutex memory_compile, memory_release;  // nds.memory/1
  std::mutex cp_compile, cp_release;          // nds.cp_attention/1
  std::mutex recompute_compile, recompute_release;  // nds.recompute/1
};

// One call of a [serialized] function, made for one run: holds the module's
// lock of that function, and works for the run (a module that reads options
// per call reads that run's) until the call returns.
class SerializedCall {
 public:
  SerializedCall(SerializedCalls& calls, std::mutex SerializedCalls::*call,
                 std::shared_ptr<const PluginOptions> run)
      : lock_(calls.*call), run_(std::move(run)) {}
  SerializedCall(const SerializedCall&) = delete;
  SerializedCall& operator=(const SerializedCall&) = delete;

 private:
  std::lock_guard<std::mutex> lock_;
  RunScope run_;
};

}  // namespace ndsearch
