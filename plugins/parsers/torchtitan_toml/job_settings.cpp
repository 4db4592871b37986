// SPDX-License-Identifier: Apache-2.0
// The defaults below are TorchTitan's JobConfig defaults (torchtitan/config/
// job_config.py): local_batch_size 8, global_batch_size -1 (local x dp),
// seq_len 2048, mixed_precision_param "bfloat16", mixed_precision_reduce
// "float32", data_parallel_shard_degree -1 (the devices left over), every other
// degree 1, pipeline_parallel_schedule "1F1B", pipeline_parallel_microbatch_size
// 1, context_parallel_rotate_method "allgather", activation_checkpoint.mode
// "selective" with selective_ac_option "2", optimizer "AdamW".
#include "plugins/parsers/torchtitan_toml/job_settings.hpp"
#include "plugins/common/parsing/trainer_description.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace ndsearch::plugins::torchtitan {
namespace {

using sdk::Where;

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  return text;
}

// A stated value or TorchTitan's default, with its provenance.
struct Setting {
  int64_t value;
  Where where;
};

Where source(const JobFile& job, const char* field) {
  return job.find(field) != nullptr ? job.where(field) : torchtitan_default();
}

// A whole number >= 1 (or -1 where TorchTitan takes it as "the devices left over").
Setting positive(const JobFile& job, const char* field, int64_t fallback,
                 bool minus_one_ok = false) {
  const auto v = job.integer(field);
  if (!v) return {fallback, torchtitan_default()};
  if (*v < 1 && !(minus_one_ok && *v == -1))
    job.fail(field, minus_one_ok ? "expected a degree >= 1, or -1 for the devices left over"
                                 : "expected a whole number >= 1 (a degree of 1 means disabled)");
  return {*v, job.where(field)};
}

// TorchTitan's schedule names (torch.distributed.pipelining, matched without
// case) in the strategy vocabulary. Multi-stage schedules hold two virtual
// stages per rank unless pipeline_parallel_layers_per_stage says otherwise.
struct Schedule {
  const char* name;  // lower case
  const char* ours;
  bool multi_stage;
};
constexpr Schedule kSchedules[] = {
    {"1f1b", "1f1b", false},
    {"gpipe", "gpipe", false},
    {"interleaved1f1b", "interleaved", true},
    {"flexibleinterleaved1f1b", "interleaved", true},
    {"loopedbfs", "interleaved", true},
    {"interleavedzerobubble", "interleaved", true},
    {"zbvzerobubble", "zb-v", true},
    {"dualpipev", "dualpipe-v", true},
};

// How many layers the embedding (first) or the output head (last) counts as
// when TorchTitan splits the layers into stages; default 1.
int64_t layer_weight(const JobFile& job, const char* field) {
  const int64_t weight = job.integer(field).value_or(1);
  if (weight < 0) job.fail(field, "expected a whole number of layers >= 0");
  return weight;
}

constexpr const char* kScheduleNames =
    "1F1B, GPipe, Interleaved1F1B, FlexibleInterleaved1F1B, LoopedBFS, InterleavedZeroBubble, "
    "ZBVZeroBubble, DualPipeV";

struct Degrees {
  Setting replicate, shard, tp, pp, cp, ep, etp;
  bool dp_known() const { return shard.value > 0; }
  int64_t dp() const { return replicate.value * shard.value; }
};

Degrees read_degrees(const JobFile& job) {
  return Degrees{positive(job, "parallelism.data_parallel_replicate_degree", 1),
                 positive(job, "parallelism.data_parallel_shard_degree", -1, true),
                 positive(job, "parallelism.tensor_parallel_degree", 1),
                 positive(job, "parallelism.pipeline_parallel_degree", 1),
                 positive(job, "parallelism.context_parallel_degree", 1),
                 positive(job, "parallelism.expert_parallel_degree", 1),
                 positive(job, "parallelism.expert_tensor_parallel_degree", 1)};
}

Where shard_source(const JobFile& job, const Degrees& d, const std::string& what) {
  return d.shard.where.default_of.empty()
             ? job.derived("parallelism.data_parallel_shard_degree", what)
             : torchtitan_default();
}

