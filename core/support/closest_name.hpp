// SPDX-License-Identifier: Apache-2.0
// closest_name.hpp: "did you mean ...?" for a name typed wrong: the known
// name within a third of its letters (at least 2 edits) of the typed one.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ndsearch {

// Edits from a to b: one edit is one letter inserted, deleted or changed, or
// two neighbouring letters swapped.
size_t edit_distance(std::string_view a, std::string_view b);

// The known name closest to `typed` (case ignored), when close enough to be a
// typo; the first of equals in `known`'s order.
std::optional<std::string> closest_name(std::string_view typed,
                                        const std::vector<std::string>& known);

// " (did you mean 'x'?)" for the closest name, else "".
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& known);

}  // namespace ndsearch
