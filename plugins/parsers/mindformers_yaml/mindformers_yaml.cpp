// SPDX-License-Identifier: Apache-2.0
// mindformers_yaml.cpp: the "mindformers-yaml" parser: a MindSpore
// Transformers (MindFormers) training YAML (model.model_config in the legacy
// LlamaConfig/DeepseekV3Config keys or the newer mcore keys named after
// Hugging Face's; parallel_config, moe_config, recompute_config,
// runner_config, parallel, context) to the model, its training settings and
// the strategy it states. The mapping follows the reference's MindFormers
// parser (shared/reference/nd_behaviour.md §2.4); absent settings take
// MindFormers' documented defaults (default:mindformers).
#include <ndsearch/sdk/parser.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "plugins/common/parsing/memory_size.hpp"
#include "plugins/common/parsing/mindspore_cp.hpp"
#include "plugins/common/parsing/mindspore_speed_up.hpp"
#include "plugins/common/parsing/read_limits.hpp"
#include "plugins/common/parsing/trainer_description.hpp"
#include "plugins/common/parsing/yaml_fields.hpp"
#include "plugins/parsers/mindformers_yaml/apply_strategy.hpp"

namespace ndsearch::plugins {
namespace {

using yaml::Field;
using yaml::File;
using yaml::Int;

constexpr const char* kTrainer = "mindformers";
const sdk::Where kDefault = yaml::default_of(kTrainer);

// Says `what` of the config at `where`: a warning, an error under --strict.
void say(sdk::Builder& b, sdk::Where where, std::string what) {
  where.field = std::move(what);
  b.unknown_field(where);
}

sdk::Where cp_default() {
  sdk::Where w = kDefault;
  w.field = kColossalaiDefault;
  return w;
}

// Keys of model.model_config that bear no training cost ndsearch models
// (token ids, RoPE settings, inference switches, fused-kernel choices, loss
// weights, router details) or that only name the class.
const std::set<std::string> kIgnoredModelKeys = {"type",
                                                 "auto_register",
                                                 "architectures",
                                                 "batch_size",
                                                 "rms_norm_eps",
                                                 "layernorm_epsilon",
                                                 "norm_eps",
                                                 "bos_token_id",
                                                 "eos_token_id",
                                                 "pad_token_id",
                                                 "ignore_token_id",
                                                 "rotary_dtype",
                                                 "use_past",
                                                 "scaling_factor",
                                                 "theta",
                                                 "rope_theta",
                                                 "rope_scaling",
                                                 "use_rope_scaling",
                                                 "extend_method",
                                                 "fine_grain_interleave",
                                                 "checkpoint_name_or_path",
                                                 "repetition_penalty",
                                                 "max_decode_length",
                                                 "top_k",
                                                 "top_p",
                                                 "do_sample",
                                                 "router_dense_type",
                                                 "use_fused_swiglu",
                                                 "use_fused_rope",
                                                 "input_sliced_sig",
                                                 "return_extra_loss",
                                                 "mtp_loss_factor",
                                                 "is_dynamic",
                                                 "use_past_shard",
                                                 "use_attn_mask_compression",
                                                 "use_eod_attn_mask_compression",
                                                 "qkv_concat",
                                                 "use_contiguous_weight_layout_attention",
                                                 "use_interleaved_weight_layout_mlp",
                                                 "initializer_range",
                                                 "use_cache",
                                                 "fp32_residual_connection",
                                                 "norm_topk_prob",
                                                 "moe_router_pre_softmax",
                                                 "moe_token_drop_policy",
                                                 "routed_scaling_factor",
                                                 "router_aux_loss_coef",
                                                 "moe_aux_loss_coeff",
                                                 "moe_router_load_balancing_type",
                                                 "moe_router_score_function",
                                                 "moe_router_enable_expert_bias",
                                                 "layernorm_compute_type",
                                                 "layernorm_compute_dtype",
                                                 "softmax_compute_type",
                                                 "softmax_compute_dtype",
                                                 "max_position_embedding",
                                                 "block_size",
                                                 "num_blocks",
                                                 "residual_dtype",
                                                 "init_method_std",
                                                 "use_eod_reset",
                                                 "mask_func_type",
                                                 "sandwich_norm",
                                                 "fused_norm",
                                                 "use_fused_ops_permute",
                                                 "use_fused_ops_topkrouter",
                                                 "bias_swiglu_fusion",
                                                 "mla_qkv_concat",
                                                 "rotary_cos_format",
                                                 "input_layout",
                                                 "sparse_mode",
                                                 "rms_norm_compute_dtype",
                                                 "print_separate_loss",
                                                 "emb_dropout_prob",
                                                 "qkv_has_bias_for_infer",
                                                 "n_group",
                                                 "topk_group",
                                                 "topk_method",
                                                 "aux_loss_types",
                                                 "aux_loss_factors",
                                                 "use_shared_expert_gating",
                                                 "rotary_pct",
                                                 "rotary_emb_base"};
// Keys the parser reads (below); together with kIgnoredModelKeys, the rest are unknown.
const std::set<std::string> kReadModelKeys = {"model_type",
                                              "num_layers",
                                              "num_hidden_layers",
                                              "hidden_size",
                                              "num_heads",
                                              "num_attention_heads",
                                              "n_kv_heads",
                                              "num_key_value_heads",
                                              "head_dim",
                                              "kv_channels",
                                              "kv_lora_rank",
                                              "q_lora_rank",
                                              "qk_rope_head_dim",
                                              "qk_nope_head_dim",
                                              "v_head_dim",
                                              "intermediate_size",
                                              "ffn_dim_multiplier",
                                              "multiple_of",
                                              "vocab_size",
                                              "seq_length",
                                              "max_position_embeddings",
                                              "tie_word_embeddings",
                                              "untie_embeddings_and_output_weights",
                                              "use_flash_attention",
                                              "offset",
                                              "mtp_depth",
                                              "mtp_num_layers",
                                              "num_nextn_predict_layers",
                                              "param_init_type",
                                              "params_dtype",
                                              "compute_dtype",
                                              "pp_interleave_num",
                                              "qkv_has_bias",
                                              "attention_bias",
                                              "add_bias_linear",
                                              "qk_layernorm",
                                              "hidden_act",
                                              "gated_linear_unit",
                                              "normalization",
                                              "hidden_dropout",
                                              "attention_dropout",
                                              "position_embedding_type",
                                              "n_routed_experts",
                                              "num_experts",
                                              "num_experts_per_tok",
                                              "n_shared_experts",
                                              "moe_intermediate_size",
                                              "moe_shared_expert_intermediate_size",
                                              "shared_expert_intermediate_size",
                                              "first_k_dense_replace",
                                              "moe_grouped_gemm",
                                              "moe_expert_capacity_factor",
                                              "context_parallel_algo"};
const std::set<std::string> kMoeConfigKeys = {
    // read
    "expert_num", "num_experts_chosen", "shared_expert_num", "moe_intermediate_size",
    "capacity_factor", "first_k_dense_replace", "use_gmm", "expert_model_parallel",
    // no cost ndsearch models: routing and balancing policy, fused kernels, loss weights
    "expert_group_size", "aux_loss_factor", "aux_loss_factors", "aux_loss_types", "z_loss_factor",
    "routing_policy", "balance_via_topk_bias", "topk_bias_update_rate", "use_fused_ops_topkrouter",
    "routed_scaling_factor", "norm_topk_prob", "use_gating_sigmoid", "callback_moe_droprate",
    "use_fused_ops_permute", "enable_gmm_safe_tokens", "enable_sdrop", "router_dense_type",
    "use_shared_expert_gating", "group_wise_a2a", "topk_group", "n_group", "topk_method",
    "enable_deredundency", "npu_nums_per_device", "use_allgather_dispatcher", "comp_comm_parallel",
    "comp_comm_parallel_degree", "moe_shared_expert_overlap", "use_pad_tokens", "max_router_load",
    "num_experts_per_tok"};
const std::set<std::string> kParallelConfigKeys = {"data_parallel",
                                                   "model_parallel",
                                                   "pipeline_stage",
                                                   "context_parallel",
                                                   "expert_parallel",
                                                   "micro_batch_num",
                                                   "use_seq_parallel",
                                                   "context_parallel_algo",
                                                   "seq_split_num",
                                                   "vocab_emb_dp",
                                                   "gradient_aggregation_group",
                                                   "optimizer_shard",
                                                   "ulysses_degree_in_cp",
                                                   "mem_coeff"};
const std::set<std::string> kParallelKeys = {"parallel_mode",
                                             "gradients_mean",
                                             "enable_alltoall",
                                             "full_batch",
                                             "dataset_strategy",
                                             "search_mode",
                                             "enable_parallel_optimizer",
                                             "strategy_ckpt_save_file",
                                             "strategy_ckpt_config",
                                             "parallel_optimizer_config",
                                             "pipeline_config",
                                             "dump_device_local_norm",
                                             "loss_repeated_mean",
                                             "device_num",
                                             "auto_pipeline"};
const std::set<std::string> kRecomputeKeys = {"recompute",
                                              "select_recompute",
                                              "select_comm_recompute",
                                              "parallel_optimizer_comm_recompute",
                                              "mp_comm_recompute",
                                              "recompute_slice_activation",
                                              "select_recompute_exclude",
                                              "select_comm_recompute_exclude"};
const std::set<std::string> kRunnerKeys = {
    "batch_size",   "gradient_accumulation_steps", "epochs", "sink_mode", "sink_size", "stop_step",
    "initial_epoch"};
// Top-level sections: those read above, and those that bear no training cost
// (datasets, checkpoints, callbacks, learning-rate schedule, profiling, eval).
const std::set<std::string> kTopKeys = {"model",
                                        "parallel_config",
                                        "parallel",
                                        "moe_config",
                                        "recompute_config",
                                        "runner_config",
                                        "context",
                                        "trainer",
                                        "optimizer",
                                        "micro_batch_interleave_num",
                                        "use_parallel",
                                        "use_legacy",
                                        "seed",
                                        "output_dir",
                                        "load_checkpoint",
                                        "load_ckpt_format",
                                        "src_strategy_path_or_dir",
                                        "auto_trans_ckpt",
                                        "only_save_strategy",
                                        "resume_training",
                                        "run_mode",
                                        "print_separate_loss",
                                        "lr_schedule",
                                        "train_dataset",
                                        "train_dataset_task",
                                        "eval_dataset",
                                        "eval_dataset_task",
                                        "do_eval",
                                        "eval_step_interval",
                                        "eval_epoch_interval",
                                        "callbacks",
                                        "eval_callbacks",
                                        "metric",
                                        "runner_wrapper",
                                        "auto_tune",
                                        "filepath_prefix",
                                        "autotune_per_step",
                                        "profile",
                                        "profile_start_step",
                                        "profile_stop_step",
                                        "init_start_profile",
                                        "profile_communication",
                                        "profile_memory",
                                        "profile_level",
                                        "profile_rank_ids",
                                        "profile_pipeline",
                                        "layer_scale",
                                        "layer_decay",
                                        "lr_scale_factor",
                                        "remote_save_url",
                                        "processor",
                                        "monitor_config",
                                        "tensorboard",
                                        "swap_config",
                                        "load_ckpt_async",
                                        "ckpt_use_legacy_format",
                                        "use_clip_grad",
                                        "wrapper",
                                        "train_precision_sync",
                                        "infer_precision_sync",
                                        "postprocess_use_numpy",
                                        "moe_infer_config",
                                        "pretrained_model_dir",
                                        "generation_config"};

class Reader {
 public:
  Reader(const File& f, const Field& mc) : f_(f), mc_(mc) {}

