// SPDX-License-Identifier: Apache-2.0
#include "plugins/parsers/megatron_args/script_apply.hpp"
#include "plugins/parsers/megatron_args/whole_number.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <vector>

#include <ndsearch/sdk/stage_split.hpp>

#include "plugins/common/parsing/applied_recompute.hpp"
#include "plugins/common/parsing/text_edits.hpp"
#include "plugins/parsers/megatron_args/arguments.hpp"
#include "plugins/parsers/megatron_args/shell_reader.hpp"

namespace ndsearch::plugins::megatron {
namespace {

// One flag as the strategy wants it: absent, a switch, or a flag with values.
struct Wanted {
  std::string flag;
  bool present = false;
  std::string value;           // empty for a switch
  bool default_value = false;  // Megatron's default: left out of a script that does not give it
};

// A flag the strategy wants gone.
// What a script states beside the strategy's flags that decides how they
// are written: MindSpeed's activation-function and norm recompute, whether
// it also states Megatron's granularity, the swap, the split's accounting.
struct ScriptFacts {
  bool activation = false, norm = false;
  bool megatron_granularity = false;  // --recompute-granularity or --recompute-activations
  bool megatron_selective = false;    // ... stating selective: its ops join Megatron's
  bool swap_attention = false;        // --swap-attention
  bool account_embedding = false, account_loss = false;  // --account-for-*-in-pipeline-split
  // How the script overlaps TP: MindSpeed's MC2 flag where it names one
  // (MindSpeed has no Transformer Engine userbuffers), else Megatron's.
  const char* tp_overlap_flag = "--tp-comm-overlap";
  // MindSpeed's ops are the config's selective recompute (model.cpp's rule).
  bool alone() const { return (activation || norm) && !megatron_granularity; }
};

// Whether the script's --recompute-granularity reads `value`.
bool granularity_is(const Arguments& args, const char* value) {
  const Found g = args.find({"--recompute-granularity"});
  return g.state == Found::State::known && !g.occurrence->values.empty() &&
         g.occurrence->values.front().text() == value;
}

Wanted dropped(const char* flag) {
  return {flag, false, ""};
}

// The even split, or the first and last ranks' counts Megatron-Core states
// with --decoder-first/last-pipeline-num-layers (equal middle ranks; under
// virtual stages every chunk row alike, each rank's count split evenly over
// its chunks: megatron/core/transformer/transformer_block.py,
// get_num_layers_to_build).
// `layer_list`: the script states MindSpeed's --num-layer-list (the layers
// of each stage, vpp 1), which then states an uneven split as it is.
std::vector<Wanted> split_flags(const std::string& where, const sdk::AppliedStrategy& a,
                                int64_t padded_slots, bool layer_list, const ScriptFacts& facts) {
  std::vector<Wanted> out{dropped("--decoder-first-pipeline-num-layers"),
                          dropped("--decoder-last-pipeline-num-layers"),
                          dropped("--num-layer-list")};
  const auto pp = static_cast<size_t>(a.strategy.pp), vpp = static_cast<size_t>(a.strategy.vpp);
  if (facts.account_embedding || facts.account_loss) {
    // The script's accounting of the embedding and loss (model.cpp) builds
    // this split: kept where it is the priced one, else turned off so that
    // the flags below state it (Megatron-Core refuses both at once).
    const auto emb = static_cast<int64_t>(facts.account_embedding),
               loss = static_cast<int64_t>(facts.account_loss);
    const auto chunks = static_cast<int64_t>(pp * vpp);
    std::vector<int64_t> built;
    if ((a.layers + emb + loss) % chunks == 0) {
      built.assign(static_cast<size_t>(chunks), (a.layers + emb + loss) / chunks);
      built.front() -= emb;
      built.back() -= loss;
    }
    if (!built.empty() && a.stage_layers == built) return out;
    out.push_back({"--account-for-embedding-in-pipeline-split", false, ""});
    out.push_back({"--account-for-loss-in-pipeline-split", false, ""});
  }
  if (layer_list && vpp == 1 && !a.stage_layers.empty()) {
    std::string list;
    for (const int64_t n : a.stage_layers) list += (list.empty() ? "" : ",") + std::to_string(n);
    out[2] = {"--num-layer-list", true, list};
    return out;
  }
  if (padded_slots > 0) {
    // MindSpeed's --noop-layers pad --num-layers (`padded_slots`) to a
    // multiple of the stages, the no-op layers at the end: the script's
    // padding must make the split priced (sdk/stage_split.hpp, padded_split).
    const auto stages = static_cast<int64_t>(pp * vpp);
    std::vector<int64_t> own;
    const bool same = padded_slots % stages == 0 && sdk::padded_split(a.layers, stages, own) &&
                      (a.stage_layers.empty() || own == a.stage_layers);
    if (!same)
      cannot_write(where, "MindSpeed pads the layers with --noop-layers to --num-layers = " +
                              std::to_string(padded_slots) +
                              ", which does not split as priced over " + std::to_string(stages) +
                              " stages: set --num-layers and --noop-layers for them by hand");
    return {};
  }
  if (a.stage_layers.empty()) return out;
  const std::vector<int64_t>& v = a.stage_layers;  // by virtual stage: chunk·pp + rank
  bool rows_alike = v.size() == pp * vpp;
  for (size_t i = 0; rows_alike && i < v.size(); ++i) rows_alike = v[i] == v[i % pp];
  std::vector<int64_t> layers(pp, 0);  // per rank
  for (size_t i = 0; rows_alike && i < v.size(); ++i) layers[i % pp] += v[i];
  const bool middles_equal =
      layers.size() <= 3 ||
      std::all_of(layers.begin() + 1, layers.end() - 1, [&](int64_t n) { return n == layers[1]; });
  if (!rows_alike || layers.size() < 2 || !middles_equal)
    cannot_write(
        where,
        "Megatron-LM states an uneven split only for the first and last pipeline stages "
        "(--decoder-first/last-pipeline-num-layers, every virtual stage of a rank alike); this "
        "split is not one: apply a strategy with the split Megatron-LM builds");
  out[0] = {"--decoder-first-pipeline-num-layers", true, std::to_string(layers.front())};
  out[1] = {"--decoder-last-pipeline-num-layers", true, std::to_string(layers.back())};
  return out;
}

// The N of `--recompute-method block --recompute-num-layers N` that states
// a priced plan (its first N layers of every virtual stage fully
// recomputed: Megatron-Core's block method counts per model chunk,
// megatron/core/transformer/transformer_block.py, _checkpointed_forward), or
// 0 when every layer runs the strategy's mode. Anything else (another count
// per stage, selective or offloaded layers among them) has no Megatron flag.
int64_t block_recompute_layers(const std::string& where, const sdk::AppliedStrategy& a) {
  const std::vector<StageRecompute> stages = recompute_per_virtual_stage(a);
  if (stages.empty()) return 0;
  const int64_t n = stages.front().full;
  for (const StageRecompute& st : stages)
    if (st.full != n || !st.full_first || st.selective > 0 || st.offloaded > 0 || n == 0)
      cannot_write(where,
                   "its layers do not all recompute alike and its plan is not the first N layers "
                   "of every (virtual) stage recomputed in full, which Megatron-LM's "
                   "--recompute-method block states: rank with one recompute mode for every "
                   "layer");
  return n;
}

// The M of MindSpeed's --recompute-activation-function-num-layers (and
// --recompute-norm-num-layers, and --recompute-num-layers under
// --swap-attention) that states a priced selective plan: its
// first M layers of every (virtual) stage (mindspeed/core/memory/recompute/
// recompute_common.py, should_recompute, counts per model chunk), or 0 when
// every layer runs it. Anything else has no MindSpeed flag.
int64_t mindspeed_recompute_layers(const std::string& where, const sdk::AppliedStrategy& a) {
  const std::vector<StageRecompute> stages = recompute_per_virtual_stage(a);
  int64_t m = 0;
  for (const StageRecompute& st : stages) m = std::max(m, st.selective);
  for (const StageRecompute& st : stages)
    if (st.full > 0 || st.offloaded > 0 || st.selective != std::min(m, st.layers))
      cannot_write(where,
                   "its plan is not the first M layers of every (virtual) stage recomputing "
                   "selectively, which MindSpeed's per-chunk counts state "
                   "(--recompute-activation-function-num-layers, --recompute-norm-num-layers, "
                   "--recompute-num-layers under --swap-attention): rank with one recompute mode "
                   "for every layer");
  return m;
}

// The distributed optimizer, and Megatron-FSDP below zero 3, shard over the
// whole data-parallel group.
void check_whole_group(const std::string& where, const nds_strategy& s) {
  if (s.zero >= 1 && s.zero <= 2 && static_cast<int64_t>(s.op) != static_cast<int64_t>(s.dp) * s.cp)
    cannot_write(where, "op=" + std::to_string(s.op) +
                            ": Megatron-LM shards the optimizer over the whole data-parallel "
                            "group (dp·cp = " +
                            std::to_string(static_cast<int64_t>(s.dp) * s.cp) + ")");
}

// The overlaps it was priced with (1.11, nds_applied_strategy.overlap), as
// Megatron-LM's flags, each where the strategy can run it: Megatron-LM
// refuses --overlap-param-gather without a sharded optimizer (megatron/
// training/arguments.py, validate_args, core_v0.19.0: "only supported with
// distributed optimizer, megatron fsdp, or dist_muon"; at zero 0 nothing is
// gathered), and --tp-comm-overlap without sequence parallelism, which it
// turns off at tp 1. Interleaved pipelines overlap their p2p unless
// --no-overlap-p2p-communication. The MoE all-to-all and the CP exchange are
// left as the script states them (no flag here prices them otherwise).
// From a host before 1.11 (no overlap given): only the zero-0 rule.
void overlap_flags(const sdk::AppliedStrategy& a, bool megatron_fsdp, const char* tp_overlap_flag,
                   std::vector<Wanted>& w) {
  const nds_strategy& s = a.strategy;
  const bool gathers = s.zero >= 1 || megatron_fsdp;
  if (!a.overlap) {
    if (!gathers) w.push_back(dropped("--overlap-param-gather"));
    return;
  }
  const uint64_t on = *a.overlap;
  const auto toggle = [&](const char* flag, bool set) { w.push_back({flag, set, ""}); };
  const bool grad_reduce = (on & NDS_OVERLAP_GRAD_REDUCE) != 0;
  toggle("--overlap-grad-reduce", grad_reduce);
  // validate_args also asserts --overlap-grad-reduce beside it.
  toggle("--overlap-param-gather", (on & NDS_OVERLAP_PARAM_GATHER) != 0 && gathers && grad_reduce);
  // MC2 too needs tp > 1 with sequence parallelism (MindSpeed refuses it
  // otherwise: mc2.py, validate_args).
  toggle(tp_overlap_flag, (on & NDS_OVERLAP_TP_COMM) != 0 && s.tp > 1 && s.sp == 1);
  toggle("--no-overlap-p2p-communication", (on & NDS_OVERLAP_P2P) == 0 && s.pp > 1);
}

// The flags that carry `applied`, in the order they are added to a script.
// `megatron_fsdp`: the script runs Megatron-FSDP (--use-megatron-fsdp);
// `layer_list`: it states MindSpeed's --num-layer-list.
std::vector<Wanted> wanted_flags(const std::string& where, const sdk::AppliedStrategy& a,
                                 bool vpp_as_layers, int64_t layers, int64_t padded_slots,
                                 bool megatron_fsdp, bool layer_list, const ScriptFacts& facts) {
  const nds_strategy& s = a.strategy;
  std::vector<Wanted> w;
  const auto value = [&](const char* flag, int64_t v, int64_t fallback = -1) {
    w.push_back({flag, true, std::to_string(v), v == fallback});
  };
  const auto toggle = [&](const char* flag, bool on) { w.push_back({flag, on, ""}); };
  value("--tensor-model-parallel-size", s.tp);
  value("--pipeline-model-parallel-size", s.pp, 1);
  value("--context-parallel-size", s.cp, 1);
  value("--expert-model-parallel-size", s.ep, 1);
  value("--expert-tensor-parallel-size", s.etp, s.tp);
  // MindSpeed's --moe-tp-extend-ep keeps the experts whole (etp 1, as the
  // parser reads it): it goes where the experts are split.
  if (s.etp != 1) w.push_back(dropped("--moe-tp-extend-ep"));
  const bool interleaved = s.schedule == NDS_SCHEDULE_INTERLEAVED && s.vpp > 1;
  if (vpp_as_layers && interleaved && layers > 0 && layers % (s.pp * s.vpp) == 0) {
    value("--num-layers-per-virtual-pipeline-stage", layers / (s.pp * s.vpp));
    w.push_back(dropped("--num-virtual-stages-per-pipeline-rank"));
  } else {
    w.push_back(dropped("--num-layers-per-virtual-pipeline-stage"));
    if (interleaved)
      value("--num-virtual-stages-per-pipeline-rank", s.vpp);
    else
      w.push_back(dropped("--num-virtual-stages-per-pipeline-rank"));
  }
  switch (s.schedule) {
    case NDS_SCHEDULE_1F1B:
    case NDS_SCHEDULE_INTERLEAVED: w.push_back(dropped("--schedules-method")); break;
    case NDS_SCHEDULE_DUALPIPE_V: w.push_back({"--schedules-method", true, "dualpipev"}); break;
    default:
      cannot_write(where,
                   "Megatron-LM runs 1F1B and interleaved 1F1B, and MindSpeed DualPipe-V "
                   "(--schedules-method dualpipev); this strategy's schedule is none of them");
  }
  toggle("--sequence-parallel", s.sp == 1);
  if (megatron_fsdp) {
    // A Megatron-FSDP script keeps it and shards as
    // --data-parallel-sharding-strategy says, at any ZeRO level
    // (megatron/training/arguments.py, core_v0.19.0: no_shard, optim,
    // optim_grads, optim_grads_params), as the parser reads it back.
    static constexpr const char* kLevels[] = {"no_shard", "optim", "optim_grads",
                                              "optim_grads_params"};
    // The script's --use-distributed-optimizer is left as it is: Megatron's
    // own Megatron-FSDP scripts pass it beside --use-megatron-fsdp
    // (examples' sbatch_mfsdp_deepseek_v3.sh), and the sharding is the
    // strategy's either way.
    check_whole_group(where, s);
    toggle("--use-megatron-fsdp", true);
    w.push_back({"--data-parallel-sharding-strategy", true, kLevels[std::clamp(s.zero, 0, 3)]});
  } else if (s.zero == 2) {
    cannot_write(
        where,
        "zero=2: Megatron-LM has no ZeRO-2 (its distributed optimizer shards the optimizer "
        "states only, its FSDP everything); choose zero=1 or zero=3");
  } else if (s.zero == 3) {
    w.push_back(dropped("--use-distributed-optimizer"));
    toggle("--use-megatron-fsdp", true);
    w.push_back({"--data-parallel-sharding-strategy", true, "optim_grads_params"});
  } else {
    check_whole_group(where, s);
    toggle("--use-distributed-optimizer", s.zero == 1);
  }
  overlap_flags(a, megatron_fsdp, facts.tp_overlap_flag, w);
  value("--micro-batch-size", s.mbs);
  value("--global-batch-size", a.global_batch);
  // MindSpeed's activation-function and norm recompute, as model.cpp prices
  // them: the selective ops of a config that states no Megatron selective
  // recompute, on the first M layers of each chunk; off otherwise, so that
  // the written job recomputes what was priced.
  const auto mindspeed_flags = [&](int64_t m, bool on) {
    const std::pair<bool, std::pair<const char*, const char*>> flags[] = {
        {facts.activation,
         {"--recompute-activation-function", "--recompute-activation-function-num-layers"}},
        {facts.norm, {"--recompute-norm", "--recompute-norm-num-layers"}}};
    for (const auto& [stated, names] : flags) {
      if (!stated) continue;
      toggle(names.first, on);
      if (on && m > 0)
        value(names.second, m);
      else
        w.push_back(dropped(names.second));
    }
  };
  if (facts.swap_attention && s.recompute == NDS_RECOMPUTE_SELECTIVE && !facts.megatron_selective) {
    // --swap-attention's checkpointing, as model.cpp prices it: the MLP of
    // the first N layers of each chunk (--recompute-num-layers N, with no
    // method), or of every layer (method uniform).
    const int64_t m = mindspeed_recompute_layers(where, a);
    if (m > 0) {
      for (const char* f : {"--recompute-granularity", "--recompute-method"})
        w.push_back(dropped(f));
      value("--recompute-num-layers", m);
    } else {
      w.push_back({"--recompute-granularity", true, "full"});
      w.push_back({"--recompute-method", true, "uniform"});
      value("--recompute-num-layers", 1);
    }
    toggle("--recompute-activations", false);
  } else if (facts.swap_attention && s.recompute == NDS_RECOMPUTE_FULL) {
    // Under --swap-attention MindSpeed recomputes no layer in full: full
    // recompute of every layer is written without it.
    if (!a.layer_options.empty())
      cannot_write(
          where,
          "MindSpeed's --swap-attention replaces full recompute by its MLP checkpointing, and "
          "this plan recomputes some layers in full and keeps others: rank with one recompute "
          "mode for every layer");
    toggle("--swap-attention", false);
    w.push_back({"--recompute-granularity", true, "full"});
    w.push_back({"--recompute-method", true, "uniform"});
    value("--recompute-num-layers", 1);
    toggle("--recompute-activations", false);
    mindspeed_flags(0, false);
  } else if (s.recompute == NDS_RECOMPUTE_SELECTIVE && facts.alone()) {
    const int64_t m = mindspeed_recompute_layers(where, a);
    for (const char* f :
         {"--recompute-granularity", "--recompute-method", "--recompute-num-layers"})
      w.push_back(dropped(f));
    mindspeed_flags(m, true);
  } else if (s.recompute == NDS_RECOMPUTE_NONE && a.layer_options.empty()) {
    for (const char* f :
         {"--recompute-granularity", "--recompute-method", "--recompute-num-layers"})
      w.push_back(dropped(f));
    toggle("--recompute-activations", false);
    mindspeed_flags(0, false);
  } else if (s.recompute == NDS_RECOMPUTE_SELECTIVE && a.layer_options.empty()) {
    // MindSpeed's ops were priced with Megatron's only where the config
    // stated selective recompute.
    if (!facts.megatron_selective) mindspeed_flags(0, false);
    w.push_back({"--recompute-granularity", true, "selective"});
    w.push_back(dropped("--recompute-method"));
    w.push_back(dropped("--recompute-num-layers"));
  } else {
    // Every layer of every stage: uniform over groups of one layer; the
    // first N of each (virtual) stage: block N.
    const int64_t block = block_recompute_layers(where, a);
    w.push_back({"--recompute-granularity", true, "full"});
    w.push_back({"--recompute-method", true, block > 0 ? "block" : "uniform"});
    w.push_back({"--recompute-num-layers", true, std::to_string(block > 0 ? block : 1)});
    toggle("--recompute-activations", false);
    mindspeed_flags(0, false);
  }
  for (Wanted& f : split_flags(where, a, padded_slots, layer_list, facts))
    w.push_back(std::move(f));
  return w;
}

// Where a flag's text is on its line: [flag, end of its last value).
struct FlagSpan {
  size_t flag_begin = std::string::npos, value_begin = std::string::npos, end = std::string::npos;
};

bool space(char c) {
  return c == ' ' || c == '\t';
}

// The token after position `from` on `line` (a '=' glued to the flag counts as the separator).
std::pair<size_t, size_t> next_token(const std::string& line, size_t from) {
  size_t b = from;
  if (b < line.size() && line[b] == '=') ++b;
  while (b < line.size() && space(line[b])) ++b;
  size_t e = b;
  char quote = 0;
  for (; e < line.size(); ++e) {
    const char c = line[e];
    if (quote != 0) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (space(c) || c == ')' || c == ';') {
      break;
    }
  }
  return {b, e};
}

// The flag whole on `line` (not a prefix of a longer flag), with its value when it takes one.
std::optional<FlagSpan> find_flag(const std::string& line, const std::string& flag,
                                  bool takes_value) {
  size_t at = 0;
  while ((at = line.find(flag, at)) != std::string::npos) {
    const size_t after = at + flag.size();
    const bool whole_start = at == 0 || space(line[at - 1]) || line[at - 1] == '"' ||
                             line[at - 1] == '(' || line[at - 1] == '\'';
    const bool whole_end = after == line.size() || space(line[after]) || line[after] == '=' ||
                           line[after] == '"' || line[after] == '\'' || line[after] == ')' ||
                           line[after] == '\\';
    if (whole_start && whole_end) {
      FlagSpan s;
      s.flag_begin = at;
      s.end = after;
      if (takes_value) {
        const auto [b, e] = next_token(line, after);
        if (b == e || line[b] == '\\') return std::nullopt;  // the value is on another line
        s.value_begin = b;
        s.end = e;
      }
      return s;
    }
    at = after;
  }
  return std::nullopt;
}

class ScriptEditor {
 public:
  ScriptEditor(const std::string& path, const std::string& text, const Arguments& args)
      : path_(path), edits_(text), args_(args) {}

