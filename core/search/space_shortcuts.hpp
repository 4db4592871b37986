// SPDX-License-Identifier: Apache-2.0
// space_shortcuts.hpp: the settings that stand for a restriction of one
// dimension (SpaceSettings' recompute_modes and schedules, as the CLI's
// --recompute and --schedule), and a strategy's recompute mode given on its
// own (EvaluateSettings::recompute_mode): each written as the restriction or
// strategy key it stands for, refused where the same key is also given.
#pragma once

#include <string>
#include <vector>

namespace ndsearch {

// `only` with "recompute=..." for `modes` ("off", "selective", "full",
// "auto" = all three) and "schedule=..." for `schedules` (a schedule name or
// "all") added; E-USAGE for a name that is none, or a key `only` restricts.
std::vector<std::string> with_space_shortcuts(std::vector<std::string> only,
                                              const std::vector<std::string>& modes,
                                              const std::vector<std::string>& schedules);

// `strategy` with recompute=`mode` added; E-USAGE for "auto", an unknown
// mode, or a strategy that states recompute itself.
std::string with_recompute_mode(std::string strategy, const std::string& mode);

}  // namespace ndsearch
