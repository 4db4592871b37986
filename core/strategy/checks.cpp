// SPDX-License-Identifier: Apache-2.0
#include "core/strategy/checks.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include "core/model/model_json.hpp"
#include "core/model/model_limits.hpp"
#include "core/model/schedule_names.hpp"
#include "core/strategy/degree_product.hpp"
#include "core/strategy/placement.hpp"  // trainer_split_exists, stated_split_applies
#include "core/strategy/strategy.hpp"

namespace ndsearch {
namespace {

constexpr int32_t U = NDS_UNKNOWN;

bool power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// Runs the checks in order; `visit(id, passed, message)` sees each, with the
// message built only when asked for (a lambda), and returns false to stop.
// The one implementation behind run_checks (every check, with messages) and
// first_refusal_id (the search's hot path: the first failure, no strings).
template <class Visit>
void walk_checks(const nds_strategy& s, const Model& m, uint64_t devices, int64_t global_batch, Visit&& visit) {
  auto check = [&](const char* id, bool passed, auto&& message) { return visit(id, passed, message); };

  // Every key resolved and in range; nothing below can run otherwise.
  bool resolved = true;
  for (int32_t v : {s.dp, s.tp, s.pp, s.cp, s.ep, s.etp, s.vpp, s.op, s.mbs, s.mbn}) resolved = resolved && v != U && v >= 1;
  resolved = resolved && (s.sp == 0 || s.sp == 1) && s.zero >= 0 && s.zero <= 3;
  if (!check("degrees", resolved, [&] {
        std::string unresolved;
        for (auto [value, name] : {std::pair{s.dp, "dp"}, {s.tp, "tp"}, {s.pp, "pp"}, {s.cp, "cp"}, {s.ep, "ep"},
                                   {s.etp, "etp"}, {s.vpp, "vpp"}, {s.op, "op"}, {s.mbs, "mbs"}, {s.mbn, "mbn"}})
          if (value == U || value < 1) unresolved += fmt::format("{}{}", unresolved.empty() ? "" : ", ", name);
        if (s.sp != 0 && s.sp != 1) unresolved += fmt::format("{}sp (0 or 1)", unresolved.empty() ? "" : ", ");
        if (s.zero < 0 || s.zero > 3) unresolved += fmt::format("{}zero (0..3)", unresolved.empty() ? "" : ", ");
        return resolved
                   ? std::string("every key resolved")
                   : fmt::format(
                         "{} unknown or out of range; give them in {}: dp follows from {}, mbn "
                         "from {}",
                         unresolved, Setting("strategy").named(), Setting("devices").named(),
                         Setting("global_batch").named());
      }) || !resolved)
    return;

  // Saturated, never wrapped: each degree is up to 2^24. Without -d the
  // product itself is the device count, and kMaxDevices bounds it; every
  // product below (tp·dp·cp, dp·mbs) is then at most 2^48.
  const int64_t product = degree_product({s.dp, s.tp, s.pp, s.cp});
  const bool devices_ok =
      devices == 0 ? product <= kMaxDevices.most : static_cast<uint64_t>(product) == devices;
  if (!check("devices", devices_ok, [&] {
        const std::string shown = product == kSaturatedProduct ? std::string("more than 2^63") : std::to_string(product);
        if (devices == 0)
          return fmt::format("dp·tp·pp·cp = {}·{}·{}·{} = {} is above ndsearch's limit of {} devices", s.dp, s.tp,
                             s.pp, s.cp, shown, kMaxDevices.most);
        return fmt::format("dp·tp·pp·cp = {}·{}·{}·{} = {} must equal the {} devices", s.dp, s.tp, s.pp, s.cp,
                           shown, devices);
      }))
    return;

  const nds_layer_block* bad_heads = nullptr;
  int64_t experts = 0, window = 0;
  for (const ModelBlock& b : m.main.blocks) {
    if (b.c.kind != NDS_BLOCK_DECODER) continue;
    if (b.c.heads % s.tp != 0 || b.c.kv_heads % s.tp != 0) bad_heads = &b.c;
    experts = std::max<int64_t>(experts, b.c.experts);
    window = std::max<int64_t>(window, b.c.attention_window);
  }
  if (!check("tp-heads", bad_heads == nullptr, [&] {
        return bad_heads == nullptr ? fmt::format("tp = {} divides the heads", s.tp)
                                    : fmt::format("tp = {} must divide the attention heads ({}) and the KV heads ({})",
                                                  s.tp, bad_heads->heads, bad_heads->kv_heads);
      }))
    return;

  const int64_t expert_group = static_cast<int64_t>(s.tp) * s.dp * s.cp;
  const int64_t expert_split = static_cast<int64_t>(s.etp) * s.ep;
  const bool ep_groups_fit = expert_split != 0 && expert_group % expert_split == 0;
  const bool ep_ok = ep_groups_fit && (experts > 0 ? experts % s.ep == 0 : s.ep == 1);
  if (!check("ep", ep_ok, [&] {
        if (!ep_groups_fit)
          return fmt::format("etp·ep = {}·{} = {} must divide tp·dp·cp = {}", s.etp, s.ep, expert_split, expert_group);
        if (experts > 0 && experts % s.ep != 0)
          return fmt::format("ep = {} must divide the {} routed experts", s.ep, experts);
        if (experts == 0 && s.ep > 1) return fmt::format("ep = {} needs routed experts; the model has none", s.ep);
        return std::string("ep and etp fit");
      }))
    return;

  const int64_t seq = m.training.seq_len;
  if (!check("cp-seq",
             s.cp == 1 || (seq != NDS_UNKNOWN && seq % (2 * static_cast<int64_t>(s.cp)) == 0), [&] {
               return seq == NDS_UNKNOWN
                          ? fmt::format("cp = {} needs {}", s.cp, Setting("seq_len").named())
                          : fmt::format(
                                "the sequence length {} must be divisible by 2·cp = {} "
                                "(load-balanced halves)",
                                seq, 2 * s.cp);
             }))
    return;

  const bool sp_cp_ok = !(s.sp == 1 && s.cp > 1) || (m.training.capabilities & NDS_CAN_SP_WITH_CP) != 0;
  if (!check("sp-cp", sp_cp_ok, [&] {
        if (sp_cp_ok) return std::string("sequence and context parallelism combine here");
        return fmt::format("{} cannot combine sequence parallelism with context parallelism (sp = 1 with cp = {}); "
                           "set sp=0 or cp=1",
                           m.framework, s.cp);
      }))
    return;

  const bool cp_window_ok =
      s.cp == 1 || window == 0 || (m.training.capabilities & NDS_NO_CP_WITH_WINDOW) == 0;
  if (!check("cp-window", cp_window_ok, [&] {
        if (cp_window_ok) return std::string("context parallelism runs with the model's attention");
        return fmt::format(
            "{} runs no context parallelism with sliding-window attention (cp = {}, a window of {} "
            "keys); set cp=1",
            m.framework, s.cp, window);
      }))
    return;

  const bool sp_with_tp = s.tp == 1 || s.sp == 1 || (m.training.capabilities & NDS_NEEDS_SP_WITH_TP) == 0;
  if (!check("sp-tp", sp_with_tp, [&] {
        if (sp_with_tp) return std::string("tensor parallelism runs with or without sequence parallelism");
        return fmt::format("{} always runs tensor parallelism with sequence parallelism (tp = {}); set sp=1",
                           m.framework, s.tp);
      }))
    return;

  const bool needs_pow2 = (m.training.capabilities & NDS_NEEDS_POW2_TP) != 0;
  if (!check("tp-pow2", !needs_pow2 || power_of_two(s.tp), [&] {
        if (!needs_pow2) return fmt::format("{} takes any tp", m.framework);
        return fmt::format("{} needs tp to be a power of two; tp = {}", m.framework, s.tp);
      }))
    return;

  // DualPipe's and DualPipe-V's chunks need no mbn a multiple of pp (their own check below).
  const bool dualpipe = is_dualpipe(s.schedule);
  const bool vpp_ok = s.vpp == 1 || (s.pp > 1 && (dualpipe || s.mbn % s.pp == 0));
  if (!check("vpp", vpp_ok, [&] {
        if (s.vpp > 1 && s.pp == 1) return fmt::format("vpp = {} needs pp > 1", s.vpp);
        if (!vpp_ok)
          return fmt::format("vpp = {} (interleaved 1F1B) needs mbn = {} divisible by pp = {}", s.vpp, s.mbn, s.pp);
        return std::string("virtual stages fit");
      }))
    return;

  const bool interleaves = (m.training.capabilities & NDS_CAN_INTERLEAVE) != 0;
  const bool trainer_runs = (m.training.capabilities & schedule_lacked_bit(s.schedule)) == 0;
  const bool schedule_ok = runs_with_vpp(s.schedule, s.vpp) &&
                           !(s.schedule == NDS_SCHEDULE_INTERLEAVED && !interleaves) &&
                           trainer_runs;
  if (!check("schedule", schedule_ok, [&] {
        if (s.schedule == NDS_SCHEDULE_INTERLEAVED && s.vpp == 1) return std::string("schedule interleaved needs vpp > 1");
        if ((s.schedule == NDS_SCHEDULE_1F1B || s.schedule == NDS_SCHEDULE_GPIPE) && s.vpp > 1)
          return fmt::format("schedule {} runs one chunk per rank; vpp = {} needs interleaved (or zb-v with vpp=2)",
                             s.schedule == NDS_SCHEDULE_1F1B ? "1f1b" : "gpipe", s.vpp);
        if (runs_two_chunks(s.schedule) && s.vpp != 2)
          return fmt::format("schedule {} runs two chunks per rank; vpp = {} must be 2",
                             schedule_name(s.schedule), s.vpp);
        if (!trainer_runs)
          return fmt::format("{}'s trainer does not run schedule {}", m.framework,
                             schedule_name(s.schedule));
        if (!schedule_ok) return fmt::format("{} cannot interleave pipeline stages; set vpp=1", m.framework);
        return std::string("the schedule fits vpp");
      }))
    return;

  // DeepSeek's DualPipe and DualPipe-V (github.com/deepseek-ai/DualPipe) feed
  // 2·pp micro-batches at least before their steady state; DualPipe feeds
  // half from each end of an even pp (its schedule asserts all three).
  const bool dualpipe_ok =
      !dualpipe || (s.pp > 1 && s.mbn >= 2 * static_cast<int64_t>(s.pp) &&
                    (s.schedule == NDS_SCHEDULE_DUALPIPE_V || (s.pp % 2 == 0 && s.mbn % 2 == 0)));
  if (!check("dualpipe", dualpipe_ok, [&] {
        if (!dualpipe) return std::string("not a DualPipe schedule");
        if (s.pp == 1)
          return fmt::format("schedule {} needs a pipeline (pp > 1)", schedule_name(s.schedule));
        if (s.mbn < 2 * static_cast<int64_t>(s.pp))
          return fmt::format("schedule {} needs mbn >= 2·pp = {}; mbn = {}",
                             schedule_name(s.schedule), 2 * s.pp, s.mbn);
        if (!dualpipe_ok)
          return fmt::format(
              "schedule dualpipe feeds micro-batches from both ends: pp = {} and mbn = {} must be "
              "even",
              s.pp, s.mbn);
        return std::string("the DualPipe schedule fits");
      }))
    return;

  const int64_t layers = m.decoder_layers();
  // DualPipe's two chunks per rank are two of pp stages, not of pp·vpp.
  const int64_t stages =
      s.schedule == NDS_SCHEDULE_DUALPIPE ? s.pp : static_cast<int64_t>(s.pp) * s.vpp;
  if (!check("layers", layers >= stages, [&] {
        return fmt::format("pp·vpp = {}·{} = {} chunks need at least as many layers; the model has {}", s.pp, s.vpp,
                           static_cast<int64_t>(s.pp) * s.vpp, layers);
      }))
    return;

  // The trainer builds its own split of the layers (nds_training.stage_split),
  // or the config's stated split applies (the placement's one rule).
  const int64_t per_rank = s.schedule == NDS_SCHEDULE_DUALPIPE ? 1 : s.vpp;
  const bool splits =
      stated_split_applies(s, m) || trainer_split_exists(m.training, layers, s.pp, per_rank);
  if (!check("split", splits, [&] {
        if (splits) return std::string("the trainer splits the layers over these stages");
        return fmt::format("{} cannot split {} layers over pp = {} ranks of vpp = {} chunks ({})", m.framework,
                           layers, s.pp, s.vpp, split_rule_words(m.training.stage_split));
      }))
    return;

  const int64_t batch = degree_product({s.dp, s.mbs, s.mbn});  // mbs, mbn up to 2^24 each
  if (!check("global-batch", global_batch == NDS_UNKNOWN || batch == global_batch, [&] {
        return fmt::format("dp·mbs·mbn = {}·{}·{} = {} must equal the global batch {}", s.dp, s.mbs, s.mbn, batch,
                           global_batch);
      }))
    return;

  const int64_t shardable = static_cast<int64_t>(s.dp) * s.cp;
  if (!check("op", shardable % s.op == 0, [&] {
        return fmt::format("op = {} (the optimizer sharding group) must divide dp·cp = {}", s.op, shardable);
      }))
    return;

  const bool zero3 = (m.training.capabilities & NDS_CAN_ZERO3) != 0;
  const bool zero2 = (m.training.capabilities & NDS_NO_ZERO2) == 0;
  const bool zero1 = (m.training.capabilities & NDS_NO_ZERO1) == 0;
  if (!check("zero", (s.zero < 3 || zero3) && (s.zero != 2 || zero2) && (s.zero != 1 || zero1), [&] {
        if (s.zero == 1 && !zero1)
          return fmt::format("{} cannot shard the optimizer states alone (zero = 1): its sharding "
                             "takes the parameters too",
                             m.framework);
        if (s.zero == 2 && !zero2)
          return fmt::format("{} cannot shard gradients without parameters (zero = 2): its sharding is "
                             "zero {}",
                             m.framework, zero1 ? "1 (its distributed optimizer) or 3" : "3");
        if (s.zero < 3 || zero3) return fmt::format("zero = {} is within what {} shards", s.zero, m.framework);
        return fmt::format("{} cannot shard parameters (zero = 3); use zero 0-2", m.framework);
      }))
    return;

  const bool expert_tp = (m.training.capabilities & NDS_CAN_EXPERT_TP) != 0;
  check("etp", experts == 0 || s.etp == 1 || expert_tp, [&] {
    if (experts == 0 || s.etp == 1 || expert_tp) return std::string("the experts' tensor split is supported");
    return fmt::format("{} cannot split experts over tensor ranks (etp = {}); set etp=1", m.framework, s.etp);
  });
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

std::vector<CheckOutcome> run_checks(const nds_strategy& s, const Model& m, uint64_t devices, int64_t global_batch) {
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

const char* first_refusal_id(const nds_strategy& s, const Model& m, uint64_t devices, int64_t global_batch) {
  const char* first = nullptr;
  walk_checks(s, m, devices, global_batch, [&](const char* id, bool passed, auto&&) {
    if (!passed) first = id;
    return passed;
  });
  return first;
}

}  // namespace ndsearch
