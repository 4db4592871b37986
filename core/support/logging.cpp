// SPDX-License-Identifier: Apache-2.0
#include "core/support/logging.hpp"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

#include <cstdio>
#include <mutex>

namespace ndsearch {
namespace {

// stderr, each line rewritten first (spdlog 1.10 has no callback sink).
class RewritingStderrSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit RewritingStderrSink(LogRewrite rewrite) : rewrite_(std::move(rewrite)) {}

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    spdlog::memory_buf_t formatted;
    formatter_->format(msg, formatted);
    const std::string line = rewrite_(std::string_view(formatted.data(), formatted.size()));
    std::fwrite(line.data(), 1, line.size(), stderr);
  }
  void flush_() override { std::fflush(stderr); }

 private:
  LogRewrite rewrite_;
};

// Passes the first `shown` warnings on and counts the others: the default
// verbosity says a few and how many it kept back, not a screenful.
class FirstWarningsSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  FirstWarningsSink(spdlog::sink_ptr inner, size_t shown)
      : inner_(std::move(inner)), shown_(shown) {}
  size_t held_back() {
    std::lock_guard<std::mutex> lock(mutex_);
    return held_back_;
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (msg.level == spdlog::level::warn && passed_ == shown_) {
      ++held_back_;
      return;
    }
    if (msg.level == spdlog::level::warn) ++passed_;
    inner_->log(msg);
  }
  void flush_() override { inner_->flush(); }
  void set_pattern_(const std::string& pattern) override { inner_->set_pattern(pattern); }
  void set_formatter_(std::unique_ptr<spdlog::formatter> formatter) override {
    inner_->set_formatter(std::move(formatter));
  }

 private:
  spdlog::sink_ptr inner_;
  size_t shown_;
  size_t passed_ = 0;
  size_t held_back_ = 0;
};

std::shared_ptr<FirstWarningsSink>& first_warnings() {
  static std::shared_ptr<FirstWarningsSink> sink;
  return sink;
}

}  // namespace

size_t warnings_held_back() {
  return first_warnings() ? first_warnings()->held_back() : 0;
}

void configure_logging(int verbosity, LogRewrite rewrite) {
  spdlog::sink_ptr sink;
  if (rewrite)
    sink = std::make_shared<RewritingStderrSink>(std::move(rewrite));
  else
    sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  first_warnings().reset();
  if (verbosity == 1) {
    first_warnings() = std::make_shared<FirstWarningsSink>(sink, kWarningsShown);
    sink = first_warnings();
  }
  auto logger = std::make_shared<spdlog::logger>("ndsearch", std::move(sink));
  logger->set_pattern("%n: %l: %v");
  if (verbosity >= 3)
    logger->set_level(spdlog::level::debug);
  else if (verbosity >= 1)
    logger->set_level(spdlog::level::warn);
  else
    logger->set_level(spdlog::level::err);
  spdlog::set_default_logger(logger);
}

}  // namespace ndsearch
