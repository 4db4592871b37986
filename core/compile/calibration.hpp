// SPDX-License-Identifier: Apache-2.0
// calibration.hpp: a user's correction of the time model (and of the
// allocator's share of memory) for their own cluster, fitted on their measured runs (`ndsearch
// compare --fit`) and applied with `--calibration FILE` (docs/cli.md, "Calibration").
//
// Every factor is physical: how much faster or slower than the device's
// figures a class of kernels or a topology level runs there, how much more
// each computed communication time is, and what the trainer adds per step
// and per layer. They act on top of the shipped trainer overheads: a scale
// multiplies the rate the device's figures and the shipped kernel slowdown
// give, an overhead adds to the shipped one. The identity (every scale 1,
// every overhead 0) changes nothing.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "core/hardware/device.hpp"

namespace ndsearch {

// The communication parts the overlap settings can hide, in kHiddenParts' order.
enum class CommPart : size_t { tp, cp, ep, dp, pp };
inline constexpr std::array<const char*, 5> kCommPartNames{"tp", "cp", "ep", "dp", "pp"};

struct Calibration {
  double gemm = 1;       // GEMM efficiency scale: a compute-bound GEMM takes 1 / gemm as long
  double attention = 1;  // attention-kernel efficiency scale, the same for both passes
  double hbm = 1;        // achieved-HBM-bandwidth scale: memory-bound kernels, GEMM traffic
  std::vector<double> bandwidth;  // per topology level, innermost first (empty: all 1)
  std::array<double, 5> communication{1, 1, 1, 1, 1};  // by CommPart, before the overlap
  double step_s = 0;                                   // added per step
  double layer_s = 0;                                  // added per layer and micro-batch
  // Memory, not time: the share of the dynamic memory the allocator holds
  // reserved beyond it (core/compile/allocator_share.hpp), fitted on the
  // user's measured peaks; unset: the shipped fit for the trainer's runtime.
  std::optional<double> allocator_fraction;

  double level_bandwidth(size_t level) const {
    return level < bandwidth.size() ? bandwidth[level] : 1.0;
  }
  double comm(CommPart part) const { return communication[static_cast<size_t>(part)]; }
  bool is_identity() const;
};

// One factor of a calibration for a given device: its key (as the
// calibration file and the fit report name it), its words, its neutral value
// and the bounds the fit and the file keep it in.
struct CalibrationFactor {
  std::string key;    // "gemm_efficiency", "bandwidth[1]", "communication.tp", ...
  std::string words;  // "GEMM efficiency scale", "bandwidth of level 1 (NDR InfiniBand, ...)"
  double neutral = 1, lower = 0, upper = 0;
  double Calibration::*scalar = nullptr;  // the member, or
  size_t level = 0;                       // the bandwidth level when `is_level`
  bool is_level = false;
  size_t comm = 0;  // the CommPart when `is_comm`
  bool is_comm = false;

  double get(const Calibration& c) const;
  void set(Calibration& c, double value) const;
};

// The allocator share's key in a calibration file ([factors]) and its
// bounds: a share of the dynamic memory.
inline constexpr const char* kAllocatorFactorKey = "allocator_fraction";
inline constexpr double kAllocatorShareLower = 0, kAllocatorShareUpper = 0.5;

// The factors of a calibration on `device`, in the fit's priority order
// (docs/cli.md): the per-step overhead, the GEMM scale, the bandwidth of each
// topology level from the outermost in, the attention scale, the HBM scale,
// the per-layer overhead, then the communication multipliers dp, tp, pp, ep, cp.
std::vector<CalibrationFactor> calibration_factors(const Device& device);

// The identity calibration of `device` (its bandwidth list sized to the levels).
Calibration identity_calibration(const Device& device);

// `device` with each topology level's bandwidths scaled by the calibration.
Device calibrated_device(const Device& device, const Calibration& calibration);

// "GEMM efficiency x 0.900, bandwidth of level 1 x 0.700, +50.0 ms per step"
// (the factors that differ from neutral), or "none" for the identity.
std::string calibration_summary(const Calibration& calibration, const Device& device);

}  // namespace ndsearch
