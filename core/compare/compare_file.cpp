// SPDX-License-Identifier: Apache-2.0
#include "core/compare/compare_file.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>
#include <ndsearch/sdk/config_file.hpp>

#include <sstream>
#include <string>

#include "core/compare/validation_runs.hpp"
#include "core/support/csv.hpp"
#include "core/support/user_error.hpp"
#include "core/validation/validation.hpp"

namespace ndsearch {

bool is_validation_csv(const std::filesystem::path& file) {
  std::string text;
  try {  // a regular file within the config size limit
    text = sdk::read_config_file(file.string(), "measured-runs CSV");
  } catch (const std::exception&) {
    return false;  // read_measured_runs says why
  }
  std::istringstream in(text);
  std::string line;
  bool first = true;
  while (std::getline(in, line)) {
    if (first && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    first = false;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    return is_validation_header(split_csv_line(line));
  }
  return false;
}

ComparedRuns compare_measured_file(const PluginRegistry& registry, const DeviceCatalog& catalog,
                                   const CompareRequest& request,
                                   const std::filesystem::path& measured) {
  if (is_validation_csv(measured)) {
    // Each row names its launch script and device; one from the command
    // line would be silently overridden, so it is refused.
    if (!request.config.empty())
      throw UserError(
          "E-USAGE",
          fmt::format("{} is a validation CSV: each row names its own config (relative to the "
                      "CSV's folder) and device, so {} '{}' is not used; give the measured runs "
                      "alone",
                      measured.string(), Setting("config").named(), request.config.string()));
    if (!request.device.empty())
      throw UserError(
          "E-USAGE",
          fmt::format("{} is a validation CSV: each row names its own device, so {} '{}' is not "
                      "used; give the measured runs alone",
                      measured.string(), Setting("device").named(), request.device));
    return compare_validation_runs(registry, catalog, measured);
  }
  const MeasuredRuns runs = read_measured_runs(measured);  // E-MEASURED-CSV
  // The three formats price every run with one config on one device.
  const auto require = [&](bool given, const std::string& setting, const char* what,
                           const char* fix) {
    if (!given)
      throw UserError("E-USAGE", fmt::format("{} holds measured runs in the {} format, priced {}: "
                                             "{} is missing; give {}",
                                             measured.string(), measured_format_name(runs.format),
                                             what, setting, fix));
  };
  require(!request.config.empty(), Setting("config").named(), "with one config",
          "the trainer's config the runs were made with");
  require(!request.device.empty(), Setting("device").named(), "on one device",
          "the accelerator the runs were made on");
  return compare_runs(registry, catalog, request, runs);
}

}  // namespace ndsearch
