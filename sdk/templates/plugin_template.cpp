// SPDX-License-Identifier: Apache-2.0
// plugin_template.cpp: a memory pass written with the C++ SDK: the bytes of
// the model's parameters each pipeline rank holds, in the params dtype, split
// by tensor parallelism. Real passes (plugins/memory/) add gradients,
// optimizer states and sharding; this one shows the shape of the code:
// compile once per (model, device), then a noexcept evaluate per candidate.
#include <ndsearch/sdk/memory.hpp>

#include <memory>
#include <vector>

namespace {

double dtype_bytes(nds_dtype dtype) {
  switch (dtype) {
    case NDS_DTYPE_FP32:
    case NDS_DTYPE_TF32: return 4;
    case NDS_DTYPE_FP8: return 1;
    default: return 2;  // bf16, fp16
  }
}

// Parameters of one dense decoder layer: Q, K, V and output projections plus
// the MLP (two matrices for GeLU, three for SwiGLU); norms and biases omitted.
double layer_params(const nds_layer_block& b) {
  const double h = static_cast<double>(b.hidden_size);
  const double q = static_cast<double>(b.heads * b.head_dim);
  const double kv = static_cast<double>(b.kv_heads * b.head_dim);
  const double mlp_matrices = b.ffn == NDS_FFN_SWIGLU ? 3 : 2;
  return h * (q + 2 * kv) + q * h + mlp_matrices * h * static_cast<double>(b.ffn_hidden_size);
}

class WeightBytes {
 public:
  static std::unique_ptr<WeightBytes> compile(const nds_compile_input& input) {
    const nds_model& model = *input.model;
    auto compiled = std::make_unique<WeightBytes>();
    compiled->bytes_per_param_ = dtype_bytes(model.training->params_dtype);
    for (size_t i = 0; i < model.block_count; ++i) {
      const auto& block = *reinterpret_cast<const nds_layer_block*>(
          reinterpret_cast<const char*>(model.blocks) + i * model.block_elem_size);
      if (block.kind != NDS_BLOCK_DECODER) continue;
      if (block.experts != 0 || block.attention == NDS_ATTENTION_MLA)
        throw ndsearch::sdk::Error(NDS_UNSUPPORTED,
                                   "the template pass handles dense MHA/GQA layers only");
      compiled->params_by_layer_.insert(compiled->params_by_layer_.end(),
                                        static_cast<size_t>(block.layers), layer_params(block));
    }
    return compiled;
  }

  void evaluate(ndsearch::sdk::MemoryOut& out) const noexcept {
    const nds_candidate& c = out.candidate();
    const nds_strategy& s = *c.strategy;
    for (int32_t rank = 0; rank < s.pp; ++rank) {
      for (int32_t chunk = 0; chunk < s.vpp; ++chunk) {
        const size_t index = static_cast<size_t>(rank * s.vpp + chunk);
        double params = 0;
        for (uint32_t l = 0; l < c.chunk_layers[index]; ++l)
          params += params_by_layer_[c.chunk_first_layer[index] + l];
        out.add(rank, NDS_MEMORY_PARAMS, params * bytes_per_param_ / s.tp);
      }
    }
  }

 private:
  double bytes_per_param_ = 2;
  std::vector<double> params_by_layer_;
};

class ExampleWeights final : public ndsearch::sdk::MemoryPassPlugin<WeightBytes> {};

}  // namespace

NDS_SDK_MODULE(ExampleWeights, "example-weights", "1.0.0",
               "Template: parameter bytes per rank, written with the C++ SDK")
