// SPDX-License-Identifier: Apache-2.0
#include "core/plugin_host/run_options.hpp"

namespace ndsearch {
namespace {

// Per thread, never shared: a run's work on one thread cannot change which
// run another thread works for.
std::shared_ptr<const PluginOptions>& this_threads_run() noexcept {
  thread_local std::shared_ptr<const PluginOptions> run;
  return run;
}

}  // namespace

const PluginOptions* current_run_options() noexcept {
  return this_threads_run().get();
}

std::shared_ptr<const PluginOptions> current_run() noexcept {
  return this_threads_run();
}

RunScope::RunScope(std::shared_ptr<const PluginOptions> options) noexcept
    : previous_(std::exchange(this_threads_run(), std::move(options))) {}

RunScope::~RunScope() {
  this_threads_run() = std::move(previous_);
}

}  // namespace ndsearch
