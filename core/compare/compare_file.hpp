// SPDX-License-Identifier: Apache-2.0
// compare_file.hpp: `ndsearch compare`'s one entry: the measured-runs file's
// header tells its format (docs/cli.md, "Measured runs"), and the format
// tells what the command line must give. The reference's two CSVs and ours
// price every run with one config and device (compare_runs); a validation CSV
// names a config and device in each row (compare_validation_runs), so the
// command line gives neither.
#pragma once

#include <filesystem>

#include "core/compare/compare_runs.hpp"

namespace ndsearch {

// Whether `file` is a validation CSV (its first row that is not blank or a
// '#' comment is the validation header). A file that cannot be read, or is
// not a regular file within the config size limit, is not one: its reading
// as measured runs reports why.
bool is_validation_csv(const std::filesystem::path& file);

// `request.config` and `request.device` empty: not given. Throws E-USAGE
// when the format needs a config or device that is not given, or when a
// validation CSV is given one; else what the format's reading and pricing
// throw (E-MEASURED-CSV, E-VALIDATION-CSV, the config's errors ...).
ComparedRuns compare_measured_file(const PluginRegistry& registry, const DeviceCatalog& catalog,
                                   const CompareRequest& request,
                                   const std::filesystem::path& measured);

}  // namespace ndsearch
