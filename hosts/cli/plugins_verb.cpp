// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/plugins_verb.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "core/plugins/isolated_check.hpp"
#include "core/plugins/vetting.hpp"
#include "core/report/json_text.hpp"
#include "core/report/plugins_json.hpp"
#include "core/report/schema_version.hpp"
#include "core/support/user_error.hpp"
#include "hosts/cli/setting_flags.hpp"

namespace ndsearch::cli {
namespace {


std::string joined(const std::vector<std::string>& items, const char* separator) {
  std::string text;
  for (const std::string& item : items) text += (text.empty() ? "" : separator) + item;
  return text;
}

int list_plugins(const PluginFlags& flags, const std::string& format) {
  PluginRegistry registry = PluginRegistry::load(plugin_search(flags));
  if (format == "json") {
    std::cout << json_text(plugins_json(registry), 2) << "\n";
    return kExitOk;
  }
  if (registry.plugins().empty()) {
    std::cout << "No plugins loaded. Plugins are searched in --plugin-path, NDS_PLUGIN_PATH and "
                 "the install directory"
              << (default_plugin_dir() ? " (" + default_plugin_dir()->string() + ")" : std::string(" (not found)"))
              << ".\n";
  } else {
    std::cout << fmt::format("{:<22} {:<9} {:<5} {:<42} {}\n", "ID", "VERSION", "ABI", "KINDS", "PATH");
    for (const auto& p : registry.plugins()) {
      std::cout << fmt::format("{:<22} {:<9} {:<5} {:<42} {}\n", p->id, p->version,
                               fmt::format("{}.{}", p->abi_major, p->abi_minor),
                               joined(p->interfaces.ids(), ","), p->path.string());
    }
  }
  for (const SkippedPlugin& s : registry.skipped())
    std::cout << fmt::format("skipped [{}] {}\n", s.error_id, with_flags(s.message));
  return kExitOk;
}

int check_plugin(const PluginFlags& flags, const std::string& path, const std::string& format,
                 double timeout_s, const std::string& sample_config) {
  if (!std::filesystem::exists(path))
    throw UserError("E-PLUGIN-NOT-FOUND",
                    fmt::format("plugins check {}: no such file; give the path of a plugin library (.so)", path));
  if (!sample_config.empty() && !std::filesystem::is_regular_file(sample_config))
    throw UserError(
        "E-PLUGIN-NOT-FOUND",
        fmt::format("plugins check --sample-config {}: no such file; give a model config "
                    "the parser reads",
                    sample_config));
  const auto helper = find_vet_helper();
  if (!helper)
    throw UserError("E-PLUGIN-CHECK-START",
                    "cannot find ndsearch-plugin-vet, the helper that checks a plugin in a child "
                    "process; reinstall ndsearch, or set NDS_PLUGIN_VET to its absolute path");
  const PluginSearch search = plugin_search(flags);
  const IsolatedCheckResult result = run_checks_isolated(
      *helper,
      vet_helper_args(path, *search.options,
                      sample_config.empty() ? std::nullopt
                                            : std::optional<std::filesystem::path>(
                                                  std::filesystem::absolute(sample_config))),
      std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000)));
  // Printing on stdout is flagged, not failed: the CLI sends it to stderr, but
  // another host may not.
  const std::string stdout_warning =
      result.child_stdout.empty()
          ? ""
          : fmt::format(
                "{}: the plugin wrote {} bytes on stdout (\"{}\"); a plugin must log through "
                "the host (host->log) instead: stdout belongs to the host's output",
                path, result.child_stdout.size(), result.child_stdout.substr(0, 60));
  const auto [error_id, message] = check_failure(result);
  if (format == "json") {
    nlohmann::json checks = nlohmann::json::array();
    for (const CheckEvent& e : result.events) {
      if (e.kind == CheckEvent::Kind::begin) continue;
      nlohmann::json c = {{"check", e.check}, {"result", e.kind == CheckEvent::Kind::pass ? "pass" : "fail"}};
      if (!e.detail.empty()) c["detail"] = e.detail;
      if (!e.error_id.empty()) c["error_id"] = e.error_id;
      checks.push_back(c);
    }
    const char* end = result.end == IsolatedCheckResult::End::completed ? "completed"
                      : result.end == IsolatedCheckResult::End::crashed ? "crashed" : "timed_out";
    nlohmann::json out = {{"schema_version", kSchemaVersion}, {"path", path},       {"passed", result.passed},
                          {"end", end},                       {"checks", checks}};
    if (!error_id.empty()) out["error"] = {{"id", error_id}, {"message", message}};
    out["warnings"] = nlohmann::json::array();
    if (!stdout_warning.empty())
      out["warnings"].push_back({{"id", "W-PLUGIN-STDOUT"}, {"message", stdout_warning}});
    if (!result.child_stderr.empty()) out["plugin_stderr"] = result.child_stderr;
    std::cout << json_text(out, 2) << "\n";
  } else {
    std::cout << "Checking " << path << " in a child process\n";
    int passed = 0, failed = 0;
    for (const CheckEvent& e : result.events) {
      if (e.kind == CheckEvent::Kind::pass) {
        ++passed;
        std::cout << fmt::format("  pass  {}\n", e.check);
      } else if (e.kind == CheckEvent::Kind::fail) {
        ++failed;
        std::cout << fmt::format("  FAIL  {} [{}] {}\n", e.check, e.error_id, with_flags(e.detail));
      }
    }
    if (!result.unfinished_check().empty()) {
      ++failed;
      std::cout << fmt::format("  FAIL  {} [{}] {}\n", result.unfinished_check(), error_id,
                               with_flags(message));
    }
    if (!stdout_warning.empty())
      std::cout << "  WARN  module.stdout [W-PLUGIN-STDOUT] " << stdout_warning << "\n";
    std::cout << fmt::format("{} passed, {} failed\n", passed, failed);
    if (!result.passed) {
      std::cerr << fmt::format(
          "ndsearch: error [{}]: {}\n", error_id,
          with_flags(message.find(path) == std::string::npos ? path + ": " + message : message));
      if (!result.child_stderr.empty())
        std::cerr << "plugin output:\n" << result.child_stderr << (result.child_stderr.back() == '\n' ? "" : "\n");
    }
  }
  return result.passed ? kExitOk : kExitUsage;
}

}  // namespace

