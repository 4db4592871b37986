// SPDX-License-Identifier: Apache-2.0
#include "core/output/calibration_json.hpp"

#include "core/compile/trainer_settings.hpp"

namespace ndsearch {

nlohmann::json calibration_json(const std::optional<AppliedCalibration>& applied,
                                const Device& device) {
  if (!applied) return nullptr;
  const CalibrationFile& f = applied->file;
  nlohmann::json factors = nlohmann::json::object();
  for (const CalibrationFactor& factor : calibration_factors(device))
    factors[factor.key] = factor.get(f.factors);
  // Memory's factor: null where the file leaves the shipped share.
  factors[kAllocatorFactorKey] = f.factors.allocator_fraction
                                     ? nlohmann::json(*f.factors.allocator_fraction)
                                     : nlohmann::json(nullptr);
  return {{"file", f.path.string()},
          {"device", f.device},
          {"trainer", f.trainer},
          {"fitted_on", f.fitted_on},
          {"factors", factors},
          {"forced", applied->forced},
          {"summary", calibration_summary(f.factors, device)}};
}

nlohmann::json trainer_overheads_json(const Model& model, const Device& device) {
  const TrainerSettings settings = trainer_settings(model, device);
  return {{"layer_s", settings.overheads.layer_s},
          {"step_s", settings.overheads.step_s},
          {"kernel_slowdown", settings.overheads.kernel_slowdown},
          {"overheads_source", settings.overheads_source}};
}

void add_calibration_json(nlohmann::json& document,
                          const std::optional<AppliedCalibration>& applied, const Model& model,
                          const Device& device) {
  document["calibration"] = calibration_json(applied, device);
  document["trainer_overheads"] = trainer_overheads_json(model, device);
}

}  // namespace ndsearch
