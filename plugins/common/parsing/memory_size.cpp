// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/parsing/memory_size.hpp"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

namespace ndsearch::plugins {

std::optional<int64_t> memory_size_bytes(std::string_view text) {
  std::string s;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t unit = 0;
  while (unit < s.size() && (std::isdigit(static_cast<unsigned char>(s[unit])) || s[unit] == '.')) ++unit;
  if (unit == 0) return std::nullopt;
  const double number = std::strtod(s.substr(0, unit).c_str(), nullptr);
  const std::string suffix = s.substr(unit);
  double scale = 0;
  if (suffix == "kb" || suffix == "kib") scale = 1024.0;
  else if (suffix == "mb" || suffix == "mib") scale = 1024.0 * 1024;
  else if (suffix == "gb" || suffix == "gib") scale = 1024.0 * 1024 * 1024;
  else if (suffix == "tb" || suffix == "tib") scale = 1024.0 * 1024 * 1024 * 1024;
  else return std::nullopt;
  return static_cast<int64_t>(std::llround(number * scale));
}

}  // namespace ndsearch::plugins
