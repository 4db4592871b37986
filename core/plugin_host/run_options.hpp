// SPDX-License-Identifier: Apache-2.0
// run_options.hpp: the run the core works for on this thread. A module shared
// by live runs with different plugin options (NDS_MODULE_OPTIONS_PER_CALL)
// reads, through nds_host.get_option, the options of the run on whose behalf
// the core calls it (module_host.cpp). Each [serialized] call through a run's
// LoadedPlugin opens a RunScope of that run (SerializedCall, the guarded
// tables); a run's work opens one too (every Planner call, a registry's load,
// for init, get_interface and any call not made through those), and a thread
// the core starts for that work carries it (in_this_run). Outside any scope a
// module reads the options it was initialised with.
#pragma once

#include <memory>
#include <utility>

#include "core/plugin_host/module_host.hpp"  // PluginOptions

namespace ndsearch {

// The options of the run this thread works for; nullptr outside any RunScope.
// Valid while that scope is open.
const PluginOptions* current_run_options() noexcept;

// The same, shared: what a thread started for the run carries (in_this_run).
std::shared_ptr<const PluginOptions> current_run() noexcept;

// This thread works for the run of `options` until the scope closes; then for
// the run it worked for before (scopes nest). A null `options` leaves the
// thread outside any run.
class RunScope {
 public:
  explicit RunScope(std::shared_ptr<const PluginOptions> options) noexcept;
  ~RunScope();
  RunScope(const RunScope&) = delete;
  RunScope& operator=(const RunScope&) = delete;

 private:
  std::shared_ptr<const PluginOptions> previous_;
};

// `body`, to run on a thread the core starts, inside the run of the thread
// that wraps it: the wrapper shares the run's options, so they outlive a
// thread left behind in a hung plugin call.
template <class Body>
auto in_this_run(Body body) {
  return [run = current_run(), body = std::move(body)](auto&&... args) mutable {
    RunScope scope(run);
    return body(std::forward<decltype(args)>(args)...);
  };
}

}  // namespace ndsearch
