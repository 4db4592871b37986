// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/time_json.hpp"

namespace ndsearch::cli {

nlohmann::json time_parts_json(const TimeParts& parts) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, member] : kTimeParts) out[name] = parts.*member;
  return out;
}

}  // namespace ndsearch::cli
