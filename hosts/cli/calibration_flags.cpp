// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/calibration_flags.hpp"

#include <fmt/format.h>

#include <iostream>

#include "hosts/cli/wrapped_text.hpp"

namespace ndsearch::cli {

void add_calibration_flags(CLI::App& verb, CalibrationFlags& flags) {
  verb.add_option("--calibration", flags.file,
                  "A calibration file (compare --fit writes one) applied on top of the shipped "
                  "trainer overheads");
  verb.add_flag("--force", flags.force, "Apply a --calibration fitted on another device anyway");
}

std::optional<AppliedCalibration> load_calibration(const CalibrationFlags& flags,
                                                   const Device& device) {
  return ndsearch::load_calibration(flags.file, device, flags.force);
}

std::string calibration_line(const nlohmann::json& calibration,
                             const nlohmann::json& trainer_overheads) {
  if (calibration.is_null()) return "";
  const nlohmann::json& t = trainer_overheads;
  return fmt::format(
      "calibration: {} (fitted on {}{}): {}; on top of the trainer overheads ({:.1f} ms per "
      "step, {:.1f} us per layer and micro-batch, kernels x {:.3f}: {})",
      calibration["file"].get<std::string>(), calibration["device"].get<std::string>(),
      calibration["forced"].get<bool>() ? ", applied with --force to another device" : "",
      calibration["summary"].get<std::string>(), 1e3 * t["step_s"].get<double>(),
      1e6 * t["layer_s"].get<double>(), 1 + t["kernel_slowdown"].get<double>(),
      t["overheads_source"].get<std::string>());
}

void print_calibration_line(const nlohmann::json& calibration,
                            const nlohmann::json& trainer_overheads) {
  const std::string line = calibration_line(calibration, trainer_overheads);
  if (!line.empty()) std::cout << wrapped(line, kDefaultTableWidth, "  ", "    ");
}

}  // namespace ndsearch::cli
