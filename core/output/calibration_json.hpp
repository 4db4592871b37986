// SPDX-License-Identifier: Apache-2.0
// calibration_json.hpp: what every eval, search, explain and compare document
// records of the corrections on top of the device's figures: the user's
// calibration ("calibration": null or the file, the device it was fitted on
// and every factor) and, beside it, the shipped trainer overheads it acts on
// top of ("trainer_overheads"), as the issue asks that both be reported.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>

#include "core/model/model.hpp"
#include "core/price/calibration_file.hpp"

namespace ndsearch {

// null, or {"file", "device", "trainer", "fitted_on", "factors": {key: value
// for every factor}, "forced", "summary"}.
nlohmann::json calibration_json(const std::optional<AppliedCalibration>& applied,
                                const Device& device);

// {"layer_s", "step_s", "kernel_slowdown", "overheads_source"} of the
// trainer settings `model` is priced with on `device`.
nlohmann::json trainer_overheads_json(const Model& model, const Device& device);

// Both, as "calibration" and "trainer_overheads" of `document`.
void add_calibration_json(nlohmann::json& document,
                          const std::optional<AppliedCalibration>& applied, const Model& model,
                          const Device& device);

}  // namespace ndsearch
