// SPDX-License-Identifier: Apache-2.0
// hyperparallel_yaml.cpp: the "hyperparallel-yaml" parser (ND's "hyper_v2"):
// a HyperParallel (PyTorch) training YAML in either of its two schemas
// (shared/reference/nd_behaviour.md §2.4):
//  - legacy: model.config_overrides (Hugging Face keys plus a few of ND's)
//    with train.accelerator (dp_replicate, tp_degree, ...);
//  - AutoModels: model.pretrained_model_name_or_path names a folder holding a
//    Hugging Face config.json, with accelerator / fsdp_config / training.
// The model's keys go through the shared Hugging Face reader; absent training
// settings take HyperParallel's defaults (default:hyperparallel).
#include <ndsearch/sdk/parser.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "plugins/common/parsing/hf_config.hpp"
#include "plugins/common/parsing/json_lines.hpp"
#include "plugins/common/parsing/memory_size.hpp"
#include "plugins/common/parsing/mindspore_cp.hpp"
#include "plugins/common/parsing/read_limits.hpp"
#include "plugins/common/parsing/trainer_description.hpp"
#include "plugins/common/parsing/yaml_fields.hpp"
#include "plugins/parsers/hyperparallel_yaml/apply_strategy.hpp"

namespace ndsearch::plugins {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using yaml::Field;
using yaml::File;
using yaml::Int;

constexpr const char* kTrainer = "hyperparallel";
const sdk::Where kDefault = yaml::default_of(kTrainer);

sdk::Where cp_default() {
  sdk::Where w = kDefault;
  w.field = kColossalaiDefault;
  return w;
}

// ND's keys inside config_overrides that are not Hugging Face's: read here,
// never passed to the HF reader. Two are HF keys under another name.
const std::set<std::string> kNdOverrideKeys = {
    "offset",   "full_rec", "sel_rec", "multiple_of", "capacity_factor",
    "cap_fact", "use_gmm",  "gmm",     "seq_length",  "ffn_dim_multiplier"};
const std::map<std::string, std::string> kRenamed = {{"num_shared_experts", "n_shared_experts"},
                                                     {"mtp_depth", "num_nextn_predict_layers"}};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// Lines of config_overrides' keys for the HF reader's provenance (a renamed
// key gets the line of the key the YAML spells).
struct OverrideLines {
  std::map<std::string, int64_t> lines;
  // ND's block keys of config_overrides, added to every block the HF reader opens.
  std::optional<std::pair<double, sdk::Where>> capacity_factor;
  std::optional<std::pair<int64_t, sdk::Where>> grouped_gemm;
  static int64_t line_of(const std::string& key, const void* context) {
    const auto& self = *static_cast<const OverrideLines*>(context);
    auto it = self.lines.find(key);
    return it == self.lines.end() ? NDS_UNKNOWN : it->second;
  }
  static void block_keys(sdk::Builder& b, const void* context) {
    const auto& self = *static_cast<const OverrideLines*>(context);
    if (self.capacity_factor)
      b.set_real("capacity_factor", self.capacity_factor->first, self.capacity_factor->second);
    if (self.grouped_gemm)
      b.set("grouped_gemm", self.grouped_gemm->first, self.grouped_gemm->second);
  }
};

struct JsonLines {
  std::map<std::string, int64_t> lines;
  static int64_t line_of(const std::string& key, const void* context) {
    const auto& self = *static_cast<const JsonLines*>(context);
    auto it = self.lines.find(key);
    return it == self.lines.end() ? NDS_UNKNOWN : it->second;
  }
};

class HyperParallelParser final : public sdk::ParserPlugin {
 public:
  HyperParallelParser()
      : sdk::ParserPlugin("HyperParallel (PyTorch) training YAML, legacy or AutoModels", kAliases) {
    writes_configs();
  }

  std::string apply(const std::string& path, const sdk::AppliedStrategy& applied) override {
    return hyperparallel::apply_strategy(path, applied);
  }

