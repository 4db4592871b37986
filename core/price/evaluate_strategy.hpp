// SPDX-License-Identifier: Apache-2.0
// evaluate_strategy.hpp: one strategy resolved, checked and priced (DESIGN
// §8.2-§8.7): memory per pipeline stage by term against the budget, then the
// step time and MFU. The one pricing of a single strategy, which `eval`,
// `explain` and the rows `search` lists all use.
#pragma once

#include <ndsearch/nds_memory.h>
#include <ndsearch/nds_model.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/input/machine.hpp"
#include "core/model/model.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/price/memory/budget.hpp"
#include "core/price/recompute/recompute_settings.hpp"
#include "core/price/recompute/recompute_summary.hpp"
#include "core/price/time/time_model.hpp"
#include "core/strategy/strategy.hpp"

namespace ndsearch {

struct EvaluationRequest {
  std::string strategy;  // "tp=4,pp=4,recompute=full"; unset keys: the config's, then the defaults
  uint64_t devices = 0;  // 0: the product of the strategy's degrees
  // Sizes as the user wrote them ("58GB"): instead of the device's memory,
  // and to keep free beside the runtime's reserve (memory_budget).
  std::optional<std::string> max_memory, reserve_mem;
  bool layers_from_config = false;  // the config's per-stage layers instead of the default split
  std::vector<uint32_t>
      stage_layers;          // decoder layers per stage instead of either (a balanced search's)
  std::string cp_algorithm;  // empty: the config's, else ring
  Calibration calibration;   // a user's, on top of the trainer overheads (identity: none)
  // A strategy that chooses each layer's recompute when the strategy, with
  // every layer kept, does not fit (recompute_settings.hpp); empty: none.
  RecomputeSettings recompute;
};

struct StrategyRefusal {
  std::string id;  // a check's id (checks.hpp) or "cp-<algorithm>"
  std::string reason;
};

struct StageMemory {
  uint32_t layers = 0;  // over the stage's chunks
  // The layers recomputed under the strategy's mode, and where: per chunk its
  // first ones (reference §5.1), as [first, last] model-order layer indices.
  uint32_t recomputed_layers = 0;
  std::vector<std::array<uint32_t, 2>> recomputed_ranges;
  // When a recompute strategy chose per layer: each run of layers of one
  // option, [first, last] model-order indices and the nds_layer_option.
  struct LayerRun {
    uint32_t first = 0, last = 0;
    int32_t option = NDS_LAYER_KEEP;
  };
  std::vector<LayerRun> layer_options;
  RecomputeSummary recompute;  // this stage's counts (chosen: a strategy chose)
  std::array<double, NDS_MEMORY_TERM_COUNT_V1>
      bytes{};             // by nds_memory_term, CP working set in comm buffers
  int64_t peak_bytes = 0;  // the sum of the terms as whole bytes (whole_bytes), saturated
};

struct StrategyEvaluation {
  std::string model_name;  // the config's model name, else its file
  std::string config_file, framework, device_id;
  uint64_t devices_requested = 0;           // as the request gave them (0: none)
  std::optional<int64_t> strategy_devices;  // dp·tp·pp·cp, while every one of them is known
  nds_strategy strategy{};                  // resolved
  StrategySources sources;
  std::optional<StrategyRefusal> refusal;  // a check's, else the CP algorithm's
  bool valid() const { return !refusal.has_value(); }

  // Priced, when valid:
  std::vector<StageMemory> stages;  // by pipeline rank
  int64_t peak_bytes = 0;           // the largest stage's
  Budget budget;
  bool fits = false;                       // peak_bytes <= budget.budget_bytes
  std::vector<std::string> memory_passes;  // ids, in the order they run
  std::optional<TimeEstimate> time;
  // Each chunk's seconds per micro-batch, [rank·vpp + chunk], as `time` prices them (the
  // timeline's).
  std::vector<ChunkTimes> chunk_times;
  RecomputeSummary recompute;            // what a recompute strategy chose, over every stage
  std::vector<std::string> assumptions;  // of the time model

  std::vector<std::string> warnings;  // the model's, and what is not priced yet

  // A vision-language model's towers, when valid: their parameters, the
  // bytes they add to each pipeline rank (the memory passes run again on
  // the same placement over the model without them) and the rank that holds
  // them (the one they add most to).
  struct Towers {
    double params = 0;
    std::vector<double> stage_bytes;
    size_t stage = 0;
  };
  std::optional<Towers> towers;
};

// Throws UserError as the pricing does: E-STRATEGY (a strategy that does not
// read), E-PLACEMENT, E-MEMORY-REFUSED (a memory pass refused the strategy, or
// the CP algorithm gave a working set that is not a byte count), E-CP-ALGO,
// the budget's E-USAGE / E-BUDGET, E-MISSING-VALUES (before the checks: the
// devices, global batch, sequence length or vocabulary it lacks, all at
// once). A strategy a check refuses is not an error: it comes back with
// `refusal` set. No devices requested: a fast-tuner setup's, else the
// strategy's dp·tp·pp·cp.
StrategyEvaluation evaluate_strategy(const PluginRegistry& registry, Model& model,
                                     const Machine& machine, const EvaluationRequest& request);

// The machine one strategy is priced on: `devices` of `device`, or one while
// the count is 0 (the strategy's product, known once it is resolved; pricing
// reads the device, and the count from the request or the strategy).
Machine evaluation_machine(const DeviceCatalog& catalog, std::string_view device, uint64_t devices);

}  // namespace ndsearch
