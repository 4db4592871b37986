// SPDX-License-Identifier: Apache-2.0
// schedule_flag.hpp: search's --schedule, the pipeline schedules to search
// (1f1b interleaved gpipe zb-v dualpipe dualpipe-v, or all). It becomes the
// setting the core already reads: an --only item, "schedule=...", which
// prices each listed schedule with every vpp it runs with.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace ndsearch::cli {

void add_search_schedule_flag(CLI::App& verb, std::vector<std::string>& schedules);
// Appends "schedule=..." to `only`; E-USAGE for an unknown schedule, or when
// `only` restricts the schedule too.
void apply_search_schedule(const std::vector<std::string>& schedules,
                           std::vector<std::string>& only);

}  // namespace ndsearch::cli
