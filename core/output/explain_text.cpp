// SPDX-License-Identifier: Apache-2.0
#include "core/output/explain_text.hpp"

#include <fmt/format.h>
#include <ndsearch/sdk/units.hpp>

#include "core/output/evaluation_text.hpp"
#include "core/output/text_settings.hpp"

namespace ndsearch {

using nlohmann::json;

// The report's lines above its table: what was priced, on what, and under
// which assumptions (the same the table's header says).
std::vector<std::string> explain_header_lines(const json& j, const TextSettings& text) {
  // A refused strategy may leave the device count unknown (null).
  std::vector<std::string> lines{fmt::format("{} on {} x {}", j["model"].get<std::string>(),
                                             j["devices"].is_null() ? "?" : j["devices"].dump(),
                                             j["device"].get<std::string>())};
  if (j.contains("strategy") && j["strategy"].is_object()) {
    std::string keys;
    for (const auto& [key, value] : j["strategy"].items())
      if (!value.is_null())  // a refused strategy's unresolved keys
        keys += fmt::format("{}{}={}", keys.empty() ? "" : ",", key,
                            value.is_string() ? value.get<std::string>() : value.dump());
    lines.push_back("strategy " + keys);
  }
  if (j.contains("memory") && j["memory"].contains("budget_bytes"))
    lines.push_back(fmt::format("budget {:.2f} GiB per device ({})",
                                j["memory"]["budget_bytes"].get<double>() / sdk::kBytesPerGiB,
                                spelled(text, j["memory"]["capacity_source"].get<std::string>())));
  if (j.contains("assumptions"))
    for (const json& a : j["assumptions"])
      lines.push_back("assumes " + spelled(text, a.get<std::string>()));
  return lines;
}

void write_explanation_text(std::ostream& out, const json& j, const TextSettings& text) {
  out << "  checks (in order; docs/cli.md, \"Checks\"):\n";
  for (const json& c : j["checks"])
    out << fmt::format("    {} {:<12} {}\n", c["passed"].get<bool>() ? "pass" : "FAIL",
                       c["id"].get<std::string>(), spelled(text, c["message"].get<std::string>()));
  write_evaluation_text(out, j, text);
  if (j.contains("search")) {
    const json& r = j["search"];
    for (const json& b : r["outside_bounds"])
      out << fmt::format("  added to the search to rank it: {}\n",
                         spelled(text, b.get<std::string>()));
    if (r["rank"].is_null()) {
      out << fmt::format("  search: {}\n", spelled(text, r["note"].get<std::string>()));
    } else {
      out << fmt::format("  search: rank {} of {} fitting ({} tested)\n", r["rank"].get<size_t>(),
                         r["fit"].get<uint64_t>(), r["tested"].get<uint64_t>());
      for (const json& b : r["beaten_by"])
        out << fmt::format("    rank {} ({:.3f} s): {}\n      faster by {}\n",
                           b["rank"].get<size_t>(), b["step_s"].get<double>(),
                           b["strategy_text"].get<std::string>(),
                           spelled(text, b["reason"].get<std::string>()));
    }
    if (!r["best_changes"].empty()) {
      out << "  the fastest strategy changes:\n";
      for (const json& c : r["best_changes"]) out << fmt::format("    {}\n", c.get<std::string>());
    }
  }
}

}  // namespace ndsearch
