// SPDX-License-Identifier: Apache-2.0
#include "core/price/recompute/recompute_summary.hpp"

#include <fmt/format.h>

#include "core/model/model_json.hpp"

namespace ndsearch {

std::string recompute_text(nds_recompute_mode mode, const RecomputeSummary& s) {
  if (!s.chosen) return recompute_name(mode);
  std::string parts;
  auto add = [&](uint32_t n, char what) {
    if (n > 0) parts += fmt::format("{}{}{}", parts.empty() ? "" : "/", n, what);
  };
  add(s.offloaded_layers, 'O');
  add(s.full_layers, 'F');
  add(s.selective_layers, 'S');
  return "auto:" + (parts.empty() ? std::string("none") : parts);
}

const char* layer_option_name(int32_t option) {
  switch (option) {
    case NDS_LAYER_KEEP: return "keep";
    case NDS_LAYER_SELECTIVE: return "selective";
    case NDS_LAYER_FULL: return "full";
    case NDS_LAYER_OFFLOAD: return "offload";
    default: return "?";
  }
}

}  // namespace ndsearch
