// SPDX-License-Identifier: Apache-2.0
#include "core/model/params.hpp"

#include "core/model/towers.hpp"

#include <ndsearch/core/settings.hpp>

namespace ndsearch {
namespace {

double d(int64_t v) {
  return static_cast<double>(v);
}

}  // namespace

std::optional<ParameterCounts> count_parameters(const Model& m, std::string* why) {
  auto fail = [&](const std::string& what) -> std::optional<ParameterCounts> {
    if (why != nullptr) *why = what;
    return std::nullopt;
  };
  // A block with an MLP whose kind (two matrices or three) nobody stated.
  auto ffn_unknown = [](const ModelPart& part) {
    for (const ModelBlock& b : part.blocks)
      if (b.c.ffn == NDS_UNKNOWN &&
          (b.c.ffn_hidden_size > 0 || b.c.experts > 0 || b.c.shared_experts > 0))
        return true;
    return false;
  };
  const nds_layer_block* first = m.first_decoder();
  if (first == nullptr) return fail("the model has no decoder layer");
  if (ffn_unknown(m.main)) return fail("the FFN kind (gelu or swiglu) is unknown");
  // The tokenizer's vocabulary, else the embedding's padded rows (a script
  // that states only --padded-vocab-size).
  const int64_t vocab =
      m.main.vocab_size != NDS_UNKNOWN ? m.main.vocab_size : m.main.padded_vocab_size;
  if (vocab == NDS_UNKNOWN)
    return fail("vocab_size is unknown; set " + Setting("vocab_size").named());
  if (m.main.tied_embeddings == NDS_UNKNOWN)
    return fail("whether the embeddings are tied is unknown");
  ParameterCounts c;
  const double h = d(first->hidden_size);
  const double embedding = d(vocab) * h;
  double outside_layers = embedding * (m.main.tied_embeddings == 1 ? 1 : 2);
  outside_layers += (first->norm == NDS_NORM_LAYERNORM ? 2 : 1) * h;  // the final norm
  if (m.main.position_embedding == NDS_POSITION_LEARNED) {
    if (m.main.max_position_embeddings == NDS_UNKNOWN)
      return fail("max_position_embeddings is unknown");
    outside_layers += d(m.main.max_position_embeddings) * h;
  }
  c.total = c.active = outside_layers;
  for (const ModelBlock& b : m.main.blocks) {
    const LayerParameters p = layer_parameters(b.c);
    if (b.c.kind == NDS_BLOCK_DECODER) {
      c.total += d(b.c.layers) * p.total();
      c.active += d(b.c.layers) * p.active();
    } else if (b.c.kind == NDS_BLOCK_MTP) {
      // DeepSeek-V3 (arXiv 2412.19437 §2.2): each MTP module adds two RMSNorms
      // and a projection from [h; h] to h to a transformer layer.
      c.mtp += d(b.c.layers) * (p.total() + 2 * h + 2 * h * h);
    }
  }
  for (const ModelPart& tower : m.submodels) {
    if (ffn_unknown(tower))
      return fail("the " + tower.name + " tower's FFN kind (gelu or swiglu) is unknown");
    c.submodels.push_back(tower_parameters(tower));
  }
  return c;
}

}  // namespace ndsearch
