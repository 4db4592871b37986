// SPDX-License-Identifier: Apache-2.0
#include "core/output/calibration_text.hpp"

#include <fmt/format.h>

#include "core/output/text_settings.hpp"
#include "core/output/wrapped_text.hpp"

namespace ndsearch {

std::string calibration_line(const nlohmann::json& calibration,
                             const nlohmann::json& trainer_overheads) {
  if (calibration.is_null()) return "";
  const nlohmann::json& t = trainer_overheads;
  return fmt::format(
      "calibration: {} (fitted on {}{}): {}; on top of the trainer overheads ({:.1f} ms per "
      "step, {:.1f} us per layer and micro-batch, kernels x {:.3f}: {})",
      calibration["file"].get<std::string>(), calibration["device"].get<std::string>(),
      // Forced by the user's own setting (the document says "forced": true).
      calibration["forced"].get<bool>() ? ", forced onto another device" : "",
      calibration["summary"].get<std::string>(), 1e3 * t["step_s"].get<double>(),
      1e6 * t["layer_s"].get<double>(), 1 + t["kernel_slowdown"].get<double>(),
      t["overheads_source"].get<std::string>());
}

void write_calibration_line(std::ostream& out, const nlohmann::json& calibration,
                            const nlohmann::json& trainer_overheads, const TextSettings& text) {
  const std::string line = calibration_line(calibration, trainer_overheads);
  if (!line.empty()) out << wrapped(spelled(text, line), text.width, "  ", "    ");
}

}  // namespace ndsearch