  std::optional<Field> model(const char* key) const { return f_.find(mc_, key); }
  // The first of `keys` model_config states (legacy and mcore names differ).
  std::optional<Int> model_int(std::initializer_list<const char*> keys) const {
    for (const char* k : keys)
      if (auto v = model(k)) return Int{f_.integer(*v), f_.at(*v)};
    return std::nullopt;
  }
  std::optional<Int> int_at(const char* dotted) const {
    if (auto v = f_.find(dotted)) return Int{f_.integer(*v), f_.at(*v)};
    return std::nullopt;
  }
  std::optional<Int> int_in(const std::optional<Field>& section, const char* key) const {
    if (!section) return std::nullopt;
    if (auto v = f_.find(*section, key)) return Int{f_.integer(*v), f_.at(*v)};
    return std::nullopt;
  }
  std::optional<std::pair<bool, sdk::Where>> bool_in(const std::optional<Field>& section,
                                                     const char* key) const {
    if (!section) return std::nullopt;
    if (auto v = f_.find(*section, key)) return std::pair{f_.boolean(*v), f_.at(*v)};
    return std::nullopt;
  }

  const File& f_;
  const Field& mc_;
};

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The MoE layers' shape, from moe_config (legacy) or model_config (mcore).
struct Moe {
  Int experts{0, kDefault};
  Int top_k{1, kDefault};
  Int shared{0, kDefault};
  std::optional<Int> expert_ffn;  // absent: intermediate_size (Mixtral, Qwen2-MoE in LlamaConfig)
  std::optional<Int> shared_ffn;  // width of one shared expert; absent: the routed expert's
  Int first_k_dense{0, kDefault};
  double capacity = 0;
  sdk::Where capacity_where = kDefault;
  Int grouped_gemm{0, kDefault};
  std::optional<Int> groups, group_topk;  // a group-limited router (ABI 1.13)
};

struct Shape {
  Int layers{0, kDefault};
  std::optional<Int> hidden, heads, kv_heads, head_dim, q_lora, kv_lora, qk_rope, qk_nope, v_head;
  std::optional<Int> ffn;  // dense MLP width
  std::string ffn_kind = "swiglu";
  sdk::Where ffn_kind_where = kDefault;
  std::string norm = "rmsnorm";
  sdk::Where norm_where = kDefault;
  Int linear_bias{0, kDefault}, qkv_bias{0, kDefault}, qk_norm{0, kDefault};
  std::optional<std::pair<double, sdk::Where>> hidden_dropout, attention_dropout;
  std::optional<Moe> moe;
  Int mtp{0, kDefault};
  bool mtp_in_offset = true;
};

class MindformersParser final : public sdk::ParserPlugin {
 public:
  MindformersParser()
      : sdk::ParserPlugin("MindSpore Transformers (MindFormers) training YAML", kAliases) {
    writes_configs();
  }

