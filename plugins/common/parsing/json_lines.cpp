// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/parsing/json_lines.hpp"

#include <ndsearch/sdk/config_file.hpp>

#include <unordered_map>
#include <vector>

namespace ndsearch::plugins {
namespace {

// A path longer than this records no line: the longest HF path is ~40 bytes.
constexpr size_t kMaxRecordedPathBytes = 512;

struct Level {
  std::string name;  // the key this container is the value of ("" at the top), "[]" for an array
  bool object = false;
  std::unordered_map<std::string, int64_t> keys;  // an object's keys and their lines
};

// Keeps the keys at depth 1 and nothing else.
class TopLevelKeys final : public nlohmann::json_sax<nlohmann::json> {
 public:
  nlohmann::json keys = nlohmann::json::object();
  bool object = false;

  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    if (depth_++ == 0) object = true;
    return true;
  }
  bool key(string_t& key) override {
    if (depth_ == 1) keys[key] = nullptr;
    return true;
  }
  bool end_object() override {
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    ++depth_;
    return true;
  }
  bool end_array() override {
    --depth_;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false;
  }

 private:
  int64_t depth_ = 0;
};

}  // namespace

std::optional<nlohmann::json> json_top_level_keys(std::string_view text) {
  TopLevelKeys sax;
  if (!nlohmann::json::sax_parse(text, &sax) || !sax.object) return std::nullopt;
  return std::move(sax.keys);
}

std::map<std::string, int64_t> json_key_lines(std::string_view text, const std::string& file) {
  std::map<std::string, int64_t> lines;
  std::vector<Level> levels;
  std::string prefix;  // the dotted path of the innermost container, with a trailing '.'
  std::vector<size_t> prefix_lengths;
  std::string last_string;
  bool have_string = false;  // the last token was a string (a key when ':' follows)
  int64_t line = 1, string_line = 1;
  std::string pending_key;  // a key whose value has not started yet
  size_t keys = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') ++line;
    if (c == '"') {
      std::string s;
      string_line = line;
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size())
          s += text[++i];
        else
          s += text[i];
        if (text[i] == '\n') ++line;
      }
      last_string = std::move(s);
      have_string = true;
      continue;
    }
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') continue;
    if (c == ':' && have_string) {
      if (++keys > kMaxJsonKeys)
        throw sdk::LimitError(
            file + ":" + std::to_string(string_line) + ": more than " +
            std::to_string(kMaxJsonKeys) +
            " keys; a config holds a few hundred: give the config, not a data file");
      pending_key = last_string;
      if (!levels.empty() && levels.back().object) {
        auto [it, fresh] = levels.back().keys.emplace(pending_key, string_line);
        if (!fresh)
          throw sdk::DuplicateKeyError(file + ":" + std::to_string(string_line) + ": the key \"" +
                                       sdk::shown(prefix + pending_key) +
                                       "\" is written twice (lines " + std::to_string(it->second) +
                                       " and " + std::to_string(string_line) +
                                       "); JSON readers keep only the last: delete one");
      }
      if (prefix.size() + pending_key.size() <= kMaxRecordedPathBytes)
        lines.emplace(prefix + pending_key, string_line);
    } else if (c == '{' || c == '[') {
      if (static_cast<int>(levels.size()) >= kMaxJsonDepth)
        throw sdk::LimitError(
            file + ":" + std::to_string(line) + ": JSON nested more than " +
            std::to_string(kMaxJsonDepth) +
            " levels deep (arrays and objects inside each other); no config nests so deep: "
            "fix the file");
      Level level;
      level.object = c == '{';
      level.name = c == '[' ? (pending_key.empty() ? "[]" : pending_key + ".[]") : pending_key;
      prefix_lengths.push_back(prefix.size());
      if (!level.name.empty()) prefix += level.name + ".";
      levels.push_back(std::move(level));
      pending_key.clear();
    } else if (c == '}' || c == ']') {
      if (!levels.empty()) {
        levels.pop_back();
        prefix.resize(prefix_lengths.back());
        prefix_lengths.pop_back();
      }
      pending_key.clear();
    } else if (c == ',') {
      pending_key.clear();
    }
    have_string = false;
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
