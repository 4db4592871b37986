// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/schedule_flag.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/model/schedule_names.hpp"
#include "core/support/lowercase.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch::cli {

void add_search_schedule_flag(CLI::App& verb, std::vector<std::string>& schedules) {
  verb.add_option(
          "--schedule", schedules,
          "Pipeline schedules to search: 1f1b, interleaved, gpipe, zb-v, dualpipe, dualpipe-v; "
          "all = every one (default: the config's, else interleaved if vpp > 1, else 1f1b)")
      ->expected(1, 6)
      ->delimiter(',');
}

void apply_search_schedule(const std::vector<std::string>& schedules,
                           std::vector<std::string>& only) {
  if (schedules.empty()) return;
  for (const std::string& item : only)
    if (lowercase(item).find("schedule=") != std::string::npos)
      throw UserError(
          "E-USAGE",
          fmt::format("--schedule and --only \"{}\" both restrict the schedule; give one", item));
  std::vector<std::string> names;
  auto add = [&](const char* name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
  };
  for (const std::string& typed : schedules) {
    if (lowercase(typed) == "all") {
      for (const ScheduleName& s : kScheduleNames) add(s.name);
      continue;
    }
    const auto schedule = schedule_named(typed);
    if (!schedule)
      throw UserError("E-USAGE", fmt::format("--schedule {}: not a schedule; give {}, or all",
                                             typed, kScheduleNameList));
    for (const ScheduleName& s : kScheduleNames)
      if (s.schedule == *schedule) add(s.name);
  }
  std::string item = "schedule=";
  for (size_t i = 0; i < names.size(); ++i) item += (i ? "," : "") + names[i];
  only.push_back(item);
}

}  // namespace ndsearch::cli
