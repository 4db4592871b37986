// SPDX-License-Identifier: Apache-2.0
// hf_config_json.cpp: the `hf-config-json` parser: a Hugging Face model's
// config.json (Llama, Qwen2/2.5/3, Qwen3-MoE, Mixtral, DeepSeek-V3, GPT-2 and
// the VL models' text and vision configs). It states the model only: the
// training settings take ndsearch's defaults (DESIGN §8.5) with provenance
// default:ndsearch; --seq-len and -b give the rest. No trainer is named, so it
// states no overlap switch and no fp8 recipe (the core then assumes a
// well-tuned Megatron-Core run and says so; --overlap and --fp8-recipe state them).
#include <ndsearch/sdk/parser.hpp>

#include <nlohmann/json.hpp>

#include <map>

#include "plugins/common/parsing/hf_config.hpp"
#include "plugins/common/parsing/json_lines.hpp"

namespace {

using ndsearch::sdk::Builder;
using ndsearch::sdk::Where;
using nlohmann::json;

int64_t line_of(const std::string& key, const void* context) {
  const auto& lines = *static_cast<const std::map<std::string, int64_t>*>(context);
  auto it = lines.find(key);
  return it == lines.end() ? NDS_UNKNOWN : it->second;
}

// DESIGN §8.5: what an HF config cannot say about training: the settings
// of the well-tuned Megatron-Core run the time model assumes for it, as its
// published recipes set them. Gradients are reduced and kept in bf16:
// Megatron-Core's DDP default (`grad_reduce_in_fp32: bool = False`,
// megatron/core/distributed/distributed_data_parallel_config.py), which the
// validation's Megatron-Core and NeMo rows ran with (docs/validation.md). One
// assumption for memory and time: the gradient buffer and the gradient
// reduction's bytes both follow it.
void training_defaults(Builder& b) {
  const Where d{"", NDS_UNKNOWN, "", "ndsearch"};
  b.set_string("params_dtype", "bf16", d);
  b.set_string("compute_dtype", "bf16", d);
  b.set_string("grads_dtype", "bf16", d);
  b.set_string("master_dtype", "fp32", d);
  b.set_string("optimizer", "adam", d);
  b.set("optimizer_states", 2, d);
  b.set_string("optimizer_dtype", "fp32", d);
  b.set("stated.zero", 1, d);
  b.set("flash_attention", 1, d);
  // No trainer named: assume one that can do what Megatron-LM can.
  for (const char* can : {"capabilities.sp_with_cp", "capabilities.interleave",
                          "capabilities.zero3", "capabilities.expert_tp"})
    b.set(can, 1, d);
}

// A quantization_config (DeepSeek-V3's fp8 weights in 128 x 128 blocks, say)
// describes how the released checkpoint stores its weights, not how the
// model was or will be trained: the training recipe stays ndsearch's default
// (bf16), and a warning says so.
void released_weights_note(const json& config, const std::string& path,
                           const std::map<std::string, int64_t>& lines, Builder& b) {
  const auto q = config.find("quantization_config");
  if (q == config.end() || !q->is_object()) return;
  std::string how;
  if (const auto method = q->find("quant_method"); method != q->end() && method->is_string())
    how = " (" + method->get<std::string>() + ")";
  const auto line = lines.find("quantization_config");
  const Where w{path, line == lines.end() ? NDS_UNKNOWN : line->second, "quantization_config", ""};
  b.set_unknown(
      "fp8_recipe",
      "quantization_config" + how +
          " describes how the released weights are stored, not how the model trains; ndsearch "
          "prices bf16 training, or fp8 GEMMs with the fp8 recipe (`fp8_recipe`) or the dtype "
          "(`dtype=fp8`)",
      w);
}

class HfConfigJson final : public ndsearch::sdk::ParserPlugin {
 public:
  HfConfigJson() : ParserPlugin("Hugging Face config.json", kAliases) {}

  double probe(const std::string& path) override {
    if (path.size() < 5 || path.compare(path.size() - 5, 5, ".json") != 0) return 0;
    auto text = ndsearch::sdk::try_read_config_file(path);
    if (!text) return 0;
    const auto keys =
        ndsearch::plugins::json_top_level_keys(*text);  // no DOM: a probe reads every file
    // A .json that does not parse may still be a broken config.json: claim it
    // weakly, so that parse can say where the JSON breaks.
    if (!keys) return 0.2;
    if (!ndsearch::plugins::looks_like_hf_model(*keys)) return 0;
    const bool named = path.size() >= 11 && path.compare(path.size() - 11, 11, "config.json") == 0;
    return named ? 1.0 : 0.9;
  }

  void parse(const std::string& path, Builder& b) override {
    const std::string text = ndsearch::sdk::read_config_file(path, "Hugging Face config.json");
    // Before the DOM: refuses a nesting too deep and a key written twice.
    const std::map<std::string, int64_t> lines = ndsearch::plugins::json_key_lines(text, path);
    json config;
    try {
      config = json::parse(text);
    } catch (const json::out_of_range& e) {  // a number beyond a double: 1e999
      throw ndsearch::sdk::Error(NDS_OUT_OF_RANGE,
                                 path + ": a number beyond the range of a double (" +
                                     ndsearch::sdk::shown(e.what(), 200) + "); fix it");
    } catch (const json::parse_error& e) {
      const auto [line, column] =
          ndsearch::plugins::line_and_column(text, e.byte == 0 ? 0 : e.byte - 1);
      throw ndsearch::sdk::Error(NDS_INVALID_ARGUMENT,
                                 path + ":" + std::to_string(line) + ":" + std::to_string(column) +
                                     ": not valid JSON (" + ndsearch::sdk::shown(e.what(), 200) +
                                     "); fix the file or name the parser (`framework`)");
    }
    ndsearch::plugins::HfSource source{path, "", &line_of, &lines};
    ndsearch::plugins::read_hf_model(config, source, b);
    training_defaults(b);
    released_weights_note(config, path, lines, b);
  }

 private:
  static constexpr const char* kAliases[] = {"hf", "huggingface", nullptr};
};

}  // namespace

NDS_SDK_MODULE(HfConfigJson, "hf-config-json", "1.0.0",
               "Hugging Face config.json (model shapes only)")
