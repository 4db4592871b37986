// SPDX-License-Identifier: Apache-2.0
// wrapped_text.hpp: a line of prose broken to fit a width, so that what the
// verbs print above and below a table is no wider than the table.
#pragma once

#include <cstddef>
#include <string>

namespace ndsearch {

// The width of tables and text when stdout is not a terminal (a file, a
// pipe, a test).
inline constexpr size_t kDefaultTableWidth = 120;

// `text` broken at spaces into lines of at most `width` characters (a word
// longer than that gets a line of its own), the first line starting with
// `first_indent`, the others with `indent`; each line ends in '\n'.
std::string wrapped(const std::string& text, size_t width, const std::string& first_indent,
                    const std::string& indent);

}  // namespace ndsearch
