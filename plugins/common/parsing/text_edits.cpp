// SPDX-License-Identifier: Apache-2.0
#include "text_edits.hpp"

#include <ndsearch/sdk/plugin.hpp>  // sdk::Error

#include <stdexcept>

namespace ndsearch::plugins {

TextEdits::TextEdits(const std::string& text) {
  size_t start = 0, crlf = 0;
  while (start < text.size()) {
    const size_t nl = text.find('\n', start);
    if (nl == std::string::npos) {
      lines_.push_back({text.substr(start), ""});
      break;
    }
    const bool cr = nl > start && text[nl - 1] == '\r';
    crlf += cr ? 1 : 0;
    lines_.push_back({text.substr(start, nl - start - (cr ? 1 : 0)), cr ? "\r\n" : "\n"});
    start = nl + 1;
  }
  // Added lines end as most of the file's lines do.
  if (crlf * 2 > lines_.size()) ending_ = "\r\n";
}

const std::string& TextEdits::line(int64_t n) const {
  if (n < 1 || n > line_count())
    throw std::out_of_range("line " + std::to_string(n) + " is not in the file (" +
                            std::to_string(line_count()) + " lines)");
  return lines_[static_cast<size_t>(n - 1)].text;
}

void TextEdits::replace_line(int64_t n, std::string text) {
  line(n);  // range check
  lines_[static_cast<size_t>(n - 1)].text = std::move(text);
}

void TextEdits::remove_line(int64_t n) {
  line(n);  // range check
  lines_[static_cast<size_t>(n - 1)].removed = true;
}

void TextEdits::insert_after(int64_t n, std::string text) {
  if (n < 0 || n > line_count())
    throw std::out_of_range("cannot add a line after line " + std::to_string(n));
  inserted_[n].push_back(std::move(text));
}

std::string TextEdits::indentation(int64_t n) const {
  const std::string& l = line(n);
  return l.substr(
      0, l.find_first_not_of(" \t") == std::string::npos ? l.size() : l.find_first_not_of(" \t"));
}

std::string TextEdits::text() const {
  std::string out;
  const auto added = [&](int64_t after) {
    auto it = inserted_.find(after);
    if (it == inserted_.end()) return;
    for (const std::string& l : it->second) out += l + ending_;
  };
  added(0);
  for (size_t i = 0; i < lines_.size(); ++i) {
    if (lines_[i].removed) {
      added(static_cast<int64_t>(i + 1));
      continue;
    }
    out += lines_[i].text;
    const bool more = inserted_.count(static_cast<int64_t>(i + 1)) != 0;
    // The last line had no newline: one goes before the lines added after it.
    out += lines_[i].ending.empty() && more ? ending_ : lines_[i].ending;
    added(static_cast<int64_t>(i + 1));
  }
  return out;
}

Span value_after_key(const std::string& line, const std::string& key, char separator) {
  size_t at = 0;
  while ((at = line.find(key, at)) != std::string::npos) {
    // The key whole: at a word's start (after spaces, a quote or a flow's '{' or ',').
    const bool starts = at == 0 || std::string(" \t\"'{,").find(line[at - 1]) != std::string::npos;
    size_t after = at + key.size();
    if (after < line.size() && (line[after] == '"' || line[after] == '\'')) ++after;
    while (after < line.size() && (line[after] == ' ' || line[after] == '\t')) ++after;
    if (starts && after < line.size() && line[after] == separator) {
      size_t begin = after + 1;
      while (begin < line.size() && (line[begin] == ' ' || line[begin] == '\t')) ++begin;
      // A YAML anchor or tag before the value stays (`data_parallel: &dp 8`).
      while (begin < line.size() && (line[begin] == '&' || line[begin] == '!')) {
        while (begin < line.size() && line[begin] != ' ' && line[begin] != '\t') ++begin;
        while (begin < line.size() && (line[begin] == ' ' || line[begin] == '\t')) ++begin;
      }
      size_t end = begin;
      char quote = 0;
      int depth = 0;  // inside a flow list or mapping of the value itself
      for (; end < line.size(); ++end) {
        const char c = line[end];
        if (quote != 0) {
          if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
          quote = c;
        } else if (c == '#' && end > begin && (line[end - 1] == ' ' || line[end - 1] == '\t')) {
          break;
        } else if (c == '[' || c == '{') {
          ++depth;
        } else if ((c == ']' || c == '}') && depth > 0) {
          --depth;
        } else if (depth == 0 && (c == ',' || c == '}')) {
          break;  // the end of a value in a flow mapping around it
        }
      }
      while (end > begin && (line[end - 1] == ' ' || line[end - 1] == '\t')) --end;
      return {begin, end};
    }
    at += key.size();
  }
  return {};
}

void cannot_write(const std::string& where, const std::string& why) {
  throw sdk::Error(NDS_UNSUPPORTED, where.empty() ? why : where + ": " + why);
}

void refuse_per_layer_recompute(const std::string& where, const std::vector<int32_t>& layer_options,
                                const std::string& trainer) {
  if (layer_options.empty()) return;
  cannot_write(where,
               "its layers do not all recompute alike (per-stage counts or a per-layer "
               "plan); " +
                   trainer +
                   " states one recompute for every layer: rank with one recompute mode "
                   "for every layer");
}

}  // namespace ndsearch::plugins