  std::string apply(const std::string& path, const sdk::AppliedStrategy& applied) override {
    return mindformers::apply_strategy(path, applied);
  }

  double probe(const std::string& path) override {
    const bool yaml_name = path.size() > 5 && (path.rfind(".yaml") == path.size() - 5 ||
                                               path.rfind(".yml") == path.size() - 4);
    auto root = File::try_root(path);
    // A YAML that does not parse: claim it weakly, so that parse names the line.
    if (!root) return yaml_name ? 0.05 : 0.0;
    if (!root->IsMap() || !yaml::has(*root, "model")) return 0;
    const YAML::Node model = (*root)["model"];
    if (!yaml::has(model, "model_config") || !model["model_config"].IsMap()) return 0;
    double confidence = 0.8;
    for (const char* section :
         {"parallel_config", "runner_config", "recompute_config", "context", "trainer"})
      if (yaml::has(*root, section)) confidence += 0.03;
    return std::min(confidence, 0.95);
  }

  void parse(const std::string& path, sdk::Builder& b) override {
    const File f = File::load(path);
    auto mc = f.find("model.model_config");
    if (!f.root().IsMap() || !mc || !mc->node.IsMap())
      return;  // describes no model: the core says so
    const Reader r(f, *mc);
    const bool mcore = mc->node["model_type"].IsDefined() ||
                       (yaml::has(f.root(), "use_legacy") && !f.boolean(*f.find("use_legacy")));
    const Shape shape = read_shape(r, mcore);

    // ---- Strategy first: offsets and recompute lists are per pipeline stage.
    auto pc = f.find("parallel_config");
    auto degree = [&](const char* key) {
      auto v = r.int_in(pc, key);
      return v ? Int{std::max<int64_t>(1, v->value), v->where} : Int{1, kDefault};
    };
    const Int dp = degree("data_parallel"), tp = degree("model_parallel"),
              pp = degree("pipeline_stage"), cp = degree("context_parallel"),
              ep = degree("expert_parallel");

    write_blocks(r, shape, b);
    write_model_keys(r, mcore, b);
    b.set("stated.dp", dp.value, dp.where);
    b.set("stated.tp", tp.value, tp.where);
    b.set("stated.pp", pp.value, pp.where);
    b.set("stated.cp", cp.value, cp.where);
    b.set("stated.ep", ep.value, ep.where);
    if (shape.moe) {
      auto etp = r.int_in(f.find("moe_config"), "expert_model_parallel");
      if (etp) {
        // Stated, 1 included: experts split over that many devices (1: whole).
        b.set("stated.etp", std::max<int64_t>(1, etp->value), etp->where);
      } else if (mindformers::unstated_etp(dp.value, tp.value, ep.value) != tp.value) {
        b.set("stated.etp", 1,
              {f.path(), ep.where.line,
               "parallel_config.expert_parallel (experts whole: tp·ep > dp·tp)", ""});
      }
    }
    if (auto sp = r.bool_in(pc, "use_seq_parallel"))
      b.set("stated.sp", sp->first ? 1 : 0, sp->second);
    else
      b.set("stated.sp", 0, kDefault);
    auto vpp = r.model_int({"pp_interleave_num"});
    Int vp = vpp ? Int{std::max<int64_t>(1, vpp->value), vpp->where} : Int{1, kDefault};
    // pp_interleave_num is read only with pipeline_interleave on; without it
    // MindFormers runs plain 1F1B (models/utils.py, LayerSetting): priced so,
    // and said (an error under --strict: the settings contradict each other).
    auto interleave = f.find("parallel.pipeline_config.pipeline_interleave");
    if (vp.value > 1 && !(interleave && f.boolean(*interleave))) {
      sdk::Where w = vp.where;
      w.field = "model_config.pp_interleave_num " + std::to_string(vp.value) +
                " without parallel.pipeline_config.pipeline_interleave: MindFormers runs no "
                "interleaving then; priced with vpp 1";
      b.unknown_field(w);
      vp = Int{1, w};
    }
    b.set("stated.vpp", vp.value, vp.where);
    write_schedule(f, vp, b);
    write_batch(r, pc, pp, dp, b);
    write_optimizer_parallel(r, dp, cp, b);
    write_overlaps(r, tp, pp, b);
    write_recompute(f, b);
    say_refusals(r, pc, pp, cp, b);
    say_execution_mode(f, b);
    write_stage_layers(r, shape, pp, vp, b);
    std::optional<Field> algo = pc ? f.find(*pc, "context_parallel_algo") : std::nullopt;
    if (!algo) algo = f.find(*mc, "context_parallel_algo");
    const std::string algorithm = algo ? mindformers_cp_model(f.text(*algo)) : std::string();
    if (algo)
      b.set_string("cp_algorithm", algorithm, f.at(*algo));
    else if (cp.value > 1)
      b.set_string("cp_algorithm", "ring", cp_default());
    // hybird_cp's Ulysses degree (ABI 1.16): ulysses_degree_in_cp, 1 when
    // unstated (TransformerOpParallelConfig's default: no Ulysses at all).
    if (algorithm == "hybrid") {
      const std::optional<Field> degree = pc ? f.find(*pc, "ulysses_degree_in_cp") : std::nullopt;
      if (degree) {
        const int64_t u = f.integer(*degree);
        if (u < 1) f.bad(*degree, "a Ulysses degree of at least 1");
        b.set("cp_ulysses_degree", u, f.at(*degree));
      } else {
        sdk::Where w = kDefault;
        w.field = kHybridUlyssesDefault;
        b.set("cp_ulysses_degree", 1, w);
      }
    }
    write_dtypes(r, mcore, b);
    if (auto mem = f.find("context.max_device_memory")) {
      auto bytes = memory_size_bytes(f.text(*mem));
      if (!bytes) f.bad(*mem, "a memory size such as \"58GB\" (read as GiB, as MindSpore does)");
      b.set("device_memory_bytes", *bytes, f.at(*mem));
    }
    write_capabilities(b);
    report_unknown(f, *mc, b);
  }

 private:
  static constexpr const char* kAliases[] = {"mindformers", nullptr};

