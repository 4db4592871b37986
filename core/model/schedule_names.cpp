// SPDX-License-Identifier: Apache-2.0
#include "core/model/schedule_names.hpp"

#include <string>

#include "core/support/lowercase.hpp"

namespace ndsearch {

std::optional<nds_schedule> schedule_named(std::string_view name) {
  const std::string v = lowercase(name);
  for (const ScheduleName& s : kScheduleNames)
    if (v == s.name) return s.schedule;
  return std::nullopt;
}

}  // namespace ndsearch
