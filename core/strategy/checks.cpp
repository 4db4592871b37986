// SPDX-License-Identifier: Apache-2.0
#include "core/strategy/checks.hpp"

#include <fmt/format.h>

#include "core/strategy/strategy.hpp"

namespace ndsearch {
namespace {

constexpr int32_t U = NDS_UNKNOWN;

bool power_of_two(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

}  // namespace

std::vector<CheckOutcome> run_checks(const nds_strategy& s, const Model& m, uint64_t devices, int64_t global_batch) {
  std::vector<CheckOutcome> out;
  auto check = [&](const char* id, bool passed, std::string message) { out.push_back({id, passed, std::move(message)}); };

  // Every key resolved and in range; nothing below can run otherwise.
  std::string unresolved;
  for (auto [value, name] : {std::pair{s.dp, "dp"}, {s.tp, "tp"}, {s.pp, "pp"}, {s.cp, "cp"}, {s.ep, "ep"},
                             {s.etp, "etp"}, {s.vpp, "vpp"}, {s.op, "op"}, {s.mbs, "mbs"}, {s.mbn, "mbn"}})
    if (value == U || value < 1) unresolved += fmt::format("{}{}", unresolved.empty() ? "" : ", ", name);
  if (s.sp != 0 && s.sp != 1) unresolved += fmt::format("{}sp (0 or 1)", unresolved.empty() ? "" : ", ");
  if (s.zero < 0 || s.zero > 3) unresolved += fmt::format("{}zero (0..3)", unresolved.empty() ? "" : ", ");
  if (!unresolved.empty()) {
    check("degrees", false,
          fmt::format("{} unknown or out of range; give them in --strategy (dp follows from -d, mbn from -b)", unresolved));
    return out;
  }
  check("degrees", true, "every key resolved");

  const int64_t product = static_cast<int64_t>(s.dp) * s.tp * s.pp * s.cp;
  check("devices", devices == 0 || static_cast<uint64_t>(product) == devices,
        fmt::format("dp·tp·pp·cp = {}·{}·{}·{} = {} must equal the {} devices", s.dp, s.tp, s.pp, s.cp, product, devices));

  std::string heads;
  int64_t experts = 0;
  for (const ModelBlock& b : m.main.blocks) {
    if (b.c.kind != NDS_BLOCK_DECODER) continue;
    if (b.c.heads % s.tp != 0 || b.c.kv_heads % s.tp != 0)
      heads = fmt::format("tp = {} must divide the attention heads ({}) and the KV heads ({})", s.tp, b.c.heads, b.c.kv_heads);
    experts = std::max<int64_t>(experts, b.c.experts);
  }
  check("tp-heads", heads.empty(), heads.empty() ? fmt::format("tp = {} divides the heads", s.tp) : heads);

  const int64_t expert_group = static_cast<int64_t>(s.tp) * s.dp * s.cp;
  std::string ep;
  if ((static_cast<int64_t>(s.etp) * s.ep) == 0 || expert_group % (static_cast<int64_t>(s.etp) * s.ep) != 0)
    ep = fmt::format("etp·ep = {}·{} = {} must divide tp·dp·cp = {}", s.etp, s.ep, s.etp * s.ep, expert_group);
  else if (experts > 0 && experts % s.ep != 0)
    ep = fmt::format("ep = {} must divide the {} routed experts", s.ep, experts);
  else if (experts == 0 && s.ep > 1)
    ep = fmt::format("ep = {} needs routed experts; the model has none", s.ep);
  check("ep", ep.empty(), ep.empty() ? "ep and etp fit" : ep);

  const int64_t seq = m.training.seq_len;
  const bool cp_ok = s.cp == 1 || (seq != NDS_UNKNOWN && seq % (2 * static_cast<int64_t>(s.cp)) == 0);
  check("cp-seq", cp_ok,
        seq == NDS_UNKNOWN ? fmt::format("cp = {} needs the sequence length (--seq-len)", s.cp)
                           : fmt::format("the sequence length {} must be divisible by 2·cp = {} (load-balanced halves)",
                                         seq, 2 * s.cp));

  const bool sp_cp_ok = !(s.sp == 1 && s.cp > 1) || (m.training.capabilities & NDS_CAN_SP_WITH_CP) != 0;
  check("sp-cp", sp_cp_ok,
        fmt::format("{} cannot combine sequence parallelism with context parallelism (sp = 1 with cp = {}); set "
                    "sp=0 or cp=1",
                    m.framework, s.cp));

  const bool pow2_ok = (m.training.capabilities & NDS_NEEDS_POW2_TP) == 0 || power_of_two(s.tp);
  check("tp-pow2", pow2_ok, fmt::format("{} needs tp to be a power of two; tp = {}", m.framework, s.tp));

  std::string vpp;
  if (s.vpp > 1 && s.pp == 1) vpp = fmt::format("vpp = {} needs pp > 1", s.vpp);
  else if (s.vpp > 1 && s.mbn % s.pp != 0)
    vpp = fmt::format("vpp = {} (interleaved 1F1B) needs mbn = {} divisible by pp = {}", s.vpp, s.mbn, s.pp);
  check("vpp", vpp.empty(), vpp.empty() ? "virtual stages fit" : vpp);

  std::string schedule;
  if (s.schedule == NDS_SCHEDULE_INTERLEAVED && s.vpp == 1) schedule = "schedule interleaved needs vpp > 1";
  else if ((s.schedule == NDS_SCHEDULE_1F1B || s.schedule == NDS_SCHEDULE_GPIPE) && s.vpp > 1)
    schedule = fmt::format("schedule {} runs one chunk per rank; vpp = {} needs interleaved (or zb-v with vpp=2)",
                           s.schedule == NDS_SCHEDULE_1F1B ? "1f1b" : "gpipe", s.vpp);
  else if (s.schedule == NDS_SCHEDULE_ZB_V && s.vpp != 2)
    schedule = fmt::format("schedule zb-v places two chunks per rank in a V; vpp = {} must be 2", s.vpp);
  else if (s.schedule == NDS_SCHEDULE_INTERLEAVED && (m.training.capabilities & NDS_CAN_INTERLEAVE) == 0)
    schedule = fmt::format("{} cannot interleave pipeline stages; set vpp=1", m.framework);
  check("schedule", schedule.empty(), schedule.empty() ? "the schedule fits vpp" : schedule);

  const int64_t layers = m.decoder_layers();
  check("layers", layers >= static_cast<int64_t>(s.pp) * s.vpp,
        fmt::format("pp·vpp = {}·{} = {} chunks need at least as many layers; the model has {}", s.pp, s.vpp,
                    s.pp * s.vpp, layers));

  const int64_t batch = static_cast<int64_t>(s.dp) * s.mbs * s.mbn;
  check("global-batch", global_batch == NDS_UNKNOWN || batch == global_batch,
        fmt::format("dp·mbs·mbn = {}·{}·{} = {} must equal the global batch {}", s.dp, s.mbs, s.mbn, batch, global_batch));

  const int64_t shardable = static_cast<int64_t>(s.dp) * s.cp;
  check("op", shardable % s.op == 0,
        fmt::format("op = {} (the optimizer sharding group) must divide dp·cp = {}", s.op, shardable));
  return out;
}

std::optional<CheckOutcome> first_refusal(const nds_strategy& s, const Model& m, uint64_t devices, int64_t global_batch) {
  for (CheckOutcome& c : run_checks(s, m, devices, global_batch))
    if (!c.passed) return c;
  return std::nullopt;
}

}  // namespace ndsearch
