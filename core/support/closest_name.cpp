// SPDX-License-Identifier: Apache-2.0
#include "core/support/closest_name.hpp"

#include <algorithm>

#include "core/support/lowercase.hpp"

namespace ndsearch {

size_t edit_distance(std::string_view a, std::string_view b) {
  // d[i][j]: the edits from a's first i letters to b's first j (the optimal
  // string alignment distance: a swap of neighbours counts once, as typists
  // make it: "tpo" is one edit from "top").
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min(
          {d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
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
