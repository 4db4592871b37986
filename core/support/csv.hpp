// SPDX-License-Identifier: Apache-2.0
// csv.hpp: the one CSV line splitter of the core (the validation set, a
// user's measured runs) and its writing counterpart (compare's per-run CSV).
// A row is one line: a quoted field may hold commas but not line breaks,
// which keeps every diagnostic on the line it names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ndsearch {

// One CSV line into its fields, as written (not trimmed). A field may be
// double-quoted; then it may hold commas, and "" inside it is one quote
// (RFC 4180). A carriage return (a CRLF file) is dropped.
std::vector<std::string> split_csv_line(std::string_view line);

// `text` as one CSV field (RFC 4180): as is, or double-quoted with each quote
// doubled when it holds a comma, a quote or a line break, so that
// split_csv_line reads it back ("tp=2,pp=4" -> "\"tp=2,pp=4\"").
std::string csv_field(std::string_view text);

}  // namespace ndsearch
