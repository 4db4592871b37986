// SPDX-License-Identifier: Apache-2.0
// main.cpp: `ndsearch-plugin-vet`, the helper every host runs to vet a plugin
// library in a child process before loading it (core/plugin_host/vetting.hpp) and
// that `ndsearch plugins check` runs: it loads the plugin, runs the
// conformance checks and writes each event as one JSON line on descriptor 3
// (stdout when 3 is not open). Exit 0 when every check passed, 2 otherwise;
// a plugin that crashes or hangs takes only this process down.
//
//   ndsearch-plugin-vet [--option KEY=VALUE]... [--sample-config FILE] [--] PLUGIN
#include <fcntl.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include "core/plugin_host/conformance.hpp"
#include "core/plugin_host/isolated_check.hpp"
#include "core/support/logging.hpp"
#include "core/support/user_error.hpp"

int main(int argc, char** argv) {
  using namespace ndsearch;
  auto options = std::make_shared<PluginOptions>();
  std::optional<std::filesystem::path> sample_config;
  std::string plugin;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--option" && i + 1 < argc) {
      const std::string pair = argv[++i];
      const size_t equals = pair.find('=');
      if (equals == std::string::npos) {
        std::fprintf(stderr, "ndsearch-plugin-vet: --option %s: expected KEY=VALUE\n",
                     pair.c_str());
        return kExitUsage;
      }
      (*options)[pair.substr(0, equals)] = pair.substr(equals + 1);
    } else if (arg == "--sample-config" && i + 1 < argc) {
      sample_config = argv[++i];
    } else if (arg == "--" && i + 1 < argc) {
      plugin = argv[++i];
    } else if (plugin.empty() && arg.rfind("--", 0) != 0) {
      plugin = arg;
    } else {
      std::fprintf(stderr,
                   "usage: ndsearch-plugin-vet [--option KEY=VALUE]... [--sample-config FILE] [--] "
                   "PLUGIN\n");
      return kExitUsage;
    }
  }
  if (plugin.empty()) {
    std::fprintf(stderr, "ndsearch-plugin-vet: no plugin library given\n");
    return kExitUsage;
  }
  configure_logging(2);  // the plugin's warnings go to stderr, which the parent keeps
  std::FILE* events = fcntl(kCheckEventFd, F_GETFD) >= 0 ? fdopen(kCheckEventFd, "w") : nullptr;
  if (events == nullptr) events = stdout;
  const bool passed = run_conformance_checks(
      plugin, options, [events](const CheckEvent& e) { write_check_event(events, e); },
      sample_config);
  return passed ? kExitOk : kExitUsage;
}
