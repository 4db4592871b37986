// SPDX-License-Identifier: Apache-2.0
#include "core/search/space_shortcuts.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include <algorithm>

#include "core/model/model_json.hpp"
#include "core/model/recompute_names.hpp"
#include "core/model/schedule_names.hpp"
#include "core/support/lowercase.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

// Whether `text`, a strategy or a restriction, states recompute= itself.
bool states_recompute(const std::string& text) {
  const std::string t = lowercase(text);
  for (size_t at = t.find("recompute"); at != std::string::npos; at = t.find("recompute", at + 1)) {
    const bool starts = at == 0 || t[at - 1] == ',' || t[at - 1] == ' ';
    size_t after = at + 9;
    while (after < t.size() && t[after] == ' ') ++after;
    if (starts && after < t.size() && t[after] == '=') return true;
  }
  return false;
}

// "key=a,b" of the names, each once, in the order first given.
std::string restriction(const char* key, const std::vector<std::string>& names) {
  std::vector<std::string> once;
  for (const std::string& n : names)
    if (std::find(once.begin(), once.end(), n) == once.end()) once.push_back(n);
  return fmt::format("{}={}", key, fmt::join(once, ","));
}

std::string recompute_restriction(const std::vector<std::string>& modes) {
  std::vector<std::string> names;
  for (const std::string& m : modes) {
    if (lowercase(m) == "auto") {
      for (nds_recompute_mode mode :
           {NDS_RECOMPUTE_NONE, NDS_RECOMPUTE_SELECTIVE, NDS_RECOMPUTE_FULL})
        names.emplace_back(recompute_name(mode));
    } else if (const auto mode = recompute_mode_named(m)) {
      names.emplace_back(recompute_name(*mode));
    } else {
      throw UserError("E-USAGE",
                      fmt::format("{}: not a recompute mode; give {}, or auto (all three)",
                                  Setting("recompute_modes").named(m), kRecomputeModeNames));
    }
  }
  return restriction("recompute", names);
}

std::string schedule_restriction(const std::vector<std::string>& schedules) {
  std::vector<std::string> names;
  for (const std::string& typed : schedules) {
    if (lowercase(typed) == "all") {
      for (const ScheduleName& s : kScheduleNames) names.emplace_back(s.name);
      continue;
    }
    const auto schedule = schedule_named(typed);
    if (!schedule)
      throw UserError("E-USAGE", fmt::format("{}: not a schedule; give {}, or all",
                                             Setting("schedules").named(typed), kScheduleNameList));
    for (const ScheduleName& s : kScheduleNames)
      if (s.schedule == *schedule) names.emplace_back(s.name);
  }
  return restriction("schedule", names);
}

}  // namespace

std::vector<std::string> with_space_shortcuts(std::vector<std::string> only,
                                              const std::vector<std::string>& modes,
                                              const std::vector<std::string>& schedules) {
  for (const std::string& item : only) {
    if (!modes.empty() && states_recompute(item))
      throw UserError("E-USAGE",
                      fmt::format("{} and {} both restrict recompute; give one",
                                  Setting("recompute_modes").named(), Setting("only").named(item)));
    if (!schedules.empty() && lowercase(item).find("schedule=") != std::string::npos)
      throw UserError("E-USAGE",
                      fmt::format("{} and {} both restrict the schedule; give one",
                                  Setting("schedules").named(), Setting("only").named(item)));
  }
  if (!modes.empty()) only.push_back(recompute_restriction(modes));
  if (!schedules.empty()) only.push_back(schedule_restriction(schedules));
  return only;
}

std::string with_recompute_mode(std::string strategy, const std::string& mode) {
  if (mode.empty()) return strategy;
  if (lowercase(mode) == "auto")
    throw UserError("E-USAGE",
                    fmt::format("{} names all three modes, and one strategy has one; give off, "
                                "selective or full here, or search them: {}",
                                Setting("recompute_mode").named(mode),
                                Setting("recompute_modes").named("auto")));
  const auto named = recompute_mode_named(mode);
  if (!named)
    throw UserError("E-USAGE",
                    fmt::format("{}: not a recompute mode; give {}",
                                Setting("recompute_mode").named(mode), kRecomputeModeNames));
  if (states_recompute(strategy))
    throw UserError("E-USAGE", fmt::format("{} and {} both give the recompute mode; give one",
                                           Setting("recompute_mode").named(mode),
                                           Setting("strategy").named(strategy)));
  return strategy + (strategy.empty() ? "" : ",") + "recompute=" + recompute_name(*named);
}

}  // namespace ndsearch
