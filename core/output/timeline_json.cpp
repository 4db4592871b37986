// SPDX-License-Identifier: Apache-2.0
#include "core/output/timeline_json.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include <utility>

#include "core/model/model_json.hpp"
#include "core/price/time/pipeline_schedule.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {

using nlohmann::json;

namespace {

constexpr double kMicroseconds = 1e6;

json slice(const char* name, const char* category, uint32_t rank, double start_s, double seconds,
           json args) {
  return {{"name", name},
          {"cat", category},
          {"ph", "X"},
          {"pid", 0},
          {"tid", rank},
          {"ts", start_s * kMicroseconds},
          {"dur", seconds * kMicroseconds},
          {"args", std::move(args)}};
}

}  // namespace

json timeline_json(const StrategyEvaluation& e) {
  if (!e.valid() || !e.time || e.chunk_times.empty())
    throw UserError(
        "E-USAGE",
        fmt::format("{}: only a strategy that passes the checks and is priced has a timeline",
                    Setting("timeline").named()));
  const nds_strategy& s = e.strategy;
  if (!simulated_schedule(s.schedule))
    throw UserError(
        "E-USAGE",
        fmt::format("{}: the {} schedule is priced in closed form (docs/pipelines.md) and "
                    "not run op by op yet; a timeline is drawn for 1f1b, interleaved and gpipe",
                    Setting("timeline").named(), schedule_name(s.schedule)));
  PipelineRun pipeline;
  std::vector<PipelineSlice> slices;
  const double run_s = pipeline.run(s, e.chunk_times.data(), &slices);
  const TimeEstimate& t = *e.time;
  json events = json::array();
  events.push_back(
      {{"name", "process_name"}, {"ph", "M"}, {"pid", 0}, {"args", {{"name", e.model_name}}}});
  for (int32_t rank = 0; rank < s.pp; ++rank)
    events.push_back({{"name", "thread_name"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"tid", rank},
                      {"args", {{"name", fmt::format("pipeline rank {}", rank)}}}});
  for (const PipelineSlice& x : slices) {
    const ChunkTimes& c = e.chunk_times[static_cast<size_t>(x.rank) * s.vpp + x.chunk];
    const json args = {{"micro_batch", x.micro_batch}, {"chunk", x.chunk}};
    double at = x.start;
    auto add = [&](const char* name, const char* category, double seconds) {
      if (seconds <= 0) return;
      events.push_back(slice(name, category, x.rank, at, seconds, args));
      at += seconds;
    };
    // The rank's busy time of each op, split as the time model prices it.
    if (x.op == PipelineOp::forward) {
      add("forward", "forward", c.forward - c.send);
    } else {
      add("recompute", "recompute", c.recompute);
      add("backward", "backward", c.backward - c.recompute - c.send);
    }
    add("send", "pp", c.send);
  }
  // After the last backward, what the step adds on every rank: the exposed
  // gradient reduction and parameter gathers, the optimizer step, the overheads.
  const double rest = t.step_s - t.pipeline_s;
  for (int32_t rank = 0; rank < s.pp; ++rank) {
    double at = run_s;
    for (auto [name, part] :
         {std::pair{"dp", t.parts.dp}, std::pair{"optimizer", t.parts.optimizer},
          std::pair{"step overhead", rest - t.parts.dp - t.parts.optimizer}}) {
      if (part <= 0) continue;
      events.push_back(slice(name, "step", static_cast<uint32_t>(rank), at, part, json::object()));
      at += part;
    }
  }
  return {{"traceEvents", std::move(events)},
          {"displayTimeUnit", "ms"},
          {"otherData",
           {{"strategy", strategy_text(s)},
            {"predicted_step_s", t.step_s},
            {"predicted_pipeline_s", t.pipeline_s},
            {"simulated_pipeline_s", run_s},
            {"simulated_step_s", run_s + rest}}}};
}

}  // namespace ndsearch
