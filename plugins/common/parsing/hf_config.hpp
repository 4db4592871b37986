// SPDX-License-Identifier: Apache-2.0
// hf_config.hpp: a Hugging Face model config (config.json's keys) to builder
// calls: the language model's blocks (dense, MoE with first-k-dense or a
// layer pattern, MLA, MTP), its vocabulary and embeddings, and the vision
// tower of a VL model. Shared by hf-config-json and by hyperparallel-yaml,
// whose configs name an HF model or override its keys.
#pragma once

#include <ndsearch/sdk/parser.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace ndsearch::plugins {

// Where the keys of `config` came from, for provenance: the file and the
// path of `config` inside it ("" at the top of a config.json,
// "model.config_overrides." inside a YAML). `line_of(key)` gives a key's line
// where the format knows it (NDS_UNKNOWN otherwise).
struct HfSource {
  std::string file;
  std::string field_prefix;
  int64_t (*line_of)(const std::string& key, const void* context) = nullptr;
  const void* context = nullptr;
  // Whose defaults fill what the config leaves out: "default:<trainer>".
  std::string trainer = "hf-config-json";
  // Called inside every decoder and MTP block before it closes, for block
  // keys the caller's format adds (a capacity factor, grouped GEMM).
  void (*extra_block_keys)(sdk::Builder& builder, const void* context) = nullptr;
};

// Reads the model keys of `config` (a JSON object) into `builder`: blocks,
// name, vocabulary, embeddings, positions. Keys it does not know and that
// bear on no training cost are passed to builder.unknown_field. Throws
// sdk::Error (NDS_INVALID_ARGUMENT) naming the file and key of a malformed
// value. A config without layers adds no block (the core then reports
// E-PARSE-NO-MODEL).
void read_hf_model(const nlohmann::json& config, const HfSource& source, sdk::Builder& builder);

// True when `config` looks like a Hugging Face model config (model_type,
// architectures, or the usual shape keys).
bool looks_like_hf_model(const nlohmann::json& config);

}  // namespace ndsearch::plugins
