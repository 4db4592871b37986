// SPDX-License-Identifier: Apache-2.0
// lowercase.hpp: ASCII lower case, for reading the names users type
// (recompute modes, dimensions, strategy keys, CSV headers) case-blind;
// and upper case, for the dimensions as the reference's -l spells them.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

namespace ndsearch {

inline std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

inline std::string uppercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace ndsearch
