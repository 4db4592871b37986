// SPDX-License-Identifier: Apache-2.0
#include "plugins/parsers/torchtitan_toml/apply_strategy.hpp"

#include <ndsearch/sdk/stage_split.hpp>

#include <algorithm>
#include <map>
#include <vector>

#include "plugins/common/parsing/text_edits.hpp"
#include "plugins/parsers/torchtitan_toml/job_file.hpp"

namespace ndsearch::plugins::torchtitan {
namespace {

std::string quoted(const std::string& s) {
  return "\"" + s + "\"";
}

// One key as the strategy wants it, in the order it is written.
struct Key {
  std::string table, name, value;  // value as TOML writes it
  bool only_if_present = false;    // leave it out of a file that does not state it
};

// TorchTitan's name of the schedule (torch.distributed.pipelining).
std::string schedule_name(const std::string& path, nds_schedule schedule) {
  switch (schedule) {
    case NDS_SCHEDULE_1F1B: return "1F1B";
    case NDS_SCHEDULE_INTERLEAVED: return "Interleaved1F1B";
    case NDS_SCHEDULE_GPIPE: return "GPipe";
    case NDS_SCHEDULE_ZB_V: return "ZBVZeroBubble";
    case NDS_SCHEDULE_DUALPIPE_V: return "DualPipeV";
    default:
      cannot_write(path,
                   "TorchTitan runs 1F1B, GPipe, Interleaved1F1B, ZBVZeroBubble and DualPipeV; not "
                   "DualPipe");
  }
}

std::vector<Key> keys_of(const std::string& path, const sdk::AppliedStrategy& a,
                         const JobFile* job) {
  const nds_strategy& s = a.strategy;
  refuse_per_layer_recompute(path, a.layer_options, "TorchTitan's activation_checkpoint");
  std::vector<Key> k;
  // `fallback`: TorchTitan's default, left out of a file that does not state the key.
  const auto put = [&](const char* table, const char* name, int64_t v, int64_t fallback = -2) {
    k.push_back({table, name, std::to_string(v), v == fallback});
  };
  if (s.zero == 1)
    cannot_write(
        path,
        "zero=1: TorchTitan shards with FSDP2 (zero=3, or zero=2 with fsdp_reshard_after_forward = "
        "\"never\") or not at all (zero=0); it has no ZeRO-1");
  if (s.sp == 0 && s.tp > 1)
    cannot_write(path, "sp=0 with tp > 1: TorchTitan always runs TP with sequence parallelism");
  // FSDP shards over data_parallel_shard x CP; the rest of dp replicates (HSDP).
  int64_t shard = 1;
  if (s.zero >= 2) {
    if (s.op % s.cp != 0 || s.dp % (s.op / s.cp) != 0)
      cannot_write(path, "op=" + std::to_string(s.op) +
                             ": TorchTitan shards over data_parallel_shard_degree x cp; "
                             "op must be cp times a divisor of dp");
    shard = s.op / s.cp;
  } else if (s.cp > 1) {
    cannot_write(
        path,
        "zero=0 with cp > 1: TorchTitan shards parameters over the context-parallel ranks (FSDP)");
  }
  put("parallelism", "data_parallel_replicate_degree", s.dp / shard, 1);
  put("parallelism", "data_parallel_shard_degree", shard);
  put("parallelism", "tensor_parallel_degree", s.tp, 1);
  put("parallelism", "pipeline_parallel_degree", s.pp, 1);
  put("parallelism", "context_parallel_degree", s.cp, 1);
  put("parallelism", "expert_parallel_degree", s.ep, 1);
  put("parallelism", "expert_tensor_parallel_degree", s.etp, 1);
  const bool reshard_stated =
      job != nullptr && job->find("parallelism.fsdp_reshard_after_forward") != nullptr;
  if (s.zero == 2 || reshard_stated)
    k.push_back({"parallelism", "fsdp_reshard_after_forward",
                 quoted(s.zero == 2 ? "never" : "default"), false});
  if (s.pp > 1 ||
      (job != nullptr && job->find("parallelism.pipeline_parallel_schedule") != nullptr))
    k.push_back({"parallelism", "pipeline_parallel_schedule",
                 quoted(schedule_name(path, s.schedule)), false});
  // Stages per rank: a multi-stage schedule's default is 2; any other count
  // is stated as layers per stage (the embedding and head count one each
  // unless the file says otherwise).
  const bool multi = s.schedule != NDS_SCHEDULE_1F1B && s.schedule != NDS_SCHEDULE_GPIPE;
  const bool per_stage_stated =
      job != nullptr && job->find("parallelism.pipeline_parallel_layers_per_stage") != nullptr;
  if (s.pp > 1 && (per_stage_stated || (multi ? s.vpp != 2 : s.vpp != 1))) {
    int64_t first = 1, last = 1;
    if (job != nullptr) {
      first = job->integer("parallelism.pipeline_parallel_first_stage_less_layers").value_or(1);
      last = job->integer("parallelism.pipeline_parallel_last_stage_less_layers").value_or(1);
    }
    const int64_t stages = static_cast<int64_t>(s.pp) * s.vpp, weight = a.layers + first + last;
    const int64_t per = a.layers > 0 ? (weight + stages - 1) / stages : 0;
    if (per < 1 || (weight + per - 1) / per != stages)
      cannot_write(
          path, "vpp=" + std::to_string(s.vpp) + ": no pipeline_parallel_layers_per_stage splits " +
                    std::to_string(a.layers) + " layers (with the embedding and head) into " +
                    std::to_string(stages) + " stages");
    put("parallelism", "pipeline_parallel_layers_per_stage", per);
  }
  // A split it was priced with must be the one TorchTitan builds (its
  // generator weighs the embedding and the head as the file states).
  if (!a.stage_layers.empty()) {
    int64_t edge = 1;
    if (job != nullptr)
      edge = job->integer("parallelism.pipeline_parallel_first_stage_less_layers").value_or(1);
    std::vector<int64_t> own;
    if (!sdk::edges_weighted_split(a.layers, static_cast<int64_t>(s.pp) * s.vpp, edge, own) ||
        own != a.stage_layers)
      cannot_write(path,
                   "a split TorchTitan does not build from layers per stage (it weighs the "
                   "embedding and the head as layers on the first and last stage): apply "
                   "one with the split TorchTitan builds");
  }
  // Batch: one local batch per step split into micro-batches (pipelines), or
  // local batch = mbs accumulated mbn times (none).
  if (s.pp > 1) {
    put("training", "local_batch_size", static_cast<int64_t>(s.mbs) * s.mbn);
    put("parallelism", "pipeline_parallel_microbatch_size", s.mbs);
  } else {
    put("training", "local_batch_size", s.mbs);
  }
  const bool global_stated = job != nullptr && job->find("training.global_batch_size") != nullptr;
  if (global_stated || (s.pp == 1 && s.mbn > 1))
    put("training", "global_batch_size", a.global_batch);
  const char* mode = s.recompute == NDS_RECOMPUTE_FULL        ? "full"
                     : s.recompute == NDS_RECOMPUTE_SELECTIVE ? "selective"
                                                              : "none";
  k.push_back({"activation_checkpoint", "mode", quoted(mode), false});
  if (s.recompute == NDS_RECOMPUTE_SELECTIVE)
    k.push_back({"activation_checkpoint", "selective_ac_option", quoted("op"), false});
  return k;
}

// A key's line in the file, and each table's last line.
class TomlEditor {
 public:
  TomlEditor(const JobFile& job, const std::string& text) : job_(job), edits_(text) {}

