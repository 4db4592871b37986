// SPDX-License-Identifier: Apache-2.0
#include "core/search/search_space.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include <algorithm>
#include <array>
#include <cctype>
#include <climits>
#include <sstream>

#include "core/model/model_json.hpp"
#include "core/model/schedule_names.hpp"
#include "core/model/strategy_keys.hpp"
#include "core/strategy/strategy.hpp"  // op_from_config
#include "core/support/closest_name.hpp"
#include "core/support/lowercase.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

constexpr int32_t U = NDS_UNKNOWN;

// "the restrictions of the search (`only=tp=2,x`)": the restriction a message is about.
std::string only_given(const std::string& assignment) {
  return Setting("only").named(assignment);
}

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> out;
  for (int64_t i = 1; i * i <= n; ++i) {
    if (n % i != 0) continue;
    out.push_back(i);
    if (i != n / i) out.push_back(n / i);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The values of `key`: `searched` when the dimension is searched, else the
// one fixed value; --only filters both.
std::vector<int64_t> values(const SearchSpace& space, const std::string& key,
                            std::vector<int64_t> searched, int64_t fixed, int64_t include = U) {
  std::vector<int64_t> out =
      space.searched.count(key) != 0 ? std::move(searched) : std::vector<int64_t>{fixed};
  // The strategy the space must hold joins a searched list.
  if (include != U && space.searched.count(key) != 0 &&
      std::find(out.begin(), out.end(), include) == out.end())
    out.push_back(include);
  auto only = space.only.find(key);
  if (only != space.only.end()) {
    // --only names the values outright, searched or not (the reference's candidate lists).
    if (space.searched.count(key) == 0)
      out = only->second;
    else
      out.erase(std::remove_if(out.begin(), out.end(),
                               [&](int64_t v) {
                                 return std::find(only->second.begin(), only->second.end(), v) ==
                                        only->second.end();
                               }),
                out.end());
  }
  return out;
}

int64_t stated_or(int32_t stated, int64_t fallback) {
  return stated != U ? stated : fallback;
}

// One value `v` of `key` in an --only `assignment`, read as --strategy
// reads it (strategy_keys.hpp): a schedule's or a recompute mode's name, else
// a whole number in the key's range.
int64_t only_value(const StrategyKey& key, const std::string& v, const std::string& assignment) {
  std::string why;
  const auto value = read_key_value(key, v, why);
  if (!value)
    throw UserError("E-USAGE", fmt::format("{}: \"{}\" is {}", only_given(assignment), v, why));
  return *value;
}

}  // namespace

std::set<std::string> default_dimensions() {
  std::set<std::string> keys;
  for (const StrategyKey& k : kStrategyKeys)
    if (k.searched_by_default) keys.emplace(k.name);
  return keys;
}

std::vector<int64_t> vpp_bound(int64_t pp, int64_t layers) {
  std::vector<int64_t> vpps{1};
  for (int64_t v = 2; pp > 1 && v <= std::min<int64_t>({kMaxInterleaving, pp, layers / pp}); ++v)
    vpps.push_back(v);
  return vpps;
}

std::set<std::string> SearchSpace::parse_dimensions(const std::string& text) {
  std::set<std::string> dims;
  std::string token;
  std::istringstream in(text);
  while (in >> token) {
    std::istringstream parts(token);
    std::string part;
    while (std::getline(parts, part, ',')) {
      if (part.empty()) continue;
      const StrategyKey* key = strategy_key(part);
      if (key == nullptr)
        throw UserError(
            "E-USAGE",
            fmt::format("{}: not a dimension{}; use {}", Setting("dimensions").named(part),
                        did_you_mean(part, strategy_key_names(true)), strategy_key_list(true)));
      dims.emplace(key->name);
    }
  }
  return dims;
}