void strategy(const JobFile& job, const Degrees& d, sdk::Builder& b) {
  b.set("stated.tp", d.tp.value, d.tp.where);
  b.set("stated.pp", d.pp.value, d.pp.where);
  b.set("stated.cp", d.cp.value, d.cp.where);
  b.set("stated.ep", d.ep.value, d.ep.where);
  b.set("stated.etp", d.etp.value, d.etp.where);
  if (d.dp_known()) {
    b.set("stated.dp", d.dp(), shard_source(job, d, "x data_parallel_replicate_degree"));
  } else {
    b.set_unknown("stated.dp",
                  "data_parallel_shard_degree = -1 gives data parallelism the devices left "
                  "after replicate, TP, PP and CP; the device count decides it",
                  d.shard.where);
  }
  // FSDP (ZeRO-3) shards over data_parallel_shard x CP ranks whenever either is
  // above 1; with shard degree 1 and replicate > 1 it is plain DDP.
  // fsdp_reshard_after_forward = "never" keeps the gathered parameters from
  // forward to backward: ZeRO-2's peak.
  const bool fsdp = d.shard.value != 1 || d.cp.value > 1;
  int64_t zero = fsdp ? 3 : 0;
  Where zero_from = shard_source(job, d, "FSDP when > 1 or -1");
  // What FSDP2 keeps gathered: by default each block reshards after its
  // forward but under PP (reshard_after_forward = not pp_enabled in
  // parallelize_llama.py apply_fsdp, 2024-12; the "default" policy since
  // 2025-02), the root never (FSDP2 itself).
  const char* reshard_field = "parallelism.fsdp_reshard_after_forward";
  b.set_string("fsdp_holding", "fsdp2_keep_under_pp", source(job, reshard_field));
  if (const auto reshard = job.text(reshard_field)) {
    if (*reshard != "default" && *reshard != "always" && *reshard != "never")
      job.fail("parallelism.fsdp_reshard_after_forward",
               R"(expected "default", "always" or "never")");
    if (*reshard == "always")
      b.set_string("fsdp_holding", "fsdp2_reshard", job.where(reshard_field));
    if (fsdp && *reshard == "never") {
      zero = 2;
      zero_from =
          job.derived("parallelism.fsdp_reshard_after_forward", "parameters stay gathered: ZeRO-2");
    }
  }
  b.set("stated.zero", zero, zero_from);
  // HSDP: the sharding group is data_parallel_shard x CP, replicated over the rest.
  if (fsdp && d.replicate.value > 1) {
    if (d.dp_known())
      b.set("stated.op", d.shard.value * d.cp.value,
            shard_source(job, d, "HSDP sharding group, x CP"));
    else
      b.set_unknown(
          "stated.op",
          "HSDP with data_parallel_shard_degree = -1: the sharding group is the devices left over",
          d.shard.where);
  }
  // TorchTitan always runs TP with sequence parallelism (parallelize_*: SequenceParallel norms).
  b.set("stated.sp", d.tp.value > 1 ? 1 : 0, torchtitan_default());
  const Where titan = torchtitan_default();
  // What it can run (trainer_description.hpp, docs/trainers.md): FSDP2 or
  // DDP, no ZeRO-1 (parallel_dims.py; parallelize.py apply_fsdp /
  // apply_ddp); TP always with SP (apply_tp's SequenceParallel norms); the
  // pipelining schedules but DualPipe.
  plugins::state_trainer(plugins::kTorchTitan, b);
  // Its DTensor TP redistributes the norms' sequence shards to Replicate
  // before the column-parallel linears (PrepareModuleInput in apply_tp), and
  // autograd keeps what the matmul read: the gathered input, whole on each
  // TP rank (Megatron-Core keeps the shard and gathers it again).
  b.set("tp_keeps_gathered_inputs", 1, titan);
}

