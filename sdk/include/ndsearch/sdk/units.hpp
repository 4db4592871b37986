// SPDX-License-Identifier: Apache-2.0
// units.hpp: sizes written by people ("58GB", "512MB", "64GiB") in bytes, read
// the way the frameworks and ndsearch read them (DESIGN §8.5): GB and GiB are
// 2^30 bytes, MB and MiB 2^20, KB and KiB 2^10, TB and TiB 2^40.
#ifndef NDSEARCH_SDK_UNITS_HPP_INCLUDED
#define NDSEARCH_SDK_UNITS_HPP_INCLUDED

#include <cctype>  // std::isdigit, std::isspace, std::tolower
#include <cmath>   // std::llround
#include <cstdint>
#include <cstdlib>  // std::strtod
#include <optional>
#include <string>
#include <string_view>

namespace ndsearch::sdk {

// Bytes in a GiB (and in a "GB" as DESIGN §8.5 reads it): what every size
// printed in GiB is divided by.
inline constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

// nullopt when `text` is not a number followed by one of those units (spaces
// and case are ignored: "58 gb" is 58 GiB).
inline std::optional<int64_t> memory_size_bytes(std::string_view text) {
  std::string s;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c)))
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t unit = 0;
  while (unit < s.size() && (std::isdigit(static_cast<unsigned char>(s[unit])) || s[unit] == '.'))
    ++unit;
  if (unit == 0) return std::nullopt;
  const double number = std::strtod(s.substr(0, unit).c_str(), nullptr);
  const std::string suffix = s.substr(unit);
  double scale = 0;
  if (suffix == "kb" || suffix == "kib")
    scale = 1024.0;
  else if (suffix == "mb" || suffix == "mib")
    scale = 1024.0 * 1024;
  else if (suffix == "gb" || suffix == "gib")
    scale = kBytesPerGiB;
  else if (suffix == "tb" || suffix == "tib")
    scale = kBytesPerGiB * 1024;
  else
    return std::nullopt;
  return static_cast<int64_t>(std::llround(number * scale));
}

}  // namespace ndsearch::sdk

#endif  // NDSEARCH_SDK_UNITS_HPP_INCLUDED
