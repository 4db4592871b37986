// SPDX-License-Identifier: Apache-2.0
// json_lines.hpp: the line of every key of a JSON text, by its dotted path
// ("text_config.hidden_size"), so that provenance can name lines: JSON
// libraries keep values, not positions. The same pass refuses what the JSON
// library would accept but a config must not hold: nesting deeper than
// kMaxJsonDepth (checked before any DOM is built) and a key written twice in
// one object (nlohmann keeps the last silently).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace ndsearch::plugins {

// HF configs nest 3 deep; 256 leaves room and keeps every recursive walk of
// the value (printing, copying) far from the stack's end.
inline constexpr int kMaxJsonDepth = 256;
// Keys in the file: an HF config has ~50, a MindSpeed argument file ~300.
// Each unknown key becomes a warning, so a million would cost the core more
// than the parse does.
inline constexpr size_t kMaxJsonKeys = 100'000;

// Keys inside arrays are recorded with "[]" for the array ("layers.[].x").
// Paths longer than a few hundred bytes get no line (no provenance needs
// them), so the map stays linear in the text. Throws sdk::LimitError
// (deeper than kMaxJsonDepth, more than kMaxJsonKeys keys) or
// sdk::DuplicateKeyError, naming `file` and the lines. Text that is not JSON is scanned as far as
// it reads: the JSON parser then names the syntax error.
std::map<std::string, int64_t> json_key_lines(std::string_view text, const std::string& file);

// For probes: the top-level object's keys, each with a null value, read
// without building the document (a 16 MiB array costs no DOM); nullopt when
// the text is not JSON or not an object.
std::optional<nlohmann::json> json_top_level_keys(std::string_view text);

// The 1-based line and column of byte `offset` of `text`.
std::pair<int64_t, int64_t> line_and_column(std::string_view text, size_t offset);

}  // namespace ndsearch::plugins
