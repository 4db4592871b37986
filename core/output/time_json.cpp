// SPDX-License-Identifier: Apache-2.0
#include "core/output/time_json.hpp"

namespace ndsearch {

nlohmann::json time_parts_json(const TimeParts& parts) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, member] : kTimeParts) out[name] = parts.*member;
  return out;
}

nlohmann::json time_json(const TimeEstimate& e) {
  nlohmann::json hidden = nlohmann::json::object();
  for (const auto& [name, member] : kHiddenParts) hidden[name] = e.hidden.*member;
  return {{"step_s", e.step_s},
          {"parts", time_parts_json(e.parts)},
          {"hidden", hidden},
          {"optimizer_swap_s", e.optimizer_swap_s}};
}

}  // namespace ndsearch