  static Shape read_shape(const Reader& r, bool mcore) {
    const File& f = r.f_;
    Shape s;
    auto layers = r.model_int({"num_layers", "num_hidden_layers"});
    if (!layers)
      throw sdk::Error(NDS_INVALID_ARGUMENT,
                       f.path() +
                           ": `model.model_config` states no num_layers (or "
                           "num_hidden_layers); give the model's layer count");
    s.layers = *layers;
    s.hidden = r.model_int({"hidden_size"});
    s.heads = r.model_int({"num_heads", "num_attention_heads"});
    s.kv_heads = r.model_int({"n_kv_heads", "num_key_value_heads"});
    s.head_dim = r.model_int({"head_dim", "kv_channels"});
    s.kv_lora = r.model_int({"kv_lora_rank"});
    if (s.kv_lora && s.kv_lora->value > 0) {
      s.q_lora = r.model_int({"q_lora_rank"});
      s.qk_rope = r.model_int({"qk_rope_head_dim"});
      s.qk_nope = r.model_int({"qk_nope_head_dim"});
      s.v_head = r.model_int({"v_head_dim"});
    } else {
      s.kv_lora.reset();
    }
    s.ffn = r.model_int({"intermediate_size"});
    if (!s.ffn && !mcore && s.hidden) s.ffn = llama_ffn_width(r, *s.hidden);

    // FFN kind: LlamaFeedForward and DeepSeek's MLP are gated SiLU; mcore
    // configs say it with gated_linear_unit or hidden_act.
    if (auto gated = r.model("gated_linear_unit")) {
      s.ffn_kind = f.boolean(*gated) ? "swiglu" : "gelu";
      s.ffn_kind_where = f.at(*gated);
    } else if (auto act = r.model("hidden_act")) {
      const std::string a = lower(f.text(*act));
      s.ffn_kind = a == "gelu" || a == "fast_gelu" || a == "relu" ? "gelu" : "swiglu";
      s.ffn_kind_where = f.at(*act);
    }
    if (auto norm = r.model("normalization")) {
      s.norm = lower(f.text(*norm)) == "layernorm" ? "layernorm" : "rmsnorm";
      s.norm_where = f.at(*norm);
    } else if (auto eps = r.model("rms_norm_eps")) {
      s.norm_where = f.at(*eps);
    }
    if (auto v = r.model("add_bias_linear")) s.linear_bias = {f.boolean(*v) ? 1 : 0, f.at(*v)};
    if (auto v = r.model("qkv_has_bias"))
      s.qkv_bias = {f.boolean(*v) ? 1 : 0, f.at(*v)};
    else if (auto a = r.model("attention_bias"))
      s.qkv_bias = {f.boolean(*a) ? 1 : 0, f.at(*a)};
    if (auto v = r.model("qk_layernorm")) {
      s.qk_norm = {f.boolean(*v) ? 1 : 0, f.at(*v)};
    } else if (auto type = r.model("model_type")) {
      // MindFormers' Qwen3 and Qwen3-MoE training models build their layers
      // with qk_layernorm=True whatever the config says.
      const std::string t = f.text(*type);
      if (t == "qwen3" || t == "qwen3_moe") s.qk_norm = {1, f.at(*type)};
    }
    if (auto v = r.model("hidden_dropout")) s.hidden_dropout = std::pair{f.real(*v), f.at(*v)};
    if (auto v = r.model("attention_dropout"))
      s.attention_dropout = std::pair{f.real(*v), f.at(*v)};
    s.moe = read_moe(r);
    // The legacy DeepSeek-V3 model places its mtp_depth layers by the offsets
    // (LayerSetting over num_layers + mtp_depth: research/deepseek3/
    // deepseek2_model.py, v1.7.0); the mcore models' mtp_num_layers sit on
    // the last stage outside them (multi_token_prediction.py), as the HF
    // num_nextn_predict_layers.
    if (auto v = r.model_int({"mtp_depth"}))
      s.mtp = *v;
    else if (auto n = r.model_int({"mtp_num_layers", "num_nextn_predict_layers"}))
      s.mtp = *n, s.mtp_in_offset = false;
    return s;
  }

  // LlamaConfig without intermediate_size: LlamaFeedForward's width,
  // 2/3 of 4h (times ffn_dim_multiplier), rounded up to multiple_of
  // (Llama's rule; MindFormers' multiple_of defaults to 256).
  static Int llama_ffn_width(const Reader& r, const Int& hidden) {
    const File& f = r.f_;
    int64_t width = 4 * hidden.value;
    std::string why = "model.model_config.hidden_size";
    if (auto m = r.model("ffn_dim_multiplier")) {
      width = static_cast<int64_t>((f.real(*m) + 0.01) * static_cast<double>(width));
      why += ", ffn_dim_multiplier";
    }
    width = 2 * width / 3;
    int64_t multiple = 256;
    if (auto m = r.model("multiple_of"))
      multiple = std::max<int64_t>(1, f.integer(*m)), why += ", multiple_of";
    width = multiple * ((width + multiple - 1) / multiple);
    return {width,
            {f.path(), hidden.where.line,
             why + " (LlamaFeedForward: multiple_of x ceil(2/3 x 4h x "
                   "ffn_dim_multiplier / multiple_of))",
             ""}};
  }

  static std::optional<Moe> read_moe(const Reader& r) {
    const File& f = r.f_;
    Moe m;
    if (auto mc = f.find("moe_config");
        mc && r.int_in(mc, "expert_num") && r.int_in(mc, "expert_num")->value > 1) {
      m.experts = *r.int_in(mc, "expert_num");
      if (auto v = r.int_in(mc, "num_experts_chosen")) m.top_k = *v;
      if (auto v = r.int_in(mc, "shared_expert_num")) m.shared = *v;
      if (auto v = r.int_in(mc, "moe_intermediate_size"); v && v->value > 0) m.expert_ffn = *v;
      if (auto v = r.int_in(mc, "first_k_dense_replace")) m.first_k_dense = *v;
      // MoEConfig: capacity_factor 1.1 by default; <= 0 means dropless.
      m.capacity = 1.1;
      if (auto v = f.find(*mc, "capacity_factor"))
        m.capacity = std::max(0.0, f.real(*v)), m.capacity_where = f.at(*v);
      if (auto v = r.bool_in(mc, "use_gmm")) m.grouped_gemm = {v->first ? 1 : 0, v->second};
      m.groups = r.int_in(mc, "n_group");
      m.group_topk = r.int_in(mc, "topk_group");
      return m;
    }
    auto experts = r.model_int({"n_routed_experts", "num_experts"});
    if (!experts || experts->value <= 1) return std::nullopt;
    m.experts = *experts;
    if (auto v = r.model_int({"num_experts_per_tok"})) m.top_k = *v;
    if (auto v = r.model_int({"moe_intermediate_size"})) m.expert_ffn = *v;
    if (auto v = r.model_int({"n_shared_experts"})) {
      m.shared = *v;
    } else if (auto w = r.model_int(
                   {"moe_shared_expert_intermediate_size", "shared_expert_intermediate_size"});
               w && w->value > 0) {
      m.shared = {1, w->where};  // one shared expert this wide
      m.shared_ffn = *w;
    }
    if (auto v = r.model_int({"first_k_dense_replace"})) m.first_k_dense = *v;
    // Megatron-style MoE (mcore): dropless unless a capacity factor is given.
    if (auto v = r.model("moe_expert_capacity_factor"))
      m.capacity = std::max(0.0, f.real(*v)), m.capacity_where = f.at(*v);
    if (auto v = r.model("moe_grouped_gemm")) m.grouped_gemm = {f.boolean(*v) ? 1 : 0, f.at(*v)};
    m.groups = r.model_int({"n_group"});
    m.group_topk = r.model_int({"topk_group"});
    return m;
  }

  static void set_opt(sdk::Builder& b, const char* key, const std::optional<Int>& v) {
    if (v) b.set(key, v->value, v->where);
  }

