// SPDX-License-Identifier: Apache-2.0
#include "core/price/time/pipeline_schedule.hpp"

#include <algorithm>
#include <stdexcept>

namespace ndsearch {

namespace {

struct Op {
  PipelineOp op;
  uint32_t micro_batch, chunk;
};

// The `index`-th op of rank `rank` in the schedule's order (the header says whose).
Op op_at(const nds_strategy& s, uint32_t rank, uint32_t index) {
  const auto p = static_cast<uint32_t>(s.pp), v = static_cast<uint32_t>(s.vpp),
             m = static_cast<uint32_t>(s.mbn);
  if (s.schedule == NDS_SCHEDULE_GPIPE)
    return index < m ? Op{PipelineOp::forward, index, 0} : Op{PipelineOp::backward, index - m, 0};
  // 1F1B is the interleaved order with one chunk: p - r - 1 warm-up forwards.
  const uint32_t steps = m * v;
  const uint32_t warm_up =
      v == 1 ? std::min(p - rank - 1, m) : std::min((p - rank - 1) * 2 + (v - 1) * p, steps);
  auto forward = [&](uint32_t k) {
    return Op{PipelineOp::forward, k / (p * v) * p + k % p, k / p % v};
  };
  auto backward = [&](uint32_t k) {
    return Op{PipelineOp::backward, k / (p * v) * p + k % p, v - 1 - k / p % v};
  };
  if (v == 1) {  // micro-batch k on the only chunk
    if (index < warm_up) return {PipelineOp::forward, index, 0};
    const uint32_t k = index - warm_up, pairs = 2 * (m - warm_up);
    if (k < pairs)
      return k % 2 == 0 ? Op{PipelineOp::forward, warm_up + k / 2, 0}
                        : Op{PipelineOp::backward, k / 2, 0};
    return {PipelineOp::backward, m - warm_up + (k - pairs), 0};
  }
  if (index < warm_up) return forward(index);
  const uint32_t k = index - warm_up, pairs = 2 * (steps - warm_up);
  if (k < pairs) return k % 2 == 0 ? forward(warm_up + k / 2) : backward(k / 2);
  return backward(steps - warm_up + (k - pairs));
}

}  // namespace

bool simulated_schedule(int32_t schedule) {
  return schedule == NDS_SCHEDULE_1F1B || schedule == NDS_SCHEDULE_INTERLEAVED ||
         schedule == NDS_SCHEDULE_GPIPE;
}

double PipelineRun::run(const nds_strategy& s, const ChunkTimes* times,
                        std::vector<PipelineSlice>* slices) {
  const auto p = static_cast<uint32_t>(s.pp), v = static_cast<uint32_t>(s.vpp),
             m = static_cast<uint32_t>(s.mbn);
  const uint32_t stages = p * v, ops_per_rank = 2 * m * v;
  constexpr double kNotYet = -1;
  forward_end_.assign(static_cast<size_t>(m) * stages, kNotYet);
  backward_end_.assign(static_cast<size_t>(m) * stages, kNotYet);
  next_op_.assign(p, 0);
  rank_free_.assign(p, 0);
  if (slices != nullptr) slices->clear();
  uint64_t left = static_cast<uint64_t>(ops_per_rank) * p;
  while (left > 0) {
    bool progressed = false;
    // Each rank runs its ops in order until one waits for another rank's.
    for (uint32_t r = 0; r < p; ++r) {
      for (uint32_t& next = next_op_[r]; next < ops_per_rank; ++next) {
        const Op op = op_at(s, r, next);
        const uint32_t stage = op.chunk * p + r;
        const size_t at = static_cast<size_t>(op.micro_batch) * stages + stage;
        double ready = 0;
        if (op.op == PipelineOp::forward) {
          if (stage > 0) ready = forward_end_[at - 1];
        } else {
          ready = stage + 1 == stages ? forward_end_[at] : backward_end_[at + 1];
        }
        if (ready == kNotYet) break;
        const ChunkTimes& t = times[static_cast<size_t>(r) * v + op.chunk];
        const double start = std::max(rank_free_[r], ready);
        const double end = start + (op.op == PipelineOp::forward ? t.forward : t.backward);
        (op.op == PipelineOp::forward ? forward_end_ : backward_end_)[at] = end;
        rank_free_[r] = end;
        --left;
        progressed = true;
        if (slices != nullptr) slices->push_back({r, op.chunk, op.micro_batch, op.op, start, end});
      }
    }
    // A schedule whose ranks all wait on each other is a bug in op_at.
    if (!progressed) throw std::logic_error("pipeline schedule deadlocked");
  }
  if (slices != nullptr)
    std::stable_sort(
        slices->begin(), slices->end(),
        [](const PipelineSlice& a, const PipelineSlice& b) { return a.rank < b.rank; });
  return *std::max_element(rank_free_.begin(), rank_free_.end());
}

}  // namespace ndsearch
