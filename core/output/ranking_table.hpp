// SPDX-License-Identifier: Apache-2.0
// ranking_table.hpp: the search's ranking as a table a person reads in a
// terminal: the degrees that vary (the others said once above it), the step,
// MFU, tokens/s per device, peak memory and the largest parts of the step,
// fitted to the terminal's width; strategies that cost the same and differ
// in one setting share a row.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/output/text_settings.hpp"
#include "core/output/wrapped_text.hpp"
#include "core/search/search.hpp"

namespace ndsearch {

struct TableOptions {
  size_t width = kDefaultTableWidth;  // the longest line allowed (wide: no limit)
  bool wide = false;                  // every degree and every part of the step, each its column
  std::vector<std::string> columns;   // these columns in this order (empty: chosen to fit)
  uint64_t devices = 1;               // for tokens/s per device
  SettingSpelling spell;              // the host's spelling of the settings the table names
};

// The names --columns takes: the strategy keys, step, mfu, tokens, peak,
// parts (the three largest) and each part of the step as "<part>%".
const std::vector<std::string>& table_column_names();

// Throws UserError E-USAGE naming an unknown column (and the closest name).
void check_table_columns(const std::vector<std::string>& columns);

// The table's lines, each ending in '\n': a line naming what every row
// shares, the header, one line per row (or group of rows) and, when columns
// were left out to fit the width, a line saying which.
void print_ranking_table(std::ostream& out, const std::vector<PricedCandidate>& rows,
                         const TableOptions& options);

}  // namespace ndsearch
