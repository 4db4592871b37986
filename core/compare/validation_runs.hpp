// SPDX-License-Identifier: Apache-2.0
// validation_runs.hpp: a validation CSV (validation/*.csv: published runs,
// each row naming its own config and device) compared as measured runs, the
// fourth format of `ndsearch compare --measured` (docs/cli.md, "Measured
// runs"). Each row is priced by the validation's RowPricer, under its rule
// for what a source does not publish, with the shipped trainer overheads, so
// that compare's errors are the validation's (RowResult::error): the
// measured step is the one the published metric implies.
#pragma once

#include <filesystem>

#include "core/compare/compare_runs.hpp"
#include "core/input/device_catalog.hpp"
#include "core/plugin_host/registry.hpp"

namespace ndsearch {

// Throws E-VALIDATION-CSV for a file that does not read, or one with a header
// and no row. A row whose config or device does not read, that no candidate
// prices, or that does not fit is listed with its reason and left out of the
// metrics, as compare_runs does.
ComparedRuns compare_validation_runs(const PluginRegistry& registry, const DeviceCatalog& catalog,
                                     const std::filesystem::path& file);

}  // namespace ndsearch
