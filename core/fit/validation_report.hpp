// SPDX-License-Identifier: Apache-2.0
// report.hpp: the validation of the time model on the published runs of
// validation/: every row priced with the shipped (or freshly fitted) trainer
// overheads, the fit per device and trainer with its leave-one-out and
// leave-one-source-out errors, the search's verdict on each row, and the
// markdown table docs/validation.md carries.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/fit/fit.hpp"
#include "core/validation/memory_validation.hpp"
#include "core/validation/validation.hpp"

namespace ndsearch {

struct RowReport {
  RowResult result;             // with the factors in force
  double leave_one_out = 0;     // the row's error fitted without it
  double leave_source_out = 0;  // fitted without its source (NaN: the group has no other source)
  // The search with the row's devices, batch and sequence (default dimensions):
  bool searched = false;
  double best_step_s = 0;          // of the fastest fitting candidate
  double published_over_best = 0;  // the published strategy's predicted step over the best
  double best_over_published = 0;  // the best's predicted metric over the published figure
  std::string best_strategy;
};

struct GroupFit {
  std::string device, trainer;
  std::vector<std::string> sources;
  TrainerOverheads factors;
  double rms_error = 0;
};

struct ValidationReport {
  std::vector<ValidationRow> rows;
  std::vector<RowReport> reports;  // one per row, same order
  std::vector<GroupFit> fits;
  bool fitted = false;  // fits were made now (else the shipped ones were used)
  // The measured peaks of <folder>/memory/ and our peak for each.
  std::vector<MemoryRow> memory_rows;
  MemoryValidation memory;  // one result per memory row, same order; the allocator fits with --fit
};

struct ValidationOptions {
  bool fit = false;     // refit the overheads (and the leave-out errors)
  bool search = false;  // run the search of each row
};

ValidationReport run_validation(const PluginRegistry& registry, const DeviceCatalog& devices,
                                const std::filesystem::path& folder,
                                const ValidationOptions& options);

// The tables of docs/validation.md (one per source), and the fitted factors.
std::string validation_markdown(const ValidationReport& report);
// core/compile/fitted_overheads.inc from the fits (core/compile/fitted_allocator.inc:
// fitted_allocator_source(report.memory)).
std::string fitted_overheads_source(const ValidationReport& report);

}  // namespace ndsearch
