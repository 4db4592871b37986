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

#include "core/calibration/published_csv.hpp"
#include "core/hardware/device_catalog.hpp"
#include "core/plugins/registry.hpp"

namespace ndsearch {

struct MemoryRow : PublishedRun {
  double peak_bytes = 0;  // measured, the largest over the ranks; 0: not published (the run only fits)
  std::string measures;   // "reserved" (the caching allocator's), "allocated", or "" with no peak
  std::string cited;      // where the source publishes it
};

// Every *.csv of `folder` (sorted), rows in file order; none when the folder
// does not exist. Throws UserError E-VALIDATION-CSV naming the file, line and
// column of a row that does not read (a peak that is not a positive number
// of GiB, a `measures` that is neither "reserved" nor "allocated"). A row
// with both empty published no peak: it ran, so it must fit.
std::vector<MemoryRow> read_memory_rows(const std::filesystem::path& folder);

struct MemoryRowResult {
  const MemoryRow* row = nullptr;
  std::string refusal;     // the strategy's refusal ("<id>: <reason>"); empty when priced
  double predicted_bytes = 0, budget_bytes = 0;
  bool fits = false;
  double error = 0;        // predicted / measured - 1; NaN with no measured peak
};

// Each row's peak under our memory model at the strategy that ran.
std::vector<MemoryRowResult> validate_memory(const PluginRegistry& registry, const DeviceCatalog& devices,
                                             const std::vector<MemoryRow>& rows);

// docs/validation.md's memory table: one line per row, then per source the
// mean and largest |error|.
std::string memory_markdown(const std::vector<MemoryRowResult>& results);

}  // namespace ndsearch