  void apply(const Wanted& w) {
    const Found f = args_.find({w.flag.c_str()});
    if (f.state == Found::State::unknown)
      cannot_write(where(f.occurrence->flag_word.line()),
                   w.flag + " is given in a part of the script ndsearch cannot decide (" + f.why +
                       "); set it by hand");
    if (f.state == Found::State::absent) {
      if (w.present && !w.default_value) add(w);
      return;
    }
    const Occurrence& o = *f.occurrence;
    const bool takes_value = flag_arity(w.flag) != 0;
    if (!w.present) return remove(o, takes_value);
    if (!takes_value) return;  // a switch that is on stays as written
    if (o.values.empty()) cannot_write(where(o.flag_word.line()), w.flag + " has no value");
    const Word& v = o.values.front();
    if (v.text() == w.value) return;
    // A value from a variable that feeds this flag alone: edit the assignment.
    if (!v.variable().empty() && v.pieces.size() == 1 && feeds_one_flag(v)) {
      const int64_t line = v.line();
      std::string text = edits_.line(line);
      const size_t assign = text.find(v.variable() + "=");
      const size_t at = assign == std::string::npos
                            ? assign
                            : text.find(v.text(), assign + v.variable().size() + 1);
      if (at != std::string::npos) {
        text.replace(at, v.text().size(), w.value);
        return edits_.replace_line(line, text);
      }
    }
    // Else the value after the flag where the flag is written.
    const int64_t line = o.flag_word.line();
    std::string text = edits_.line(line);
    const auto span = find_flag(text, w.flag, true);
    if (!span)
      cannot_write(where(line), w.flag +
                                    "'s value is not written beside it on this line; set it to " +
                                    w.value + " by hand");
    text.replace(span->value_begin, span->end - span->value_begin, w.value);
    edits_.replace_line(line, text);
  }

