// SPDX-License-Identifier: Apache-2.0
// unwrapped.hpp: the CLI's prose as one line per paragraph again: it breaks
// lines at the table's width, continuing them indented by four spaces, so a
// test can look for a sentence wherever the break fell.
#pragma once

#include <string>

namespace ndsearch::test {

inline std::string unwrapped(std::string text) {
  for (size_t at = text.find("\n    "); at != std::string::npos; at = text.find("\n    ", at)) {
    size_t end = at + 1;
    while (end < text.size() && text[end] == ' ') ++end;
    text.replace(at, end - at, " ");
  }
  return text;
}

}  // namespace ndsearch::test
