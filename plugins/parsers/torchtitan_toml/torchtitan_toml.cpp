// SPDX-License-Identifier: Apache-2.0
// torchtitan_toml.cpp: the `torchtitan-toml` parser: a TorchTitan job TOML
// (the train_configs/*.toml of pytorch/torchtitan up to 238fa99, when it
// moved to Python configs). model.name + model.flavor select the shapes from
// TorchTitan's published flavors (flavors.cpp); [training], [parallelism],
// [activation_checkpoint], [optimizer] and model.converters give the training
// settings and the stated strategy (job_settings.cpp). Fields that bear on no
// training cost (job, metrics, checkpoint, lr_scheduler, validation, ...) are
// known and ignored; any other field is reported through unknown_field.
#include <ndsearch/sdk/parser.hpp>

#include <toml++/toml.h>

#include <set>
#include <string>

#include "plugins/parsers/torchtitan_toml/apply_strategy.hpp"
#include "plugins/parsers/torchtitan_toml/flavors.hpp"
#include "plugins/parsers/torchtitan_toml/job_file.hpp"
#include "plugins/parsers/torchtitan_toml/job_settings.hpp"
#include "plugins/parsers/torchtitan_toml/model_shapes.hpp"

namespace {

using ndsearch::plugins::torchtitan::JobFile;
using ndsearch::sdk::Builder;

// The fields this parser reads (job_settings.cpp, model_shapes.cpp).
const std::set<std::string> kRead = {
    "model.name",
    "model.flavor",
    "model.converters",
    "optimizer.name",
    "training.local_batch_size",
    "training.global_batch_size",
    "training.seq_len",
    "training.mixed_precision_param",
    "training.mixed_precision_reduce",
    "parallelism.data_parallel_replicate_degree",
    "parallelism.data_parallel_shard_degree",
    "parallelism.fsdp_reshard_after_forward",
    "parallelism.tensor_parallel_degree",
    "parallelism.enable_async_tensor_parallel",
    "parallelism.pipeline_parallel_degree",
    "parallelism.pipeline_parallel_schedule",
    "parallelism.pipeline_parallel_layers_per_stage",
    "parallelism.pipeline_parallel_microbatch_size",
    "parallelism.pipeline_parallel_first_stage_less_layers",
    "parallelism.pipeline_parallel_last_stage_less_layers",
    "parallelism.context_parallel_degree",
    "parallelism.context_parallel_rotate_method",
    "parallelism.expert_parallel_degree",
    "parallelism.expert_tensor_parallel_degree",
    "activation_checkpoint.mode",
    "activation_checkpoint.selective_ac_option",
    "compile.enable",
    "compile.components",
    "training.compile",
};

// Fields of the read sections that bear on no training cost.
const std::set<std::string> kIgnored = {
    "model.hf_assets_path",
    "model.tokenizer_path",
    "model.print_after_conversion",
    "optimizer.lr",
    "optimizer.beta1",
    "optimizer.beta2",
    "optimizer.eps",
    "optimizer.weight_decay",
    "optimizer.implementation",
    "optimizer.early_step_in_backward",
    "training.dataset",
    "training.dataset_path",
    "training.max_norm",
    "training.steps",
    "training.gc_freq",
    "training.gc_debug",
    "training.seed",
    "training.deterministic",
    "training.debug_moe_force_load_balance",
    "parallelism.disable_loss_parallel",
    "parallelism.enable_compiled_autograd",
    "parallelism.expert_parallel_comm_backend",
    "activation_checkpoint.per_op_sac_force_recompute_mm_shapes_by_fqns",
    "activation_checkpoint.early_stop",
    "activation_checkpoint.preserve_rng_state",
    "activation_checkpoint.determinism_check",
    "activation_checkpoint.debug",
    "compile.backend",
};

// Whole sections that bear on no training cost: bookkeeping, logging,
// checkpoints, schedules of the learning rate, and the converters' options
// (a converter acts only when model.converters names it; of those options
// job_settings.cpp reads Float8Linear's recipe_name, the fp8 recipe; the
// kUnmodelled ones among them are still reported when set).
const std::set<std::string> kIgnoredSections = {
    "job",    "profiling",  "metrics",           "lr_scheduler",    "checkpoint",
    "comm",   "validation", "memory_estimation", "fault_tolerance", "experimental",
    "float8", "mx",         "quantize",          "debug",
};

// Fields that change the cost in ways ndsearch does not model: fine when off
// or empty, reported when set, inside an ignored section too. Float8Linear's
// options in either spelling ([float8] up to mid-2025, [quantize.linear.float8]
// after; torchao/float8/config.py, Float8LinearConfig):
// enable_fsdp_float8_all_gather gathers FSDP's weights in fp8;
// force_recompute_fp8_weight_in_bwd casts the weight again in the backward
// instead of saving its fp8 copy; precompute_float8_dynamic_scale_for_fsdp
// computes every weight's scale in one step-end kernel.
const std::set<std::string> kUnmodelled = {
    "training.enable_cpu_offload",
    "parallelism.pipeline_parallel_split_points",
    "parallelism.module_fqns_per_model_part",
    "parallelism.pipeline_parallel_schedule_csv",
    "float8.enable_fsdp_float8_all_gather",
    "float8.force_recompute_fp8_weight_in_bwd",
    "float8.precompute_float8_dynamic_scale_for_fsdp",
    "quantize.linear.float8.enable_fsdp_float8_all_gather",
    "quantize.linear.float8.force_recompute_fp8_weight_in_bwd",
    "quantize.linear.float8.precompute_float8_dynamic_scale_for_fsdp",
};

bool is_set(const toml::node& value) {
  if (value.is_boolean()) return *value.value<bool>();
  if (const toml::array* list = value.as_array()) return !list->empty();
  if (value.is_string()) return !value.value<std::string>()->empty();
  return true;
}

// Every field of the file that is neither read nor known to be irrelevant,
// and every kUnmodelled field that is set, an ignored section's too.
void check_fields(const JobFile& job, const toml::table& table, const std::string& prefix,
                  Builder& b, bool ignored_section = false) {
  for (const auto& [key, node] : table) {
    const std::string field =
        prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    const bool ignored = ignored_section || (prefix.empty() && kIgnoredSections.count(field) != 0);
    if (const toml::table* section = node.as_table()) {
      check_fields(job, *section, field, b, ignored);
      continue;
    }
    const bool unmodelled = kUnmodelled.count(field) != 0;
    const bool understood =
        !(unmodelled && is_set(node)) &&
        (ignored || unmodelled || kRead.count(field) != 0 || kIgnored.count(field) != 0);
    if (!understood) b.unknown_field(job.where(field));
  }
}

bool ends_with(const std::string& text, const std::string& tail) {
  return text.size() >= tail.size() &&
         text.compare(text.size() - tail.size(), tail.size(), tail) == 0;
}

class TorchtitanToml final : public ndsearch::sdk::ParserPlugin {
 public:
  TorchtitanToml() : ParserPlugin("TorchTitan job TOML", kAliases) { writes_configs(); }