  static void layer_keys(const Shape& s, bool moe, sdk::Builder& b) {
    set_opt(b, "hidden_size", s.hidden);
    set_opt(b, "heads", s.heads);
    set_opt(b, "kv_heads", s.kv_heads);
    set_opt(b, "head_dim", s.head_dim);
    if (s.kv_lora) {
      b.set_string("attention", "mla", s.kv_lora->where);
      b.set("kv_lora_rank", s.kv_lora->value, s.kv_lora->where);
      set_opt(b, "q_lora_rank", s.q_lora);
      set_opt(b, "qk_rope_head_dim", s.qk_rope);
      set_opt(b, "qk_nope_head_dim", s.qk_nope);
      set_opt(b, "v_head_dim", s.v_head);
    }
    b.set("qk_norm", s.qk_norm.value, s.qk_norm.where);
    b.set_string("ffn", s.ffn_kind, s.ffn_kind_where);
    b.set_string("norm", s.norm, s.norm_where);
    b.set("linear_bias", s.linear_bias.value, s.linear_bias.where);
    b.set("qkv_bias", s.qkv_bias.value, s.qkv_bias.where);
    if (s.hidden_dropout)
      b.set_real("hidden_dropout", s.hidden_dropout->first, s.hidden_dropout->second);
    if (s.attention_dropout)
      b.set_real("attention_dropout", s.attention_dropout->first, s.attention_dropout->second);
    if (!moe) {
      set_opt(b, "ffn_hidden_size", s.ffn);
      return;
    }
    const Moe& m = *s.moe;
    b.set("experts", m.experts.value, m.experts.where);
    b.set("experts_per_token", m.top_k.value, m.top_k.where);
    // Without moe_intermediate_size an expert is as wide as intermediate_size
    // (MindFormers' Mixtral and Qwen2-MoE configs).
    const std::optional<Int> expert = m.expert_ffn ? m.expert_ffn : s.ffn;
    set_opt(b, "moe_ffn_hidden_size", expert);
    b.set("shared_experts", m.shared.value, m.shared.where);
    if (m.shared.value > 0)
      set_opt(b, "shared_expert_ffn_hidden_size", m.shared_ffn ? m.shared_ffn : expert);
    b.set_real("capacity_factor", m.capacity, m.capacity_where);
    b.set("grouped_gemm", m.grouped_gemm.value, m.grouped_gemm.where);
    // DeepSeek-V3's node-limited routing: experts in n_group groups, each
    // token's from at most topk_group of them.
    if (m.groups && m.groups->value > 1) {
      set_opt(b, "router_groups", m.groups);
      set_opt(b, "router_group_topk", m.group_topk);
    }
  }

  static void write_blocks(const Reader& r, const Shape& s, sdk::Builder& b) {
    if (s.layers.value <= 0)
      r.f_.bad(*r.model(r.model("num_layers") ? "num_layers" : "num_hidden_layers"),
               "at least 1 layer");
    int64_t dense = s.layers.value;
    if (s.moe) dense = std::min(s.moe->first_k_dense.value, s.layers.value);
    if (dense > 0) {
      b.begin_block("decoder", dense, s.moe ? s.moe->first_k_dense.where : s.layers.where);
      layer_keys(s, false, b);
      b.end_block();
    }
    if (s.moe && s.layers.value > dense) {
      b.begin_block("decoder", s.layers.value - dense, s.moe->experts.where);
      layer_keys(s, true, b);
      b.end_block();
    }
    if (s.mtp.value > 0) {
      b.begin_block("mtp", s.mtp.value, s.mtp.where);
      layer_keys(s, s.moe.has_value(), b);
      b.end_block();
    }
  }

  static void write_model_keys(const Reader& r, bool mcore, sdk::Builder& b) {
    const File& f = r.f_;
    if (auto name = f.find("trainer.model_name"))
      b.set_string("name", f.text(*name), f.at(*name));
    else if (auto type = r.model("model_type"))
      b.set_string("name", f.text(*type), f.at(*type));
    else if (auto cls = r.model("type"))
      b.set_string("name", f.text(*cls), f.at(*cls));
    // Defaults: LlamaConfig (vocab 32000, seq 2048, flash attention off) and
    // the mcore MFModelConfig (vocab 128000, seq 4096, flash attention on).
    if (auto v = r.model_int({"vocab_size"}))
      b.set("vocab_size", v->value, v->where);
    else
      b.set("vocab_size", mcore ? 128000 : 32000, kDefault);
    if (auto v = r.model("tie_word_embeddings"))
      b.set("tied_embeddings", f.boolean(*v) ? 1 : 0, f.at(*v));
    else if (auto u = r.model("untie_embeddings_and_output_weights"))
      b.set("tied_embeddings", f.boolean(*u) ? 0 : 1, f.at(*u));
    else
      b.set("tied_embeddings", 0, kDefault);
    if (auto v = r.model("position_embedding_type")) {
      const std::string kind = lower(f.text(*v));
      if (kind != "rope" && kind != "learned_absolute" && kind != "none")
        f.bad(*v, "\"rope\", \"learned_absolute\" or \"none\"");
      b.set_string("position_embedding", kind == "learned_absolute" ? "learned" : kind, f.at(*v));
    } else {
      b.set_string("position_embedding", "rope", kDefault);
    }
    if (auto v = r.model_int({"max_position_embeddings"}))
      b.set("max_position_embeddings", v->value, v->where);
    if (auto v = r.model("use_flash_attention"))
      b.set("flash_attention", f.boolean(*v) ? 1 : 0, f.at(*v));
    else
      b.set("flash_attention", mcore ? 1 : 0, kDefault);
    if (auto v = r.model_int({"seq_length"}))
      b.set("seq_len", v->value, v->where);
    else
      b.set("seq_len", mcore ? 4096 : 2048, kDefault);
  }

  static void write_schedule(const File& f, const Int& vp, sdk::Builder& b) {
    if (auto s = f.find("parallel.pipeline_config.pipeline_scheduler")) {
      const std::string name = lower(f.text(*s));
      std::string schedule;
      if (name == "1f1b")
        schedule = vp.value > 1 ? "interleaved" : "1f1b";
      else if (name == "gpipe")
        schedule = "gpipe";
      else if (name == "zero_bubble_v" || name == "zbv")
        schedule = "zb-v";
      else if (name == "seqpipe" || name == "seqvpp" || name == "seqsmartvpp")
        schedule = vp.value > 1 ? "interleaved" : "1f1b";
      else
        f.bad(*s, "1f1b, gpipe, zero_bubble_v or seqpipe");
      b.set_string("stated.schedule", schedule, f.at(*s));
    } else {
      b.set_string("stated.schedule", vp.value > 1 ? "interleaved" : "1f1b", kDefault);
    }
  }

