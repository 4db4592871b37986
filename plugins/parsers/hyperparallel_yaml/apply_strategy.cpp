// SPDX-License-Identifier: Apache-2.0
#include "plugins/parsers/hyperparallel_yaml/apply_strategy.hpp"

#include "plugins/common/parsing/applied_recompute.hpp"
#include "plugins/common/parsing/yaml_apply.hpp"
#include "plugins/common/parsing/yaml_check.hpp"

namespace ndsearch::plugins::hyperparallel {
namespace {

using yaml::YamlEditor;

// pipeline_scheduler as HyperParallel names the schedule ("" for the default 1F1B).
std::string scheduler(const std::string& path, nds_schedule schedule) {
  switch (schedule) {
    case NDS_SCHEDULE_1F1B:
    case NDS_SCHEDULE_INTERLEAVED: return "";
    case NDS_SCHEDULE_GPIPE: return "gpipe";
    case NDS_SCHEDULE_ZB_V: return "zero_bubble_v";
    default:
      cannot_write(
          path,
          "HyperParallel runs 1f1b (interleaved with pp_interleave_num), gpipe and zero_bubble_v; "
          "this strategy's schedule is none of them");
  }
}

void set_scheduler(YamlEditor& e, const std::string& key, const std::string& path,
                   const nds_strategy& s) {
  const std::string name = scheduler(path, s.schedule);
  if (!name.empty())
    e.set(key, name);
  else if (e.has(key))
    e.set(key, s.schedule == NDS_SCHEDULE_INTERLEAVED ? "interleaved_1f1b" : "1f1b");
}

// FSDP where the file shards so (dp_shard > 1), not the parallel optimizer.
void legacy(const yaml::File& f, YamlEditor& e, const std::string& path,
            const sdk::AppliedStrategy& a) {
  const nds_strategy& s = a.strategy;
  const auto shard = f.find("train.accelerator.dp_shard");
  const bool file_fsdp = shard && f.integer(*shard) > 1;
  const std::string acc = "train.accelerator.";
  // FSDP over dp_shard where the file shards so and op divides dp; else the
  // parallel optimizer over optimizer_weight_shard_size. Both are zero 3.
  const bool fsdp = s.zero == 3 && file_fsdp && s.dp % s.op == 0;
  if (s.zero == 1 || s.zero == 2)
    cannot_write(path, "zero=" + std::to_string(s.zero) +
                           ": HyperParallel's parallel optimizer shards the parameters with the "
                           "optimizer states (zero=3); it has no ZeRO-" +
                           std::to_string(s.zero));
  e.set(acc + "dp_replicate", std::to_string(fsdp ? s.dp / s.op : s.dp));
  if (fsdp || e.has(acc + "dp_shard")) e.set(acc + "dp_shard", std::to_string(fsdp ? s.op : 1));
  e.set_unless_default(acc + "tp_degree", s.tp, 1);
  e.set_unless_default(acc + "pipeline_parallel_degree", s.pp, 1);
  e.set_unless_default(acc + "context_parallel_degree", s.cp, 1);
  e.set_unless_default(acc + "expert_parallel_degree", s.ep, 1);
  if (s.etp != s.tp || e.has(acc + "expert_tensor_parallel_degree"))
    e.set(acc + "expert_tensor_parallel_degree", std::to_string(s.etp));
  e.set_unless_default(acc + "pp_interleave_num", s.vpp, 1);
  e.set_flag_unless_default(acc + "use_seq_parallel", s.sp == 1, false);
  set_scheduler(e, acc + "pipeline_scheduler", path, s);
  if (!fsdp) {
    e.set_flag_unless_default(acc + "enable_parallel_optimizer", s.zero == 3,
                              true);  // on by default
    // gradient_accumulation_shard is how it holds the gradients (the
    // parser's fsdp_holding), not the strategy: left as stated.
    if (s.zero == 3) {
      const bool whole = static_cast<int64_t>(s.op) == static_cast<int64_t>(s.dp) * s.cp;
      if (!whole || e.has(acc + "optimizer_weight_shard_size"))
        e.set(acc + "optimizer_weight_shard_size", whole ? "-1" : std::to_string(s.op));
    }
  }
  e.set("train.micro_batch_size", std::to_string(s.mbs));
  if (s.pp > 1 || e.has("train.micro_batch_num"))
    e.set("train.micro_batch_num", std::to_string(s.mbn));
  e.set_if_present("train.global_batch_size", std::to_string(a.global_batch));
  // Recompute: the mode, and full_rec / sel_rec where the file has them;
  // a per-layer plan as per-stage counts of one mode (full_rec or sel_rec),
  // which recompute the first layers of each stage as MindFormers' lists do.
  const std::string mode = "train.gradient_checkpointing.activation_checkpoint";
  const std::string full = "model.config_overrides.full_rec",
                    sel = "model.config_overrides.sel_rec";
  const StageLists lists = per_stage_lists(path, a, "HyperParallel");
  if (lists.any_full() && lists.any_selective())
    cannot_write(path,
                 "a plan that recomputes some layers fully and others selectively: HyperParallel "
                 "reads one mode's per-stage counts (full_rec, else sel_rec); rank with one "
                 "recompute mode");
  const int32_t in_force = lists.any_full()           ? NDS_RECOMPUTE_FULL
                           : lists.any_selective()    ? NDS_RECOMPUTE_SELECTIVE
                           : !a.layer_options.empty() ? NDS_RECOMPUTE_NONE
                                                      : s.recompute;
  const char* name = in_force == NDS_RECOMPUTE_FULL        ? "full"
                     : in_force == NDS_RECOMPUTE_SELECTIVE ? "selective"
                                                           : "none";
  if (e.has(mode) || (!e.has(full) && !e.has(sel))) e.set(mode, name);
  if (lists.any_full())
    e.set(full, yaml::flow_list(lists.full));
  else if (e.has(full))
    e.set(full, e.boolean(full, in_force == NDS_RECOMPUTE_FULL));
  if (lists.any_selective())
    e.set(sel, yaml::flow_list(lists.selective));
  else if (e.has(sel))
    e.set(sel, e.boolean(sel, in_force == NDS_RECOMPUTE_SELECTIVE));
  const std::string offset = "model.config_overrides.offset";
  if (!a.stage_layers.empty()) {
    // Its offsets count the MTP layers (config_overrides' mtp_depth, the
    // HF num_nextn_predict_layers) among the last stage's, as the parser
    // reads them.
    int64_t mtp = 0;
    for (const char* key : {"mtp_depth", "num_nextn_predict_layers"})
      if (auto v = f.find(std::string("model.config_overrides.") + key)) mtp = f.integer(*v);
    e.set(offset,
          yaml::offset_value(path, a.stage_layers, s.pp, s.schedule == NDS_SCHEDULE_ZB_V, mtp));
  } else if (e.has(offset)) {
    e.set(offset, "0");
  }
}

void automodels(YamlEditor& e, const std::string& path, const sdk::AppliedStrategy& a) {
  const nds_strategy& s = a.strategy;
  refuse_per_layer_recompute(path, a.layer_options, "the AutoModels schema");
  if (s.vpp != 1 && s.schedule != NDS_SCHEDULE_ZB_V)
    cannot_write(path, "vpp=" + std::to_string(s.vpp) +
                           ": the AutoModels schema has no virtual pipeline stages");
  if (s.etp != s.tp)
    cannot_write(path,
                 "etp=" + std::to_string(s.etp) + ": the AutoModels schema splits experts by tp");
  if (s.zero == 1 || s.zero == 2)
    cannot_write(path, "zero=" + std::to_string(s.zero) +
                           ": the AutoModels schema shards with FSDP (zero=3, "
                           "fsdp_config.dp_shard_size) or not at all (zero=0)");
  if (!a.stage_layers.empty())
    cannot_write(path, "an uneven split: the AutoModels schema places layers evenly");
  if (s.zero == 3 && s.dp % s.op != 0)
    cannot_write(path, "op=" + std::to_string(s.op) +
                           ": fsdp_config.dp_shard_size must divide dp = " + std::to_string(s.dp));
  e.set_unless_default("accelerator.tp_size", s.tp, 1);
  e.set_unless_default("accelerator.pp_size", s.pp, 1);
  e.set_unless_default("accelerator.cp_size", s.cp, 1);
  e.set_unless_default("accelerator.ep_size", s.ep, 1);
  e.set_flag_unless_default("accelerator.sequence_parallel", s.sp == 1, false);
  set_scheduler(e, "accelerator.pipeline_scheduler", path, s);
  e.set_unless_default("fsdp_config.dp_shard_size", s.zero == 3 ? s.op : 1, 1);
  e.set_if_present("context.device_num", std::to_string(a.devices));
  e.set("training.micro_batch_size", std::to_string(s.mbs));
  e.set_if_present("training.micro_batch_num", std::to_string(s.mbn));
  if (!e.has("training.micro_batch_num") || e.has("training.global_batch_size"))
    e.set("training.global_batch_size", std::to_string(a.global_batch));
  const char* mode = s.recompute == NDS_RECOMPUTE_FULL        ? "full"
                     : s.recompute == NDS_RECOMPUTE_SELECTIVE ? "selective"
                                                              : "none";
  if (s.recompute != NDS_RECOMPUTE_NONE || e.has("activation_checkpoint.mode"))
    e.set("activation_checkpoint.mode", mode);
}

}  // namespace

std::string apply_strategy(const std::string& path, const sdk::AppliedStrategy& applied) {
  if (path.empty())
    throw sdk::Error(NDS_FAILED_PRECONDITION,
                     "hyperparallel-yaml writes into a training YAML only; give one");
  const std::string text =
      sdk::read_config_file(path, "HyperParallel YAML", yaml::kDefaultYamlMaxBytes);
  const yaml::File f = yaml::File::load(path);
  YamlEditor e(f, text);
  if (f.find("model.config_overrides"))
    legacy(f, e, path, applied);
  else if (f.find("model.pretrained_model_name_or_path"))
    automodels(e, path, applied);
  else
    cannot_write(path,
                 "neither HyperParallel schema (model.config_overrides or "
                 "model.pretrained_model_name_or_path)");
  return e.text();
}

}  // namespace ndsearch::plugins::hyperparallel
