// SPDX-License-Identifier: Apache-2.0
// module_host.hpp: the nds_host one module receives at init: its log lines go
// to the spdlog logger `plugin.<id>`, its options come from the command line.
#pragma once

#include <ndsearch/nds_abi.h>

#include <functional>  // std::less<> for heterogeneous lookup
#include <map>
#include <memory>  // std::shared_ptr
#include <string>

namespace spdlog {
class logger;
}

namespace ndsearch {

// Plugin options by key ("device-file" -> "/path/x.toml"), fixed before any init.
using PluginOptions = std::map<std::string, std::string, std::less<>>;

// The keys whose values differ between two option sets, in key order, each with
// both values: `device-file ("/a.toml" there, "/b.toml" here)`, `swap-optimizer
// (unset there, "1" here)`; empty when the sets are equal.
std::string option_differences(const PluginOptions& there, const PluginOptions& here);

class ModuleHost {
 public:
  // `options`: those of the run that initialises the module. A module that
  // reads its options per call (NDS_MODULE_OPTIONS_PER_CALL) gets, from
  // get_option, those of the run the calling thread works for (run_options.hpp).
  ModuleHost(const std::string& module_id, std::shared_ptr<const PluginOptions> options,
             bool options_per_call = false);
  ModuleHost(const ModuleHost&) = delete;  // nds_host.context points to this object
  ModuleHost& operator=(const ModuleHost&) = delete;

  const nds_host* host() const noexcept { return &host_; }
  // The options of the run that initialised the module, fixed until its shutdown.
  const PluginOptions& options() const noexcept { return *options_; }
  bool options_per_call() const noexcept { return options_per_call_; }

 private:
  static void log(void* context, nds_log_level level, const char* message, size_t size);
  static nds_log_level log_threshold(void* context);
  static nds_str get_option(void* context, const char* key);

  std::shared_ptr<spdlog::logger> logger_;
  std::shared_ptr<const PluginOptions> options_;
  bool options_per_call_;
  nds_host host_;
};

}  // namespace ndsearch