  double probe(const std::string& path) override {
    const bool yaml_name = path.size() > 5 && (path.rfind(".yaml") == path.size() - 5 ||
                                               path.rfind(".yml") == path.size() - 4);
    auto root = File::try_root(path);
    if (!root)
      return yaml_name ? 0.04 : 0.0;  // below mindformers-yaml's: one of them names the line
    if (!root->IsMap() || !yaml::has(*root, "model") || !(*root)["model"].IsMap()) return 0;
    const YAML::Node model = (*root)["model"];
    if (yaml::has(model, "model_config")) return 0;  // MindFormers
    if (yaml::has(model, "config_overrides")) return yaml::has(*root, "train") ? 0.95 : 0.85;
    if (yaml::has(model, "pretrained_model_name_or_path"))
      return yaml::has(*root, "accelerator") || yaml::has(*root, "fsdp_config") ? 0.9 : 0.6;
    return 0;
  }

  void parse(const std::string& path, sdk::Builder& b) override {
    const File f = File::load(path);
    if (!f.root().IsMap()) return;  // describes no model: the core says so
    if (f.find("model.config_overrides")) return parse_legacy(f, b);
    if (auto target = f.find("model.pretrained_model_name_or_path"))
      return parse_automodels(f, *target, b);
  }

 private:
  static constexpr const char* kAliases[] = {"hyper_v2", "hyperparallel", nullptr};

  static std::optional<Int> int_at(const File& f, const char* dotted) {
    if (auto v = f.find(dotted)) return Int{f.integer(*v), f.at(*v)};
    return std::nullopt;
  }
  static Int int_or(const File& f, const char* dotted, int64_t fallback) {
    auto v = int_at(f, dotted);
    return v ? Int{std::max<int64_t>(1, v->value), v->where} : Int{fallback, kDefault};
  }

