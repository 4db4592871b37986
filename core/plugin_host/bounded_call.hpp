// SPDX-License-Identifier: Apache-2.0
// bounded_call.hpp: runs one call into a plugin on a worker thread and waits
// for it up to a time limit (the watchdog of watchdog.hpp, and a module's init).
// A call that has not returned by then is abandoned: the caller gets UserError
// E-PLUGIN-HANG and goes on; the worker stays blocked in the plugin, so the
// body must own (or share) everything it touches.
#pragma once

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "core/plugin_host/run_options.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {

// Who is called, for the messages, and the flag that marks it hung.
struct BoundedTarget {
  const std::filesystem::path& path;
  const std::string& id;
  std::chrono::milliseconds timeout;
  std::atomic<bool>& hung;  // set when a call is given up on; then no call enters again
};

inline std::string seconds_text(std::chrono::milliseconds limit) {
  return fmt::format("{:g} s", static_cast<double>(limit.count()) / 1000.0);
}

template <class Result, class Body>
Result bounded_call(const BoundedTarget& target, const char* call, Body body) {
  if (target.hung) {
    throw UserError(
        "E-PLUGIN-HANG",
        fmt::format("{}: plugin \"{}\" is not called again ({}): an earlier call into it "
                    "did not return",
                    target.path.string(), target.id, call));
  }
  struct State {
    std::mutex mutex;
    std::condition_variable done_signal;
    bool done = false;
    Result result{};
    std::exception_ptr error;
  };
  auto state = std::make_shared<State>();
  std::thread worker;
  try {
    // The worker works for the caller's run (a shared module reads its options).
    worker = std::thread([state, body = in_this_run(body)]() mutable {
      Result result{};
      std::exception_ptr error;
      try {
        // What the body holds is released before the caller is woken: a
        // worker given up on outlives the call, and a capture dropped late
        // on it would run its destructor after the statics are gone.
        auto call = std::move(body);
        result = call();
      } catch (...) {
        error = std::current_exception();
      }
      std::lock_guard lock(state->mutex);
      state->result = std::move(result);
      state->error = error;
      state->done = true;
      state->done_signal.notify_all();
    });
  } catch (const std::system_error& e) {  // no thread to spare: call it directly
    spdlog::debug("{}: no watchdog thread for {} ({}); calling it unbounded", target.path.string(),
                  call, e.what());
    return body();
  }
  std::unique_lock lock(state->mutex);
  const bool returned =
      state->done_signal.wait_for(lock, target.timeout, [&] { return state->done; });
  lock.unlock();
  if (!returned) {
    // Only a worker stuck in the plugin is left running. One that returned is
    // joined: a detached thread still exiting when the process ends races
    // the exit (LeakSanitizer's check at exit crashed on one).
    worker.detach();
    target.hung = true;
    throw UserError(
        "E-PLUGIN-HANG",
        fmt::format("{}: plugin \"{}\" did not return from {} within {} and was given "
                    "up on; remove it from the plugin search path, or raise the plugin "
                    "time limit (`plugin_timeout_s`) if it is only slow",
                    target.path.string(), target.id, call, seconds_text(target.timeout)));
  }
  worker.join();
  if (state->error) std::rethrow_exception(state->error);
  return std::move(state->result);
}

}  // namespace ndsearch