// The schedule and the virtual stages per rank (pipeline_llm in
// torchtitan/distributed/pipeline_parallel.py).
void pipeline(const JobFile& job, const Degrees& d, int64_t layers, sdk::Builder& b) {
  const char* field = "parallelism.pipeline_parallel_schedule";
  const std::string name = job.text(field).value_or("1F1B");
  const Schedule* schedule = nullptr;
  for (const Schedule& s : kSchedules)
    if (lower(name) == s.name) schedule = &s;
  if (schedule != nullptr)
    b.set_string("stated.schedule", schedule->ours, source(job, field));
  else
    b.unknown_field(
        job.derived(field, "schedule \"" + name + "\" is not one of " + kScheduleNames));
  // How TorchTitan splits the layers: the embedding and the head weigh
  // pipeline_parallel_first/last_stage_less_layers layers (1 by default)
  // on the first and last stage (generate_llm_fqn_per_model_part).
  const char* first_less = "parallelism.pipeline_parallel_first_stage_less_layers";
  const char* last_less = "parallelism.pipeline_parallel_last_stage_less_layers";
  const int64_t edge = layer_weight(job, first_less);
  // A weight past the model's layers splits nothing TorchTitan could run.
  if (edge > std::max<int64_t>(layers, 1))
    job.fail(first_less, "expected at most the model's " + std::to_string(layers) + " layers");
  if (layer_weight(job, last_less) != edge)
    b.unknown_field(job.derived(last_less, "differs from " + std::string(first_less) +
                                               ": the split is priced with both at " +
                                               std::to_string(edge)));
  b.set_string("stage_split", "edges_weighted", torchtitan_default());
  b.set("stage_split_edge_layers", edge,
        job.find(first_less) != nullptr ? source(job, first_less) : torchtitan_default());
  if (d.pp.value == 1) {
    b.set("stated.vpp", 1, d.pp.where);  // no pipeline: one stage
    return;
  }
  const char* per_stage = "parallelism.pipeline_parallel_layers_per_stage";
  if (const auto layers_per_stage = job.integer(per_stage)) {
    if (*layers_per_stage < 1) job.fail(per_stage, "expected a whole number of layers >= 1");
    if (layers == 0) return;
    // The embedding and the output head count as layers in the split.
    const int64_t first =
        layer_weight(job, "parallelism.pipeline_parallel_first_stage_less_layers");
    const int64_t last = layer_weight(job, "parallelism.pipeline_parallel_last_stage_less_layers");
    const int64_t stages = (layers + first + last + *layers_per_stage - 1) / *layers_per_stage;
    if (stages % d.pp.value != 0)
      job.fail(per_stage,
               "gives " + std::to_string(stages) + " stages (" + std::to_string(layers) +
                   " layers + embedding + output), not a multiple of pipeline_parallel_degree = " +
                   std::to_string(d.pp.value) +
                   "; pick a layers-per-stage that splits them evenly");
    const int64_t per_rank = stages / d.pp.value;
    if (schedule != nullptr && schedule->multi_stage != (per_rank > 1))
      job.fail(per_stage, "gives " + std::to_string(per_rank) + " stage(s) per rank, but " + name +
                              (schedule->multi_stage ? " needs at least 2" : " needs exactly 1") +
                              "; change the schedule or the layers per stage");
    b.set("stated.vpp", per_rank, job.derived(per_stage, "stages per rank"));
  } else if (schedule != nullptr) {
    b.set("stated.vpp", schedule->multi_stage ? 2 : 1, torchtitan_default());
  }
}

