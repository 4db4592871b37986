// SPDX-License-Identifier: Apache-2.0
#include "core/output/strategy_json.hpp"

#include "core/model/model_json.hpp"

namespace ndsearch {

nlohmann::json strategy_json(const nds_strategy& s) {
  using nlohmann::json;
  auto k = [](int32_t v) { return v == NDS_UNKNOWN ? json(nullptr) : json(v); };
  return {
      {"dp", k(s.dp)},
      {"tp", k(s.tp)},
      {"pp", k(s.pp)},
      {"cp", k(s.cp)},
      {"ep", k(s.ep)},
      {"etp", k(s.etp)},
      {"vpp", k(s.vpp)},
      {"sp", k(s.sp)},
      {"zero", k(s.zero)},
      {"op", k(s.op)},
      {"mbs", k(s.mbs)},
      {"mbn", k(s.mbn)},
      {"recompute",
       recompute_name(s.recompute) ? json(recompute_name(s.recompute)) : json(nullptr)},
      {"schedule", schedule_name(s.schedule) ? json(schedule_name(s.schedule)) : json(nullptr)}};
}

}  // namespace ndsearch
