// SPDX-License-Identifier: Apache-2.0
// schedule_flag.hpp: search's --schedule, the pipeline schedules to search
// (1f1b interleaved gpipe zb-v dualpipe dualpipe-v, or all), into
// SpaceSettings::schedules: the core prices each listed schedule with every
// vpp it runs with.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace ndsearch::cli {

void add_search_schedule_flag(CLI::App& verb, std::vector<std::string>& schedules);

}  // namespace ndsearch::cli
