// SPDX-License-Identifier: Apache-2.0
#include "core/input/parse_config.hpp"
#include "core/support/closest_name.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <ndsearch/core/settings.hpp>
#include <ndsearch/sdk/config_file.hpp>  // the file checks and error tags the parsers share

#include <functional>
#include <optional>
#include <vector>

#include "core/input/fast_tuner_setup.hpp"
#include "core/model/builder.hpp"
#include "core/model/finalize.hpp"
#include "core/model/model_shape.hpp"
#include "core/model/routing.hpp"
#include "core/model/trainer_limits.hpp"
#include "core/support/status.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

namespace fs = std::filesystem;

std::string parser_names(const PluginRegistry& registry) {
  std::string names;
  for (const auto& p : registry.plugins()) {
    if (p->interfaces.parser == nullptr) continue;
    names += (names.empty() ? "" : ", ") + p->id;
    if (const char* const* alias = p->interfaces.parser->aliases)
      for (; *alias != nullptr; ++alias) names += fmt::format(" ({})", *alias);
  }
  return names.empty() ? "none (no parser plugin is loaded)" : names;
}

const LoadedPlugin& chosen_parser(const PluginRegistry& registry, const fs::path& config,
                                  const std::string& framework) {
  if (!framework.empty()) {
    for (const auto& p : registry.plugins()) {
      if (p->interfaces.parser == nullptr) continue;
      if (p->id == framework) return *p;
      if (const char* const* alias = p->interfaces.parser->aliases)
        for (; *alias != nullptr; ++alias)
          if (framework == *alias) return *p;
    }
    std::vector<std::string> names;
    for (const auto& p : registry.plugins()) {
      if (p->interfaces.parser == nullptr) continue;
      names.push_back(p->id);
      if (const char* const* alias = p->interfaces.parser->aliases)
        for (; *alias != nullptr; ++alias) names.emplace_back(*alias);
    }
    throw UserError("E-PARSE-FRAMEWORK",
                    fmt::format("{}: no loaded parser has this name{}; known: {}",
                                Setting("framework").named(framework),
                                did_you_mean(framework, names), parser_names(registry)));
  }
  const LoadedPlugin* best = nullptr;
  double best_confidence = 0;
  for (const auto& p : registry.plugins()) {  // load order is id order within a directory
    if (p->interfaces.parser == nullptr) continue;
    if (p->guard != nullptr && p->guard->hung()) continue;  // given up on earlier in this run
    double confidence = 0;
    StatusPtr failure(p->interfaces.parser->probe(config.c_str(), &confidence));
    if (failure) continue;  // a parser that cannot probe does not claim the file
    if (confidence > best_confidence ||
        (confidence == best_confidence && best != nullptr && confidence > 0 && p->id < best->id)) {
      best = p.get();
      best_confidence = confidence;
    }
  }
  if (best == nullptr) {
    throw UserError(
        "E-PARSE-FORMAT",
        fmt::format("{}: no parser recognises this file; name {}, one "
                    "of: {}",
                    config.string(), Setting("framework").named(), parser_names(registry)));
  }
  return *best;
}

std::string error_id_for(nds_status_code code) {
  switch (code) {
    case NDS_NOT_FOUND: return "E-PARSE-FILE";
    case NDS_UNSUPPORTED: return "E-PARSE-UNSUPPORTED";
    case NDS_INVALID_ARGUMENT: return "E-PARSE-FIELD";
    case NDS_OUT_OF_RANGE: return "E-PARSE-VALUE";
    default: return "E-PARSE-FAILED";
  }
}

using Note = std::function<void(std::map<std::string, std::string>&, const std::string&,
                                const std::string&)>;