  // ---- Legacy schema ------------------------------------------------------
  static void parse_legacy(const File& f, sdk::Builder& b) {
    const Field overrides = *f.find("model.config_overrides");
    if (!overrides.node.IsMap()) f.bad(overrides, "a mapping of Hugging Face model keys");
    json config = json::object();
    OverrideLines lines;
    for (const char* key : {"capacity_factor", "cap_fact"})
      if (auto v = f.find(std::string("model.config_overrides.") + key))
        lines.capacity_factor = {{f.real(*v), f.at(*v)}};
    for (const char* key : {"use_gmm", "gmm"})
      if (auto v = f.find(std::string("model.config_overrides.") + key))
        lines.grouped_gemm = {{f.boolean(*v) ? 1 : 0, f.at(*v)}};
    for (auto it = overrides.node.begin(); it != overrides.node.end(); ++it) {
      const std::string key = it->first.Scalar();
      if (kNdOverrideKeys.count(key) != 0) continue;
      auto renamed = kRenamed.find(key);
      const std::string hf_key = renamed == kRenamed.end() ? key : renamed->second;
      config[hf_key] = yaml::to_json(it->second);
      lines.lines[hf_key] = it->first.Mark().line + 1;
    }
    HfSource source{f.path(), "model.config_overrides.", &OverrideLines::line_of, &lines,
                    kTrainer, &OverrideLines::block_keys};
    read_hf_model(config, source, b);
    if (auto name = f.find("model.name")) b.set_string("name", f.text(*name), f.at(*name));

    // Strategy (train.accelerator): DP is dp_replicate x dp_shard.
    const Int replicate = int_or(f, "train.accelerator.dp_replicate", 1);
    const Int shard = int_or(f, "train.accelerator.dp_shard", 1);
    const int64_t dp = replicate.value * shard.value;
    b.set("stated.dp", dp,
          {f.path(), replicate.where.line, "train.accelerator.dp_replicate x dp_shard", ""});
    const Int tp = int_or(f, "train.accelerator.tp_degree", 1);
    const Int pp = int_or(f, "train.accelerator.pipeline_parallel_degree", 1);
    const Int cp = int_or(f, "train.accelerator.context_parallel_degree", 1);
    const Int ep = int_or(f, "train.accelerator.expert_parallel_degree", 1);
    b.set("stated.tp", tp.value, tp.where);
    b.set("stated.pp", pp.value, pp.where);
    b.set("stated.cp", cp.value, cp.where);
    b.set("stated.ep", ep.value, ep.where);
    if (auto etp = int_at(f, "train.accelerator.expert_tensor_parallel_degree"))
      b.set("stated.etp", etp->value, etp->where);
    const Int vp = int_or(f, "train.accelerator.pp_interleave_num", 1);
    b.set("stated.vpp", vp.value, vp.where);
    if (auto sp = f.find("train.accelerator.use_seq_parallel"))
      b.set("stated.sp", f.boolean(*sp) ? 1 : 0, f.at(*sp));
    write_schedule(f, f.find("train.accelerator.pipeline_scheduler"), vp, b);
    if (auto algo = f.find("train.accelerator.context_parallel_algo"))
      b.set_string("cp_algorithm", mindspore_cp_model(f.text(*algo)), f.at(*algo));
    else if (cp.value > 1)
      b.set_string("cp_algorithm", "ring", cp_default());

    // Optimizer sharding: FSDP over dp_shard, else MindSpore's parallel
    // optimizer (on by default) over optimizer_weight_shard_size (default
    // DP): zero 3 held as FSDP2 without resharding, as MindFormers' parser
    // says and cites (the gathered weights kept to the backward, the
    // accumulated gradients whole).
    if (shard.value > 1) {
      b.set("stated.zero", 3, shard.where);
      b.set("stated.op", shard.value, shard.where);
    } else {
      auto enabled = f.find("train.accelerator.enable_parallel_optimizer");
      const bool on = !enabled || f.boolean(*enabled);
      const sdk::Where on_where = enabled ? f.at(*enabled) : kDefault;
      // MindSpore's parallel optimizer, as in mindformers_yaml.cpp: its
      // accumulated gradients sharded when the config says so, stated
      // whether or not it is on (a zero-3 candidate turns it on).
      auto grads = f.find("train.accelerator.gradient_accumulation_shard");
      if (grads && f.boolean(*grads))
        b.set_string("fsdp_holding", "keep_sharded_grads", f.at(*grads));
      else
        b.set_string("fsdp_holding", "fsdp2_keep", grads ? f.at(*grads) : on_where);
      if (!on) {
        b.set("stated.zero", 0, on_where);
      } else {
        b.set("stated.zero", 3, on_where);
        auto size = int_at(f, "train.accelerator.optimizer_weight_shard_size");
        if (size && size->value > 0)
          b.set("stated.op", size->value, size->where);
        else
          b.set("stated.op", dp * cp.value, kDefault);
      }
    }

    // Batch: micro_batch_num, else gbs / (mbs x dp) when whole, else pp.
    const Int mbs = int_or(f, "train.micro_batch_size", 1);
    b.set("stated.mbs", mbs.value, mbs.where);
    auto gbs = int_at(f, "train.global_batch_size");
    std::optional<Int> mbn = int_at(f, "train.micro_batch_num");
    if (!mbn && gbs && gbs->value % (mbs.value * dp) == 0) {
      mbn =
          Int{gbs->value / (mbs.value * dp),
              {f.path(), gbs->where.line, "train.global_batch_size / (micro_batch_size x dp)", ""}};
    }
    if (!mbn) mbn = Int{pp.value, kDefault};
    b.set("stated.mbn", mbn->value, mbn->where);
    if (gbs)
      b.set("global_batch", gbs->value, gbs->where);
    else
      b.set("global_batch", mbs.value * dp * mbn->value,
            {f.path(), mbs.where.line, "train.micro_batch_size x dp x micro_batch_num", ""});

    // Sequence: data.max_seq_len, else the model's limit, else 4096.
    if (auto s = int_at(f, "data.max_seq_len"))
      b.set("seq_len", s->value, s->where);
    else if (auto l = f.find(overrides, "seq_length"))
      b.set("seq_len", f.integer(*l), f.at(*l));
    else if (auto m = f.find(overrides, "max_position_embeddings"))
      b.set("seq_len", f.integer(*m), f.at(*m));
    else
      b.set("seq_len", 4096, kDefault);

    write_recompute(f, overrides, b);
    write_stage_layers(f, overrides, config, pp, vp, b);
    write_dtypes(f, "model.param_init_type", "model.compute_dtype", b);
    if (auto reduce = f.find("train.mixed_precision.reduce_dtype"))
      b.set_string("grads_dtype", f.dtype(*reduce), f.at(*reduce));
    write_optimizer(f, f.find("train.optimizer.type"), b);
    write_memory(f, b);
    write_overlaps(b);
    write_capabilities(b, plugins::kHyperParallel);

    f.report_unknown({f.root(), "", NDS_UNKNOWN}, {"model", "data", "train", "context"}, b);
    if (auto m = f.find("model"))
      f.report_unknown(*m,
                       {"name", "weights_path", "tokenizer_path", "param_init_type",
                        "compute_dtype", "softmax_compute_type", "config_overrides"},
                       b);
    if (auto acc = f.find("train.accelerator"))
      f.report_unknown(
          *acc,
          {"dp_shard", "dp_replicate", "tp_degree", "pipeline_parallel_degree",
           "context_parallel_degree", "expert_parallel_degree", "expert_tensor_parallel_degree",
           "pp_interleave_num", "use_seq_parallel", "pipeline_scheduler",
           "enable_parallel_optimizer", "optimizer_weight_shard_size",
           "gradient_accumulation_shard", "context_parallel_algo"},
          b);
  }

