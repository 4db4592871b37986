// SPDX-License-Identifier: Apache-2.0
// measured_runs.hpp: a user's measured training runs, the input of
// `compare --measured` (issue 13), in one of three CSV formats told apart by
// the header row (docs/cli.md, "Measured runs"):
//   1. the reference's simple CSV (reference §9.4): its dimension acronyms
//      (DP MP/TP PP EP CP VPP MB/MBN MBS OP SP), `time`, optional `recompute`;
//   2. its classified CSV: the same plus `comp` and the `*_wait` columns
//      (optional `step_trainer`, read and ignored);
//   3. ours: the strategy keys of DESIGN §8.1, `step_s`, optional `devices`,
//      `global_batch`, `seq_len`, measured time parts `forward_s` ...
//      `overhead_s`, and the measured peak memory `peak_gib` or `peak_bytes`.
// Every time is seconds per training step. The reference only correlates its
// score with `time`, so any unit served it; we compare seconds with seconds
// (errors, MAPE, a fitted overhead per step), so a file in milliseconds must
// be converted first.
// A row that does not read is a diagnostic (line, column, value, reason) and
// is skipped; a header that does not read, or a file with no run that reads,
// is a UserError E-MEASURED-CSV.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ndsearch {

// validation: a validation CSV (validation/*.csv), which this reader does not
// read: compare_measured_file (compare_file.hpp) tells it by its header.
enum class MeasuredFormat { reference_simple, reference_classified, ndsearch, validation };

// "reference simple", "reference classified", "ndsearch", "validation".
const char* measured_format_name(MeasuredFormat format);

struct MeasuredRun {
  int line = 0;          // 1-based line of the file
  std::string strategy;  // the keys the row states, as --strategy text ("dp=8,tp=4"); "" when none
  double step_s = 0;     // measured seconds per step
  std::optional<uint64_t> devices;      // per-row overrides of the command line's
  std::optional<int64_t> global_batch;  // device count, global batch and
  std::optional<int64_t> seq_len;       // sequence length
  // Measured parts in seconds per step, by name: our time parts (forward ...
  // overhead, see kTimeParts) or, from a classified CSV, compute, tp, cp, ep,
  // dp, bubble and idle (time - comp - the waits).
  std::vector<std::pair<std::string, double>> parts;
  // The measured peak memory in bytes (ours: `peak_gib` or `peak_bytes`), the
  // largest over the ranks, as the trainer logs it.
  std::optional<double> peak_bytes;
};

struct MeasuredDiagnostic {
  int line = 0;
  std::string column;  // as the header spells it; "" for the whole row
  std::string value;   // the cell (or row), cut to 80 bytes
  std::string reason;
};

struct MeasuredRuns {
  std::filesystem::path file;
  MeasuredFormat format = MeasuredFormat::ndsearch;
  std::vector<MeasuredRun> runs;
  std::vector<MeasuredDiagnostic> diagnostics;  // the rows skipped, in file order
};

// At most this many runs in one file (a measured campaign is tens to
// hundreds of runs); more is an E-MEASURED-CSV error, not a silent cut.
inline constexpr size_t kMaxMeasuredRows = 100000;

// Reads `file` (a regular file within the config size limit,
// NDS_CONFIG_MAX_BYTES; UTF-8, optional BOM, LF or CRLF; blank lines and
// lines starting with '#' skipped).
MeasuredRuns read_measured_runs(const std::filesystem::path& file);

}  // namespace ndsearch