// --dtype and --fp8-recipe. fp8 means fp8 GEMMs: the recipes (Transformer
// Engine, torchao float8) keep bf16 parameters and activations and cast each
// GEMM's operands, so --dtype fp8 sets those to bf16, not everything to fp8.
void apply_precision(Model& model, const TrainingOverrides& o, const Note& note) {
  nds_training& t = model.training;
  std::optional<int32_t> recipe;
  if (o.fp8_recipe) {
    std::string names;
    for (const Fp8RecipeName& r : fp8_recipe_names()) {
      if (*o.fp8_recipe == r.name) recipe = r.recipe;
      names += fmt::format("{}{}", names.empty() ? "" : ", ", r.name);
    }
    if (!recipe)
      throw UserError("E-USAGE", fmt::format("{}: not an fp8 recipe; give one of {} "
                                             "(tensorwise is current)",
                                             Setting("fp8_recipe").named(*o.fp8_recipe), names));
    if (o.dtype && *o.dtype != "fp8")
      throw UserError(
          "E-USAGE",
          fmt::format("{} with {}: a recipe scales fp8 GEMMs; drop the dtype or make it fp8",
                      Setting("fp8_recipe").named(*o.fp8_recipe),
                      Setting("dtype").named(*o.dtype)));
  }
  if (o.dtype) {
    static const std::pair<const char*, nds_dtype> kDtypes[] = {{"fp32", NDS_DTYPE_FP32},
                                                                {"tf32", NDS_DTYPE_TF32},
                                                                {"bf16", NDS_DTYPE_BF16},
                                                                {"fp16", NDS_DTYPE_FP16},
                                                                {"fp8", NDS_DTYPE_FP8}};
    std::optional<nds_dtype> dtype;
    for (const auto& [name, value] : kDtypes)
      if (*o.dtype == name) dtype = value;
    if (!dtype)
      throw UserError("E-USAGE", fmt::format("{}: expected fp32, tf32, bf16, fp16 or fp8",
                                             Setting("dtype").named(*o.dtype)));
    const bool fp8 = *dtype == NDS_DTYPE_FP8;
    const std::string flag =
        fp8 ? Setting("dtype").named("fp8") + ": fp8 GEMMs, bf16 parameters and activations"
            : Setting("dtype").named();
    t.compute_dtype = *dtype;
    t.params_dtype = t.activation_dtype = fp8 ? NDS_DTYPE_BF16 : *dtype;
    note(model.training_provenance, "params_dtype", flag);
    note(model.training_provenance, "compute_dtype", flag);
    note(model.training_provenance, "activation_dtype", flag);
    if (fp8 && !recipe) {
      t.fp8_recipe = NDS_FP8_DELAYED;  // Megatron-LM's --fp8-recipe default
      note(model.training_provenance, "fp8_recipe",
           Setting("dtype").named("fp8") + ": delayed scaling, Megatron-LM's default recipe");
    }
  }
  if (recipe) {
    if (t.compute_dtype != NDS_DTYPE_FP8) {
      t.compute_dtype = NDS_DTYPE_FP8;
      note(model.training_provenance, "compute_dtype", Setting("fp8_recipe").named());
    }
    t.fp8_recipe = *recipe;
    note(model.training_provenance, "fp8_recipe", Setting("fp8_recipe").named());
  }
}

// The items of a comma list as typed, empty ones included ("a,,b" has three).
std::vector<std::string> comma_items(const std::string& list) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string::npos) end = list.size();
    items.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return items;
}

// --overlap: every switch set, on or off, provenance "--overlap".
void apply_overlap(Model& model, const std::string& list, const Note& note) {
  const auto& switches = overlap_switches();
  std::string valid;
  for (const OverlapSwitch& s : switches)
    valid += fmt::format("{}{} ({})", valid.empty() ? "" : ", ", s.item, s.what);
  uint64_t on = 0;
  if (list == "all") {
    for (const OverlapSwitch& s : switches) on |= s.bit;
  } else if (list != "none") {
    for (const std::string& item : comma_items(list)) {
      const OverlapSwitch* found = nullptr;
      for (const OverlapSwitch& s : switches)
        if (item == s.item) found = &s;
      if (found == nullptr)
        throw UserError("E-USAGE",
                        fmt::format("{}: \"{}\" is not an overlap switch; give none, all "
                                    "or a comma list of {}",
                                    Setting("overlap").named(list), item, valid));
      on |= found->bit;
    }
  }
  uint64_t all = 0;
  for (const OverlapSwitch& s : switches) {
    all |= s.bit;
    note(model.training_provenance, s.key, Setting("overlap").named());
  }
  model.training.overlap = (model.training.overlap & ~all) | on;
}

