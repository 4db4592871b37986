// SPDX-License-Identifier: Apache-2.0
// fitted_overheads.cpp: the trainer overheads fitted on the published runs of
// validation/ (`ndsearch_validate --fit` writes fitted_overheads.inc; the
// procedure and the leave-one-out errors are in docs/validation.md).
#include "core/compile/trainer_settings.hpp"

namespace ndsearch {

const std::vector<FittedOverheads>& fitted_overheads() {
  static const std::vector<FittedOverheads> kFits = {
#include "core/compile/fitted_overheads.inc"
  };
  return kFits;
}

}  // namespace ndsearch
