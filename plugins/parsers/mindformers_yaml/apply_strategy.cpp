// SPDX-License-Identifier: Apache-2.0
#include "plugins/parsers/mindformers_yaml/apply_strategy.hpp"

#include <algorithm>
#include <string>

#include "plugins/common/parsing/applied_recompute.hpp"
#include "plugins/common/parsing/yaml_apply.hpp"
#include "plugins/common/parsing/yaml_check.hpp"

namespace ndsearch::plugins::mindformers {
namespace {

// Recompute as priced: one switch when every layer runs the strategy's mode,
// else per-stage counts (recompute: [...] fully, select_recompute: [...]
// selectively), which MindFormers applies to the first layers of each stage
// (mindformers/models/utils.py, LayerSetting), as the pricing places them.
void write_recompute(const std::string& path, const sdk::AppliedStrategy& a, yaml::YamlEditor& e) {
  const nds_strategy& s = a.strategy;
  if (a.layer_options.empty()) {
    const bool full = s.recompute == NDS_RECOMPUTE_FULL,
               selective = s.recompute == NDS_RECOMPUTE_SELECTIVE;
    e.set("recompute_config.recompute", e.boolean("recompute_config.recompute", full));
    e.set_flag_unless_default("recompute_config.select_recompute", selective, false);
    return;
  }
  const StageLists lists = per_stage_lists(path, a, "MindFormers");
  e.set("recompute_config.recompute", lists.any_full()
                                          ? yaml::flow_list(lists.full)
                                          : e.boolean("recompute_config.recompute", false));
  if (lists.any_selective())
    e.set("recompute_config.select_recompute", yaml::flow_list(lists.selective));
  else
    e.set_flag_unless_default("recompute_config.select_recompute", false, false);
}

// The MTP layers model_config.offset counts: the legacy DeepSeek-V3
// model's mtp_depth, among the last stage's layers, as the parser reads them;
// the mcore models' mtp_num_layers and the HF num_nextn_predict_layers are
// outside the offsets.
int64_t mtp_in_offset(const yaml::File& f) {
  if (auto v = f.find("model.model_config.mtp_depth")) return f.integer(*v);
  return 0;
}

}  // namespace

std::string apply_strategy(const std::string& path, const sdk::AppliedStrategy& applied) {
  if (path.empty())
    throw sdk::Error(NDS_FAILED_PRECONDITION,
                     "mindformers-yaml writes into a training YAML only; give one");
  const std::string text =
      sdk::read_config_file(path, "MindFormers YAML", yaml::kDefaultYamlMaxBytes);
  const yaml::File f = yaml::File::load(path);
  yaml::YamlEditor e(f, text);
  const nds_strategy& s = applied.strategy;
  e.set("parallel_config.data_parallel", std::to_string(s.dp));
  e.set("parallel_config.model_parallel", std::to_string(s.tp));
  e.set("parallel_config.pipeline_stage", std::to_string(s.pp));
  e.set_unless_default("parallel_config.context_parallel", s.cp, 1);
  e.set_unless_default("parallel_config.expert_parallel", s.ep, 1);
  // etp: moe_config.expert_model_parallel where the file states it or the
  // parser's rule for an unstated one would read another value back.
  const std::string etp = "moe_config.expert_model_parallel";
  if (s.etp != unstated_etp(s.dp, s.tp, s.ep) || e.has(etp)) {
    if (!e.has("moe_config"))
      cannot_write(path, "etp=" + std::to_string(s.etp) + " with tp=" + std::to_string(s.tp) +
                             ", ep=" + std::to_string(s.ep) +
                             ": this file has no moe_config to state expert_model_parallel in "
                             "(MindFormers then splits experts by tp, or keeps them whole when "
                             "tp·ep > dp·tp)");
    e.set(etp, std::to_string(s.etp));
  }
  e.set_flag_unless_default("parallel_config.use_seq_parallel", s.sp == 1, false);
  e.set_unless_default("model.model_config.pp_interleave_num", s.vpp, 1);
  // pp_interleave_num is read only with pipeline_interleave on; without it
  // MindFormers runs plain 1F1B (mindformers/models/utils.py, LayerSetting;
  // mindformers/trainer/base_trainer.py).
  const std::string interleave = "parallel.pipeline_config.pipeline_interleave";
  if (s.vpp > 1 || e.has(interleave)) e.set(interleave, e.boolean(interleave, s.vpp > 1));

  // The pipeline scheduler.
  std::string scheduler;
  switch (s.schedule) {
    case NDS_SCHEDULE_1F1B:
    case NDS_SCHEDULE_INTERLEAVED: scheduler = "1f1b"; break;
    case NDS_SCHEDULE_GPIPE: scheduler = "gpipe"; break;
    case NDS_SCHEDULE_ZB_V: scheduler = "zero_bubble_v"; break;
    default:
      cannot_write(
          path,
          "MindFormers runs 1f1b (interleaved with pp_interleave_num), gpipe and zero_bubble_v; "
          "this strategy's schedule is none of them");
  }
  if (scheduler != "1f1b" || e.has("parallel.pipeline_config.pipeline_scheduler"))
    e.set("parallel.pipeline_config.pipeline_scheduler", scheduler);

  // Batch: batch_size x data_parallel x micro_batch_num (pipelines) or
  // gradient_accumulation_steps (none), x micro_batch_interleave_num.
  e.set("runner_config.batch_size", std::to_string(s.mbs));
  int64_t split = 1;
  if (auto v = f.find("micro_batch_interleave_num")) split = std::max<int64_t>(1, f.integer(*v));
  if (s.mbn % split != 0)
    cannot_write(path,
                 "mbn=" + std::to_string(s.mbn) +
                     " does not divide by micro_batch_interleave_num = " + std::to_string(split));
  if (s.pp > 1) {
    // MindSpore's pipeline needs at least as many micro-batches as stages.
    if (s.mbn / split < s.pp)
      cannot_write(path, "mbn=" + std::to_string(s.mbn / split) +
                             " micro-batches for pipeline_stage=" + std::to_string(s.pp) +
                             ": MindSpore's pipeline needs micro_batch_num >= pipeline_stage");
    e.set("parallel_config.micro_batch_num", std::to_string(s.mbn / split));
  } else {
    e.set_if_present("parallel_config.micro_batch_num", std::to_string(s.mbn / split));
    if (s.mbn / split != 1 || e.has("runner_config.gradient_accumulation_steps"))
      e.set("runner_config.gradient_accumulation_steps", std::to_string(s.mbn / split));
  }

  // MindSpore's parallel optimizer shards the parameters with the optimizer
  // states: zero 3. gradient_accumulation_shard is how it holds the
  // gradients (the parser's fsdp_holding), not the strategy: left as stated.
  if (s.zero == 1 || s.zero == 2)
    cannot_write(path,
                 "zero=" + std::to_string(s.zero) +
                     ": MindSpore's parallel optimizer shards the parameters with the optimizer "
                     "states (zero=3); it has no ZeRO-" +
                     std::to_string(s.zero));
  e.set("parallel.enable_parallel_optimizer",
        e.boolean("parallel.enable_parallel_optimizer", s.zero == 3));
  if (s.zero == 3) {
    const std::string size = "parallel.parallel_optimizer_config.optimizer_weight_shard_size";
    const bool whole = static_cast<int64_t>(s.op) == static_cast<int64_t>(s.dp) * s.cp;
    if (!whole || e.has(size)) e.set(size, whole ? "-1" : std::to_string(s.op));
  }

  write_recompute(path, applied, e);

  // Offsets from the even split (a row per chunk under vpp, the MTP layers
  // on the last), or 0 where the file states them.
  const std::string offset = "model.model_config.offset";
  if (!applied.stage_layers.empty()) {
    e.set(offset, yaml::offset_value(path, applied.stage_layers, s.pp,
                                     s.schedule == NDS_SCHEDULE_ZB_V, mtp_in_offset(f)));
  } else if (e.has(offset)) {
    e.set(offset, "0");
  }
  return e.text();
}

}  // namespace ndsearch::plugins::mindformers