  // MindFormers' trainer: global batch = batch_size x data_parallel x
  // micro_batch_interleave_num x (micro_batch_num with pipeline stages, else
  // gradient_accumulation_steps).
  static void write_batch(const Reader& r, const std::optional<Field>& pc, const Int& pp,
                          const Int& dp, sdk::Builder& b) {
    const File& f = r.f_;
    auto mbs = r.int_at("runner_config.batch_size");
    const Int micro = mbs ? *mbs : Int{1, kDefault};
    b.set("stated.mbs", micro.value, micro.where);
    auto interleave = r.int_at("micro_batch_interleave_num");
    const int64_t split = interleave ? std::max<int64_t>(1, interleave->value) : 1;
    std::optional<Int> count;
    std::string count_field;
    if (pp.value > 1) {
      count = r.int_in(pc, "micro_batch_num");
      count_field = "parallel_config.micro_batch_num";
      if (!count) count = Int{1, kDefault};
    } else {
      count = r.int_at("runner_config.gradient_accumulation_steps");
      count_field = "runner_config.gradient_accumulation_steps";
      if (!count) count = Int{1, kDefault};
    }
    const int64_t mbn = std::max<int64_t>(1, count->value) * split;
    b.set("stated.mbn", mbn, count->where);
    std::string field = "runner_config.batch_size x parallel_config.data_parallel x " + count_field;
    if (split > 1) field += " x micro_batch_interleave_num";
    b.set("global_batch", micro.value * dp.value * mbn, {f.path(), micro.where.line, field, ""});
  }

  // MindSpore's parallel optimizer stores each parameter and its optimizer
  // states as its data-parallel slice, AllGathers the weight before the
  // forward and ReduceScatters its gradient (MindSpore's "Optimizer
  // Parallel" guide, r2.3.1 and master): zero 3 in our terms, parameters
  // sharded. Without parallel_optimizer_comm_recompute the gathered weight
  // lives from the forward to the backward (AutoParallel.hsdp's level3 is
  // what gathers again to free it), and with micro-batches (a pipeline, or
  // gradient accumulation) MindFormers' MFPipelineWithLossScaleCell adds
  // accu_grads, a clone of the weights in their dtype that keeps the model-
  // parallel slice whole unless gradient_accumulation_shard
  // (mindformers/wrapper/wrapper.py v1.3.0; mindspore parallel/
  // parameter_manager.cc, SetClonedTensorShapeForOptimizer): FSDP2's
  // holding with reshard_after_forward off, fsdp2_keep. The reference
  // prices it as its ZeRO 2, 3 with gradient sharding (§2.3).
  // gradient_accumulation_shard, where the config states it: whether the
  // parallel optimizer's accu_grads are held sharded (write_optimizer_parallel)
  // or whole (and then what write_overlaps hides).
  static std::optional<Field> accumulation_shard(const File& f) {
    return f.find("parallel.parallel_optimizer_config.gradient_accumulation_shard");
  }

  static void write_optimizer_parallel(const Reader& r, const Int& dp, const Int& cp,
                                       sdk::Builder& b) {
    const File& f = r.f_;
    auto enabled = f.find("parallel.enable_parallel_optimizer");
    const bool on = enabled && f.boolean(*enabled);
    const sdk::Where on_where = enabled ? f.at(*enabled) : kDefault;
    // gradient_accumulation_shard gives accu_grads the optimizer-sharded
    // shape (parameter_manager.cc, SetClonedTensorShapeForOptimizer, for a
    // parameter the optimizer shards) and ReduceScatters each micro-batch's
    // gradients into them: 1/op of them held (ABI 1.12). Stated whether or
    // not the optimizer is on: a zero-3 candidate of a config that has it
    // off is what the writer turns it on for, holding as MindSpore does.
    auto shard = accumulation_shard(f);
    if (shard && f.boolean(*shard))
      b.set_string("fsdp_holding", "keep_sharded_grads", f.at(*shard));
    else
      b.set_string("fsdp_holding", "fsdp2_keep", shard ? f.at(*shard) : on_where);
    if (!on) {
      b.set("stated.zero", 0, on_where);
      return;
    }
    b.set("stated.zero", 3, on_where);
    auto size = r.int_at("parallel.parallel_optimizer_config.optimizer_weight_shard_size");
    if (size && size->value > 0)
      b.set("stated.op", size->value, size->where);
    else
      b.set("stated.op", dp.value * cp.value,
            size ? size->where : kDefault);  // -1: the whole DP group
  }

  // A per-stage list (or, with interleaving, a list per chunk) of layer counts.
  static std::vector<int64_t> per_stage(const File& f, const Field& field) {
    if (field.node.IsSequence() && field.node.size() > 0 && field.node[0].IsSequence()) {
      std::vector<int64_t> sum;
      for (size_t c = 0; c < field.node.size(); ++c) {
        const auto chunk =
            f.integers({field.node[c], field.path + "[" + std::to_string(c) + "]", field.line});
        if (sum.empty()) sum.assign(chunk.size(), 0);
        if (chunk.size() != sum.size())
          f.bad(field, "lists of one length (one value per pipeline stage)");
        for (size_t i = 0; i < chunk.size(); ++i) sum[i] += chunk[i];
      }
      return sum;
    }
    return f.integers(field);
  }

  // What MindSpore 2.4 overlaps for MindFormers v1.3 in graph mode, where
  // a config sets no parallel_speed_up_json (every overlap switch of it off:
  // matmul_grad_comm_overlap, enable_grad_comm_opt,
  // enable_opt_shard_comm_opt). A TP collective "depends on the previous
  // calculation result and cannot be overlapped" (MindSpore's multi-copy
  // parallel guide, r2.4.0) unless the micro-batch is split into copies, one
  // copy's exchange beside another's compute: fine_grain_interleave > 1
  // with model parallel (llama_interleave.py, the layer's rows in chunks) or
  // micro_batch_interleave_num > 1 (nn.MicroBatchInterleaved), priced as
  // chunked TP overlap. The gradient reduction runs after the last
  // micro-batch's backward (pipeline_scheduler.cc) and pipeline send/receive
  // between micro-batches, neither overlapped. Under a pipeline with whole
  // accu_grads the parallel optimizer's all-gathers are issued once a step
  // beside the wait for the first receive (overlap_opt_shard_in_pipeline.cc):
  // hidden; otherwise they run before the forward. A speed-up file the
  // config names turns switches on (write_speed_up).
  static void write_overlaps(const Reader& r, const Int& tp, const Int& pp, sdk::Builder& b) {
    const File& f = r.f_;
    auto grain = r.model_int({"fine_grain_interleave"});
    auto copies = r.int_at("micro_batch_interleave_num");
    sdk::Where none = kDefault;
    none.field = "MindSpore 2.4 graph mode: no parallel_speed_up_json overlap";
    const bool split_grain = grain && grain->value > 1 && tp.value > 1;
    const bool split_copies = copies && copies->value > 1;
    b.set("overlap.tp_comm", split_grain || split_copies ? 1 : 0,
          split_grain    ? grain->where
          : split_copies ? copies->where
                         : none);
    auto shard = accumulation_shard(f);
    const bool whole_accu = !(shard && f.boolean(*shard));
    const bool gathers_hidden = pp.value > 1 && whole_accu;
    b.set("overlap.param_gather", gathers_hidden ? 1 : 0, gathers_hidden ? pp.where : none);
    for (const char* key : {"overlap.tp_async", "overlap.grad_reduce", "overlap.p2p",
                            "overlap.moe_a2a", "overlap.moe_shared", "overlap.cp"})
      b.set(key, 0, none);
    write_speed_up(f, pp, gathers_hidden, b);
  }

