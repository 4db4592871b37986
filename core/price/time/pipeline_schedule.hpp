// SPDX-License-Identifier: Apache-2.0
// pipeline_schedule.hpp: runs a pipeline schedule over its micro-batches, op
// by op, from each chunk's forward and backward seconds: when each rank
// starts and ends each forward and backward, and when the last one ends.
// `explain --timeline` draws it over the chunk seconds the time model prices;
// the time model's closed forms agree with it exactly where the last rank is
// the slowest, and bound it otherwise (docs/pipelines.md).
//
// The orders are the trainers' own: GPipe runs every forward, then every
// backward; 1F1B (Narayanan et al. 2021 §2.2, PipeDream-Flush) runs p - r - 1
// forwards on rank r, then one forward and one backward in turn, then the
// rest of the backwards; Megatron's interleaved 1F1B (§2.2.2) runs
// (p - r - 1)·2 + (v - 1)·p chunk forwards first, forward step k taking
// micro-batch (k / pv)·p + k mod p on chunk (k / p) mod v, and backward
// step k the same micro-batch on chunk v - 1 - (k / p) mod v. A forward
// waits for the one before it in model order, a backward for the one after
// it (the last virtual stage's for its own forward); each waits for its rank.
#pragma once

#include <ndsearch/nds_candidate.h>

#include <cstdint>
#include <vector>

namespace ndsearch {

// One micro-batch on one chunk, in seconds: what its forward and backward
// keep the rank busy (compute, the communication that is exposed, the
// trainer's overhead, the sends to the next rank), and of the backward, what
// recomputation runs first. Indexed [rank·vpp + chunk], as nds_candidate.
struct ChunkTimes {
  double forward = 0, backward = 0;
  double recompute = 0;  // of `backward`
  double send = 0;       // of `forward` and of `backward` each: the exposed send to the next rank
};

enum class PipelineOp : uint8_t { forward, backward };

struct PipelineSlice {
  uint32_t rank = 0, chunk = 0, micro_batch = 0;
  PipelineOp op = PipelineOp::forward;
  double start = 0, end = 0;
};

// Whether `run` follows schedule `schedule` op by op (1F1B, interleaved,
// GPipe); the others (zb-v) keep their closed form in the time model.
bool simulated_schedule(int32_t schedule);

class PipelineRun {
 public:
  // Seconds from the first forward's start to the last backward's end, for
  // the schedule, pp, vpp and mbn of `s` (a strategy that passed the checks,
  // simulated_schedule(s.schedule)); `times` has pp·vpp entries. With
  // `slices`, every forward and backward in the order they run on each rank
  // (rank-major). Reuses its room: no allocation once it has grown.
  double run(const nds_strategy& s, const ChunkTimes* times,
             std::vector<PipelineSlice>* slices = nullptr);

 private:
  std::vector<double> forward_end_, backward_end_;  // [micro-batch·pp·vpp + virtual stage]
  std::vector<uint32_t> next_op_;                   // per rank
  std::vector<double> rank_free_;                   // per rank
};

}  // namespace ndsearch
