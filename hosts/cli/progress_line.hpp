// SPDX-License-Identifier: Apache-2.0
// progress_line.hpp: one line on stderr that says how far a long search is
// (candidates tested, the rate, the share of the space done and the time
// left), rewritten in place, and erased when the search ends. Only on a
// terminal, and only once the search has run a second: a short search or a
// redirected stderr shows nothing.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include <ndsearch/core/search_progress.hpp>

namespace ndsearch::cli {

// The line after `elapsed_s` seconds: "searching: 1.20 M candidates tested,
// 1.10 M/s, 45 % of the space, about 2 s left".
std::string progress_text(uint64_t tested, size_t units_done, size_t units_total, double elapsed_s);

class ProgressLine {
 public:
  // Shows `progress` while this lives, when `enabled` and stderr is a terminal.
  ProgressLine(const SearchProgress& progress, bool enabled);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

 private:
  void run();

  const SearchProgress& progress_;
  std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ndsearch::cli
