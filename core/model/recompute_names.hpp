// SPDX-License-Identifier: Apache-2.0
// recompute_names.hpp: the recompute modes by the names users type: ours
// (none, selective, full) and the runtimes' and the reference's `off` for
// none (reference §8.1: "alias none -> off"), case-insensitive. One reader
// for the strategy's `recompute=`, the search's `recompute=` restriction and
// the CLI's --recompute.
#pragma once

#include <ndsearch/nds_model.h>

#include <optional>
#include <string_view>

namespace ndsearch {

std::optional<nds_recompute_mode> recompute_mode_named(std::string_view name);

// The names a message lists.
inline constexpr const char* kRecomputeModeNames = "none (or off), selective or full";

}  // namespace ndsearch
