// SPDX-License-Identifier: Apache-2.0
// schedule_names.hpp: the pipeline schedules by the names users type and
// outputs print, one table for the model builder's `schedule` key, the
// strategy's `schedule=`, the search's `schedule=` restriction and the JSON.
#pragma once

#include <ndsearch/nds_model.h>

#include <optional>
#include <string_view>

namespace ndsearch {

struct ScheduleName {
  const char* name;
  nds_schedule schedule;
};
inline constexpr ScheduleName kScheduleNames[] = {
    {"1f1b", NDS_SCHEDULE_1F1B},         {"interleaved", NDS_SCHEDULE_INTERLEAVED},
    {"gpipe", NDS_SCHEDULE_GPIPE},       {"zb-v", NDS_SCHEDULE_ZB_V},
    {"dualpipe", NDS_SCHEDULE_DUALPIPE}, {"dualpipe-v", NDS_SCHEDULE_DUALPIPE_V}};

// The names a message lists.
inline constexpr const char* kScheduleNameList =
    "1f1b, interleaved, gpipe, zb-v, dualpipe or dualpipe-v";

// Case-insensitive; nullopt for an unknown name.
std::optional<nds_schedule> schedule_named(std::string_view name);

// DeepSeek's DualPipe or DualPipe-V: a forward paired with a backward (F&B).
inline bool is_dualpipe(nds_schedule schedule) {
  return schedule == NDS_SCHEDULE_DUALPIPE || schedule == NDS_SCHEDULE_DUALPIPE_V;
}

// Whether `schedule` runs two chunks per rank whatever else (zb-v and both DualPipes: vpp 2).
inline bool runs_two_chunks(nds_schedule schedule) {
  return schedule == NDS_SCHEDULE_ZB_V || is_dualpipe(schedule);
}

// Whether `schedule` runs `vpp` chunks per rank: 1f1b and gpipe one,
// interleaved more, zb-v and the DualPipes two.
inline bool runs_with_vpp(nds_schedule schedule, int64_t vpp) {
  if (runs_two_chunks(schedule)) return vpp == 2;
  return (vpp > 1) == (schedule == NDS_SCHEDULE_INTERLEAVED);
}

// The capability bit (NDS_NO_*) a trainer sets when it does not run
// `schedule`; 0 for 1F1B and interleaved 1F1B (NDS_CAN_INTERLEAVE says
// that one), which no bit of this kind names.
inline uint64_t schedule_lacked_bit(nds_schedule schedule) {
  switch (schedule) {
    case NDS_SCHEDULE_GPIPE: return NDS_NO_GPIPE;
    case NDS_SCHEDULE_ZB_V: return NDS_NO_ZB_V;
    case NDS_SCHEDULE_DUALPIPE: return NDS_NO_DUALPIPE;
    case NDS_SCHEDULE_DUALPIPE_V: return NDS_NO_DUALPIPE_V;
    default: return 0;
  }
}

}  // namespace ndsearch