  void set(const Key& k) {
    const std::string field = k.table + "." + k.name;
    const toml::node* node = job_.find(field);
    if (node != nullptr) {
      const int64_t line = static_cast<int64_t>(node->source().begin.line);
      std::string text = edits_.line(line);
      const Span span = value_after_key(text, k.name, '=');
      if (!span.found())
        cannot_write(job_.path() + ":" + std::to_string(line),
                     field + " is not written as `" + k.name + " = value` on one line; set it to " +
                         k.value + " by hand");
      if (text.compare(span.begin, span.end - span.begin, k.value) == 0) return;
      text.replace(span.begin, span.end - span.begin, k.value);
      return edits_.replace_line(line, text);
    }
    if (k.only_if_present) return;
    const toml::table* table = job_.root()[k.table].as_table();
    if (table == nullptr) {
      added_tables_[k.table].push_back(k.name + " = " + k.value);
      if (std::find(table_order_.begin(), table_order_.end(), k.table) == table_order_.end())
        table_order_.push_back(k.table);
      return;
    }
    int64_t last = static_cast<int64_t>(table->source().begin.line);
    if (last < 1 || table->is_inline())
      cannot_write(job_.path(), "[" + k.table + "] is written inline or as dotted keys; add " +
                                    k.name + " = " + k.value + " by hand");
    for (const auto& [key, value] : *table)
      if (!value.is_table())
        last = std::max<int64_t>(last, static_cast<int64_t>(value.source().end.line));
    edits_.insert_after(last, k.name + " = " + k.value);
  }

  std::string text() {
    for (const std::string& t : table_order_) {
      edits_.insert_after(edits_.line_count(), "");
      edits_.insert_after(edits_.line_count(), "[" + t + "]");
      for (const std::string& l : added_tables_[t]) edits_.insert_after(edits_.line_count(), l);
    }
    return edits_.text();
  }

 private:
  const JobFile& job_;
  TextEdits edits_;
  std::map<std::string, std::vector<std::string>> added_tables_;
  std::vector<std::string> table_order_;
};

}  // namespace

std::string apply_strategy(const std::string& path, const sdk::AppliedStrategy& applied) {
  if (path.empty()) {
    // Each table once (TOML refuses a table declared twice), in the order
    // its first key comes.
    std::vector<std::string> tables;
    std::map<std::string, std::string> lines;
    for (const Key& k : keys_of("", applied, nullptr)) {
      if (lines.count(k.table) == 0) tables.push_back(k.table);
      lines[k.table] += k.name + " = " + k.value + "\n";
    }
    std::string out;
    for (const std::string& t : tables) out += (out.empty() ? "[" : "\n[") + t + "]\n" + lines[t];
    return out;
  }
  const std::string text = sdk::read_config_file(path, "TorchTitan job TOML");
  const JobFile job(path);
  TomlEditor e(job, text);
  for (const Key& k : keys_of(path, applied, &job)) e.set(k);
  return e.text();
}

}  // namespace ndsearch::plugins::torchtitan
