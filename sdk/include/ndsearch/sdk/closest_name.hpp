// SPDX-License-Identifier: Apache-2.0
// closest_name.hpp: "did you mean ...?" for a name typed wrong: the known
// name within a third of its letters (at least 2 edits) of the typed one.
// The host's and the parsers' one rule (a parser refusing a value it knows
// the valid names of says the closest).
#ifndef NDSEARCH_SDK_CLOSEST_NAME_HPP_INCLUDED
#define NDSEARCH_SDK_CLOSEST_NAME_HPP_INCLUDED

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ndsearch::sdk {

// Edits from a to b: one edit is one letter inserted, deleted or changed, or
// two neighbouring letters swapped (the optimal string alignment distance:
// "tpo" is one edit from "top", as typists make it).
inline size_t edit_distance(std::string_view a, std::string_view b) {
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

// The known name closest to `typed` (ASCII case ignored), when close enough
// to be a typo; the first of equals in `known`'s order.
inline std::optional<std::string> closest_name(std::string_view typed,
                                               const std::vector<std::string>& known) {
  auto lower = [](std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  const std::string low = lower(typed);
  std::optional<std::string> best;
  size_t best_distance = 0;
  for (const std::string& name : known) {
    const size_t d = edit_distance(low, lower(name));
    if (!best || d < best_distance) best = name, best_distance = d;
  }
  if (best && best_distance > 0 && best_distance <= std::max<size_t>(2, best->size() / 3))
    return best;
  return std::nullopt;
}

// " (did you mean 'x'?)" for the closest name, else "".
inline std::string did_you_mean(std::string_view typed, const std::vector<std::string>& known) {
  const auto best = closest_name(typed, known);
  return best ? " (did you mean '" + *best + "'?)" : "";
}

}  // namespace ndsearch::sdk

#endif  // NDSEARCH_SDK_CLOSEST_NAME_HPP_INCLUDED