std::map<std::string, std::vector<int64_t>> SearchSpace::parse_only(
    const std::vector<std::string>& items) {
  std::map<std::string, std::vector<int64_t>> only;
  std::map<std::string, std::string> given;  // key -> the assignment that gave it
  for (const std::string& item : items) {
    // "tp=2,4,8" or several separated by spaces.
    std::istringstream in(item);
    std::string assignment;
    while (in >> assignment) {
      const size_t eq = assignment.find('=');
      if (eq == std::string::npos)
        throw UserError("E-USAGE",
                        fmt::format("{}: write KEY=V1,V2 (e.g. tp=2,4,8)", only_given(assignment)));
      const std::string typed = lowercase(assignment.substr(0, eq));
      const StrategyKey* found = strategy_key(typed);
      if (found == nullptr)
        throw UserError("E-USAGE", fmt::format("{}: unknown key \"{}\"{}", only_given(assignment),
                                               typed, did_you_mean(typed, strategy_key_names())));
      const std::string key(found->name);
      if (found->follows)
        throw UserError(
            "E-USAGE",
            fmt::format("{}: {} follows from the others (dp = devices / (tp·pp·cp), "
                        "mbn = global batch / (dp·mbs)); restrict tp, pp, cp or mbs instead",
                        only_given(assignment), key));
      if (eq + 1 == assignment.size())
        throw UserError("E-USAGE",
                        fmt::format("{}: no values; write {}=V1,V2", only_given(assignment), key));
      // A key given twice (in one --only or two) is refused, not merged or
      // replaced: which list was meant is the user's to say.
      if (auto [it, first] = given.emplace(key, assignment); !first)
        throw UserError("E-USAGE",
                        fmt::format("{}: {} is given twice (\"{}\" and \"{}\"); give one list "
                                    "per key, e.g. {}=2,4,8",
                                    Setting("only").named(), key, it->second, assignment, key));
      std::istringstream values_in(assignment.substr(eq + 1));
      std::string v;
      // Each value once: a list that names one twice is a slip the user should see.
      auto add_once = [&](int64_t value, const std::string& typed) {
        if (std::find(only[key].begin(), only[key].end(), value) != only[key].end())
          throw UserError("E-USAGE", fmt::format("{}: {} is listed twice; list each value once",
                                                 only_given(assignment), typed));
        only[key].push_back(value);
      };
      while (std::getline(values_in, v, ',')) add_once(only_value(*found, v, assignment), v);
    }
  }
  return only;
}

SpaceBounds space_bounds(const SearchSpace& space, const Model& model) {
  SpaceBounds bounds;
  for (const ModelBlock& b : model.main.blocks) {
    if (b.c.kind == NDS_BLOCK_DECODER)
      bounds.kv_heads =
          bounds.kv_heads == 0 ? b.c.kv_heads : std::min(bounds.kv_heads, b.c.kv_heads);
    bounds.routed_experts = std::max<int64_t>(bounds.routed_experts, b.c.experts);
  }
  bounds.pipeline_bound = space.pipeline_bound;
  bounds.layers = model.decoder_layers();
  bounds.global_batch = space.global_batch;
  bounds.max_ep = space.max_ep;
  return bounds;
}

std::vector<OuterTriple> outer_triples(const SearchSpace& space, const Model& model) {
  const int64_t n = static_cast<int64_t>(space.devices);
  const nds_strategy& st = model.stated;
  const SpaceBounds bounds = space_bounds(space, model);
  const int64_t kv_bound = bounds.kv_heads, layers = bounds.layers;
  std::vector<OuterTriple> out;
  // Reference §3.4: TP <= the KV heads; PP <= min(pipeline bound, layers, B).
  std::vector<int64_t> tps;
  for (int64_t t : divisors(n))
    if (t <= kv_bound) tps.push_back(t);
  const nds_strategy* inc = space.include ? &*space.include : nullptr;
  for (int64_t tp : values(space, "tp", tps, stated_or(st.tp, 1), inc ? inc->tp : U)) {
    if (tp < 1 || n % tp != 0) continue;
    std::vector<int64_t> pps;
    for (int64_t p : divisors(n / tp))
      if (p <= static_cast<int64_t>(space.pipeline_bound) && p <= layers && p <= space.global_batch)
        pps.push_back(p);
    for (int64_t pp :
         values(space, "pp", pps, stated_or(st.pp, 1), inc && inc->tp == tp ? inc->pp : U)) {
      if (pp < 1 || (n / tp) % pp != 0) continue;
      for (int64_t cp : values(space, "cp", divisors(n / tp / pp), stated_or(st.cp, 1),
                               inc && inc->tp == tp && inc->pp == pp ? inc->cp : U)) {
        if (cp < 1 || (n / tp / pp) % cp != 0) continue;
        out.push_back(
            {static_cast<int32_t>(tp), static_cast<int32_t>(pp), static_cast<int32_t>(cp)});
      }
    }
  }
  return out;
}

