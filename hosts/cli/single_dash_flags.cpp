// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/single_dash_flags.hpp"

#include <string_view>

namespace ndsearch::cli {

std::vector<const char*> with_double_dash_flags(int argc, const char* const* argv) {
  std::vector<const char*> words(argv, argv + argc);
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word == "--") break;
    if (word == "-ar") words[i] = "--ar";
    if (word == "-ao") words[i] = "--ao";
  }
  return words;
}

}  // namespace ndsearch::cli