void batch(const JobFile& job, const Degrees& d, sdk::Builder& b) {
  const Setting seq = positive(job, "training.seq_len", 2048);
  b.set("seq_len", seq.value, seq.where);
  const Setting local = positive(job, "training.local_batch_size", 8);
  Setting micro = local;  // without a pipeline a step's micro-batch is the local batch
  if (d.pp.value > 1) {
    micro = positive(job, "parallelism.pipeline_parallel_microbatch_size", 1);
    if (local.value % micro.value != 0)
      job.fail("training.local_batch_size",
               "is not a multiple of pipeline_parallel_microbatch_size = " +
                   std::to_string(micro.value) +
                   "; TorchTitan splits the local batch into micro-batches of that size");
  }
  b.set("stated.mbs", micro.value, micro.where);
  const int64_t per_local_batch = local.value / micro.value;
  const char* global_field = "training.global_batch_size";
  const auto global = job.integer(global_field);
  if (global && *global != -1) {
    if (*global < 1)
      job.fail(global_field,
               "expected a whole number >= 1, or -1 for local_batch_size x data-parallel degree");
    b.set("global_batch", *global, job.where(global_field));
    if (d.dp_known()) {
      const int64_t per_step = local.value * d.dp();
      if (*global % per_step != 0)
        job.fail(global_field, "is not a multiple of local_batch_size x data-parallel degree = " +
                                   std::to_string(per_step) +
                                   "; TorchTitan accumulates gradients over whole local batches");
      b.set("stated.mbn", *global / per_step * per_local_batch,
            job.derived(
                global_field,
                "/ (local_batch_size x dp) accumulation steps x micro-batches per local batch"));
    }
    return;
  }
  if (d.dp_known())
    b.set("global_batch", local.value * d.dp(),
          local.where.default_of.empty()
              ? job.derived("training.local_batch_size", "x data-parallel degree")
              : torchtitan_default());
  else
    b.set_unknown("global_batch",
                  "training.global_batch_size is not stated, so it is local_batch_size (" +
                      std::to_string(local.value) +
                      ") x the data-parallel degree, which data_parallel_shard_degree = -1 leaves "
                      "to the device count",
                  local.where);
  // No gradient accumulation: one local batch per step.
  b.set("stated.mbn", per_local_batch, d.pp.value > 1 ? micro.where : local.where);
}

const char* dtype_of(const JobFile& job, const char* field, const std::string& name) {
  if (name == "bfloat16") return "bf16";
  if (name == "float32") return "fp32";
  if (name == "float16") return "fp16";
  job.fail(field, R"(expected "bfloat16" or "float32")");
}

// TorchTitan's converters that run matmuls in fp8 (model.converters):
// torchao's Float8Linear ("float8", "quantize.linear.float8"), its rowwise
// scaled grouped GEMMs for MoE experts ("quantize.grouped_mm.float8") and
// MXFP8 ("mx", "mxfloat8", "quantize.linear.mx", "quantize.grouped_mm.mx";
// MXFP8 is MX's only training recipe at this commit).
enum class Fp8Converter { none, linear, grouped_mm, mx };

Fp8Converter fp8_converter(const std::string& name) {
  const std::string n = lower(name);
  const auto ends_with = [&](const std::string& tail) {
    return n.size() >= tail.size() && n.compare(n.size() - tail.size(), tail.size(), tail) == 0;
  };
  if (n == "mx" || n == "mxfloat8" || ends_with(".mx")) return Fp8Converter::mx;
  if (n == "quantize.grouped_mm.float8") return Fp8Converter::grouped_mm;
  if (n.find("float8") != std::string::npos) return Fp8Converter::linear;
  return Fp8Converter::none;
}