// --recompute-modules: the ops named, by our name or Megatron-Core's module
// name, replace the config's (a Megatron user's `core_attn,mlp` means the
// same here as in the launch script).
void apply_recompute_modules(Model& model, const std::string& list, const Note& note) {
  std::vector<std::string> known;
  for (const RecomputeOpName& o : recompute_op_names()) {
    known.emplace_back(o.name);
    if (*o.megatron != '\0' && o.megatron != std::string_view(o.name))
      known.emplace_back(o.megatron);
  }
  uint64_t ops = 0;
  for (const std::string& item : comma_items(list)) {
    const RecomputeOpName* found = nullptr;
    for (const RecomputeOpName& o : recompute_op_names())
      if (item == o.name || (*o.megatron != '\0' && item == o.megatron)) found = &o;
    if (found == nullptr)
      throw UserError("E-USAGE", fmt::format("{}: \"{}\" is not a recompute module{}; give a comma "
                                             "list of {}",
                                             Setting("recompute_modules").named(list), item,
                                             did_you_mean(item, known), fmt::join(known, ", ")));
    ops |= found->bit;
  }
  model.training.recompute_ops = ops;
  note(model.training_provenance, "recompute_ops", Setting("recompute_modules").named());
}

// A negative size flag would read as "not stated" (-1 is NDS_UNKNOWN) and
// slip past the model limits (which refuse 0): refused here, naming the setting.
void require_positive(const std::optional<int64_t>& value, const Setting& setting) {
  if (value && *value < 0)
    throw UserError("E-MODEL-LIMIT", fmt::format("{}: must be at least 1; give a positive number",
                                                 setting.named(std::to_string(*value))));
}

void apply_overrides(Model& model, const TrainingOverrides& o) {
  require_positive(o.seq_len, Setting("seq_len"));
  require_positive(o.global_batch, Setting("global_batch"));
  require_positive(o.micro_batch_size, Setting("micro_batch_size"));
  require_positive(o.vocab_size, Setting("vocab_size"));
  require_positive(o.image_tokens, Setting("image_tokens"));
  require_positive(o.images_per_sample, Setting("images_per_sample"));
  const Note note = [](std::map<std::string, std::string>& provenance, const std::string& key,
                       const std::string& flag) {
    auto it = provenance.find(key);
    provenance[key] =
        it == provenance.end() ? flag : fmt::format("{} (overrides {})", flag, it->second);
  };
  if (o.seq_len) {
    model.training.seq_len = *o.seq_len;
    note(model.training_provenance, "seq_len", Setting("seq_len").named());
  }
  if (o.global_batch) {
    if (model.setup.global_batch != NDS_UNKNOWN && model.setup.global_batch != *o.global_batch)
      note_once(model, fmt::format("{} states `gbs` = {}; {} replaces it", model.setup.file,
                                   model.setup.global_batch,
                                   Setting("global_batch").named(std::to_string(*o.global_batch))));
    model.training.global_batch = *o.global_batch;
    note(model.training_provenance, "global_batch", Setting("global_batch").named());
  }
  if (o.micro_batch_size) {
    model.stated.mbs = static_cast<int32_t>(*o.micro_batch_size);
    note(model.training_provenance, "stated.mbs", Setting("micro_batch_size").named());
  }
  if (o.vocab_size) {
    model.main.vocab_size = *o.vocab_size;
    note(model.main.provenance, "vocab_size", Setting("vocab_size").named());
  }
  if (o.image_tokens) {
    model.training.image_tokens = *o.image_tokens;
    note(model.training_provenance, "image_tokens", Setting("image_tokens").named());
  }
  if (o.images_per_sample) {
    model.training.images_per_sample = *o.images_per_sample;
    note(model.training_provenance, "images_per_sample", Setting("images_per_sample").named());
  }
  apply_precision(model, o, note);
  if (o.overlap) apply_overlap(model, *o.overlap, note);
  if (o.recompute_modules) apply_recompute_modules(model, *o.recompute_modules, note);
}

