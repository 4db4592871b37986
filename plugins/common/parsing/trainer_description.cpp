// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/parsing/trainer_description.hpp"

namespace ndsearch::plugins {
namespace {

// The model vocabulary's capability keys (abi/model-vocabulary.md).
struct CapabilityKey {
  uint64_t bit;
  const char* key;
};
constexpr CapabilityKey kKeys[] = {
    {NDS_CAN_SP_WITH_CP, "capabilities.sp_with_cp"},
    {NDS_NEEDS_POW2_TP, "capabilities.needs_pow2_tp"},
    {NDS_CAN_INTERLEAVE, "capabilities.interleave"},
    {NDS_CAN_ZERO3, "capabilities.zero3"},
    {NDS_CAN_EXPERT_TP, "capabilities.expert_tp"},
    {NDS_NO_ZERO2, "capabilities.no_zero2"},
    {NDS_NO_ZERO1, "capabilities.no_zero1"},
    {NDS_NEEDS_SP_WITH_TP, "capabilities.needs_sp_with_tp"},
    {NDS_NO_GPIPE, "capabilities.no_gpipe"},
    {NDS_NO_ZB_V, "capabilities.no_zb_v"},
    {NDS_NO_DUALPIPE, "capabilities.no_dualpipe"},
    {NDS_NO_DUALPIPE_V, "capabilities.no_dualpipe_v"},
    {NDS_NO_CP_WITH_WINDOW, "capabilities.no_cp_with_window"},
};

}  // namespace

std::string trainer_source(const TrainerDescription& d) {
  return std::string(d.name) + " " + d.release + " (docs/trainers.md)";
}

void state_trainer(const TrainerDescription& d, sdk::Builder& b, uint64_t stated_elsewhere) {
  sdk::Where where;
  where.default_of = trainer_source(d);
  for (const CapabilityKey& k : kKeys)
    if ((stated_elsewhere & k.bit) == 0) b.set(k.key, (d.capabilities & k.bit) != 0 ? 1 : 0, where);
}

}  // namespace ndsearch::plugins
