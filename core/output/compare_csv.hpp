// SPDX-License-Identifier: Apache-2.0
// compare_csv.hpp: the per-run CSV of `ndsearch compare` (`--format csv`
// and `-o DIR`'s compare_runs.csv; docs/cli.md, "The per-run CSV"). Written
// from the same ComparedRuns as compare_json, so the two carry the same numbers.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "core/compare/compare_runs.hpp"

namespace ndsearch {

// The part names some run of the file measured, in the order the reader
// gives them: the classified CSV's compute, then our time parts in
// kTimeParts' order, then the classified CSV's idle.
std::vector<std::string> measured_part_names(const ComparedRuns& comparison);

// A header, then one row per run in file order: line, strategy (as the row
// states it), measured_s, predicted_s, error, measured_rank, predicted_rank,
// fits (1 or 0), refused_id, refused_reason, then measured_P_s and
// predicted_P_s for each of measured_part_names. A value the run does not
// have is an empty cell; a number is the shortest text that reads back to the
// same double; a field with a comma or a quote is quoted (RFC 4180).
void write_compare_csv(std::ostream& out, const ComparedRuns& comparison);

}  // namespace ndsearch
