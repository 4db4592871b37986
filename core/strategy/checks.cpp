// SPDX-License-Identifier: Apache-2.0
#include "core/strategy/checks.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include <algorithm>
#include <iterator>
#include <string>
#include <utility>

#include "core/model/model_json.hpp"
#include "core/model/model_limits.hpp"
#include "core/model/schedule_names.hpp"
#include "core/model/strategy_keys.hpp"
#include "core/strategy/degree_product.hpp"
#include "core/strategy/placement.hpp"  // trainer_split_exists, stated_split_applies
#include "core/strategy/strategy.hpp"

namespace ndsearch {
namespace {

constexpr int32_t U = NDS_UNKNOWN;

bool power_of_two(int64_t v) {
  return v > 0 && (v & (v - 1)) == 0;
}

// Key I of the table known and in its range; the named keys always are
// (their values are checked where they are read).
template <size_t I>
bool key_in_range(const nds_strategy& s) {
  constexpr const StrategyKey& k = kStrategyKeys[I];
  if constexpr (k.field == nullptr) {
    return true;
  } else {
    // Every range starts at 0 or more: an unknown value (-1) is below it.
    static_assert(k.least > U);
    return in_range(k, s.*k.field);
  }
}

// Every integer key known and in its range (strategy_keys.hpp). Unrolled
// over the constant table at compile time: each strategy the search
// enumerates passes here first, and a loop over member pointers cost the
// search 0.6 % of its instructions (callgrind, bench_search).
template <size_t... I>
bool all_in_range(const nds_strategy& s, std::index_sequence<I...> /*keys*/) {
  return (key_in_range<I>(s) && ...);
}

bool resolved(const nds_strategy& s) {
  return all_in_range(s, std::make_index_sequence<std::size(kStrategyKeys)>());
}

std::string degrees_message(const nds_strategy& s) {
  if (resolved(s)) return "every key resolved";
  std::vector<std::string> unresolved;
  for (const StrategyKey& k : kStrategyKeys) {
    if (k.field == nullptr) continue;
    const int32_t v = s.*k.field;
    if (in_range(k, v)) continue;
    const bool unknown_degree = k.least == 1 && v < 1;  // NDS_UNKNOWN is negative
    unresolved.push_back(unknown_degree ? std::string(k.name)
                                        : fmt::format("{} ({} to {})", k.name, k.least, k.most));
  }
  return fmt::format("{} unknown or out of range; give them in {}: dp follows from {}, mbn from {}",
                     fmt::join(unresolved, ", "), Setting("strategy").named(),
                     Setting("devices").named(), Setting("global_batch").named());
}

// What the checks after "degrees" read: the strategy, the model, and what
// follows from both, once every degree is resolved (no division by zero).
struct Facts {
  const nds_strategy& s;
  const Model& m;
  uint64_t devices;
  int64_t global_batch;
  // Saturated, never wrapped: each degree is up to 2^24. Without -d the
  // product itself is the device count, and kMaxDevices bounds it; every
  // product below (tp·dp·cp, dp·mbs) is then at most 2^48.
  int64_t product;
  const nds_layer_block* bad_heads;  // a decoder block whose heads tp does not divide
  int64_t experts, window;           // the most routed experts and the widest window
  int64_t layers;
  bool dualpipe;
  uint64_t can;  // the trainer's capabilities

