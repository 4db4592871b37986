// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/progress_line.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace ndsearch::cli {
namespace {

// A search shorter than this shows no line (NDS_PROGRESS_AFTER_MS changes
// it: the tests' searches are shorter than a second on a fast machine); the
// line is rewritten every kEvery.
constexpr std::chrono::milliseconds kQuietFor{1000};
constexpr std::chrono::milliseconds kEvery{250};

std::chrono::milliseconds quiet_for() {
  const char* given = std::getenv("NDS_PROGRESS_AFTER_MS");
  if (given == nullptr) return kQuietFor;
  char* end = nullptr;
  const long ms = std::strtol(given, &end, 10);
  return end != given && *end == '\0' && ms >= 0 ? std::chrono::milliseconds(ms) : kQuietFor;
}

std::string count_text(double n) {
  if (n >= 1e9) return fmt::format("{:.2f} G", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.2f} M", n / 1e6);
  if (n >= 1e3) return fmt::format("{:.1f} k", n / 1e3);
  return fmt::format("{:.0f}", n);
}

void write_stderr(const std::string& text) {
  std::fwrite(text.data(), 1, text.size(), stderr);
  std::fflush(stderr);
}

}  // namespace

std::string progress_text(uint64_t tested, size_t units_done, size_t units_total,
                          double elapsed_s) {
  const double rate = elapsed_s > 0 ? static_cast<double>(tested) / elapsed_s : 0;
  std::string text = fmt::format("searching: {} candidates tested, {}/s",
                                 count_text(static_cast<double>(tested)), count_text(rate));
  // The share of the (tp, pp, cp) triples priced: they differ in size, so the
  // time left is a guess, said as one.
  const double left_s =
      units_done > 0 ? elapsed_s * static_cast<double>(units_total - units_done) / units_done : 0;
  if (units_total > 0 && units_done > 0)
    text += fmt::format(", {:.0f} % of the space, about {:.{}f} s left",
                        100.0 * units_done / units_total, left_s, left_s < 10 ? 1 : 0);
  return text;
}

ProgressLine::ProgressLine(const SearchProgress& progress, bool enabled) : progress_(progress) {
  if (enabled && isatty(STDERR_FILENO) != 0) thread_ = std::thread([this] { run(); });
}

ProgressLine::~ProgressLine() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  stop_signal_.notify_all();
  thread_.join();
}

void ProgressLine::run() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  if (stop_signal_.wait_for(lock, quiet_for(), [this] { return stop_; })) return;
  do {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // "\r" back to the line's start, "\x1b[K" erases what a longer line left.
    write_stderr(fmt::format("\r{}\x1b[K", progress_text(progress_.tested, progress_.units_done,
                                                         progress_.units_total, elapsed)));
  } while (!stop_signal_.wait_for(lock, kEvery, [this] { return stop_; }));
  write_stderr("\r\x1b[K");
}

}  // namespace ndsearch::cli