  // full_rec / sel_rec (config_overrides): True/False or layers per stage;
  // gradient_checkpointing.activation_checkpoint names the mode.
  static void write_recompute(const File& f, const Field& overrides, sdk::Builder& b) {
    auto switch_of = [&](const char* key, std::vector<int64_t>& layers, sdk::Where& where) {
      auto v = f.find(overrides, key);
      if (!v) return false;
      where = f.at(*v);
      if (v->node.IsScalar()) return f.boolean(*v);
      layers = f.integers(*v);
      return std::any_of(layers.begin(), layers.end(), [](int64_t n) { return n > 0; });
    };
    std::vector<int64_t> full_layers, selective_layers;
    sdk::Where full_where = kDefault, selective_where = kDefault;
    const bool full = switch_of("full_rec", full_layers, full_where);
    const bool selective = switch_of("sel_rec", selective_layers, selective_where);
    auto mode = f.find("train.gradient_checkpointing.activation_checkpoint");
    std::string stated = "none";
    sdk::Where where = kDefault;
    if (mode) {
      const std::string m = lower(f.text(*mode));
      if (m != "none" && m != "full" && m != "selective") f.bad(*mode, "none, full or selective");
      stated = m, where = f.at(*mode);
    }
    if (full)
      stated = "full", where = full_where;
    else if (selective && stated != "full")
      stated = "selective", where = selective_where;
    b.set_string("stated.recompute", stated, where);
    if (stated == "full" && !full_layers.empty())
      b.set_list("recompute_layers", full_layers, full_where);
    if (stated == "selective" && !selective_layers.empty())
      b.set_list("recompute_layers", selective_layers, selective_where);
  }

  // offset: per-stage shifts from the even split (MTP layers among them).
  static void write_stage_layers(const File& f, const Field& overrides, const json& config,
                                 const Int& pp, const Int& vp, sdk::Builder& b) {
    auto offset = f.find(overrides, "offset");
    if (!offset || pp.value <= 1) return;
    plugins::check_stage_count(pp.value, pp.where);  // before the per-stage tables below
    // No offset (0, or a 0 per stage): the trainer's own split, whatever
    // the remainder.
    const bool per_chunk =
        offset->node.IsSequence() && offset->node.size() > 0 && offset->node[0].IsSequence();
    if (!per_chunk) {
      const std::vector<int64_t> given =
          offset->node.IsScalar()
              ? std::vector<int64_t>(static_cast<size_t>(pp.value), f.integer(*offset))
              : f.integers(*offset);
      if (static_cast<int64_t>(given.size()) == pp.value &&
          std::all_of(given.begin(), given.end(), [](int64_t o) { return o == 0; })) {
        b.set_list("stage_layer_offsets", given, f.at(*offset));
        return;
      }
    }
    const int64_t total = config.value("num_hidden_layers", int64_t{0}) +
                          config.value("num_nextn_predict_layers", int64_t{0});
    const yaml::OffsetSplit split =
        yaml::split_from_offsets(f, *offset, total, pp.value, vp.value,
                                 "train.accelerator.pipeline_parallel_degree", "layers (with MTP)");
    b.set_list("stage_layers", split.layers, f.at(*offset));
    if (!split.per_chunk &&
        std::all_of(split.offsets.begin(), split.offsets.end(), [](int64_t o) { return o >= 0; }))
      b.set_list("stage_layer_offsets", split.offsets, f.at(*offset));
  }

