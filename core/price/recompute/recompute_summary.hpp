// SPDX-License-Identifier: Apache-2.0
// recompute_summary.hpp: what a recompute strategy chose for a candidate, in
// counts, and the short text the ranking shows ("auto:12F/3S", "auto:4O/10F").
#pragma once

#include <ndsearch/nds_candidate.h>

#include <cstdint>
#include <string>

namespace ndsearch {

struct RecomputeSummary {
  uint32_t full_layers = 0, selective_layers = 0, offloaded_layers = 0;  // over every rank
  bool chosen = false;  // a strategy chose per layer (else the uniform mode)
};

// "auto:<n>O/<n>F/<n>S" (offloaded, fully and selectively recomputed layers,
// those present; "auto:none" when every layer is kept) when a strategy
// chose, else the uniform mode's name.
std::string recompute_text(nds_recompute_mode mode, const RecomputeSummary& summary);

// "keep", "selective", "full", "offload" (nds_layer_option), "?" for another value.
const char* layer_option_name(int32_t option);

}  // namespace ndsearch