  bool has(uint64_t capability) const { return (can & capability) != 0; }
};

Facts facts_of(const nds_strategy& s, const Model& m, uint64_t devices, int64_t global_batch) {
  Facts f{s,
          m,
          devices,
          global_batch,
          degree_product({s.dp, s.tp, s.pp, s.cp}),
          nullptr,
          0,
          0,
          0,
          is_dualpipe(s.schedule),
          m.training.capabilities};
  for (const ModelBlock& b : m.main.blocks) {  // one pass: Model::decoder_layers and the rest
    if (b.c.kind != NDS_BLOCK_DECODER) continue;
    f.layers += b.c.layers;
    if (b.c.heads % s.tp != 0 || b.c.kv_heads % s.tp != 0) f.bad_heads = &b.c;
    f.experts = std::max<int64_t>(f.experts, b.c.experts);
    f.window = std::max<int64_t>(f.window, b.c.attention_window);
  }
  return f;
}

// One check: its id, whether a strategy passes it, and what it says of it.
// Each is written once; walk_checks runs them in the order of kChecks.
struct DevicesCheck {
  static constexpr const char* id = "devices";
  static bool passes(const Facts& f) {
    return f.devices == 0 ? f.product <= kMaxDevices.most
                          : static_cast<uint64_t>(f.product) == f.devices;
  }
  static std::string message(const Facts& f) {
    const nds_strategy& s = f.s;
    const std::string shown =
        f.product == kSaturatedProduct ? std::string("more than 2^63") : std::to_string(f.product);
    if (f.devices == 0)
      return fmt::format("dp·tp·pp·cp = {}·{}·{}·{} = {} is above ndsearch's limit of {} devices",
                         s.dp, s.tp, s.pp, s.cp, shown, kMaxDevices.most);
    return fmt::format("dp·tp·pp·cp = {}·{}·{}·{} = {} must equal the {} devices", s.dp, s.tp, s.pp,
                       s.cp, shown, f.devices);
  }
};

struct TpHeadsCheck {
  static constexpr const char* id = "tp-heads";
  static bool passes(const Facts& f) { return f.bad_heads == nullptr; }
  static std::string message(const Facts& f) {
    return f.bad_heads == nullptr
               ? fmt::format("tp = {} divides the heads", f.s.tp)
               : fmt::format("tp = {} must divide the attention heads ({}) and the KV heads ({})",
                             f.s.tp, f.bad_heads->heads, f.bad_heads->kv_heads);
  }
};

struct EpCheck {
  static constexpr const char* id = "ep";
  static int64_t group(const nds_strategy& s) { return static_cast<int64_t>(s.tp) * s.dp * s.cp; }
  static int64_t split(const nds_strategy& s) { return static_cast<int64_t>(s.etp) * s.ep; }
  static bool groups_fit(const nds_strategy& s) {
    return split(s) != 0 && group(s) % split(s) == 0;
  }
  static bool passes(const Facts& f) {
    return groups_fit(f.s) && (f.experts > 0 ? f.experts % f.s.ep == 0 : f.s.ep == 1);
  }
  static std::string message(const Facts& f) {
    const nds_strategy& s = f.s;
    if (!groups_fit(s))
      return fmt::format("etp·ep = {}·{} = {} must divide tp·dp·cp = {}", s.etp, s.ep, split(s),
                         group(s));
    if (f.experts > 0 && f.experts % s.ep != 0)
      return fmt::format("ep = {} must divide the {} routed experts", s.ep, f.experts);
    if (f.experts == 0 && s.ep > 1)
      return fmt::format("ep = {} needs routed experts; the model has none", s.ep);
    return "ep and etp fit";
  }
};

struct CpSeqCheck {
  static constexpr const char* id = "cp-seq";
  static bool passes(const Facts& f) {
    const int64_t seq = f.m.training.seq_len;
    return f.s.cp == 1 || (seq != NDS_UNKNOWN && seq % (2 * static_cast<int64_t>(f.s.cp)) == 0);
  }
  static std::string message(const Facts& f) {
    const int64_t seq = f.m.training.seq_len;
    return seq == NDS_UNKNOWN
               ? fmt::format("cp = {} needs {}", f.s.cp, Setting("seq_len").named())
               : fmt::format(
                     "the sequence length {} must be divisible by 2·cp = {} (load-balanced halves)",
                     seq, 2 * f.s.cp);
  }
};

struct SpCpCheck {
  static constexpr const char* id = "sp-cp";
  static bool passes(const Facts& f) {
    return !(f.s.sp == 1 && f.s.cp > 1) || f.has(NDS_CAN_SP_WITH_CP);
  }
  static std::string message(const Facts& f) {
    if (passes(f)) return "sequence and context parallelism combine here";
    return fmt::format(
        "{} cannot combine sequence parallelism with context parallelism (sp = 1 with cp = {}); "
        "set sp=0 or cp=1",
        f.m.framework, f.s.cp);
  }
};

struct CpWindowCheck {
  static constexpr const char* id = "cp-window";
  static bool passes(const Facts& f) {
    return f.s.cp == 1 || f.window == 0 || !f.has(NDS_NO_CP_WITH_WINDOW);
  }
  static std::string message(const Facts& f) {
    if (passes(f)) return "context parallelism runs with the model's attention";
    return fmt::format(
        "{} runs no context parallelism with sliding-window attention (cp = {}, a window of {} "
        "keys); set cp=1",
        f.m.framework, f.s.cp, f.window);
  }
};

struct SpTpCheck {
  static constexpr const char* id = "sp-tp";
  static bool passes(const Facts& f) {
    return f.s.tp == 1 || f.s.sp == 1 || !f.has(NDS_NEEDS_SP_WITH_TP);
  }
  static std::string message(const Facts& f) {
    if (passes(f)) return "tensor parallelism runs with or without sequence parallelism";
    return fmt::format(
        "{} always runs tensor parallelism with sequence parallelism (tp = {}); set sp=1",
        f.m.framework, f.s.tp);
  }
};

struct TpPow2Check {
  static constexpr const char* id = "tp-pow2";
  static bool passes(const Facts& f) { return !f.has(NDS_NEEDS_POW2_TP) || power_of_two(f.s.tp); }
  static std::string message(const Facts& f) {
    if (!f.has(NDS_NEEDS_POW2_TP)) return fmt::format("{} takes any tp", f.m.framework);
    return fmt::format("{} needs tp to be a power of two; tp = {}", f.m.framework, f.s.tp);
  }
};

// DualPipe's and DualPipe-V's chunks need no mbn a multiple of pp (their own check below).
struct VppCheck {
  static constexpr const char* id = "vpp";
  static bool passes(const Facts& f) {
    const nds_strategy& s = f.s;
    return s.vpp == 1 || (s.pp > 1 && (f.dualpipe || s.mbn % s.pp == 0));
  }
  static std::string message(const Facts& f) {
    const nds_strategy& s = f.s;
    if (s.vpp > 1 && s.pp == 1) return fmt::format("vpp = {} needs pp > 1", s.vpp);
    if (!passes(f))
      return fmt::format("vpp = {} (interleaved 1F1B) needs mbn = {} divisible by pp = {}", s.vpp,
                         s.mbn, s.pp);
    return "virtual stages fit";
  }
};

struct ScheduleCheck {
  static constexpr const char* id = "schedule";
  static bool trainer_runs(const Facts& f) { return !f.has(schedule_lacked_bit(f.s.schedule)); }
  static bool passes(const Facts& f) {
    const nds_strategy& s = f.s;
    return runs_with_vpp(s.schedule, s.vpp) &&
           !(s.schedule == NDS_SCHEDULE_INTERLEAVED && !f.has(NDS_CAN_INTERLEAVE)) &&
           trainer_runs(f);
  }
  static std::string message(const Facts& f) {
    const nds_strategy& s = f.s;
    if (s.schedule == NDS_SCHEDULE_INTERLEAVED && s.vpp == 1)
      return "schedule interleaved needs vpp > 1";
    if ((s.schedule == NDS_SCHEDULE_1F1B || s.schedule == NDS_SCHEDULE_GPIPE) && s.vpp > 1)
      return fmt::format(
          "schedule {} runs one chunk per rank; vpp = {} needs interleaved (or zb-v with vpp=2)",
          s.schedule == NDS_SCHEDULE_1F1B ? "1f1b" : "gpipe", s.vpp);
    if (runs_two_chunks(s.schedule) && s.vpp != 2)
      return fmt::format("schedule {} runs two chunks per rank; vpp = {} must be 2",
                         schedule_name(s.schedule), s.vpp);
    if (!trainer_runs(f))
      return fmt::format("{}'s trainer does not run schedule {}", f.m.framework,
                         schedule_name(s.schedule));
    if (!passes(f))
      return fmt::format("{} cannot interleave pipeline stages; set vpp=1", f.m.framework);
    return "the schedule fits vpp";
  }
};

// DeepSeek's DualPipe and DualPipe-V (github.com/deepseek-ai/DualPipe) feed
// 2·pp micro-batches at least before their steady state; DualPipe feeds
// half from each end of an even pp (its schedule asserts all three).
struct DualPipeCheck {
  static constexpr const char* id = "dualpipe";
  static bool passes(const Facts& f) {
    const nds_strategy& s = f.s;
    return !f.dualpipe ||
           (s.pp > 1 && s.mbn >= 2 * static_cast<int64_t>(s.pp) &&
            (s.schedule == NDS_SCHEDULE_DUALPIPE_V || (s.pp % 2 == 0 && s.mbn % 2 == 0)));
  }
  static std::string message(const Facts& f) {
    const nds_strategy& s = f.s;
    if (!f.dualpipe) return "not a DualPipe schedule";
    if (s.pp == 1)
      return fmt::format("schedule {} needs a pipeline (pp > 1)", schedule_name(s.schedule));
    if (s.mbn < 2 * static_cast<int64_t>(s.pp))
      return fmt::format("schedule {} needs mbn >= 2·pp = {}; mbn = {}", schedule_name(s.schedule),
                         2 * s.pp, s.mbn);
    if (!passes(f))
      return fmt::format(
          "schedule dualpipe feeds micro-batches from both ends: pp = {} and mbn = {} must be even",
          s.pp, s.mbn);
    return "the DualPipe schedule fits";
  }
};

// DualPipe's two chunks per rank are two of pp stages, not of pp·vpp.
struct LayersCheck {
  static constexpr const char* id = "layers";
  static bool passes(const Facts& f) {
    const nds_strategy& s = f.s;
    return f.layers >=
           (s.schedule == NDS_SCHEDULE_DUALPIPE ? s.pp : static_cast<int64_t>(s.pp) * s.vpp);
  }
  static std::string message(const Facts& f) {
    const nds_strategy& s = f.s;
    return fmt::format("pp·vpp = {}·{} = {} chunks need at least as many layers; the model has {}",
                       s.pp, s.vpp, static_cast<int64_t>(s.pp) * s.vpp, f.layers);
  }
};

// The trainer builds its own split of the layers (nds_training.stage_split),
// or the config's stated split applies (the placement's one rule).
struct SplitCheck {
  static constexpr const char* id = "split";
  static bool passes(const Facts& f) {
    const int64_t per_rank = f.s.schedule == NDS_SCHEDULE_DUALPIPE ? 1 : f.s.vpp;
    return stated_split_applies(f.s, f.m) ||
           trainer_split_exists(f.m.training, f.layers, f.s.pp, per_rank);
  }
  static std::string message(const Facts& f) {
    if (passes(f)) return "the trainer splits the layers over these stages";
    return fmt::format("{} cannot split {} layers over pp = {} ranks of vpp = {} chunks ({})",
                       f.m.framework, f.layers, f.s.pp, f.s.vpp,
                       split_rule_words(f.m.training.stage_split));
  }
};

struct GlobalBatchCheck {
  static constexpr const char* id = "global-batch";
  static int64_t batch(const nds_strategy& s) {
    return degree_product({s.dp, s.mbs, s.mbn});
  }  // up to 2^24 each
  static bool passes(const Facts& f) {
    return f.global_batch == NDS_UNKNOWN || batch(f.s) == f.global_batch;
  }
  static std::string message(const Facts& f) {
    return fmt::format("dp·mbs·mbn = {}·{}·{} = {} must equal the global batch {}", f.s.dp, f.s.mbs,
                       f.s.mbn, batch(f.s), f.global_batch);
  }
};

struct OpCheck {
  static constexpr const char* id = "op";
  static bool passes(const Facts& f) {
    return (static_cast<int64_t>(f.s.dp) * f.s.cp) % f.s.op == 0;
  }
  static std::string message(const Facts& f) {
    return fmt::format("op = {} (the optimizer sharding group) must divide dp·cp = {}", f.s.op,
                       static_cast<int64_t>(f.s.dp) * f.s.cp);
  }
};

struct ZeroCheck {
  static constexpr const char* id = "zero";
  static bool passes(const Facts& f) {
    const int32_t z = f.s.zero;
    return (z < 3 || f.has(NDS_CAN_ZERO3)) && (z != 2 || !f.has(NDS_NO_ZERO2)) &&
           (z != 1 || !f.has(NDS_NO_ZERO1));
  }
  static std::string message(const Facts& f) {
    const bool zero1 = !f.has(NDS_NO_ZERO1);
    if (f.s.zero == 1 && !zero1)
      return fmt::format(
          "{} cannot shard the optimizer states alone (zero = 1): its sharding takes the "
          "parameters too",
          f.m.framework);
    if (f.s.zero == 2 && f.has(NDS_NO_ZERO2))
      return fmt::format(
          "{} cannot shard gradients without parameters (zero = 2): its sharding is zero {}",
          f.m.framework, zero1 ? "1 (its distributed optimizer) or 3" : "3");
    if (f.s.zero < 3 || f.has(NDS_CAN_ZERO3))
      return fmt::format("zero = {} is within what {} shards", f.s.zero, f.m.framework);
    return fmt::format("{} cannot shard parameters (zero = 3); use zero 0-2", f.m.framework);
  }
};

struct EtpCheck {
  static constexpr const char* id = "etp";
  static bool passes(const Facts& f) {
    return f.experts == 0 || f.s.etp == 1 || f.has(NDS_CAN_EXPERT_TP);
  }
  static std::string message(const Facts& f) {
    if (passes(f)) return "the experts' tensor split is supported";
    return fmt::format("{} cannot split experts over tensor ranks (etp = {}); set etp=1",
                       f.m.framework, f.s.etp);
  }
};

// The checks after "degrees", in the order docs/cli.md ("Checks") lists them.
template <class... Checks>
struct CheckList {
  // `visit(id, passed, message)` for each in order until it returns false.
  template <class Visit>
  static void walk(const Facts& f, Visit& visit) {
    (visit(Checks::id, Checks::passes(f), [&f] { return Checks::message(f); }) && ...);
  }
};
using kChecks = CheckList<DevicesCheck, TpHeadsCheck, EpCheck, CpSeqCheck, SpCpCheck, CpWindowCheck,
                          SpTpCheck, TpPow2Check, VppCheck, ScheduleCheck, DualPipeCheck,
                          LayersCheck, SplitCheck, GlobalBatchCheck, OpCheck, ZeroCheck, EtpCheck>;

// Runs the checks in order; `visit(id, passed, message)` sees each, with the
// message built only when asked for (a lambda), and returns false to stop.
// The one implementation behind run_checks (every check, with messages) and
// first_refusal_id (the search's hot path: the first failure, no strings).
// Every key resolved and in range comes first: nothing after it can run otherwise.
template <class Visit>
void walk_checks(const nds_strategy& s, const Model& m, uint64_t devices, int64_t global_batch,
                 Visit&& visit) {
  const bool all_resolved = resolved(s);
  if (!visit("degrees", all_resolved, [&s] { return degrees_message(s); }) || !all_resolved) return;
  kChecks::walk(facts_of(s, m, devices, global_batch), visit);
}

}  // namespace

const char* split_rule_words(int32_t rule) {
  switch (rule) {
    case NDS_SPLIT_FIRST_LAST:
      return "equal middle stages, the first and last the rest; under vpp, layers / vpp split so";
    case NDS_SPLIT_EDGES_WEIGHTED:
      return "the embedding and head weigh layers on the first and last stage, and the stages "
             "come from a whole number of layers per stage";
    case NDS_SPLIT_PADDED: return "no-op layers pad the layers to a multiple of the stages";
    default: return "the reference's split";
  }
}

std::vector<CheckOutcome> run_checks(const nds_strategy& s, const Model& m, uint64_t devices,
                                     int64_t global_batch) {
  std::vector<CheckOutcome> out;
  walk_checks(s, m, devices, global_batch, [&](const char* id, bool passed, auto&& message) {
    out.push_back({id, passed, message()});
    return true;  // every check (the degrees check stops the walk itself)
  });
  return out;
}

std::optional<CheckOutcome> first_refusal(const nds_strategy& s, const Model& m, uint64_t devices,
                                          int64_t global_batch) {
  std::optional<CheckOutcome> first;
  walk_checks(s, m, devices, global_batch, [&](const char* id, bool passed, auto&& message) {
    if (!passed) first = CheckOutcome{id, false, message()};
    return passed;
  });
  return first;
}

const char* first_refusal_id(const nds_strategy& s, const Model& m, uint64_t devices,
                             int64_t global_batch) {
  const char* first = nullptr;
  walk_checks(s, m, devices, global_batch, [&](const char* id, bool passed, auto&&) {
    if (!passed) first = id;
    return passed;
  });
  return first;
}

}  // namespace ndsearch