  // ---- AutoModels schema --------------------------------------------------
  static void parse_automodels(const File& f, const Field& target, sdk::Builder& b) {
    fs::path folder = f.text(target);
    if (folder.is_relative()) folder = fs::path(f.path()).parent_path() / folder;
    const fs::path config_path = folder / "config.json";
    std::error_code missing;
    if (!fs::exists(fs::symlink_status(config_path, missing)) || missing)
      throw sdk::Error(NDS_NOT_FOUND,
                       f.path() + ":" + std::to_string(target.line) + ": `" + target.path +
                           "` = \"" + sdk::shown(f.text(target)) +
                           "\": no Hugging Face config.json at " +
                           config_path.lexically_normal().string() +
                           " (a relative path is read from the YAML's folder); give the folder "
                           "that holds the model's config.json");
    // A FIFO, device or directory there, or a file over the size limit: the
    // reader says which, naming the file.
    const std::string text =
        sdk::read_config_file(config_path.string(), "Hugging Face config.json");
    JsonLines lines{json_key_lines(text, config_path.string())};
    json config;
    try {
      config = json::parse(text);
    } catch (const json::out_of_range& e) {  // a number beyond a double: 1e999
      throw sdk::Error(NDS_OUT_OF_RANGE, config_path.string() +
                                             ": a number beyond the range of a double (" +
                                             sdk::shown(e.what(), 200) + "); fix it");
    } catch (const json::parse_error& e) {
      const auto [line, column] = line_and_column(text, e.byte > 0 ? e.byte - 1 : 0);
      throw sdk::Error(NDS_INVALID_ARGUMENT, config_path.string() + ":" + std::to_string(line) +
                                                 ":" + std::to_string(column) +
                                                 ": not valid JSON; fix the syntax there");
    }
    // Transformers does not train MTP layers: AutoModels drops them.
    config.erase("num_nextn_predict_layers");
    read_hf_model(config, HfSource{config_path.string(), "", &JsonLines::line_of, &lines, kTrainer},
                  b);

    const Int tp = int_or(f, "accelerator.tp_size", 1);
    const Int pp = int_or(f, "accelerator.pp_size", 1);
    const Int cp = int_or(f, "accelerator.cp_size", 1);
    const Int ep = int_or(f, "accelerator.ep_size", 1);
    auto shard = int_at(f, "fsdp_config.dp_shard_size");
    auto devices = int_at(f, "context.device_num");
    std::optional<Int> dp;
    if (devices) {
      if (devices->value % (tp.value * pp.value * cp.value) != 0)
        f.bad(*f.find("context.device_num"), "a multiple of tp_size x pp_size x cp_size = " +
                                                 std::to_string(tp.value * pp.value * cp.value));
      dp = Int{devices->value / (tp.value * pp.value * cp.value),
               {f.path(), devices->where.line, "context.device_num / (tp_size x pp_size x cp_size)",
                ""}};
    } else if (shard) {
      dp = shard;
    }
    if (dp) b.set("stated.dp", dp->value, dp->where);
    b.set("stated.tp", tp.value, tp.where);
    b.set("stated.pp", pp.value, pp.where);
    b.set("stated.cp", cp.value, cp.where);
    b.set("stated.ep", ep.value, ep.where);
    if (auto sp = f.find("accelerator.sequence_parallel"))
      b.set("stated.sp", f.boolean(*sp) ? 1 : 0, f.at(*sp));
    b.set("stated.vpp", 1, kDefault);
    write_schedule(f, f.find("accelerator.pipeline_scheduler"), Int{1, kDefault}, b);
    if (auto algo = f.find("accelerator.context_parallel_algo"))
      b.set_string("cp_algorithm", mindspore_cp_model(f.text(*algo)), f.at(*algo));
    else if (cp.value > 1)
      b.set_string("cp_algorithm", "ring", cp_default());
    // FSDP: gradients sharded like the parameters; optimizer parallel when dp_shard > 1.
    if (shard && shard->value > 1) {
      b.set("stated.zero", 3, shard->where);
      b.set("stated.op", shard->value, shard->where);
    } else {
      b.set("stated.zero", 0, shard ? shard->where : kDefault);
    }
    const Int mbs = int_or(f, "training.micro_batch_size", 1);
    b.set("stated.mbs", mbs.value, mbs.where);
    auto gbs = int_at(f, "training.global_batch_size");
    if (gbs) b.set("global_batch", gbs->value, gbs->where);
    if (auto mbn = int_at(f, "training.micro_batch_num"))
      b.set("stated.mbn", mbn->value, mbn->where);
    else if (gbs && dp && gbs->value % (mbs.value * dp->value) == 0)
      b.set(
          "stated.mbn", gbs->value / (mbs.value * dp->value),
          {f.path(), gbs->where.line, "training.global_batch_size / (micro_batch_size x dp)", ""});
    if (auto s = int_at(f, "dataset.data_transform.max_seq_len"))
      b.set("seq_len", s->value, s->where);
    else
      b.set("seq_len", 4096, kDefault);
    auto mode = f.find("activation_checkpoint.mode");
    if (mode) {
      const std::string m = lower(f.text(*mode));
      if (m != "off" && m != "none" && m != "full" && m != "selective")
        f.bad(*mode, "off, none, selective or full");
      b.set_string("stated.recompute", m == "off" ? "none" : m, f.at(*mode));
    } else {
      b.set_string("stated.recompute", "none", kDefault);
    }
    write_dtypes(f,
                 f.find("model.model_init_dtype") ? "model.model_init_dtype" : "model.torch_dtype",
                 "fsdp_config.mix_precision.param_dtype", b);
    auto opt = f.find("optimizer._target_");
    write_optimizer(f, opt ? opt : f.find("optimizer.type"), b);
    write_memory(f, b);
    write_overlaps(b);
    write_capabilities(b, plugins::kHyperParallelAutoModels);
    f.report_unknown(
        {f.root(), "", NDS_UNKNOWN},
        {"model", "dataset", "training", "accelerator", "fsdp_config", "activation_checkpoint",
         "optimizer", "context", "lr_scheduler", "checkpoint", "logging", "seed"},
        b);
    if (auto acc = f.find("accelerator"))
      f.report_unknown(*acc,
                       {"tp_size", "pp_size", "cp_size", "ep_size", "sequence_parallel",
                        "loss_parallel", "pipeline_scheduler", "context_parallel_algo"},
                       b);
  }