void add_plugins_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run) {
  CLI::App* plugins = app.add_subcommand("plugins", "List the loaded plugins, or check one");
  plugins->require_subcommand(1);

  struct ListArgs { std::string format = "table"; };
  auto list_args = std::make_shared<ListArgs>();
  CLI::App* list = plugins->add_subcommand("list", "The plugins found, their versions and kinds");
  list->add_option("--format", list_args->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  list->callback([&run, &flags, list_args] { run = [&flags, list_args] { return list_plugins(flags, list_args->format); }; });

  struct CheckArgs {
    std::string path;
    std::string format = "table";
    double timeout_s = 60;
    std::string sample_config;
  };
  auto check_args = std::make_shared<CheckArgs>();
  CLI::App* check = plugins->add_subcommand(
      "check", "Load one plugin in a child process and run the conformance checks of each interface it offers");
  check->add_option("PATH", check_args->path, "The plugin library (.so)")->required();
  check->add_option("--format", check_args->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  check->add_option("--timeout", check_args->timeout_s, "Seconds before a hanging plugin is killed")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  check
      ->add_option("--sample-config", check_args->sample_config,
                   "A model config for a parser plugin's parse check (default: built-in samples)")
      ->type_name("FILE");
  check->callback([&run, &flags, check_args] {
    run = [&flags, check_args] {
      return check_plugin(flags, check_args->path, check_args->format, check_args->timeout_s,
                          check_args->sample_config);
    };
  });
}

}  // namespace ndsearch::cli
