// SPDX-License-Identifier: Apache-2.0
#include "core/compile/allocator_share.hpp"

#include <fmt/format.h>

namespace ndsearch {

const char* allocator_runtime(const std::string& trainer_family) {
  return trainer_family == "mindspore" ? "mindspore" : "pytorch";
}

const std::vector<FittedAllocator>& fitted_allocators() {
  static const std::vector<FittedAllocator> kFits = {
#include "core/compile/fitted_allocator.inc"
  };
  return kFits;
}

AllocatorShare allocator_share(const Model& model) {
  if (model.allocator_fraction) return {*model.allocator_fraction, model.allocator_fraction_source};
  const std::string runtime = allocator_runtime(trainer_family(model));
  const FittedAllocator* pytorch = nullptr;
  for (const FittedAllocator& f : fitted_allocators()) {
    if (runtime == f.runtime)
      return {f.fraction, fmt::format("{}'s allocator, fitted on the measured peaks of {}", runtime,
                                      f.fitted_on)};
    if (std::string(f.runtime) == "pytorch") pytorch = &f;
  }
  if (pytorch == nullptr) return {0, fmt::format("{}'s allocator: no fit", runtime)};
  return {pytorch->fraction, fmt::format("{}'s allocator has no measured peak to fit on: PyTorch's "
                                         "caching allocator's, fitted on {}",
                                         runtime, pytorch->fitted_on)};
}

nds_compile_input compile_input(Model& model, const nds_device* device) {
  return {sizeof(nds_compile_input), &model.view(), device, allocator_share(model).fraction};
}

}  // namespace ndsearch
