// SPDX-License-Identifier: Apache-2.0
// memory_validation.hpp: published runs with a measured peak memory
// (validation/memory/*.csv, each row the facts of one run, its measured peak
// and the config we wrote for it), priced by the memory passes at the
// strategy that ran and compared with the peak.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/input/device_catalog.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/validation/published_csv.hpp"

namespace ndsearch {

struct MemoryRow : PublishedRun {
  double peak_bytes =
      0;  // measured, the largest over the ranks; 0: not published (the run only fits)
  std::string measures;  // "reserved" (the caching allocator's), "allocated", or "" with no peak
  std::string cited;     // where the source publishes it
};

// Every *.csv of `folder` (sorted), rows in file order; none when the folder
// does not exist. Throws UserError E-VALIDATION-CSV naming the file, line and
// column of a row that does not read (a peak that is not a positive number
// of GiB, a `measures` that is neither "reserved" nor "allocated"). A row
// with both empty published no peak: it ran, so it must fit.
std::vector<MemoryRow> read_memory_rows(const std::filesystem::path& folder);

struct MemoryRowResult {
  const MemoryRow* row = nullptr;
  std::string refusal;  // the strategy's refusal ("<id>: <reason>"); empty when priced
  double predicted_bytes = 0, budget_bytes = 0;
  bool fits = false;
  double error = 0;          // predicted / measured - 1; NaN with no measured peak
  bool fitted_on = false;    // the allocator share was fitted on this row
  double leave_one_out = 0;  // its error with the share fitted without it; NaN when not fitted on
};

// The allocator share of one runtime (allocator_share.hpp) fitted on the
// measured reserved peaks of its trainers' rows.
struct AllocatorFit {
  std::string runtime;               // "pytorch", "mindspore"
  std::vector<std::string> sources;  // of the rows fitted on
  size_t rows = 0;
  double fraction = 0;
  double rms_error = 0;  // of the peaks fitted on, at `fraction`
};

struct MemoryValidation {
  std::vector<MemoryRowResult>
      results;  // one per row, at the fitted shares when fitted, else the shipped
  std::vector<AllocatorFit> fits;  // per runtime with rows to fit on, when fitted
};

// Each row's peak under our memory model at the strategy that ran. With
// `fit`, first fits each runtime's allocator share on the rows that measure
// `reserved` (bounded least squares, least_squares.hpp, on the peaks'
// relative errors), except rows of a file named *-check.csv, which are
// published runs kept to check that the fit generalises; then each fitted
// row's leave-one-out error.
MemoryValidation validate_memory(const PluginRegistry& registry, const DeviceCatalog& devices,
                                 const std::vector<MemoryRow>& rows, bool fit = false);

// docs/validation.md's memory table: one line per row, then per source the
// mean and largest |error|, then the fitted shares.
std::string memory_markdown(const MemoryValidation& validation);

// core/compile/fitted_allocator.inc from the fits.
std::string fitted_allocator_source(const MemoryValidation& validation);

}  // namespace ndsearch