namespace {

// The inner dimensions in loop order, outermost first. The enumeration
// order, which is the ranking's deterministic tie-break, is theirs.
enum InnerDimension : size_t {
  kMbs,
  kEp,
  kEtp,
  kVpp,
  kSchedule,
  kSp,
  kZero,
  kOp,
  kRecompute,
  kInnerDimensions
};
using Digits = std::array<size_t, kInnerDimensions>;

// What one triple enumerates: each inner dimension's values, computed once
// per triple so that nothing per candidate allocates.
struct InnerSpace {
  std::array<std::vector<int64_t>, kInnerDimensions> values;  // all but the schedules'
  std::vector<std::vector<int64_t>> schedules;  // by vpp's digit: the schedules run with it
  std::vector<int64_t> no_sharding;             // op's one value without ZeRO
  int64_t batch = 0, dp = 0;

  // Dimension d's values where the digits outside it stand at `at`: the
  // schedules follow vpp, and without ZeRO there is no optimizer shard (one
  // op, not one per divisor).
  const std::vector<int64_t>& of(size_t d, const Digits& at) const {
    if (d == kSchedule) return schedules[at[kVpp]];
    if (d == kOp && values[kZero][at[kZero]] == 0) return no_sharding;
    return values[d];
  }

  void set(nds_strategy& s, size_t d, int64_t v) const {
    const auto i = static_cast<int32_t>(v);
    switch (d) {
      case kMbs:
        s.mbs = i;
        // MBN is the search's own, B / (dp·mbs), searched or not (reference
        // §3.3: MB is always appended); a config's stated mbn belongs to its stated dp.
        s.mbn = static_cast<int32_t>(
            batch % (dp * v) == 0 ? batch / (dp * v) : std::max<int64_t>(1, batch / (dp * v)));
        return;
      case kEp: s.ep = i; return;
      case kEtp: s.etp = i; return;
      case kVpp: s.vpp = i; return;
      case kSchedule: s.schedule = static_cast<nds_schedule>(v); return;
      case kSp: s.sp = i; return;
      case kZero: s.zero = i; return;
      case kOp: s.op = i; return;
      default: s.recompute = static_cast<nds_recompute_mode>(v); return;
    }
  }
};

// MBS: divisors of B / dp that leave at least pp micro-batches (reference
// §3.4: MB >= PP); when B does not split over dp, one candidate that the
// global-batch check refuses and counts.
std::vector<int64_t> mbs_bound(int64_t batch, int64_t dp, int64_t pp) {
  std::vector<int64_t> mbss;
  if (batch % dp == 0)
    for (int64_t m : divisors(batch / dp))
      if (batch / dp / m >= pp) mbss.push_back(m);
  if (mbss.empty()) mbss.push_back(1);
  return mbss;
}

// EP: divisors of dp·cp·tp up to the routed experts (reference §3.4) and
// the setup's bound; a dense model: 1.
std::vector<int64_t> ep_bound(const SpaceBounds& bounds, int64_t ranks) {
  std::vector<int64_t> eps{1};
  if (bounds.routed_experts > 0) {
    eps.clear();
    for (int64_t e : divisors(ranks))
      if (e <= bounds.routed_experts && (bounds.max_ep == 0 || e <= bounds.max_ep))
        eps.push_back(e);
  }
  return eps;
}

// The schedules at one vpp: each one that runs with it where SCHEDULE is
// searched or restricted (--only schedule=...), else the one vpp implies
// (the config's where it runs with that vpp); and the included strategy's
// at its vpp, where the rule chose another.
std::vector<int64_t> schedules_at(const SearchSpace& space, const nds_strategy& st,
                                  const nds_strategy* inc, int64_t vpp) {
  const auto only = space.only.find("schedule");
  const std::vector<int64_t>* only_schedules = only != space.only.end() ? &only->second : nullptr;
  const auto allowed = [&](int64_t schedule) {
    return only_schedules == nullptr || std::find(only_schedules->begin(), only_schedules->end(),
                                                  schedule) != only_schedules->end();
  };
  std::vector<int64_t> out;
  if (space.searched.contains("schedule") || only_schedules != nullptr) {
    for (const ScheduleName& named : kScheduleNames)
      if (runs_with_vpp(named.schedule, vpp) && allowed(named.schedule))
        out.push_back(named.schedule);
  } else {
    nds_schedule schedule = vpp > 1 ? NDS_SCHEDULE_INTERLEAVED : NDS_SCHEDULE_1F1B;
    if (!space.searched.contains("vpp") && st.schedule != U && runs_with_vpp(st.schedule, vpp))
      schedule = st.schedule;
    out.push_back(schedule);
  }
  if (inc != nullptr && vpp == inc->vpp && runs_with_vpp(inc->schedule, vpp) &&
      std::find(out.begin(), out.end(), inc->schedule) == out.end() && allowed(inc->schedule))
    out.push_back(inc->schedule);
  return out;
}

// The triple's inner space: the bounds of each dimension (reference §3.4),
// the config's values for those not searched, --only's restrictions, and
// the included strategy's values where it stands at this triple.
InnerSpace inner_space(const SearchSpace& space, const Model& model, const OuterTriple& t) {
  const nds_strategy& st = model.stated;
  InnerSpace in;
  in.batch = space.global_batch;
  in.dp = static_cast<int64_t>(space.devices) / (static_cast<int64_t>(t.tp) * t.pp * t.cp);
  const nds_strategy* inc = space.include && space.include->tp == t.tp &&
                                    space.include->pp == t.pp && space.include->cp == t.cp
                                ? &*space.include
                                : nullptr;
  const auto with = [&](int32_t nds_strategy::*key) {
    return inc ? static_cast<int64_t>(inc->*key) : int64_t{U};
  };
  const SpaceBounds bounds = space_bounds(space, model);
  const bool moe = bounds.routed_experts > 0;
  const int64_t shardable = in.dp * t.cp;
  auto& v = in.values;
  v[kMbs] = values(space, "mbs", mbs_bound(in.batch, in.dp, t.pp), stated_or(st.mbs, 1),
                   with(&nds_strategy::mbs));
  v[kEp] = values(space, "ep", ep_bound(bounds, in.dp * t.cp * t.tp), stated_or(st.ep, 1),
                  with(&nds_strategy::ep));
  // ETP: 1 or tp for MoE; the same as tp for a dense model (it has no experts to split).
  v[kEtp] = values(space, "etp",
                   moe && t.tp > 1 ? std::vector<int64_t>{1, t.tp} : std::vector<int64_t>{t.tp},
                   stated_or(st.etp, t.tp), with(&nds_strategy::etp));
  v[kVpp] = values(space, "vpp", vpp_bound(t.pp, bounds.layers), stated_or(st.vpp, 1),
                   with(&nds_strategy::vpp));
  v[kSp] = values(space, "sp", t.tp > 1 ? std::vector<int64_t>{0, 1} : std::vector<int64_t>{0},
                  stated_or(st.sp, t.tp > 1 ? 1 : 0), with(&nds_strategy::sp));
  v[kZero] = values(space, "zero", {0, 1, 2, 3}, stated_or(st.zero, 1), with(&nds_strategy::zero));
  // OP not searched: the config's group by the one rule every verb applies.
  const int64_t fixed_op = op_from_config(st, shardable).op;
  v[kOp] = values(space, "op", divisors(shardable), fixed_op, with(&nds_strategy::op));
  in.no_sharding = {space.searched.contains("op") ? 1 : fixed_op};
  v[kRecompute] =
      values(space, "recompute", {NDS_RECOMPUTE_NONE, NDS_RECOMPUTE_SELECTIVE, NDS_RECOMPUTE_FULL},
             stated_or(st.recompute, NDS_RECOMPUTE_NONE), inc ? inc->recompute : U);
  for (int64_t vpp : v[kVpp]) in.schedules.push_back(schedules_at(space, st, inc, vpp));
  return in;
}

}  // namespace

