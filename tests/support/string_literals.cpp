// SPDX-License-Identifier: Apache-2.0
#include "tests/support/string_literals.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>

namespace ndsearch::test {
namespace {

bool identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

}  // namespace

std::vector<Literal> string_literals(const std::string& s) {
  std::vector<Literal> out;
  size_t line = 1;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\n') ++line;
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      ++line;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const size_t end = s.find("*/", i + 2);
      const size_t stop = end == std::string::npos ? s.size() : end + 2;
      line += static_cast<size_t>(std::count(s.begin() + static_cast<std::ptrdiff_t>(i),
                                             s.begin() + static_cast<std::ptrdiff_t>(stop), '\n'));
      i = stop - 1;
    } else if (c == '\'' && (i == 0 || !identifier_char(s[i - 1]))) {  // a char literal, not 10'000
      for (++i; i < s.size() && s[i] != '\''; ++i)
        if (s[i] == '\\') ++i;
    } else if (c == '"' && i > 0 && s[i - 1] == 'R') {
      const size_t paren = s.find('(', i);
      std::string close(")");
      close.append(std::string_view(s).substr(i + 1, paren - i - 1));
      close.push_back('"');
      const size_t end = s.find(close, paren);
      const std::string text = s.substr(paren + 1, end - paren - 1);
      out.push_back({line, text});
      line += static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
      i = end + close.size() - 1;
    } else if (c == '"') {
      std::string text;
      for (++i; i < s.size() && s[i] != '"'; ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) text += s[i++];
        text += s[i];
      }
      out.push_back({line, text});
    }
  }
  return out;
}

}  // namespace ndsearch::test
