// SPDX-License-Identifier: Apache-2.0
#include "core/strategy/strategy.hpp"
#include "core/support/closest_name.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "core/model/model_json.hpp"
#include "core/model/model_limits.hpp"
#include "core/model/schedule_names.hpp"
#include "core/model/strategy_keys.hpp"
#include "core/strategy/degree_product.hpp"
#include "core/support/lowercase.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

constexpr int32_t U = NDS_UNKNOWN;

[[noreturn]] void bad(const std::string& what) {
  throw UserError("E-STRATEGY",
                  fmt::format("{}: {}; write strategy keys as \"dp=8,tp=4,pp=4,mbs=1\" ({})",
                              Setting("strategy").named(), what, strategy_key_list()));
}

}  // namespace

nds_strategy unset_strategy() {
  nds_strategy s{};
  s.struct_size = sizeof(nds_strategy);
  for (const StrategyKey& k : kStrategyKeys) set_key_value(s, k, U);
  return s;
}

nds_strategy parse_strategy(std::string_view text) {
  nds_strategy s = unset_strategy();
  std::map<std::string_view, std::string> seen;  // key -> the item that gave it
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) bad(fmt::format("\"{}\" has no value", item));
    const std::string typed = lowercase(item.substr(0, eq));
    const std::string value = lowercase(item.substr(eq + 1));
    const StrategyKey* key = strategy_key(typed);
    if (key == nullptr)
      bad(fmt::format("unknown key \"{}\"{}", typed, did_you_mean(typed, strategy_key_names())));
    // A key given twice is a mistake to show, not a value to pick (the last
    // silently won before): "tp=2,tp=4", also through an alias ("mp=2,tp=4").
    if (auto [it, first] = seen.emplace(key->name, std::string(item)); !first)
      bad(fmt::format(R"({} is given twice ("{}" and "{}"); give each key once)", key->name,
                      it->second, item));
    std::string why;
    const auto v = read_key_value(*key, value, why);
    if (!v) bad(fmt::format("{}={} is {}", key->name, value, why));
    set_key_value(s, *key, *v);
  }
  return s;
}

namespace {

// One strategy being resolved: each unset key takes the config's value,
// else a rule or a default, and says which (strategy_sources).
struct Resolution {
  nds_strategy s;
  const nds_strategy& stated;
  StrategySources* sources;

  void source(const char* key, const std::string& where) const {
    if (sources != nullptr) (*sources)[key] = where;
  }

  // An unset integer key: the config's, else `fallback` because of `why`.
  void take(int32_t nds_strategy::*field, const char* key, int32_t fallback,
            const std::string& why) {
    if (s.*field != U) return;
    if (stated.*field != U) {
      s.*field = stated.*field;
      source(key, "config");
    } else {
      s.*field = fallback;
      source(key, why);
    }
  }

  void degrees() {
    take(&nds_strategy::tp, "tp", 1, "default: 1");
    take(&nds_strategy::pp, "pp", 1, "default: 1");
    take(&nds_strategy::cp, "cp", 1, "default: 1");
    take(&nds_strategy::ep, "ep", 1, "default: 1");
    take(&nds_strategy::etp, "etp", s.tp, "default: tp");
    // ZB-V and the DualPipes run two chunks per rank: asking for one, or a
    // config stating one, brings vpp 2.
    const nds_schedule wanted = s.schedule != U ? s.schedule : stated.schedule;
    const bool two_chunks = wanted != U && runs_two_chunks(wanted);
    take(&nds_strategy::vpp, "vpp", two_chunks ? 2 : 1,
         two_chunks ? fmt::format("default: 2 for {}", schedule_name(wanted)) : "default: 1");
    // A config's sp at tp = 1 says nothing about a run with TP: the default then.
    if (s.sp == U && stated.sp != U && stated.tp == 1 && s.tp > 1) {
      s.sp = 1;
      source("sp", "default: 1 if tp > 1 (the config's sp is at tp = 1)");
    }
    take(&nds_strategy::sp, "sp", s.tp > 1 ? 1 : 0, "default: 1 if tp > 1");
    take(&nds_strategy::zero, "zero", 1, "default: 1");
    take(&nds_strategy::mbs, "mbs", 1, "default: 1");
  }

  void data_parallel(uint64_t devices) {
    if (s.dp != U) return;
    // Saturated (each degree is up to 2^24): a wrapped product could be 0.
    const auto model_parallel = static_cast<uint64_t>(degree_product({s.tp, s.pp, s.cp}));
    // dp must fit nds_strategy's int32: a larger quotient stays unknown and
    // the checks refuse it, naming the devices.
    if (devices > 0 && model_parallel > 0 && devices % model_parallel == 0 &&
        devices / model_parallel <= static_cast<uint64_t>(kMaxDevices.most)) {
      s.dp = static_cast<int32_t>(devices / model_parallel);
      source("dp", "derived: devices / (tp·pp·cp)");
    } else {
      take(&nds_strategy::dp, "dp", U,
           fmt::format("unknown: {} does not divide by tp·pp·cp", Setting("devices").named()));
    }
  }