uint64_t enumerate_inner(const SearchSpace& space, const Model& model, const OuterTriple& t,
                         const std::function<void(const nds_strategy&)>& visit) {
  const InnerSpace in = inner_space(space, model, t);
  nds_strategy s{};
  s.struct_size = sizeof(nds_strategy);
  s.dp = static_cast<int32_t>(in.dp);
  s.tp = t.tp;
  s.pp = t.pp;
  s.cp = t.cp;
  // One odometer over the dimensions, the innermost turning fastest: a
  // digit that runs past its values carries into the one outside it (an
  // empty list carries at once), and a digit set again restarts those inside.
  uint64_t visited = 0;
  Digits at{};
  size_t d = 0;
  for (;;) {
    const std::vector<int64_t>& list = in.of(d, at);
    if (at[d] == list.size()) {
      if (d == 0) return visited;
      at[d--] = 0;
      ++at[d];
      continue;
    }
    in.set(s, d, list[at[d]]);
    if (d + 1 < kInnerDimensions) {
      ++d;
      continue;
    }
    visit(s);
    ++visited;
    ++at[d];
  }
}

Exclusions excluded_by(const SearchSpace& space, const Model& model, const nds_strategy& s) {
  SearchSpace plain = space;
  plain.include.reset();
  const SpaceBounds b = space_bounds(plain, model);
  Exclusions out;
  const auto restricted = [&](std::string_view key, int64_t v) {
    auto it = plain.only.find(std::string(key));
    if (it == plain.only.end() ||
        std::find(it->second.begin(), it->second.end(), v) != it->second.end())
      return false;
    out.restrictions.push_back(
        fmt::format("{}={}: left out by {}", key, v, only_given(it->first + "=...")));
    return true;
  };
  // Outer dimensions: the triple itself.
  bool triple = false;
  for (const OuterTriple& t : outer_triples(plain, model))
    triple = triple || (t.tp == s.tp && t.pp == s.pp && t.cp == s.cp);
  if (!triple) {
    if (!restricted("tp", s.tp) && !restricted("pp", s.pp) && !restricted("cp", s.cp))
      out.bounds.push_back(
          fmt::format("tp={}, pp={}, cp={}: outside the bounds tp <= the KV heads ({}), pp <= "
                      "min(pipeline bound {}, layers {}, "
                      "global batch {}), each dividing the devices left",
                      s.tp, s.pp, s.cp, b.kv_heads, b.pipeline_bound, b.layers, b.global_batch));
    return out;
  }
  // Inner keys: the values the space visits at this triple, key by key.
  std::map<std::string_view, std::set<int64_t>> seen;
  enumerate_inner(plain, model, {s.tp, s.pp, s.cp}, [&](const nds_strategy& c) {
    for (const StrategyKey& k : kStrategyKeys) seen[k.name].insert(key_value(c, k));
  });
  const int64_t dp = s.dp;
  const std::map<std::string, std::string> bound = {
      {"mbs", fmt::format("mbs divides global batch / dp = {} and leaves mbn >= pp = {}",
                          b.global_batch / std::max<int64_t>(1, dp), s.pp)},
      {"ep", fmt::format("ep divides dp·cp·tp = {} and is at most the routed experts ({}){}",
                         dp * s.cp * s.tp, b.routed_experts,
                         b.max_ep == 0 ? std::string()
                                       : fmt::format(" and max_expert_parallel ({}) of {}",
                                                     b.max_ep, model.setup.file))},
      {"etp", "etp is 1 or tp with experts, tp without"},
      {"vpp", fmt::format("vpp <= min({}, pp, layers / pp) = {}", kMaxInterleaving,
                          vpp_bound(s.pp, b.layers).back())},
      {"sp", "sp = 1 only with tp > 1"},
      {"zero", "zero is 0 to 3"},
      {"op", "op is the config's sharding group or all of dp·cp unless OP is among " +
                 Setting("dimensions").named()},
      {"recompute",
       "recompute is the config's unless RECOMPUTE is among " + Setting("dimensions").named()},
      {"schedule",
       "the schedule follows vpp unless SCHEDULE is among " + Setting("dimensions").named()}};
  for (const StrategyKey& k : kStrategyKeys) {
    const auto why = bound.find(std::string(k.name));  // the keys inside the triple
    const int32_t v = key_value(s, k);
    if (why == bound.end() || seen[k.name].contains(v) || restricted(k.name, v)) continue;
    out.bounds.push_back(fmt::format("{}={}: outside the bound {}", k.name,
                                     key_value_text(k, v).value_or(std::to_string(v)),
                                     why->second));
  }
  return out;
}

}  // namespace ndsearch
