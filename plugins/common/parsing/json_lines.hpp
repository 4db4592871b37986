// SPDX-License-Identifier: Apache-2.0
// json_lines.hpp: the line of every key of a JSON text, by its dotted path
// ("text_config.hidden_size"), so that provenance can name lines: JSON
// libraries keep values, not positions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace ndsearch::plugins {

// Keys inside arrays are recorded with "[]" for the array ("layers.[].x").
std::map<std::string, int64_t> json_key_lines(std::string_view text);

// The 1-based line and column of byte `offset` of `text`.
std::pair<int64_t, int64_t> line_and_column(std::string_view text, size_t offset);

}  // namespace ndsearch::plugins