  std::string text() const { return edits_.text(); }

 private:
  std::string where(int64_t line) const { return path_ + ":" + std::to_string(line); }

  bool feeds_one_flag(const Word& v) const {
    int uses = 0;
    for (const Occurrence& o : args_.all())
      for (const Word& w : o.values) uses += w.source() == v.source() ? 1 : 0;
    return uses == 1;
  }

  void remove(const Occurrence& o, bool takes_value) {
    const int64_t line = o.flag_word.line();
    std::string text = edits_.line(line);
    const auto span = find_flag(text, o.flag, takes_value);
    if (!span)
      cannot_write(where(line), o.flag + " is not written whole on this line; delete it by hand");
    size_t begin = span->flag_begin, end = span->end;
    while (end < text.size() && space(text[end])) ++end;  // with the spaces after it
    text.erase(begin, end - begin);
    // A line left with nothing but a continuation goes (the line before carries one too).
    const size_t content = text.find_first_not_of(" \t");
    if (content == std::string::npos || text.compare(content, std::string::npos, "\\") == 0)
      return edits_.remove_line(line);
    edits_.replace_line(line, text);
  }

  // New flags go on lines of their own before the first line that starts
  // with a parallelism or batch flag, indented as it is, continued as the
  // line before it is.
  void add(const Wanted& w) {
    if (anchor_ == 0) anchor_ = find_anchor();
    const std::string indent = edits_.indentation(anchor_);
    const std::string& before = anchor_ > 1 ? edits_.line(anchor_ - 1) : std::string();
    const bool continued = !before.empty() && before.find_last_not_of(" \t") != std::string::npos &&
                           before[before.find_last_not_of(" \t")] == '\\';
    edits_.insert_after(anchor_ - 1, indent + w.flag + (w.value.empty() ? "" : " " + w.value) +
                                         (continued ? " \\" : ""));
  }