  // ---- Shared by both schemas ---------------------------------------------
  static void write_schedule(const File& f, const std::optional<Field>& s, const Int& vp,
                             sdk::Builder& b) {
    if (!s) {
      b.set_string("stated.schedule", vp.value > 1 ? "interleaved" : "1f1b", kDefault);
      return;
    }
    const std::string name = lower(f.text(*s));
    std::string schedule;
    if (name == "1f1b" || name == "seqpipe")
      schedule = vp.value > 1 ? "interleaved" : "1f1b";
    else if (name == "interleaved1f1b" || name == "interleaved_1f1b")
      schedule = "interleaved";
    else if (name == "gpipe")
      schedule = "gpipe";
    else if (name == "zero_bubble_v" || name == "zbv" || name == "zb-v")
      schedule = "zb-v";
    else
      f.bad(*s, "1f1b, interleaved_1f1b, gpipe, seqpipe or zero_bubble_v");
    b.set_string("stated.schedule", schedule, f.at(*s));
  }

  // What HyperParallel's PyTorch trainer overlaps by default (mindspore-ai/
  // hyper-parallel; neither schema has a key that changes it):
  // - TP: DTensor redistributes around attention and the MLP, waited where
  //   issued; MindSpeed's fused MC2 styles are opt-in and no model plan uses
  //   them (core/tensor_parallel/style.py, mc2.py): nothing overlapped, the
  //   backward's exchange included.
  // - DP: fully_shard gathers a unit's parameters in its pre-hooks with no
  //   prefetch (forward/backward prefetch lists empty unless set:
  //   core/fully_shard/hsdp_scheduler.py at 06f3f20), and reduces gradients
  //   in the post-backward hook without async communication (HSDPConfigV2
  //   comm_async = False, core/fully_shard/hsdp_utils.py at a3b8640).
  // - PP: every send and receive waited at once (overlap_p2p = False,
  //   core/pipeline_parallel/scheduler.py at d325137).
  // - CP, MoE: async_cp off by default; the MoE dispatch/combine overlap is a
  //   library schedule no trainer key turns on.
  static void write_overlaps(sdk::Builder& b) {
    sdk::Where none = kDefault;
    none.field = "HyperParallel's trainer: no overlap by default";
    for (const char* key :
         {"overlap.tp_comm", "overlap.tp_async", "overlap.grad_reduce", "overlap.param_gather",
          "overlap.p2p", "overlap.moe_a2a", "overlap.moe_shared", "overlap.cp"})
      b.set(key, 0, none);
  }

