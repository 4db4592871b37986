// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/parsing/json_lines.hpp"

#include <vector>

namespace ndsearch::plugins {

std::map<std::string, int64_t> json_key_lines(std::string_view text) {
  std::map<std::string, int64_t> lines;
  std::vector<std::string> path;  // the container each level is the value of
  std::string last_string;
  bool have_string = false;
  int64_t line = 1, string_line = 1;
  std::string pending_key;  // a key whose value has not started yet
  auto prefix = [&] {
    std::string p;
    for (const std::string& part : path)
      if (!part.empty()) p += part + ".";
    return p;
  };
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (c == '"') {
      std::string s;
      string_line = line;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) s += text[++i];
        else s += text[i];
        if (text[i] == '\n') ++line;
      }
      last_string = s;
      have_string = true;
      continue;
    }
    if (c == ':' && have_string) {
      pending_key = last_string;
      lines.emplace(prefix() + pending_key, string_line);
    } else if (c == '{' || c == '[') {
      path.push_back(c == '[' ? (pending_key.empty() ? "[]" : pending_key + ".[]") : pending_key);
      pending_key.clear();
    } else if (c == '}' || c == ']') {
      if (!path.empty()) path.pop_back();
      pending_key.clear();
    } else if (c == ',') {
      pending_key.clear();
    }
    if (c != ' ' && c != '\n' && c != '\t' && c != '\r') have_string = c == ':' ? false : have_string && false;
  }
  return lines;
}

std::pair<int64_t, int64_t> line_and_column(std::string_view text, size_t offset) {
  int64_t line = 1, column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

}  // namespace ndsearch::plugins
