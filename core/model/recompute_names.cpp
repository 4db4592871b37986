// SPDX-License-Identifier: Apache-2.0
#include "core/model/recompute_names.hpp"

#include <string>

#include "core/support/lowercase.hpp"

namespace ndsearch {

std::optional<nds_recompute_mode> recompute_mode_named(std::string_view name) {
  const std::string v = lowercase(name);
  if (v == "none" || v == "off") return NDS_RECOMPUTE_NONE;
  if (v == "selective") return NDS_RECOMPUTE_SELECTIVE;
  if (v == "full") return NDS_RECOMPUTE_FULL;
  return std::nullopt;
}

}  // namespace ndsearch
