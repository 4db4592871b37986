// SPDX-License-Identifier: Apache-2.0
#include "core/output/compare_text.hpp"

#include <fmt/format.h>
#include <ndsearch/sdk/units.hpp>

#include "core/output/calibration_text.hpp"
#include "core/output/json_text.hpp"
#include "core/output/text_settings.hpp"

namespace ndsearch {
namespace {

using nlohmann::json;

// The table's lines stay under this many columns (a terminal's 120).
constexpr size_t kTableWidth = 119;

// "12.3" of a number, "-" of null.
std::string cell(const json& value, const char* spec) {
  return value.is_null() ? std::string("-") : fmt::format(fmt::runtime(spec), value.get<double>());
}

// "parts s (measured/predicted):  compute 1.2/1.15  dp 0.1/0.08 ...": a
// run's parts in the file's order, wrapped to kTableWidth.
void write_run_parts(std::ostream& out, const json& parts, const std::vector<std::string>& names) {
  const std::string indent = "         ";
  std::string line = indent + "parts s (measured/predicted):";
  for (const std::string& name : names) {
    if (!parts.contains(name)) continue;
    const std::string item =
        fmt::format("  {} {}/{}", name, cell(parts[name]["measured_s"], "{:.4g}"),
                    cell(parts[name]["predicted_s"], "{:.4g}"));
    if (line.size() + item.size() > kTableWidth) {
      out << line << "\n";
      line = indent + "   ";
    }
    line += item;
  }
  out << line << "\n";
}

}  // namespace

void write_comparison_text(std::ostream& out, const json& j,
                           const std::vector<std::string>& part_names, const TextSettings& text) {
  out << fmt::format("{} on {}: {} runs of {} ({}), {} priced\n", j["model"].get<std::string>(),
                     j["device"].get<std::string>(), j["runs"].size(),
                     j["measured"].get<std::string>(), j["format"].get<std::string>(),
                     j["priced"].get<size_t>());
  // A validation CSV prices each row on its own device: no calibration keys
  // then (operator[] of a const json on a missing key is undefined).
  if (j.contains("calibration"))
    write_calibration_line(out, j.at("calibration"), j.at("trainer_overheads"), text);
  out << fmt::format("  {:>5}  {:<32} {:>10} {:>11} {:>8} {:>6} {:>6}  {}\n", "line", "strategy",
                     "measured s", "predicted s", "error %", "m.rank", "p.rank", "fits");
  for (const json& r : j["runs"]) {
    const json error = r["error"].is_null() ? json(nullptr) : json(100 * r["error"].get<double>());
    out << fmt::format("  {:>5}  {:<32} {:>10.4f} {:>11} {:>8} {:>6} {:>6}  {}\n",
                       r["line"].get<int>(), r["strategy"].get<std::string>(),
                       r["measured_s"].get<double>(), cell(r["predicted_s"], "{:.4f}"),
                       cell(error, "{:+.1f}"),
                       r["measured_rank"].is_null() ? "-" : json_text(r["measured_rank"]),
                       r["predicted_rank"].is_null() ? "-" : json_text(r["predicted_rank"]),
                       r["fits"].get<bool>() ? "yes" : "no");
    if (!r["parts"].empty()) write_run_parts(out, r["parts"], part_names);
    for (const json& a : r["adapted"])
      out << fmt::format("         priced with {}\n", a.get<std::string>());
    if (!r["memory_miss"].is_null())
      out << fmt::format("         scored, though our memory model says it {}\n",
                         r["memory_miss"].get<std::string>());
    if (!r["peak_error"].is_null())
      out << fmt::format(
          "         peak: measured {:.2f} GiB, predicted {:.2f} GiB, error {:+.1f} %\n",
          r["measured_peak_bytes"].get<double>() / sdk::kBytesPerGiB,
          r["predicted_peak_bytes"].get<double>() / sdk::kBytesPerGiB,
          100 * r["peak_error"].get<double>());
    if (!r["refused"].is_null())
      out << fmt::format("         left out: [{}] {}\n", r["refused"]["id"].get<std::string>(),
                         spelled(text, r["refused"]["reason"].get<std::string>()));
  }
  for (const json& s : j["skipped"])
    out << fmt::format("  skipped line {}{}: {}\n", s["line"].get<int>(),
                       s["column"].get<std::string>().empty()
                           ? std::string()
                           : fmt::format(", column {} = \"{}\"", s["column"].get<std::string>(),
                                         s["value"].get<std::string>()),
                       s["reason"].get<std::string>());
  const json& m = j["metrics"];
  out << fmt::format(
      "  mape {}  mean_error {}  pearson {}  spearman {}  top_k {}  top1_regret {}\n",
      cell(m["mape"], "{:.4f}"), cell(m["mean_error"], "{:+.4f}"), cell(m["pearson"], "{:.4f}"),
      cell(m["spearman"], "{:.4f}"), json_text(m["top_k"]), cell(m["top1_regret"], "{:.4f}"));
  if (j["peaks"]["runs"].get<size_t>() > 0)
    out << fmt::format("  peak memory: runs {}  mape {}  mean_error {}\n",
                       json_text(j["peaks"]["runs"]), cell(j["peaks"]["mape"], "{:.4f}"),
                       cell(j["peaks"]["mean_error"], "{:+.4f}"));
  for (const auto& [name, p] : m["parts"].items())
    out << fmt::format("  part {:<10} runs {}  pearson {}  mean_abs_error_s {}  mape {}\n", name,
                       json_text(p["runs"]), cell(p["pearson"], "{:.4f}"),
                       cell(p["mean_abs_error_s"], "{:.4f}"), cell(p["mape"], "{:.4f}"));
  if (j.contains("fit")) {
    const json& fit = j["fit"];
    if (!fit["file"].is_null())
      out << fmt::format("  calibration written to {}\n", fit["file"].get<std::string>());
    for (const json& line : fit["report"]) out << "    " << line.get<std::string>() << "\n";
  }
}

}  // namespace ndsearch
