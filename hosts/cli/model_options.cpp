// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/model_options.hpp"

namespace ndsearch::cli {

void add_model_flags(CLI::App& verb, ModelFlags& flags) {
  verb.add_option("CONFIG", flags.config,
                  "The trainer's config: a YAML, a launch script, a TOML or an HF config.json")
      ->required();
  verb.add_option("-f,--framework", flags.parse.framework,
                  "The parser to use (an id of `ndsearch plugins list`, or mindformers, mindspeed, "
                  "hyper_v2, torchtitan); default: the one that recognises the file");
  verb.add_flag("--strict", flags.parse.strict, "Fields the parser does not understand are errors");
  auto& o = flags.parse.overrides;
  verb.add_option("--seq-len", o.seq_len, "Sequence length (tokens), overriding the config's")
      ->check(CLI::PositiveNumber);
  verb.add_option("-b,--global-batch", o.global_batch, "Global batch (sequences per step)")
      ->check(CLI::PositiveNumber);
  verb.add_option("--mbs", o.micro_batch_size, "Micro-batch size (sequences)")->check(CLI::Range(1, 1 << 24));
  verb.add_option("--dtype", o.dtype, "Parameter and compute dtype")
      ->check(CLI::IsMember({"fp32", "tf32", "bf16", "fp16", "fp8"}));
  verb.add_option("--vocab-size", o.vocab_size, "Vocabulary size")->check(CLI::PositiveNumber);
}

}  // namespace ndsearch::cli
