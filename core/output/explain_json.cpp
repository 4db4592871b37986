// SPDX-License-Identifier: Apache-2.0
#include "core/output/explain_json.hpp"

#include <ndsearch/core/settings.hpp>

#include "core/model/model_json.hpp"
#include "core/output/evaluation_json.hpp"
#include "core/strategy/strategy.hpp"

namespace ndsearch {
namespace {

using nlohmann::json;

json rank_json(const StrategyRank& r) {
  json out = {{"fit", r.fit},
              {"tested", r.tested},
              {"outside_bounds", r.outside_bounds},
              {"left_out", r.left_out},
              {"best_changes", r.best_changes}};
  if (!r.rank) {
    out["rank"] = nullptr;
    out["note"] = "not among the fitting strategies of this search: " +
                  (r.left_out.empty() ? r.not_ranked : r.left_out.front());
    return out;
  }
  out["rank"] = *r.rank;
  json beaten_by = json::array();
  for (const FasterStrategy& f : r.beaten_by)
    beaten_by.push_back({{"rank", f.rank},
                         {"strategy", strategy_json(f.strategy)},
                         {"strategy_text", strategy_text(f.strategy)},
                         {"step_s", f.step_s},
                         {"reason", f.reason}});
  out["beaten_by"] = beaten_by;
  return out;
}

}  // namespace

json explanation_json(const StrategyExplanation& x) {
  json j = evaluation_json(x.evaluation);
  json checks = json::array();
  for (const CheckOutcome& c : x.checks)
    checks.push_back({{"id", c.id}, {"passed", c.passed}, {"message", c.message}});
  j["checks"] = checks;
  if (x.search) j["search"] = rank_json(*x.search);
  return j;
}

}  // namespace ndsearch
