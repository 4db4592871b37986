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

}  // namespace

void configure_logging(int verbosity, LogRewrite rewrite) {
  spdlog::sink_ptr sink;
  if (rewrite)
    sink = std::make_shared<RewritingStderrSink>(std::move(rewrite));
  else
    sink = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  auto logger = std::make_shared<spdlog::logger>("ndsearch", std::move(sink));
  logger->set_pattern("%n: %l: %v");
  if (verbosity >= 3) logger->set_level(spdlog::level::debug);
  else if (verbosity == 2) logger->set_level(spdlog::level::warn);
  else logger->set_level(spdlog::level::err);
  spdlog::set_default_logger(logger);
}

}  // namespace ndsearch
