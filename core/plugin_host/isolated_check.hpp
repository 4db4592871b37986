// SPDX-License-Identifier: Apache-2.0
// isolated_check.hpp: runs the conformance checks in a child process and
// reads its events, so that a plugin that crashes, aborts or hangs is reported
// instead of taking the caller down. The child is the calling program itself,
// started with arguments that make it call run_conformance_checks and print
// each event with write_check_event.
#pragma once

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/plugin_host/conformance.hpp"

namespace ndsearch {

// The child reports its events on this descriptor, apart from stdout and
// stderr: a plugin that prints cannot garble the events.
inline constexpr int kCheckEventFd = 3;

// One JSON object per line on `out`, flushed, so the parent sees every event
// the child reached before it died.
void write_check_event(std::FILE* out, const CheckEvent& event);

struct IsolatedCheckResult {
  enum class End { completed, crashed, timed_out };
  std::vector<CheckEvent> events;  // in order, as the child reported them
  End end = End::completed;
  std::string end_detail;    // "killed by signal 11 (Segmentation fault)", ...
  std::string child_stderr;  // what the child printed on stdout and stderr (last 8 KiB)
  std::string child_stdout;  // what it printed on stdout alone: a plugin must not
  bool passed = false;       // completed and no check failed

  // The check that was running when the child died, if any.
  std::string unfinished_check() const;
};

// Starts `program child_args...` in a process group of its own, collects its
// events until it exits or `timeout` passes (then kills the whole group). The
// child is always reaped, whatever happens. Throws UserError
// E-PLUGIN-CHECK-START if the child cannot be started.
IsolatedCheckResult run_checks_isolated(const std::filesystem::path& program,
                                        const std::vector<std::string>& child_args,
                                        std::chrono::milliseconds timeout);

// The error id and message of a run that did not pass (a crash, a hang, the
// first failed check), or two empty strings.
std::pair<std::string, std::string> check_failure(const IsolatedCheckResult& result);

}  // namespace ndsearch
