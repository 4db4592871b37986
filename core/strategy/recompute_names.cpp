// SPDX-License-Identifier: Apache-2.0
#include "core/strategy/recompute_names.hpp"

#include <cctype>
#include <string>

namespace ndsearch {

std::optional<nds_recompute_mode> recompute_mode_named(std::string_view name) {
  std::string v;
  for (char c : name) v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "none" || v == "off") return NDS_RECOMPUTE_NONE;
  if (v == "selective") return NDS_RECOMPUTE_SELECTIVE;
  if (v == "full") return NDS_RECOMPUTE_FULL;
  return std::nullopt;
}

}  // namespace ndsearch