  std::string apply(const std::string& path,
                    const ndsearch::sdk::AppliedStrategy& applied) override {
    return ndsearch::plugins::torchtitan::apply_strategy(path, applied);
  }

  double probe(const std::string& path) override {
    const auto text = ndsearch::sdk::try_read_config_file(path);
    if (!text) return 0;
    toml::table root;
    try {
      root = toml::parse(*text, path);
    } catch (const toml::parse_error&) {
      // A .toml that does not parse may be a broken job file: claim it weakly
      // so that parse can say where it breaks.
      return ends_with(path, ".toml") ? 0.2 : 0;
    }
    const toml::table* model = root["model"].as_table();
    if (model == nullptr || root.contains("peak_tflops")) return 0;  // e.g. a device TOML
    if (!(*model)["name"].is_string() || !(*model)["flavor"].is_string()) return 0.3;
    return root["training"].is_table() || root["parallelism"].is_table() ? 0.95 : 0.7;
  }

  void parse(const std::string& path, Builder& b) override {
    using namespace ndsearch::plugins::torchtitan;
    const JobFile job(path);
    // Without a [model] table the file names no model (E-PARSE-NO-MODEL).
    if (job.find("model") == nullptr) return;
    const std::string name = job.text("model.name").value_or("llama3");
    const std::string flavor = job.text("model.flavor").value_or("debugmodel");
    const Flavor* f = find_flavor(name, flavor);
    if (f == nullptr) {
      // No shape, but the training settings still hold: with a model config
      // (`model_config`) the core takes the shape from it, else it reports
      // that no layers were found. Say why.
      const std::string flavors = known_flavors(name);
      const char* const alternative =
          " (pytorch/torchtitan 238fa99): pick one, or give the model's config.json as the model "
          "config "
          "(`model_config`)";
      ndsearch::sdk::host().log(
          NDS_LOG_WARN,
          flavors.empty()
              ? job.described("model.name", "not a TorchTitan model ndsearch knows; known: " +
                                                known_models() + alternative)
              : job.described("model.flavor", "not a " + name + " flavor ndsearch knows; known " +
                                                  name + " flavors: " + flavors + alternative));
      build_training(job, 0, b);
      check_fields(job, job.root(), "", b);
      return;
    }
    build_model(job, *f, b);
    build_training(job, f->layers, b);
    check_fields(job, job.root(), "", b);
  }

 private:
  static constexpr const char* kAliases[] = {"torchtitan", nullptr};
};

}  // namespace

NDS_SDK_MODULE(
    TorchtitanToml, "torchtitan-toml", "1.0.0",
    "TorchTitan job TOML (model.name/flavor, training, parallelism, activation checkpointing)")
