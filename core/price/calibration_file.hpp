// SPDX-License-Identifier: Apache-2.0
// calibration_file.hpp: a user's calibration as a TOML file (docs/cli.md,
// "Calibration"): which device it was fitted on and the factors of
// core/compile/calibration.hpp, read strictly (every key known, every factor
// finite and within its bounds) and written back so that reading the text
// gives the same file. `compare --fit` writes one; `--calibration FILE`
// applies it on eval, search, explain and compare.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "core/compile/calibration.hpp"
#include "core/hardware/device.hpp"
#include "core/model/model.hpp"

namespace ndsearch {

inline constexpr const char* kCalibrationErrorId = "E-CALIBRATION";
inline constexpr const char* kCalibrationDeviceErrorId = "E-CALIBRATION-DEVICE";

struct CalibrationFile {
  std::filesystem::path path;
  std::string device;     // the device id it was fitted on (required)
  std::string trainer;    // informational
  std::string fitted_on;  // informational: "runs.csv, 12 runs"
  Calibration factors;    // absent keys: neutral
};

// A calibration applied to a run: the file, and whether it was fitted on
// another device and applied anyway.
struct AppliedCalibration {
  CalibrationFile file;
  bool forced = false;
};

// Reads `file`; the factors' keys and bounds are those of
// calibration_factors(device). Throws UserError E-CALIBRATION (exit 2)
// naming the file, the key, the value, the limit and the fix.
CalibrationFile read_calibration(const std::filesystem::path& file, const Device& device);

// The same from text already read (`file` names it in messages).
CalibrationFile parse_calibration(const std::string& text, const std::filesystem::path& file,
                                  const Device& device);

// Throws UserError E-CALIBRATION-DEVICE when `calibration` was fitted on a
// device other than `device`, unless `force`.
void check_calibration_device(const CalibrationFile& calibration, const Device& device, bool force);

// The file's text: every factor with its words and bounds as a comment,
// `comment_lines` as "# " lines at the top. parse_calibration of it gives
// `calibration` back.
std::string calibration_toml(const CalibrationFile& calibration, const Device& device,
                             const std::vector<std::string>& comment_lines);

// What `--calibration FILE` applies on `device`: nothing for an empty path,
// else the file read and checked against the device.
std::optional<AppliedCalibration> load_calibration(const std::filesystem::path& file,
                                                   const Device& device, bool force);

// The factors to price with: the identity when none is applied.
Calibration calibration_factors_of(const std::optional<AppliedCalibration>& applied);

// The calibration's allocator share, where it states one, set on `model`
// (Model::allocator_fraction, named with the file in the assumptions).
void apply_memory_calibration(Model& model, const std::optional<AppliedCalibration>& applied);

}  // namespace ndsearch