// A file a parser is given is checked before any probe reads it: a FIFO
// would block every probe, and a file over the limit would be read once per
// parser.
void check_config_file(const fs::path& config, const char* what) {
  try {
    if (auto problem = sdk::config_file_problem(config.string(), what)) {
      const auto [tag, message] = sdk::split_error_tag(problem->what());
      throw UserError(tag.empty() ? "E-PARSE-FILE" : tag, message);
    }
  } catch (const sdk::Error& e) {  // NDS_CONFIG_MAX_BYTES does not read
    throw UserError("E-USAGE", e.what());
  }
}

// What the parser of `config` (-f, else the best probe) builds, not finalized.
Model parse_raw(const PluginRegistry& registry, const fs::path& config,
                const std::string& framework, bool strict) {
  const LoadedPlugin& parser = chosen_parser(registry, config, framework);
  Model model;
  model.framework = parser.id;
  model.file = config.string();
  ModelBuilder builder(model, parser.id, strict);
  StatusPtr failure(parser.interfaces.parser->parse(config.c_str(), &builder.table()));
  if (failure) {
    if (failure.get() == builder.last_refusal())
      throw UserError(builder.last_error_id(), failure->message);
    const auto [tag, message] = sdk::split_error_tag(failure->message);
    throw UserError(tag.empty() ? error_id_for(failure->code) : tag, message);
  }
  return model;
}

// The fast-tuner setup `config` is, or nullopt when it is a config itself.
std::optional<FastTunerSetup> setup_of(const fs::path& config, bool strict) {
  const std::optional<std::string> text = sdk::try_read_config_file(config.string());
  if (!text || !is_fast_tuner_setup(*text)) return std::nullopt;
  FastTunerSetup setup = read_fast_tuner_setup(config, *text, strict);
  check_config_file(setup.config, "training config");
  const std::optional<std::string> named = sdk::try_read_config_file(setup.config.string());
  if (named && is_fast_tuner_setup(*named))
    throw UserError("E-SETUP-VALUE",
                    fmt::format("{}: `{}` names {}, another fast-tuner setup; name the training "
                                "config itself",
                                config.string(), setup.stated.config_key, setup.config.string()));
  return setup;
}

// What the setup states beside the config: kept with the model; its global
// batch replaces the config's (a setting given replaces both, apply_overrides).
void apply_setup(Model& model, FastTunerSetup setup) {
  model.setup = std::move(setup.stated);
  for (std::string& w : setup.warnings) model.warnings.push_back(std::move(w));
  if (model.setup.global_batch == NDS_UNKNOWN) return;
  const std::string from = fmt::format("{}: gbs", model.setup.file);
  auto it = model.training_provenance.find("global_batch");
  model.training_provenance["global_batch"] =
      it == model.training_provenance.end() ? from
                                            : fmt::format("{} (overrides {})", from, it->second);
  model.training.global_batch = model.setup.global_batch;
}

// The shape of `model_config` (parsed alone) in `model` (take_shape).
void apply_model_config(const PluginRegistry& registry, Model& model, const fs::path& model_config,
                        bool strict) {
  check_config_file(model_config, "model config (a Hugging Face config.json)");
  const Model shape = parse_raw(registry, model_config, "", strict);
  if (shape.decoder_layers() == 0)
    throw UserError(
        "E-PARSE-NO-MODEL",
        fmt::format("{}: {} describes no model (no layers found by {}); give a "
                    "Hugging Face config.json",
                    model_config.string(), Setting("model_config").named(), shape.framework));
  take_shape(model, shape);
}

}  // namespace

Model parse_config(const PluginRegistry& registry, const fs::path& config,
                   const ParseOptions& options) {
  check_config_file(config, "model config (a training YAML, launch script, TOML or config.json)");
  std::optional<FastTunerSetup> setup = setup_of(config, options.strict);
  Model model =
      parse_raw(registry, setup ? setup->config : config, options.framework, options.strict);
  if (setup) apply_setup(model, std::move(*setup));
  if (!options.model_config.empty())
    apply_model_config(registry, model, options.model_config, options.strict);
  apply_overrides(model, options.overrides);
  finalize_model(model);
  if (options.overrides.routing) apply_routing(model, read_routing(*options.overrides.routing));
  if (options.any_trainer) lift_trainer_limits(model);
  return model;
}

}  // namespace ndsearch
