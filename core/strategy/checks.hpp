// SPDX-License-Identifier: Apache-2.0
// checks.hpp: the validity checks of DESIGN §8.2, one implementation for
// `eval`, `explain` and `search`, each refusal with a stable reason id and a
// message naming the degree and what it must divide. The trainer's stated
// capabilities add their own checks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/model.hpp"

namespace ndsearch {

struct CheckOutcome {
  // "degrees", "devices", "tp-heads", "ep", "cp-seq", "cp-window", "sp-cp", "tp-pow2",
  // "vpp", "schedule", "dualpipe", "layers", "global-batch", "op", "zero", "etp"
  std::string id;
  bool passed = false;
  std::string message;  // why it failed, or what it checked
};

// The trainer's split of the layers (NDS_SPLIT_*) in words, for messages.
const char* split_rule_words(int32_t rule);

// Every check in order, each run (explain shows them all).
std::vector<CheckOutcome> run_checks(const nds_strategy& s, const Model& model, uint64_t devices,
                                     int64_t global_batch);

// The first failing check's id, or nullptr: the search's hot path (no strings
// are built; the same checks as run_checks).
const char* first_refusal_id(const nds_strategy& s, const Model& model, uint64_t devices,
                             int64_t global_batch);

// The first failing check, if any.
std::optional<CheckOutcome> first_refusal(const nds_strategy& s, const Model& model,
                                          uint64_t devices, int64_t global_batch);

}  // namespace ndsearch
