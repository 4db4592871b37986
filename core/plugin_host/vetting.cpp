// SPDX-License-Identifier: Apache-2.0
#include "core/plugin_host/vetting.hpp"

#include <boost/dll/runtime_symbol_info.hpp>  // program_location

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <cstdlib>

#include "core/plugin_host/isolated_check.hpp"
#include "core/support/user_error.hpp"

#ifndef NDS_VET_VERSION
#define NDS_VET_VERSION "dev"
#endif
#ifndef NDS_RELATIVE_VET_PATH  // from the program's folder to the installed helper
#define NDS_RELATIVE_VET_PATH "../libexec/ndsearch/ndsearch-plugin-vet"
#endif
#ifndef NDS_INSTALLED_VET_PATH  // the installed helper, for hosts installed elsewhere
#define NDS_INSTALLED_VET_PATH ""
#endif

namespace ndsearch {
namespace fs = std::filesystem;
namespace {

constexpr const char* kHelperName = "ndsearch-plugin-vet";

bool executable(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

// The helper's version and file: a rebuilt helper may check more, so its
// earlier verdicts do not hold.
std::string vetter_version(const fs::path& helper) {
  std::error_code ec;
  const auto size = fs::file_size(helper, ec);
  const auto mtime = fs::last_write_time(helper, ec).time_since_epoch().count();
  return fmt::format("{} {} {}", NDS_VET_VERSION, ec ? 0 : size, ec ? 0 : mtime);
}

// Checks that fail only in module.* (load, init, interfaces) keep the plugin
// out, as would a crash or hang; a conformance problem in a device table or a
// parse does not (the host checks those on every run and skips what is bad).
VetVerdict verdict_of(const IsolatedCheckResult& result) {
  VetVerdict verdict;
  verdict.wrote_stdout = !result.child_stdout.empty();
  const auto [error_id, message] = check_failure(result);
  if (result.end != IsolatedCheckResult::End::completed || result.events.empty()) {
    verdict.error_id = error_id;
    verdict.message = message;
    return verdict;
  }
  for (const CheckEvent& e : result.events) {
    if (e.kind != CheckEvent::Kind::fail) continue;
    if (e.check.rfind("module.", 0) == 0) {
      verdict.error_id = e.error_id;
      verdict.message = e.detail;
      return verdict;
    }
    verdict.notes += (verdict.notes.empty() ? "" : "; ") + e.check + ": " + e.detail;
  }
  verdict.passed = true;
  return verdict;
}

// A plugin that hung under a shorter limit than the one given now may only
// be slow: a user who raises --plugin-timeout gets it vetted again.
bool hung_sooner_than_allowed(const VetVerdict& verdict, std::chrono::milliseconds timeout) {
  return verdict.error_id == "E-PLUGIN-HANG" && verdict.timeout_ms < timeout.count();
}

}  // namespace

std::optional<fs::path> find_vet_helper() {
  if (const char* env = std::getenv("NDS_PLUGIN_VET");
      env != nullptr && fs::path(env).is_absolute())
    return executable(env) ? std::optional<fs::path>(env) : std::nullopt;
  std::error_code ec;
  const fs::path bindir = boost::dll::program_location(ec).parent_path();
  if (!ec) {
    for (const fs::path& candidate :
         {bindir / kHelperName, (bindir / NDS_RELATIVE_VET_PATH).lexically_normal()})
      if (executable(candidate)) return candidate;
  }
  if (fs::path installed = NDS_INSTALLED_VET_PATH; !installed.empty() && executable(installed))
    return installed;
  return std::nullopt;
}

std::vector<std::string> vet_helper_args(const fs::path& plugin, const PluginOptions& options,
                                         const std::optional<fs::path>& sample_config) {
  std::vector<std::string> args;
  for (const auto& [key, value] : options) args.insert(args.end(), {"--option", key + "=" + value});
  if (sample_config) args.insert(args.end(), {"--sample-config", sample_config->string()});
  args.push_back("--");
  args.push_back(plugin.string());
  return args;
}

VetVerdict vet_plugin(const fs::path& plugin, const PluginOptions& options,
                      const VetSettings& settings) {
  const std::optional<fs::path> helper = settings.helper ? settings.helper : find_vet_helper();
  if (!helper) {
    throw UserError(
        "E-PLUGIN-VET",
        fmt::format("{}: cannot vet this plugin before loading it: the helper program {} "
                    "was not found beside the program nor installed; reinstall ndsearch, "
                    "or set NDS_PLUGIN_VET to the helper's absolute path",
                    plugin.string(), kHelperName));
  }
  const auto identity = identify_file(plugin);
  const VerdictCache cache(
      settings.use_cache && identity
          ? (settings.cache_dir ? settings.cache_dir : default_verdict_cache_dir())
          : std::nullopt,
      vetter_version(*helper));
  if (identity) {
    if (auto cached = cache.find(*identity)) {
      if (!hung_sooner_than_allowed(*cached, settings.timeout)) {
        spdlog::debug("{}: vetting verdict from the cache ({})", plugin.string(),
                      cached->passed ? "passed" : cached->error_id);
        return *cached;
      }
      spdlog::debug("{}: hung within {} ms when vetted; vetting again with {} ms", plugin.string(),
                    cached->timeout_ms, settings.timeout.count());
    }
  }
  IsolatedCheckResult result;
  try {
    result = run_checks_isolated(*helper, vet_helper_args(plugin, options, std::nullopt),
                                 settings.timeout);
  } catch (const UserError& e) {
    throw UserError("E-PLUGIN-VET",
                    fmt::format("{}: cannot vet this plugin: {}", plugin.string(), e.what()));
  }
  VetVerdict verdict = verdict_of(result);
  verdict.timeout_ms = settings.timeout.count();
  if (!verdict.passed && verdict.message.find(plugin.string()) == std::string::npos)
    verdict.message = fmt::format("{}: {}", plugin.string(), verdict.message);
  if (!verdict.passed) {
    if (auto entry = identity ? cache.entry_path(*identity) : std::nullopt)
      verdict.message += fmt::format(
          " (vetted in a child process; the verdict is kept in {} until "
          "the file changes{}: remove that file to vet it again)",
          entry->string(),
          verdict.error_id == "E-PLUGIN-HANG"
              ? fmt::format(" or a plugin time limit over {:g} s is given",
                            static_cast<double>(verdict.timeout_ms) / 1000.0)
              : "");
  }
  if (identity) cache.store(*identity, verdict);
  spdlog::debug("{}: vetted in a child process: {}", plugin.string(),
                verdict.passed ? "passed" : verdict.error_id + " " + verdict.message);
  return verdict;
}

}  // namespace ndsearch
