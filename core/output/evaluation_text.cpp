// SPDX-License-Identifier: Apache-2.0
#include "core/output/evaluation_text.hpp"

#include <fmt/format.h>
#include <ndsearch/sdk/units.hpp>

#include "core/output/calibration_text.hpp"
#include "core/output/json_text.hpp"
#include "core/output/parameter_count.hpp"
#include "core/output/text_settings.hpp"

namespace ndsearch {
namespace {

using nlohmann::json;
constexpr double kGiB = sdk::kBytesPerGiB;  // sizes print in GiB

void write_memory_footer(std::ostream& out, const json& m, const TextSettings& text);

}  // namespace

void write_evaluation_text(std::ostream& out, const json& j, const TextSettings& text) {
  out << fmt::format("{} on {} x {}\n", j["model"].get<std::string>(),
                     j["devices"].is_null() ? std::string("?") : json_text(j["devices"]),
                     j["device"].get<std::string>());
  std::string keys;
  for (const auto& [key, value] : j["strategy"].items())
    keys += fmt::format("{}{}={}", keys.empty() ? "" : ",", key,
                        value.is_string() ? value.get<std::string>() : json_text(value));
  out << "  strategy  " << keys << "\n";
  if (j.contains("calibration"))
    write_calibration_line(out, j["calibration"], j["trainer_overheads"], text);
  if (!j["valid"].get<bool>()) {
    out << fmt::format("  refused   [{}] {}\n", j["refusal"]["id"].get<std::string>(),
                       spelled(text, j["refusal"]["reason"].get<std::string>()));
    return;
  }
  const json& m = j["memory"];
  out << fmt::format("  {:>5} {:>6} {:>10} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}   (GiB)\n",
                     "stage", "layers", "recomp", "params", "grads", "optim", "activ", "comm",
                     "other", "peak");
  for (const json& s : m["stages"]) {
    out << fmt::format(
        "  {:>5} {:>6} {:>10} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f} {:>9.2f}\n",
        s["stage"].get<int>(), s["layers"].get<int>(),
        // A recompute strategy's choice ("4O/3F"), else the count recomputed.
        s.contains("recompute") ? s["recompute"].get<std::string>()
                                : std::to_string(s["recomputed_layers"].get<int>()),
        s["params_bytes"].get<double>() / kGiB, s["grads_bytes"].get<double>() / kGiB,
        s["optimizer_bytes"].get<double>() / kGiB, s["activations_bytes"].get<double>() / kGiB,
        s["comm_buffers_bytes"].get<double>() / kGiB, s["other_bytes"].get<double>() / kGiB,
        s["peak_bytes"].get<double>() / kGiB);
  }
  // A recompute strategy's choice, layer by layer: "stage 0: 0-4 full, 5-15 keep".
  for (const json& s : m["stages"]) {
    if (!s.contains("layer_options")) continue;
    std::string runs;
    for (const json& run : s["layer_options"])
      runs += fmt::format("{}{}-{} {}", runs.empty() ? "" : ", ", run["first"].get<int>(),
                          run["last"].get<int>(), run["option"].get<std::string>());
    out << fmt::format("  stage {} layers: {}\n", s["stage"].get<int>(), runs);
  }
  write_memory_footer(out, m, text);
  if (j.contains("time")) {
    const json& t = j["time"];
    const double step = t["step_s"].get<double>();
    // "name 12.3%, ..." of the parts above zero, as shares of the step.
    auto shares = [step](const json& parts) {
      std::string shares_text;
      for (const auto& [name, seconds] : parts.items())
        if (seconds.get<double>() > 0)
          shares_text += fmt::format("{}{} {:.1f}%", shares_text.empty() ? "" : ", ", name,
                                     100 * seconds.get<double>() / step);
      return shares_text;
    };
    out << fmt::format("  step {:.3f} s: {}\n", step, shares(t["parts"]));
    const std::string hidden = shares(t["hidden"]);
    if (!hidden.empty()) out << fmt::format("  hidden behind compute: {}\n", hidden);
    out << fmt::format("  MFU {:.1f}%, HFU {:.1f}%, {:.0f} tokens/s\n",
                       100 * j["mfu"].get<double>(), 100 * j["hfu"].get<double>(),
                       j["tokens_per_s"].get<double>());
    if (j.contains("towers") && j["towers"].is_object()) {
      const json& w = j["towers"];
      const size_t stage = w["stage"].get<size_t>();
      out << fmt::format(
          "  towers {} parameters: {:.2f} GiB of stage {} ({:.1f}% of its peak), {:.3f} s of "
          "the step ({:.1f}%), {:.1f}% of the model FLOPs\n",
          parameter_count(w["params"].get<double>()), w["stage_bytes"][stage].get<double>() / kGiB,
          stage, 100 * w["memory_share"].get<double>(), w["time_s"].get<double>(),
          100 * w["time_share"].get<double>(), 100 * w["flops_share"].get<double>());
    }
    for (const auto& a : j["assumptions"])
      out << "  assumes " << spelled(text, a.get<std::string>()) << "\n";
  }
}

namespace {

// The memory kept free is said as the search header says it.
void write_memory_footer(std::ostream& out, const json& m, const TextSettings& text) {
  out << fmt::format(
      "  peak {:.2f} GiB of a {:.2f} GiB budget ({:.2f} GiB from {}, less {:.2f} GiB reserved{}): "
      "{}\n",
      m["peak_bytes"].get<double>() / kGiB, m["budget_bytes"].get<double>() / kGiB,
      m["capacity_bytes"].get<double>() / kGiB,
      spelled(text, m["capacity_source"].get<std::string>()),
      m["reserved_bytes"].get<double>() / kGiB,
      m["reserve_mem_bytes"].get<double>() > 0
          ? fmt::format(" and {:.2f} GiB kept free", m["reserve_mem_bytes"].get<double>() / kGiB)
          : std::string(),
      m["fits"].get<bool>() ? "fits" : "DOES NOT FIT");
}

}  // namespace

}  // namespace ndsearch
