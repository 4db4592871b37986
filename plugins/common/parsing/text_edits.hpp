// SPDX-License-Identifier: Apache-2.0
// text_edits.hpp: a config file as lines that `apply` edits in place: a line's
// text replaced, new lines inserted after a line, every other byte (comments,
// blank lines, line endings, a missing final newline) kept as it was. Line
// numbers are the file's, 1-based, whatever was inserted before them.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ndsearch::plugins {

class TextEdits {
 public:
  explicit TextEdits(const std::string& text);

  int64_t line_count() const { return static_cast<int64_t>(lines_.size()); }
  // The text of line `n` (1-based) as edited so far, without its line ending.
  const std::string& line(int64_t n) const;
  void replace_line(int64_t n, std::string text);
  // Drops line `n` with its line ending (lines added after it stay).
  void remove_line(int64_t n);
  // Adds a line after line `n` (0: before the first); lines added after the
  // same line keep the order they were added in.
  void insert_after(int64_t n, std::string text);
  // The leading spaces and tabs of line `n`.
  std::string indentation(int64_t n) const;
  std::string text() const;

 private:
  struct Line {
    std::string text;
    std::string ending;  // "\n", "\r\n" or "" (the last line without one)
    bool removed = false;
  };
  std::vector<Line> lines_;
  std::map<int64_t, std::vector<std::string>> inserted_;  // after line n
  std::string ending_ = "\n";                             // the file's own
};

// The value part of "key: value  # comment" or "key = value # comment" on
// `line`: [begin, end) after `separator` (':' or '='), spaces and a trailing
// comment excluded; nullopt-like {npos, npos} when the line has no `key`
// followed by `separator`.
struct Span {
  size_t begin = std::string::npos, end = std::string::npos;
  bool found() const { return begin != std::string::npos; }
};
Span value_after_key(const std::string& line, const std::string& key, char separator);

// Throws sdk::Error(NDS_UNSUPPORTED) for a strategy the trainer cannot run:
// "<where>: <why>", or `why` alone when `where` is empty (the strategy
// written alone, with no file to name).
[[noreturn]] void cannot_write(const std::string& where, const std::string& why);

// Refuses (cannot_write) a strategy priced with layers that do not all
// recompute alike (nds_applied_strategy.layer_options: per-stage counts, a
// per-layer plan) for a trainer whose settings state one recompute for every
// layer; `trainer` names it ("TorchTitan").
void refuse_per_layer_recompute(const std::string& where, const std::vector<int32_t>& layer_options,
                                const std::string& trainer);

}  // namespace ndsearch::plugins