// The fp8 recipe of the converters named. Float8Linear's recipe_name
// ([quantize.linear.float8], [float8] before the quantize tables): unset or
// "tensorwise" is torchao's default, dynamic per-tensor scales from the
// current amax ("current"); "rowwise" and "rowwise_with_gw_hp" scale each row
// of each operand (axiswise), priced as "blockwise": one scale per 1 x K
// block, like DeepSeek-V3's 1 x 128 tiles, the nearest recipe ndsearch knows
// (rowwise_with_gw_hp also keeps the weight-gradient GEMM in bf16, which is
// not modelled). The grouped GEMMs scale rowwise too. A linear converter
// decides the recipe over a grouped-GEMM one (it converts most GEMMs of a
// dense model, and both are rowwise-or-finer for MoE).
void fp8_recipe(const JobFile& job, Fp8Converter converter, sdk::Builder& b) {
  const Where converters = job.where("model.converters");
  if (converter == Fp8Converter::mx) {
    b.set_string("fp8_recipe", "mxfp8", converters);
    return;
  }
  if (converter == Fp8Converter::grouped_mm) {
    b.set_string(
        "fp8_recipe", "blockwise",
        job.derived("model.converters", "rowwise scaled grouped GEMMs, priced as blockwise"));
    return;
  }
  for (const char* field : {"quantize.linear.float8.recipe_name", "float8.recipe_name"}) {
    const auto name = job.text(field);
    if (!name) continue;
    if (*name == "tensorwise")
      b.set_string("fp8_recipe", "current", job.where(field));
    else if (*name == "rowwise" || *name == "rowwise_with_gw_hp")
      b.set_string("fp8_recipe", "blockwise",
                   job.derived(field, "a scale per row, priced as blockwise"));
    else
      job.fail(field, R"(expected "tensorwise", "rowwise" or "rowwise_with_gw_hp")");
    return;
  }
  b.set_string("fp8_recipe", "current",
               torchtitan_default());  // recipe_name None: tensorwise dynamic scaling
}

void dtypes(const JobFile& job, sdk::Builder& b) {
  const char* param_field = "training.mixed_precision_param";
  const char* reduce_field = "training.mixed_precision_reduce";
  const char* compute = dtype_of(job, param_field, job.text(param_field).value_or("bfloat16"));
  Where compute_from = source(job, param_field);
  Fp8Converter recipe_from = Fp8Converter::none;
  if (const auto converters = job.texts("model.converters")) {
    for (const std::string& c : *converters) {
      const Fp8Converter kind = fp8_converter(c);
      if (kind != Fp8Converter::none) {
        compute = "fp8";
        compute_from = job.where("model.converters");
        if (recipe_from == Fp8Converter::none || recipe_from == Fp8Converter::grouped_mm)
          recipe_from = kind;
      } else {
        b.unknown_field(job.derived("model.converters", "converter \"" + c + "\""));
      }
    }
  }
  const Where titan = torchtitan_default();
  // FSDP2 keeps the sharded parameters in fp32 (they are the master copy) and
  // gathers them in mixed_precision_param; gradients are reduced and kept in
  // mixed_precision_reduce; AdamW's states are fp32.
  b.set_string("params_dtype", "fp32", titan);
  b.set_string("compute_dtype", compute, compute_from);
  if (recipe_from != Fp8Converter::none) fp8_recipe(job, recipe_from, b);
  b.set_string("grads_dtype",
               dtype_of(job, reduce_field, job.text(reduce_field).value_or("float32")),
               source(job, reduce_field));
  b.set_string("optimizer_dtype", "fp32", titan);
  b.set_string("master_dtype", "none", titan);
  const char* optimizer_field = "optimizer.name";
  const std::string optimizer = lower(job.text(optimizer_field).value_or("AdamW"));
  if (optimizer == "adamw" || optimizer == "adam") {
    b.set_string("optimizer", optimizer, source(job, optimizer_field));
    b.set("optimizer_states", 2, source(job, optimizer_field));
  } else {
    b.unknown_field(job.where(optimizer_field));
  }
}

