// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/model_options.hpp"

#include <fmt/format.h>

namespace ndsearch::cli {
void add_model_flags(CLI::App& verb, ModelSettings& settings, bool config_required) {
  verb.add_option(
          "CONFIG", settings.config,
          "The trainer's config: a YAML, a launch script, a TOML or an HF config.json; or a "
          "fast-tuner setup JSON, which names one")
      ->required(config_required);
  verb.add_option("-f,--framework", settings.framework,
                  "The parser to use (an id of `ndsearch plugins list`, or mindformers, mindspeed, "
                  "hyper_v2, torchtitan); default: the one that recognises the file");
  verb.add_flag("--strict", settings.strict, "Fields the parser does not understand are errors");
  verb.add_flag("--any-trainer", settings.any_trainer,
                "Lift the limits of the config's trainer (ZeRO levels, SP and CP, ...): rank and "
                "price strategies it cannot run too");
  // The sizes' ranges are the core's (E-MODEL-LIMIT names the value, where it
  // came from and the limit), for flags and configs alike.
  ModelSettings& o = settings;
  verb.add_option("--seq-len", o.seq_len, "Sequence length (tokens), overriding the config's");
  verb.add_option("-b,--global-batch", o.global_batch, "Global batch (sequences per step)");
  verb.add_option("--mbs", o.micro_batch_size, "Micro-batch size (sequences)")
      ->check(CLI::Range(1, 1 << 24));
  verb.add_option(
      "--dtype", o.dtype,
      "Parameter, compute and activation dtype: fp32, tf32, bf16, fp16, or fp8 (fp8 GEMMs with the "
      "delayed recipe, bf16 parameters and activations)");
  verb.add_option(
      "--fp8-recipe", o.fp8_recipe,
      "fp8 GEMMs with this scaling recipe: delayed, current (tensorwise), blockwise or mxfp8");
  verb.add_option(
      "--overlap", o.overlap,
      "What the trainer overlaps, replacing the config's settings: none, all, or a comma list of "
      "tp, dp, param, ep, ep-shared, pp, cp, tp-async (those on, the rest off)");
  verb.add_option(
      "--recompute-modules", o.recompute_modules,
      "What selective recompute drops and runs again, replacing the config's: a comma "
      "list of core_attention, mlp, norm, activation, mlp_activation, moe, alternate_matmuls (or "
      "Megatron-Core's core_attn, layernorm, moe_act)");
  verb.add_option(
      "--routing", o.routing,
      "The MoE routing to price: balanced (the default), zipf:S (a Zipf skew, 0 <= S <= 3), or a "
      "file of the tokens each routed expert got (router statistics, in expert order); the most "
      "loaded EP rank sets the pace and the peak");
  verb.add_option("--vocab-size", o.vocab_size, "Vocabulary size");
  verb.add_option("--image-tokens", o.image_tokens,
                  "A vision-language model's image tokens per sequence, after the tower merges its "
                  "patches (part of --seq-len)");
  verb.add_option("--images-per-sample", o.images_per_sample,
                  "The images those tokens come from per sequence (default 1); the tower attends "
                  "within each");
  verb.add_option("--model-config", settings.model_config,
                  "The model's shape from this Hugging Face config.json, for a training config "
                  "that states none (its training settings stay the config's)");
}

uint64_t DevicesFlag::value_or(uint64_t fallback) const {
  if (option == nullptr || option->count() == 0) return fallback;
  // CLI11 reads -d with strtoull, which wraps a negative count (-1 becomes
  // 2^64 - 1, -18446744073709551615 becomes 1): refused as written.
  for (const std::string& given : option->results())
    if (given.find('-') != std::string::npos)
      throw UserError(
          "E-DEVICE-COUNT",
          fmt::format("-d {}: give the number of devices to train on (at least 1)", given));
  check_device_count(devices, fmt::format("-d {}", devices));
  return devices;
}

void add_devices_flag(CLI::App& verb, DevicesFlag& flag, const std::string& help) {
  // No CLI11 range check: its message for 0 prints the largest double; the
  // core's check says what a device count may be (E-DEVICE-COUNT).
  flag.option = verb.add_option("-d,--devices", flag.devices, help);
}

}  // namespace ndsearch::cli