  int64_t find_anchor() const {
    for (const char* flag :
         {"--tensor-model-parallel-size", "--pipeline-model-parallel-size", "--micro-batch-size",
          "--global-batch-size", "--num-layers", "--seq-length"}) {
      const Found f = args_.find({flag});
      if (f.state != Found::State::known) continue;
      const int64_t line = f.occurrence->flag_word.line();
      const std::string& text = edits_.line(line);
      const size_t content = text.find_first_not_of(" \t");
      if (content != std::string::npos && text.compare(content, 2, "--") == 0) return line;
    }
    cannot_write(
        path_,
        "no line of the script starts with --tensor-model-parallel-size, --micro-batch-size, "
        "--num-layers or a like flag, so there is no place to add flags on lines of their own; "
        "put one such flag on a line by itself and apply again");
  }

  std::string path_;
  TextEdits edits_;
  const Arguments& args_;
  int64_t anchor_ = 0;
};

}  // namespace

std::string apply_to_script(const std::string& path, const std::string& text,
                            const sdk::AppliedStrategy& applied) {
  ShellScript script = read_shell_script(text);
  Arguments args(path, &script);
  for (const auto& list : script.argument_lists) args.add_words(list);
  const Found layers = args.find({"--num-layers"});
  int64_t n = 0;
  if (layers.state == Found::State::known && !layers.occurrence->values.empty())
    whole_number(layers.occurrence->values.front().text(), n);  // n stays 0 when unread
  const bool vpp_as_layers = args.has({"--num-layers-per-virtual-pipeline-stage"});
  const int64_t padded_slots = args.has({"--noop-layers"}) ? n : 0;
  ScriptEditor editor(path, text, args);
  const ScriptFacts facts{
      args.has({"--recompute-activation-function"}),
      args.has({"--recompute-norm"}),
      args.has({"--recompute-granularity"}) || args.has({"--recompute-activations"}),
      args.has({"--recompute-activations"}) || granularity_is(args, "selective"),
      args.has({"--swap-attention"}),
      args.has({"--account-for-embedding-in-pipeline-split"}),
      args.has({"--account-for-loss-in-pipeline-split"}),
      args.has({"--use-ascend-mc2"}) ? "--use-ascend-mc2"
      : args.has({"--use-mc2"})      ? "--use-mc2"
                                     : "--tp-comm-overlap"};
  for (const Wanted& w :
       wanted_flags(path, applied, vpp_as_layers, n, padded_slots,
                    args.has({"--use-megatron-fsdp"}), args.has({"--num-layer-list"}), facts))
    editor.apply(w);
  return editor.text();
}

std::string megatron_flags(const sdk::AppliedStrategy& applied) {
  std::string out;
  for (const Wanted& w : wanted_flags("", applied, false, 0, 0, false, false, ScriptFacts{}))
    if (w.present && !w.default_value)
      out += "    " + w.flag + (w.value.empty() ? "" : " " + w.value) + " \\\n";
  return out;
}

}  // namespace ndsearch::plugins::megatron