  // HyperParallel: parameters fp32 and compute bf16 unless stated.
  static void write_dtypes(const File& f, const char* params_key, const char* compute_key,
                           sdk::Builder& b) {
    if (auto p = f.find(params_key))
      b.set_string("params_dtype", f.dtype(*p), f.at(*p));
    else
      b.set_string("params_dtype", "fp32", kDefault);
    if (auto c = f.find(compute_key))
      b.set_string("compute_dtype", f.dtype(*c), f.at(*c));
    else
      b.set_string("compute_dtype", "bf16", kDefault);
  }

  static void write_optimizer(const File& f, const std::optional<Field>& type, sdk::Builder& b) {
    const std::string name = type ? lower(f.text(*type)) : "adamw";
    const sdk::Where where = type ? f.at(*type) : kDefault;
    std::string optimizer = "adamw";
    if (name.find("muon") != std::string::npos)
      optimizer = "muon";
    else if (name.find("sgd") != std::string::npos)
      optimizer = "sgd";
    else if (name == "adam" || name.rfind(".adam") == name.size() - 5)
      optimizer = "adam";
    else if (name.find("adam") == std::string::npos)
      f.bad(*type, "adamw, adam, muon or sgd");
    b.set_string("optimizer", optimizer, where);
    b.set("optimizer_states", optimizer == "muon" ? 1 : optimizer == "sgd" ? 0 : 2, where);
  }

  static void write_memory(const File& f, sdk::Builder& b) {
    if (auto mem = f.find("context.max_device_memory")) {
      auto bytes = memory_size_bytes(f.text(*mem));
      if (!bytes) f.bad(*mem, "a memory size such as \"58GB\" (read as GiB)");
      b.set("device_memory_bytes", *bytes, f.at(*mem));
    } else {
      b.set("device_memory_bytes", int64_t{64} << 30, kDefault);  // 64GB
    }
  }

  // As the reference's checks encode them (§3.5, §7.1): no SP with CP, TP a
  // power of two; interleaving (pp_interleave_num), FSDP (dp_shard) and
  // expert TP (expert_tensor_parallel_degree) are available. Its parallel
  // optimizer shards the parameters with the states (zero 2), or FSDP
  // everything (zero 3): no ZeRO-1.
  static void write_capabilities(sdk::Builder& b, const plugins::TrainerDescription& d) {
    plugins::state_trainer(d, b);
  }
};

}  // namespace
}  // namespace ndsearch::plugins

NDS_SDK_MODULE(ndsearch::plugins::HyperParallelParser, "hyperparallel-yaml", "1.0.0",
               "HyperParallel (PyTorch) training YAML: config_overrides + train.accelerator, or "
               "AutoModels naming "
               "a Hugging Face model folder")
