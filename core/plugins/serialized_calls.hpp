// SPDX-License-Identifier: Apache-2.0
// serialized_calls.hpp: the host's side of the ABI's [serialized] tag ("the
// host never runs two calls of this module's function at once"). A module is
// shared by every live run that holds it, each on its own thread, so the lock
// of each such function belongs to the module (ModuleInstance), not to a run.
// [hot] functions (evaluate, estimate_gemm) take none.
#pragma once

#include <mutex>

namespace ndsearch {

struct SerializedCalls {
  std::mutex probe, parse, get_devices;       // the watchdog's worker takes them (watchdog.cpp)
  std::mutex memory_compile, memory_release;  // nds.memory/1
  std::mutex cp_compile, cp_release;          // nds.cp_attention/1
};

}  // namespace ndsearch