// activation_checkpoint: "op" is TorchTitan's per-op selective policy; an
// integer n checkpoints every n-th transformer block whole (a global count
// along the layers, so floor(L / n) of them without a pipeline).
void recompute(const JobFile& job, const Degrees& d, int64_t layers, sdk::Builder& b) {
  const char* mode_field = "activation_checkpoint.mode";
  const char* option_field = "activation_checkpoint.selective_ac_option";
  const std::string mode = job.text(mode_field).value_or("selective");
  if (mode == "none" || mode == "full") {
    b.set_string("stated.recompute", mode, source(job, mode_field));
    return;
  }
  if (mode == "memory_budget") {  // a runtime knapsack over ops: not a fixed set ndsearch can state
    b.unknown_field(job.where(mode_field));
    return;
  }
  if (mode != "selective") job.fail(mode_field, R"(expected "none", "selective" or "full")");
  std::string option = "2";
  if (const toml::node* node = job.find(option_field))
    option = node->is_integer() ? std::to_string(*node->value<int64_t>())
                                : job.text(option_field).value_or("");
  if (option == "op") {
    // PyTorch's per-op selective checkpointing with torchtitan's _save_list
    // (mm, flash/efficient SDPA, reduce_scatter; every other mm recomputed):
    // models/llama/parallelize_llama.py _apply_ac_to_transformer_block.
    b.set_string("stated.recompute", "selective", source(job, option_field));
    b.set_string("recompute_ops", "alternate_matmuls", source(job, option_field));
    return;
  }
  const bool whole =
      !option.empty() && std::all_of(option.begin(), option.end(),
                                     [](unsigned char c) { return std::isdigit(c) != 0; });
  if (!whole || option.size() > 9)
    job.fail(option_field, "expected \"op\" or a whole number n (checkpoint every n-th layer)");
  const int64_t every = std::stoll(option);
  const Where from = source(job, option_field);
  b.set_string("stated.recompute", "full", from);
  if (every <= 1 || layers == 0) return;  // 0 and 1 checkpoint every layer
  if (d.pp.value == 1)
    b.set_list("recompute_layers", {layers / every},
               job.derived(option_field, "every n-th layer of " + std::to_string(layers)));
  else
    b.set_unknown("recompute_layers",
                  "selective_ac_option = \"" + option +
                      "\" counts layers along each pipeline rank's chunks; the split decides how "
                      "many per stage",
                  from);
}

// The loss. Eager, cross_entropy on the logits cast to fp32, not fused
// (train.py, 2024-12; components/loss.py cross_entropy_loss since):
// log_softmax keeps its fp32 output (4 bytes a logit) and its backward holds
// that, the gradient it receives and the one it returns, all fp32: 12. Its
// traffic (ABI 1.15): the cast (2 + 4) and log_softmax reading its input for
// the max, the sum and the output it writes (3 x 4 + 4): 22 forward;
// nll_loss's fp32 gradient (4), log_softmax's backward reading it for the sum
// and the output, with its own output, and writing its gradient (4 x 4), the
// cast back to bf16 (4 + 2): 26 backward.
// Compiled (torch.compile(loss_fn) in components/loss.py whenever the model
// is compiled, pytorch/torchtitan#1033, bbb1b616e, 2025-04-02; since
// pytorch/torchtitan#1608, 2025-08-20, when compile.components names "loss",
// which it does by default), inductor fuses the cast, the softmax and its
// backward: the bf16 logits kept for the backward and the bf16 gradient it
// returns, 4, as Megatron-Core's fused loss; its forward reads the bf16
// logits for the max and the sum (2 + 2), its backward reads them and
// writes the gradient (2 + 2). torchtitan 9dec370 (2024-12) compiled the
// blocks only; in today's spelling components = ["model"].
void state_loss(sdk::Builder& b, bool compiled, const sdk::Where& w) {
  b.set_real("loss_bytes_per_logit", compiled ? 4.0 : 12.0, w);
  b.set_real("loss_forward_bytes_per_logit", compiled ? 4.0 : 22.0, w);
  b.set_real("loss_backward_bytes_per_logit", compiled ? 4.0 : 26.0, w);
}

// The blocks' memory-bound work (ABI 1.18): compiled, inductor fuses each
// block's norms, RoPE, activation and residual additions (apply_compile
// compiles every TransformerBlock, fullgraph); eager, each is a PyTorch op of
// its own, the norms and RoPE in fp32 (models/norms.py, models/llama/model.py).
void state_kernels(sdk::Builder& b, bool compiled, const sdk::Where& w) {
  b.set_string("elementwise_kernels", compiled ? "fused" : "eager", w);
}

// Attention is F.scaled_dot_product_attention (models/llama/model.py), whose
// flash backend is FlashAttention-2: PyTorch made cuDNN's opt-in after
// pytorch/pytorch#138522 (2024-11; #142132 shows H100 not choosing it), and
// context parallelism allows flash and efficient only (torchtitan utils.py).
void state_attention(sdk::Builder& b) {
  b.set_string("attention_kernel", "flash_attention_2", torchtitan_default());
}

