// SPDX-License-Identifier: Apache-2.0
#include "core/plugin_host/module_host.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <set>
#include <string_view>

#include "core/plugin_host/run_options.hpp"
#include "core/support/status.hpp"

namespace ndsearch {
namespace {

ModuleHost& self(void* context) {
  return *static_cast<ModuleHost*>(context);
}

// spdlog's levels are the ABI's values (nds_abi.h); clamp anything else.
spdlog::level::level_enum to_spdlog(nds_log_level level) {
  if (level <= NDS_LOG_TRACE) return spdlog::level::trace;
  if (level >= NDS_LOG_OFF) return spdlog::level::off;
  return static_cast<spdlog::level::level_enum>(level);
}

nds_status* host_make_status(void*, nds_status_code code, const char* message, size_t size) {
  return make_status(code,
                     message == nullptr ? std::string_view{} : std::string_view(message, size));
}
void host_release_status(void*, nds_status* status) {
  release_status(status);
}
nds_status_code host_status_code(void*, const nds_status* status) {
  return status == nullptr ? NDS_OK : status->code;
}
nds_str host_status_message(void*, const nds_status* status) {
  if (status == nullptr) return {"", 0};
  return {status->message.c_str(), status->message.size()};
}
const void* host_get_service(void*, const char*) {
  return nullptr;
}  // none in ABI 1.0

std::string shown_value(const PluginOptions& options, const std::string& key) {
  auto it = options.find(key);
  return it == options.end() ? "unset" : fmt::format("\"{}\"", it->second);
}

}  // namespace

std::string option_differences(const PluginOptions& there, const PluginOptions& here) {
  std::set<std::string> keys;
  for (const auto& [key, value] : there) keys.insert(key);
  for (const auto& [key, value] : here) keys.insert(key);
  std::string differences;
  for (const std::string& key : keys) {
    const std::string before = shown_value(there, key), now = shown_value(here, key);
    if (before == now) continue;
    if (!differences.empty()) differences += ", ";
    differences += fmt::format("{} ({} there, {} here)", key, before, now);
  }
  return differences;
}

ModuleHost::ModuleHost(const std::string& module_id, std::shared_ptr<const PluginOptions> options,
                       bool options_per_call)
    : logger_(spdlog::default_logger()->clone("plugin." + module_id)),
      options_(std::move(options)),
      options_per_call_(options_per_call),
      host_{sizeof(nds_host),
            NDS_ABI_MAJOR,
            NDS_ABI_MINOR,
            this,
            &log,
            &log_threshold,
            &host_make_status,
            &host_release_status,
            &host_status_code,
            &host_status_message,
            &get_option,
            &host_get_service} {}

void ModuleHost::log(void* context, nds_log_level level, const char* message, size_t size) {
  if (message == nullptr) return;
  self(context).logger_->log(to_spdlog(level), std::string_view(message, size));
}

nds_log_level ModuleHost::log_threshold(void* context) {
  return static_cast<nds_log_level>(self(context).logger_->level());
}

nds_str ModuleHost::get_option(void* context, const char* key) {
  if (key == nullptr) return {nullptr, 0};
  const ModuleHost& host = self(context);
  const PluginOptions* run = host.options_per_call_ ? current_run_options() : nullptr;
  const PluginOptions& options = run != nullptr ? *run : *host.options_;
  auto it = options.find(std::string_view(key));
  if (it == options.end()) return {nullptr, 0};
  return {it->second.c_str(), it->second.size()};
}

}  // namespace ndsearch
