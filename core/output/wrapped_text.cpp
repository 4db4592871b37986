// SPDX-License-Identifier: Apache-2.0
#include "core/output/wrapped_text.hpp"

namespace ndsearch {

std::string wrapped(const std::string& text, size_t width, const std::string& first_indent,
                    const std::string& indent) {
  std::string out, line = first_indent;
  bool line_empty = true;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    start = end + 1;
    if (word.empty()) continue;
    if (!line_empty && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line = indent;
      line_empty = true;
    }
    line += (line_empty ? "" : " ") + word;
    line_empty = false;
  }
  return out + line + "\n";
}

}  // namespace ndsearch