  // context.ascend_config.parallel_speed_up_json_path: the switches it turns
  // on, over the defaults write_overlaps set. MindSpore reads the file from
  // where the job runs and refuses one it cannot take whole; a file not
  // found from the config's folder up, or refused, is said and its overlaps
  // priced off. enable_grad_comm_opt and enable_opt_shard_comm_opt are "not
  // supported under LazyInline" (set_context's documentation), which
  // MindFormers turns on with a pipeline (version_control.py,
  // get_lazy_inline): priced only at pp 1.
  static void write_speed_up(const File& f, const Int& pp, bool gathers_hidden, sdk::Builder& b) {
    auto stated = f.find("context.ascend_config.parallel_speed_up_json_path");
    if (!stated || f.text(*stated).empty()) return;
    const std::string named = f.text(*stated);
    const auto said = [&](const std::string& what) {
      say(b, f.at(*stated),
          "context.ascend_config.parallel_speed_up_json_path \"" + sdk::shown(named) +
              "\": " + what + "; its overlaps are priced as MindSpore's defaults");
    };
    const auto path = mindspore::find_speed_up_file(f.path(), named);
    if (!path) {
      said(
          "no file there from the config's folder or a folder above it, up to the one that "
          "holds its first folder (MindFormers reads it from where the job runs): give its "
          "path from the config's folder or an absolute one");
      return;
    }
    mindspore::SpeedUp file;
    try {
      file = mindspore::read_speed_up_file(*path);
    } catch (const sdk::Error& e) {
      said(sdk::shown(e.what(), 400));
      return;
    }
    if (!file.refused.empty()) {
      said(file.path + " " + file.refused +
           ": MindSpore refuses the file, so the job runs none of it");
      return;
    }
    const auto at = [&](const mindspore::SpeedUpKey& k, const std::string& what) {
      return sdk::Where{file.path, k.line > 0 ? k.line : NDS_UNKNOWN,
                        sdk::shown(k.key) + ": " + what, ""};
    };
    if (file.tp_async)
      b.set("overlap.tp_async", 1,
            at(*file.tp_async, "the backward's MatMul overlapped with the TP communication"));
    const std::string lazy =
        " (MindSpore runs it only without LazyInline, which MindFormers turns on with a "
        "pipeline: not priced at pp > 1)";
    if (file.grad_reduce)
      b.set("overlap.grad_reduce", pp.value == 1 ? 1 : 0,
            at(*file.grad_reduce, "the DP gradient reduction overlapped with the dx computation" +
                                      (pp.value == 1 ? std::string() : lazy)));
    if (file.param_gather)
      b.set("overlap.param_gather", pp.value == 1 || gathers_hidden ? 1 : 0,
            at(*file.param_gather,
               "the parallel optimizer's all-gathers overlapped with the forward" +
                   (pp.value == 1 ? std::string()
                                  : lazy + (gathers_hidden ? "; hidden under the pipeline's first "
                                                             "receive all the same"
                                                           : ""))));
    for (const mindspore::SpeedUpKey& k : file.unpriced)
      b.unknown_field(at(k, "on, and changes a cost ndsearch does not price"));
  }

  // What MindFormers refuses at start-up (v1.3.0 mindformers/tools/
  // check_rules.py), said where a config states it (an error under
  // --strict) and priced as written: context parallelism without
  // model_config.use_flash_attention under semi-auto parallel
  // (_check_parallel, which reads the YAML's key: unstated is refused); a
  // recompute list longer than the pipeline (_rule_recompute);
  // fine_grain_interleave > 1 with neither sequence nor context parallelism
  // (_check_config_campacity). Its device count and num_layers >=
  // pipeline_stage are the search's `devices` and `layers` checks.
  static void say_refusals(const Reader& r, const std::optional<Field>& pc, const Int& pp,
                           const Int& cp, sdk::Builder& b) {
    const File& f = r.f_;
    const auto refused = [&](const sdk::Where& w, const std::string& what, const char* rule,
                             const char* fix) {
      say(b, w,
          what + ": MindFormers refuses it (check_rules.py, " + rule + "); priced as written; " +
              fix);
    };
    auto mode = f.find("parallel.parallel_mode");
    auto fa = r.model("use_flash_attention");
    if (cp.value > 1 && mode && f.integer(*mode) == 1 && !(fa && f.boolean(*fa)))
      refused(cp.where,
              "parallel_config.context_parallel " + std::to_string(cp.value) +
                  " without model_config.use_flash_attention: True",
              "_check_parallel", "set use_flash_attention: True or context_parallel: 1");
    if (auto rc = f.find("recompute_config"))
      for (const char* key : {"recompute", "select_recompute", "select_comm_recompute"}) {
        auto v = f.find(*rc, key);
        if (!v || !v->node.IsSequence() || static_cast<int64_t>(v->node.size()) <= pp.value)
          continue;
        bool counts = true;
        for (const YAML::Node& n : v->node) counts = counts && n.IsScalar();  // not per-chunk lists
        if (counts)
          refused(f.at(*v),
                  "recompute_config." + std::string(key) + " lists " +
                      std::to_string(v->node.size()) + " stages, more than pipeline_stage " +
                      std::to_string(pp.value),
                  "_rule_recompute", "give one entry per pipeline stage");
      }
    auto grain = r.model_int({"fine_grain_interleave"});
    auto sp = r.bool_in(pc, "use_seq_parallel");
    if (grain && grain->value > 1 && !(sp && sp->first) && cp.value <= 1)
      refused(grain->where,
              "model_config.fine_grain_interleave " + std::to_string(grain->value) +
                  " without use_seq_parallel or context_parallel",
              "_check_config_campacity", "set parallel_config.use_seq_parallel: True");
  }

  // How MindSpore runs the graph, where it is not what the mindspore fit
  // was measured on (MindFormers v1.3.0's Llama 2 YAMLs: graph mode,
  // jit_level O1, "common optimizations and automatic operator fusion",
  // set_context's documentation). PyNative runs no semi-auto or auto
  // parallelism ("the pynative mode only supports the stand_alone and
  // data_parallel mode", set_auto_parallel_context's documentation); O0
  // runs without the automatic fusion and O2 sinks the graph to the
  // device, neither measured in a published run: said, priced as O1.
  static void say_execution_mode(const File& f, sdk::Builder& b) {
    auto mode = f.find("context.mode");
    auto parallel = f.find("parallel.parallel_mode");
    if (mode && f.integer(*mode) == 1 && parallel &&
        (f.integer(*parallel) == 1 || f.integer(*parallel) == 2)) {
      say(b, f.at(*mode),
          "context.mode 1 (PyNative) with parallel.parallel_mode " +
              std::to_string(f.integer(*parallel)) +
              ": MindSpore runs semi-auto and auto parallelism in graph mode only; priced as "
              "graph mode; set context.mode: 0");
    }
    auto level = f.find("context.jit_config.jit_level");
    if (level && f.text(*level) != "O1")
      say(b, f.at(*level),
          "context.jit_config.jit_level " + sdk::shown(f.text(*level)) +
              ": the mindspore overheads are fitted on jit_level O1 runs; priced as O1");
  }

