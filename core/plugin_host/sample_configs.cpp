// SPDX-License-Identifier: Apache-2.0
#include "core/plugin_host/sample_configs.hpp"

#include <cstdlib>  // mkdtemp
#include <fstream>
#include <string>
#include <string_view>

namespace ndsearch {
namespace {

// A 4-layer Llama-style model in each format (tests/fixtures/configs/ holds
// the parsers' own tests; these only need to be claimed and read).
struct Sample {
  const char* name;
  std::string_view text;
};
constexpr Sample kSamples[] = {
    {"config.json",
     R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 256,
 "intermediate_size": 512, "num_hidden_layers": 4, "num_attention_heads": 4,
 "num_key_value_heads": 2, "vocab_size": 1024, "max_position_embeddings": 1024,
 "hidden_act": "silu", "rms_norm_eps": 1e-05, "torch_dtype": "bfloat16"}
)"},
    {"pretrain_gpt.sh",
     R"(#!/bin/bash
torchrun --nproc_per_node 8 pretrain_gpt.py \
    --num-layers 4 --hidden-size 256 --num-attention-heads 8 \
    --seq-length 1024 --max-position-embeddings 1024 --vocab-size 1000 \
    --micro-batch-size 2 --global-batch-size 64 --bf16 \
    --tensor-model-parallel-size 2 --pipeline-model-parallel-size 2
)"},
    {"train.toml",
     R"([model]
name = "llama3"
flavor = "debugmodel"

[training]
local_batch_size = 8
seq_len = 2048
)"},
    {"train.yaml",
     R"(model:
  model_config:
    type: LlamaConfig
    num_layers: 4
    hidden_size: 256
    num_heads: 4
    vocab_size: 1024
    seq_length: 1024
parallel_config:
  data_parallel: 2
  model_parallel: 2
  pipeline_stage: 1
)"},
    {"empty.cfg", ""},
};

}  // namespace

SampleConfigs::SampleConfigs() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "ndsearch-samples-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr) return;
  folder_ = pattern;
  for (const Sample& sample : kSamples) {
    std::filesystem::path file = folder_ / sample.name;
    std::ofstream out(file);
    out << sample.text;
    if (out) files_.push_back(file);
  }
}

SampleConfigs::~SampleConfigs() {
  std::error_code ec;
  if (!folder_.empty()) std::filesystem::remove_all(folder_, ec);
}

}  // namespace ndsearch
