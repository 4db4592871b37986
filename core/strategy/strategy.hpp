// SPDX-License-Identifier: Apache-2.0
// strategy.hpp: the strategy keys of DESIGN §8.1: read from a --strategy
// string, and resolved against the config's stated strategy, the device count
// and the global batch.
#pragma once

#include <ndsearch/nds_model.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/model.hpp"

namespace ndsearch {

// A strategy whose unset keys are NDS_UNKNOWN (enumerations too).
nds_strategy unset_strategy();

// "dp=8,tp=4,pp=4,recompute=full" (also `MP` for tp, `MB` for mbn, any case).
// Throws UserError E-STRATEGY naming the key or value and the accepted ones.
nds_strategy parse_strategy(std::string_view text);

// Where each resolved key came from: "--strategy", "config", "derived: ...",
// "default: 1" (the default stated with its value or rule).
using StrategySources = std::map<std::string, std::string>;

// Fills every key: --strategy first; then for dp the device count
// (devices / (tp·pp·cp)) and for mbn the global batch (gb / (dp·mbs)) when
// they are known, as the command line states them for this run; then the
// config's stated value; then the defaults of DESIGN §8.1. `devices` 0 and
// `global_batch` NDS_UNKNOWN mean unknown. A key that cannot be resolved
// (dp without devices, say) stays NDS_UNKNOWN and the checks refuse it.
nds_strategy resolve_strategy(const nds_strategy& given, const Model& model, uint64_t devices,
                              int64_t global_batch, StrategySources* sources = nullptr);

// The sharding group (op) a run of `shardable` = dp·cp devices per replica
// takes from the config's stated strategy, the one rule every verb applies:
// a stated partial group that divides dp·cp is kept; a stated whole group
// (op = the config's dp·cp) follows this run's dp·cp, as mbn follows dp; a
// stated group that does not divide dp·cp is adapted to dp·cp, the
// reference's rule for a shard size that does not divide (reference/
// nd_behaviour.md, "Optimizer / gradient sharding": os_max_shard if it
// divides d, else d). `why` says which, for the output (an assumption).
struct StatedOp {
  int64_t op = 0;
  std::string why;
};
StatedOp op_from_config(const nds_strategy& stated, int64_t shardable);

// "dp=2,tp=8,pp=4,cp=1,ep=1,etp=8,vpp=1,sp=1,zero=1,op=2,mbs=1,mbn=32,recompute=full,schedule=1f1b"
std::string strategy_text(const nds_strategy& s);

// The keys where `to` differs from `from`, as "tp 8 -> 4", in the order of strategy_text.
std::vector<std::string> strategy_changes(const nds_strategy& from, const nds_strategy& to);

// `s` with the keys that mean nothing in context written as the search
// enumerates them: etp = tp and ep = 1 on a model without routed experts,
// sp = 0 at tp = 1.
nds_strategy normalized_strategy(const nds_strategy& s, const Model& model);

// The devices the config runs: its stated dp·tp·pp·cp (cp unstated: 1),
// saturated as degree_product; 0 when it leaves dp, tp or pp unstated.
uint64_t stated_devices(const Model& model);

// Whether two strategies have the same keys (struct_size aside).
bool same_keys(const nds_strategy& a, const nds_strategy& b);

}  // namespace ndsearch
