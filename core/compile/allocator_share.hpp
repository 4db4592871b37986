// SPDX-License-Identifier: Apache-2.0
// allocator_share.hpp: the share of a rank's dynamic memory (activations and
// communication buffers, allocated and freed every micro-batch) that the
// runtime's allocator holds reserved beyond the tensors at the peak: the
// caching allocator's block rounding and the segments it cannot hand back
// to a request of another size. The static parameters and optimizer states
// are allocated once and do not fragment. One global factor per runtime,
// fitted on the measured (reserved) peaks of validation/memory/ with the
// documented fitter (docs/validation.md, "Memory: measured peaks"). A
// Model may carry another (Model::allocator_fraction: the fitters' trial
// values, or a user's calibration, apply_memory_calibration).
#pragma once

#include <ndsearch/nds_candidate.h>

#include <string>
#include <vector>

#include "core/model/model.hpp"

namespace ndsearch {

// The allocator a trainer family's runs use: "pytorch" (PyTorch's caching
// allocator: Megatron, NeMo, torchtitan on CUDA, and MindSpeed, whose
// torch_npu allocator is a port of it) or "mindspore" (MindSpore's memory
// pool: MindFormers, HyperParallel).
const char* allocator_runtime(const std::string& trainer_family);

// One runtime's fit (core/compile/fitted_allocator.inc, written by
// `ndsearch-validate --write-allocator`).
struct FittedAllocator {
  const char* runtime;
  double fraction;
  const char* fitted_on;  // the validation sources
};
const std::vector<FittedAllocator>& fitted_allocators();

struct AllocatorShare {
  double fraction = 0;
  std::string words;  // where it comes from, as the assumption says it
};

// The share for `model`: Model::allocator_fraction when set, else
// the fit of its trainer's runtime, else (a runtime with no measured peak to
// fit on) the PyTorch fit, said so.
AllocatorShare allocator_share(const Model& model);

// The compile input of a compile-once plugin for `model` on `device` (the
// allocator share included, ABI 1.10).
nds_compile_input compile_input(Model& model, const nds_device* device);

}  // namespace ndsearch
