// SPDX-License-Identifier: Apache-2.0
#include "core/support/closest_name.hpp"

#include <algorithm>

#include "core/support/lowercase.hpp"

namespace ndsearch {

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::optional<std::string> closest_name(std::string_view typed,
                                        const std::vector<std::string>& known) {
  const std::string low = lowercase(typed);
  std::optional<std::string> best;
  size_t best_distance = 0;
  for (const std::string& name : known) {
    const size_t d = edit_distance(low, lowercase(name));
    if (!best || d < best_distance) best = name, best_distance = d;
  }
  if (best && best_distance > 0 && best_distance <= std::max<size_t>(2, best->size() / 3))
    return best;
  return std::nullopt;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& known) {
  const auto best = closest_name(typed, known);
  return best ? " (did you mean '" + *best + "'?)" : "";
}

}  // namespace ndsearch