  static void write_recompute(const File& f, sdk::Builder& b) {
    auto rc = f.find("recompute_config");
    // A switch: True/False, or a list of layer counts per stage.
    auto read = [&](const char* key, std::vector<int64_t>& layers, sdk::Where& where) {
      if (!rc) return false;
      auto v = f.find(*rc, key);
      if (!v) return false;
      where = f.at(*v);
      if (v->node.IsScalar()) return f.boolean(*v);
      if (v->node.IsMap()) return true;  // per-op patterns with their own layer counts
      layers = per_stage(f, *v);
      return std::any_of(layers.begin(), layers.end(), [](int64_t n) { return n > 0; });
    };
    std::vector<int64_t> full_layers, selective_layers;
    sdk::Where full_where = kDefault, selective_where = kDefault;
    const bool full = read("recompute", full_layers, full_where);
    const bool selective = read("select_recompute", selective_layers, selective_where);
    if (full) {
      b.set_string("stated.recompute", "full", full_where);
      if (!full_layers.empty()) b.set_list("recompute_layers", full_layers, full_where);
    } else if (selective) {
      b.set_string("stated.recompute", "selective", selective_where);
      if (!selective_layers.empty())
        b.set_list("recompute_layers", selective_layers, selective_where);
    } else {
      b.set_string("stated.recompute", "none",
                   rc && f.find(*rc, "recompute") ? full_where : kDefault);
    }
  }

  // model_config.offset: per-stage shifts from the even split of the layers
  // (with mtp_depth, the MTP layers count among them). Stage i holds
  // total / pp + offset[i] layers, and the offsets take up the remainder.
  static void write_stage_layers(const Reader& r, const Shape& s, const Int& pp, const Int& vp,
                                 sdk::Builder& b) {
    const File& f = r.f_;
    auto offset = r.model("offset");
    if (!offset || pp.value <= 1) return;
    plugins::check_stage_count(pp.value, pp.where);  // before the per-stage tables below
    const int64_t total = s.layers.value + (s.mtp_in_offset ? s.mtp.value : 0);
    if (offset->node.IsScalar() && f.integer(*offset) == 0) {
      b.set_list("stage_layer_offsets", std::vector<int64_t>(static_cast<size_t>(pp.value), 0),
                 f.at(*offset));
      return;
    }
    const yaml::OffsetSplit split = yaml::split_from_offsets(
        f, *offset, total, pp.value, vp.value, "parallel_config.pipeline_stage",
        s.mtp_in_offset && s.mtp.value > 0 ? "layers (with the MTP layers)" : "layers");
    b.set_list("stage_layers", split.layers, f.at(*offset));
    // The vocabulary's offsets are whole numbers >= 0 (ABI 1.0); negative
    // MindFormers offsets, and a list per chunk, reach the model through
    // stage_layers only.
    if (!split.per_chunk &&
        std::all_of(split.offsets.begin(), split.offsets.end(), [](int64_t o) { return o >= 0; }))
      b.set_list("stage_layer_offsets", split.offsets, f.at(*offset));
  }

  static void write_dtypes(const Reader& r, bool mcore, sdk::Builder& b) {
    const File& f = r.f_;
    // LlamaConfig: param_init_type float32, compute_dtype float16;
    // MFModelConfig: params_dtype float32, compute_dtype bfloat16.
    std::string params = "fp32";
    sdk::Where params_where = kDefault;
    if (auto v = r.model("param_init_type") ? r.model("param_init_type") : r.model("params_dtype"))
      params = f.dtype(*v), params_where = f.at(*v);
    b.set_string("params_dtype", params, params_where);
    // One stored copy per weight: each op casts it to compute_dtype on the
    // fly (mindformers/modules/layers.py, Linear.construct), Cast's bprop
    // returns the gradient in the weight's dtype (mindspore ops/_grad/
    // grad_array_ops.py), and the optimizer casts weight and states to fp32,
    // updates and writes the weight back in its dtype
    // (mindformers/core/optim/optim.py, _update_run_op): no master copy.
    b.set_string("grads_dtype", params, params_where);
    b.set_string("master_dtype", "none", params_where);
    if (auto v = r.model("compute_dtype"))
      b.set_string("compute_dtype", f.dtype(*v), f.at(*v));
    else
      b.set_string("compute_dtype", mcore ? "bf16" : "fp16", kDefault);
    // The optimizer: AdamW keeps its two moments in the parameters' dtype,
    // FP32StateAdamWeightDecay in fp32.
    std::string name = "AdamW";
    sdk::Where name_where = kDefault;
    if (auto v = f.find("optimizer.type")) name = f.text(*v), name_where = f.at(*v);
    const std::string l = lower(name);
    std::string optimizer;
    if (l.find("muon") != std::string::npos)
      optimizer = "muon";
    else if (l.find("sgd") != std::string::npos)
      optimizer = "sgd";
    else if (l == "adam")
      optimizer = "adam";
    else if (l.find("adam") != std::string::npos || l == "came")
      optimizer = "adamw";
    if (optimizer.empty()) {
      b.unknown_field(name_where);
      return;
    }
    b.set_string("optimizer", optimizer, name_where);
    b.set("optimizer_states", optimizer == "muon" ? 1 : optimizer == "sgd" ? 0 : 2, name_where);
    if (l.find("fp32state") != std::string::npos)
      b.set_string("optimizer_dtype", "fp32", name_where);
    else
      b.set_string("optimizer_dtype", params, params_where);
  }

  // What the MindSpore runtime can do, as the reference's checks encode it
  // (§3.5, §7.1): sequence parallel never with context parallel, tensor
  // parallel a power of two; interleaved pipelines (pp_interleave_num), weight
  // sharding by the parallel optimizer, expert tensor parallel
  // (moe_config.expert_model_parallel). MindSpore's parallel optimizer
  // (enable_parallel_optimizer) shards the parameters with the optimizer
  // states: zero 3, never the states alone or with the gradients alone
  // (MindSpore's "Optimizer Parallel" guide; mindformers/trainer/
  // base_trainer.py passes parallel_optimizer_config on).
  static void write_capabilities(sdk::Builder& b) {
    plugins::state_trainer(plugins::kMindFormers, b);
  }

  static void report_unknown(const File& f, const Field& mc, sdk::Builder& b) {
    f.report_unknown({f.root(), "", NDS_UNKNOWN}, kTopKeys, b);
    std::set<std::string> model_keys = kIgnoredModelKeys;
    model_keys.insert(kReadModelKeys.begin(), kReadModelKeys.end());
    f.report_unknown(mc, model_keys, b);
    if (auto model = f.find("model")) f.report_unknown(*model, {"model_config", "arch"}, b);
    auto check = [&](const char* section, const std::set<std::string>& known) {
      if (auto s = f.find(section)) f.report_unknown(*s, known, b);
    };
    check("parallel_config", kParallelConfigKeys);
    check("parallel", kParallelKeys);
    check("moe_config", kMoeConfigKeys);
    check("recompute_config", kRecomputeKeys);
    check("runner_config", kRunnerKeys);
  }
};

}  // namespace
}  // namespace ndsearch::plugins

NDS_SDK_MODULE(ndsearch::plugins::MindformersParser, "mindformers-yaml", "1.0.0",
               "MindSpore Transformers (MindFormers) training YAML: model_config, parallel_config, "
               "moe_config, "
               "recompute_config, runner_config")
