// SPDX-License-Identifier: Apache-2.0
// calibration_flags.hpp: --calibration FILE and --force on eval, search,
// explain and compare, and the one line their tables print of a calibration
// applied (docs/cli.md, "Calibration").
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>

#include "core/calibration/calibration_file.hpp"

namespace ndsearch::cli {

struct CalibrationFlags {
  std::filesystem::path file;  // empty: none
  bool force = false;          // apply one fitted on another device
};

void add_calibration_flags(CLI::App& verb, CalibrationFlags& flags);

// The calibration the flags name, read and checked against `device`.
std::optional<AppliedCalibration> load_calibration(const CalibrationFlags& flags,
                                                   const Device& device);

// "calibration: FILE (fitted on DEV): <summary>; on top of the trainer
// overheads (...)" when one is applied (a document's "calibration" and
// "trainer_overheads"); nothing otherwise.
// The same, unwrapped; empty when no calibration applies.
std::string calibration_line(const nlohmann::json& calibration,
                             const nlohmann::json& trainer_overheads);
void print_calibration_line(const nlohmann::json& calibration,
                            const nlohmann::json& trainer_overheads);

}  // namespace ndsearch::cli
