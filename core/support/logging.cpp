// SPDX-License-Identifier: Apache-2.0
#include "core/support/logging.hpp"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace ndsearch {

void configure_logging(int verbosity) {
  auto logger = std::make_shared<spdlog::logger>(
      "ndsearch", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_pattern("%n: %l: %v");
  if (verbosity >= 3) logger->set_level(spdlog::level::debug);
  else if (verbosity == 2) logger->set_level(spdlog::level::warn);
  else logger->set_level(spdlog::level::err);
  spdlog::set_default_logger(logger);
}

}  // namespace ndsearch