  void sharding_and_batch(int64_t global_batch) {
    const int64_t shardable = s.dp == U ? U : static_cast<int64_t>(s.dp) * s.cp;
    if (s.op == U && shardable != U && shardable <= (int64_t{1} << 30)) {
      const StatedOp op = op_from_config(stated, shardable);
      s.op = static_cast<int32_t>(op.op);
      source("op", op.why);
    }
    if (s.mbn != U) return;
    if (global_batch != NDS_UNKNOWN && s.dp != U && s.dp > 0 && s.mbs > 0 &&
        global_batch % (static_cast<int64_t>(s.dp) * s.mbs) == 0 &&
        global_batch / (static_cast<int64_t>(s.dp) * s.mbs) <= kMaxBatch.most) {
      s.mbn = static_cast<int32_t>(global_batch / (static_cast<int64_t>(s.dp) * s.mbs));
      source("mbn", "derived: global batch / (dp·mbs)");
    } else {
      take(&nds_strategy::mbn, "mbn", U, "unknown: the global batch does not divide by dp·mbs");
    }
  }

  void recompute_and_schedule() {
    if (s.recompute == U) {
      s.recompute = stated.recompute != U ? stated.recompute : NDS_RECOMPUTE_NONE;
      source("recompute", stated.recompute != U ? "config" : "default: none");
    } else {
      source("recompute", Setting("strategy").named());
    }
    if (s.schedule == U) {
      const bool stated_fits = stated.schedule != U && runs_with_vpp(stated.schedule, s.vpp);
      s.schedule = stated_fits ? stated.schedule
                               : (s.vpp > 1 ? NDS_SCHEDULE_INTERLEAVED : NDS_SCHEDULE_1F1B);
      source("schedule", stated_fits ? "config" : "default: interleaved if vpp > 1, else 1f1b");
    } else {
      source("schedule", Setting("strategy").named());
    }
  }
};

}  // namespace

nds_strategy resolve_strategy(const nds_strategy& given, const Model& model, uint64_t devices,
                              int64_t global_batch, StrategySources* sources) {
  Resolution r{given, model.stated, sources};
  for (const StrategyKey& k : kStrategyKeys)
    if (key_value(given, k) != U)
      r.source(std::string(k.name).c_str(), Setting("strategy").named());
  r.degrees();
  r.data_parallel(devices);
  r.sharding_and_batch(global_batch);
  r.recompute_and_schedule();
  return r.s;
}

StatedOp op_from_config(const nds_strategy& stated, int64_t shardable) {
  if (stated.op == U) return {shardable, "default: dp·cp"};
  const int64_t stated_group =
      stated.dp == U ? U : int64_t{stated.dp} * (stated.cp != U ? stated.cp : 1);
  if (stated.op == stated_group)
    return {shardable, stated.op == shardable
                           ? "config"
                           : "derived: dp·cp (the config shards over its whole dp·cp group)"};
  if (shardable % stated.op == 0) return {stated.op, "config"};
  return {shardable, fmt::format("adapted: dp·cp (the config's op = {} does not divide dp·cp = {})",
                                 stated.op, shardable)};
}

std::string strategy_text(const nds_strategy& s) {
  std::string text;
  for (const StrategyKey& k : kStrategyKeys)
    text += fmt::format("{}{}={}", text.empty() ? "" : ",", k.name,
                        key_value_text(k, key_value(s, k)).value_or("?"));
  return text;
}

std::vector<std::string> strategy_changes(const nds_strategy& from, const nds_strategy& to) {
  std::vector<std::string> out;
  for (const StrategyKey& k : kStrategyKeys)
    if (key_value(from, k) != key_value(to, k))
      out.push_back(fmt::format("{} {} -> {}", k.name,
                                key_value_text(k, key_value(from, k)).value_or("?"),
                                key_value_text(k, key_value(to, k)).value_or("?")));
  return out;
}

uint64_t stated_devices(const Model& model) {
  const nds_strategy& s = model.stated;
  if (s.dp == U || s.tp == U || s.pp == U) return 0;
  // Saturated: the stated degrees are up to 2^24 each.
  return static_cast<uint64_t>(degree_product({s.dp, s.tp, s.pp, s.cp == U ? 1 : s.cp}));
}

nds_strategy normalized_strategy(const nds_strategy& s, const Model& model) {
  nds_strategy n = s;
  if (model.first_moe() == nullptr) {
    n.etp = n.tp;
    n.ep = n.ep == U ? U : 1;
  }
  if (n.tp == 1) n.sp = 0;
  return n;
}

bool same_keys(const nds_strategy& a, const nds_strategy& b) {
  return a.dp == b.dp && a.tp == b.tp && a.pp == b.pp && a.cp == b.cp && a.ep == b.ep &&
         a.etp == b.etp && a.vpp == b.vpp && a.sp == b.sp && a.zero == b.zero && a.op == b.op &&
         a.mbs == b.mbs && a.mbn == b.mbn && a.recompute == b.recompute && a.schedule == b.schedule;
}

}  // namespace ndsearch