// The loss's and the blocks' kernels as compile states them; returns whether
// the blocks are compiled (async TP needs it).
bool compiled_parts(const JobFile& job, sdk::Builder& b) {
  const char* enable_field = "compile.enable";
  const char* components_field = "compile.components";
  const char* old_field = "training.compile";  // the spelling before [compile]
  if (job.flag(enable_field).value_or(false)) {
    const auto components = job.texts(components_field);
    if (!components) {
      const sdk::Where w = job.derived(
          enable_field,
          R"(compile.components defaults to ["model", "loss"]: blocks and loss compiled, fused)");
      state_loss(b, true, w);
      state_kernels(b, true, w);
      return true;
    }
    for (const std::string& c : *components)
      if (c != "model" && c != "loss")
        job.fail(components_field, R"(expected a list of "model" and "loss")");
    const auto named = [&](const char* part) {
      return std::find(components->begin(), components->end(), part) != components->end();
    };
    state_loss(b, named("loss"),
               job.derived(components_field,
                           named("loss") ? "the loss compiled, fused" : "the loss eager, in fp32"));
    state_kernels(
        b, named("model"),
        job.derived(components_field, named("model") ? "the blocks compiled: their elementwise "
                                                       "ops fused"
                                                     : "the blocks eager: one kernel per op"));
    return named("model");
  }
  if (job.flag(old_field).value_or(false)) {
    const sdk::Where w = job.derived(
        old_field,
        "the blocks compiled; torchtitan from 2025-04 to 2025-08 compiled the loss with them, "
        "fused; 9dec370 and before did not");
    state_loss(b, true, w);
    state_kernels(b, true, w);
    return true;
  }
  state_loss(b, false, torchtitan_default());
  state_kernels(b, false, torchtitan_default());
  return false;
}

// `compiled`: the blocks are (compiled_parts).
void context_and_overlap(const JobFile& job, bool compiled, sdk::Builder& b) {
  const char* rotate_field = "parallelism.context_parallel_rotate_method";
  const std::string rotate = job.text(rotate_field).value_or("allgather");
  // PyTorch's context_parallel: "allgather" gathers every KV shard, "alltoall"
  // passes KV shards round the ring.
  if (rotate == "allgather")
    b.set_string("cp_algorithm", "allgather-kv", source(job, rotate_field));
  else if (rotate == "alltoall")
    b.set_string("cp_algorithm", "ring", source(job, rotate_field));
  else
    job.fail(rotate_field, R"(expected "allgather" or "alltoall")");
  const char* async_tp = "parallelism.enable_async_tensor_parallel";
  const bool async = job.flag(async_tp).value_or(false);
  b.set("overlap.tp_comm", async ? 1 : 0, source(job, async_tp));
  // Async TP is inductor's micro-pipelining: torchtitan refuses it without
  // compile (parallelize_llama.py, 9dec370 L54-58): a warning, an error
  // under --strict.
  if (async && !compiled)
    b.unknown_field(job.derived(async_tp,
                                "async TP without compile (torchtitan refuses it: inductor runs "
                                "it); priced with TP overlapped"));
  // FSDP2 prefetches the next all-gather and reduce-scatters on its own stream.
  b.set("overlap.param_gather", 1, torchtitan_default());
  b.set("overlap.grad_reduce", 1, torchtitan_default());
  // PyTorch's context-parallel SDPA exchanges the next KV shards while it
  // computes attention on the ones it holds, either rotate method.
  b.set("overlap.cp", 1, torchtitan_default());
}

}  // namespace

void build_training(const JobFile& job, int64_t layers, sdk::Builder& b) {
  const Degrees d = read_degrees(job);
  strategy(job, d, b);
  pipeline(job, d, layers, b);
  batch(job, d, b);
  dtypes(job, b);
  recompute(job, d, layers, b);
  const bool compiled = compiled_parts(job, b);
  state_attention(b);
  context_and_overlap(job, compiled, b);
}

}  // namespace ndsearch::plugins::torchtitan
