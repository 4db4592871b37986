// SPDX-License-Identifier: Apache-2.0
// plugin_check.cpp: `plugins check`'s one wiring: the plugin loaded in a
// child process by the vetting helper, each interface's conformance checks
// run there, and the outcome as a document and a text.
#include <ndsearch/core/planner.hpp>

#include <fmt/format.h>

#include <chrono>
#include <filesystem>

#include "core/output/schema_version.hpp"
#include "core/output/text_settings.hpp"
#include "core/planner/plugin_settings.hpp"
#include "core/plugin_host/isolated_check.hpp"
#include "core/plugin_host/vetting.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

void check_inputs(const PluginCheckSettings& s) {
  if (!fs::exists(s.path))
    throw UserError("E-PLUGIN-NOT-FOUND",
                    fmt::format("plugins check {}: no such file; give the path of a plugin "
                                "library (.so)",
                                s.path.string()));
  if (!s.sample_config.empty() && !fs::is_regular_file(s.sample_config))
    throw UserError("E-PLUGIN-NOT-FOUND",
                    fmt::format("plugins check --sample-config {}: no such file; give a model "
                                "config the parser reads",
                                s.sample_config.string()));
}

// Printing on stdout is flagged, not failed: the CLI sends it to stderr,
// but another host may not.
std::string stdout_warning(const fs::path& path, const IsolatedCheckResult& result) {
  if (result.child_stdout.empty()) return "";
  return fmt::format(
      "{}: the plugin wrote {} bytes on stdout (\"{}\"); a plugin must log through the host "
      "(host->log) instead: stdout belongs to the host's output",
      path.string(), result.child_stdout.size(), result.child_stdout.substr(0, 60));
}

json check_document(const fs::path& path, const IsolatedCheckResult& result,
                    const std::string& error_id, const std::string& message,
                    const std::string& warning) {
  json checks = json::array();
  for (const CheckEvent& e : result.events) {
    if (e.kind == CheckEvent::Kind::begin) continue;
    json c = {{"check", e.check}, {"result", e.kind == CheckEvent::Kind::pass ? "pass" : "fail"}};
    if (!e.detail.empty()) c["detail"] = e.detail;
    if (!e.error_id.empty()) c["error_id"] = e.error_id;
    checks.push_back(c);
  }
  const char* end = result.end == IsolatedCheckResult::End::completed ? "completed"
                    : result.end == IsolatedCheckResult::End::crashed ? "crashed"
                                                                      : "timed_out";
  json out = {{"schema_version", kSchemaVersion},
              {"path", path.string()},
              {"passed", result.passed},
              {"end", end},
              {"checks", checks}};
  if (!error_id.empty()) out["error"] = {{"id", error_id}, {"message", message}};
  out["warnings"] = json::array();
  if (!warning.empty())
    out["warnings"].push_back({{"id", "W-PLUGIN-STDOUT"}, {"message", warning}});
  if (!result.child_stderr.empty()) out["plugin_stderr"] = result.child_stderr;
  return out;
}

void write_check_text(std::ostream& out, const fs::path& path, const IsolatedCheckResult& result,
                      const std::string& error_id, const std::string& message,
                      const std::string& warning, const TextSettings& text) {
  out << "Checking " << path.string() << " in a child process\n";
  int passed = 0, failed = 0;
  for (const CheckEvent& e : result.events) {
    if (e.kind == CheckEvent::Kind::pass) {
      ++passed;
      out << fmt::format("  pass  {}\n", e.check);
    } else if (e.kind == CheckEvent::Kind::fail) {
      ++failed;
      out << fmt::format("  FAIL  {} [{}] {}\n", e.check, e.error_id, spelled(text, e.detail));
    }
  }
  if (!result.unfinished_check().empty()) {
    ++failed;
    out << fmt::format("  FAIL  {} [{}] {}\n", result.unfinished_check(), error_id,
                       spelled(text, message));
  }
  if (!warning.empty()) out << "  WARN  module.stdout [W-PLUGIN-STDOUT] " << warning << "\n";
  out << fmt::format("{} passed, {} failed\n", passed, failed);
}

}  // namespace

PluginCheck check_plugin(const PluginCheckSettings& s) {
  check_inputs(s);
  const auto helper = s.plugins.vet_helper ? s.plugins.vet_helper : find_vet_helper();
  if (!helper)
    throw UserError("E-PLUGIN-CHECK-START",
                    "cannot find ndsearch-plugin-vet, the helper that checks a plugin in a child "
                    "process; reinstall ndsearch, or set NDS_PLUGIN_VET to its absolute path");
  const PluginSearch search = plugin_search(s.plugins);
  const auto result = std::make_shared<const IsolatedCheckResult>(run_checks_isolated(
      *helper,
      vet_helper_args(s.path, *search.options,
                      s.sample_config.empty()
                          ? std::nullopt
                          : std::optional<fs::path>(fs::absolute(s.sample_config))),
      std::chrono::milliseconds(static_cast<long long>(s.timeout_s * 1000))));
  const std::string warning = stdout_warning(s.path, *result);
  // Named copies, not a structured binding: clang before 16 cannot capture
  // a binding in the lambda below, and the fuzz/ASan build uses clang.
  const auto failure = check_failure(*result);
  const std::string error_id = failure.first;
  const std::string message = failure.second;
  const fs::path path = s.path;
  PluginCheck check{Listing(check_document(path, *result, error_id, message, warning),
                            [=](std::ostream& out, const TextSettings& text) {
                              write_check_text(out, path, *result, error_id, message, warning,
                                               text);
                            }),
                    std::nullopt, result->child_stderr};
  if (!result->passed)
    check.failure = UserError(error_id, message.find(path.string()) == std::string::npos
                                            ? path.string() + ": " + message
                                            : message);
  return check;
}

}  // namespace ndsearch
