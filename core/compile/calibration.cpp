// SPDX-License-Identifier: Apache-2.0
#include "core/compile/calibration.hpp"

#include <fmt/format.h>

namespace ndsearch {
namespace {

// Bounds of the factors, wide enough for any real cluster and narrow enough
// that a fit which reaches one says the model is missing something rather
// than the cluster being slow: a kernel class at a quarter of its figure to
// twice it, a link at a twentieth (a misconfigured NIC) to twice it, a
// computed communication time a quarter to 4x, up to 10 s per step and
// 10 ms per layer and micro-batch of host overhead.
constexpr double kScaleLower = 0.25, kScaleUpper = 2;
constexpr double kBandwidthLower = 0.05, kBandwidthUpper = 2;
constexpr double kCommLower = 0.25, kCommUpper = 4;
constexpr double kStepUpper = 10, kLayerUpper = 0.01;

CalibrationFactor scalar(std::string key, std::string words, double Calibration::*member,
                         double neutral, double lower, double upper) {
  CalibrationFactor f;
  f.key = std::move(key);
  f.words = std::move(words);
  f.scalar = member;
  f.neutral = neutral;
  f.lower = lower;
  f.upper = upper;
  return f;
}

}  // namespace

bool Calibration::is_identity() const {
  for (double b : bandwidth)
    if (b != 1) return false;
  for (double c : communication)
    if (c != 1) return false;
  return gemm == 1 && attention == 1 && hbm == 1 && step_s == 0 && layer_s == 0 &&
         !allocator_fraction;
}

double CalibrationFactor::get(const Calibration& c) const {
  if (is_level) return c.level_bandwidth(level);
  if (is_comm) return c.communication[comm];
  return c.*scalar;
}

void CalibrationFactor::set(Calibration& c, double value) const {
  if (is_level) {
    if (c.bandwidth.size() <= level) c.bandwidth.resize(level + 1, 1.0);
    c.bandwidth[level] = value;
  } else if (is_comm) {
    c.communication[comm] = value;
  } else {
    c.*scalar = value;
  }
}

std::vector<CalibrationFactor> calibration_factors(const Device& device) {
  std::vector<CalibrationFactor> out;
  out.push_back(
      scalar("step_overhead_s", "overhead per step (s)", &Calibration::step_s, 0, 0, kStepUpper));
  out.push_back(scalar("gemm_efficiency", "GEMM efficiency scale", &Calibration::gemm, 1,
                       kScaleLower, kScaleUpper));
  for (size_t i = device.levels.size(); i-- > 0;) {
    CalibrationFactor f;
    f.key = fmt::format("bandwidth[{}]", i);
    f.words =
        device.levels[i].name.empty()
            ? fmt::format("bandwidth scale of topology level {}", i)
            : fmt::format("bandwidth scale of topology level {} ({})", i, device.levels[i].name);
    f.is_level = true;
    f.level = i;
    f.lower = kBandwidthLower;
    f.upper = kBandwidthUpper;
    out.push_back(std::move(f));
  }
  out.push_back(scalar("attention_efficiency", "attention-kernel efficiency scale",
                       &Calibration::attention, 1, kScaleLower, kScaleUpper));
  out.push_back(scalar("hbm_efficiency", "achieved HBM bandwidth scale", &Calibration::hbm, 1,
                       kScaleLower, kScaleUpper));
  out.push_back(scalar("layer_overhead_s", "overhead per layer and micro-batch (s)",
                       &Calibration::layer_s, 0, 0, kLayerUpper));
  for (CommPart part : {CommPart::dp, CommPart::tp, CommPart::pp, CommPart::ep, CommPart::cp}) {
    CalibrationFactor f;
    const size_t i = static_cast<size_t>(part);
    f.key = fmt::format("communication.{}", kCommPartNames[i]);
    f.words = fmt::format("multiplier on the computed {} communication time", kCommPartNames[i]);
    f.is_comm = true;
    f.comm = i;
    f.lower = kCommLower;
    f.upper = kCommUpper;
    out.push_back(std::move(f));
  }
  return out;
}

Calibration identity_calibration(const Device& device) {
  Calibration c;
  c.bandwidth.assign(device.levels.size(), 1.0);
  return c;
}

Device calibrated_device(const Device& device, const Calibration& calibration) {
  Device out = device;
  for (size_t i = 0; i < out.levels.size(); ++i) {
    const double scale = calibration.level_bandwidth(i);
    out.levels[i].link_bandwidth_bytes_per_s *= scale;
    out.levels[i].device_bandwidth_bytes_per_s *= scale;
  }
  return out;
}

std::string calibration_summary(const Calibration& calibration, const Device& device) {
  std::string text;
  for (const CalibrationFactor& f : calibration_factors(device)) {
    const double v = f.get(calibration);
    if (v == f.neutral) continue;
    if (!text.empty()) text += ", ";
    if (f.scalar == &Calibration::step_s)
      text += fmt::format("+{:.1f} ms per step", 1e3 * v);
    else if (f.scalar == &Calibration::layer_s)
      text += fmt::format("+{:.1f} us per layer and micro-batch", 1e6 * v);
    else
      text += fmt::format("{} x {:.3f}", f.words, v);
  }
  if (calibration.allocator_fraction)
    text += fmt::format("{}allocator share {:.1f} % of the dynamic memory",
                        text.empty() ? "" : ", ", 100 * *calibration.allocator_fraction);
  return text.empty() ? "none" : text;
}

}  // namespace ndsearch
