// SPDX-License-Identifier: Apache-2.0
// calibration_flags.hpp: --calibration FILE and --force, shared by search,
// eval, explain and compare, into the Planner's settings.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>

namespace ndsearch::cli {

void add_calibration_flags(CLI::App& verb, std::filesystem::path& file, bool& force);

}  // namespace ndsearch::cli
