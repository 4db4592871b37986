// SPDX-License-Identifier: Apache-2.0
#include "core/model/pricing_values.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include <vector>

#include "core/support/user_error.hpp"

namespace ndsearch {

void require_pricing_values(const Model& model, const PricingNeeds& needs) {
  std::vector<std::string> missing;
  if (needs.devices_missing) missing.push_back(Setting("devices").named());
  if (needs.global_batch_missing) missing.push_back(Setting("global_batch").named());
  // Every memory pass and the time model scale with the tokens of a sequence.
  if (model.training.seq_len == NDS_UNKNOWN) missing.push_back(Setting("seq_len").named());
  // The embedding, the output head and the logits scale with the vocabulary.
  if (model.main.vocab_size == NDS_UNKNOWN && model.main.padded_vocab_size == NDS_UNKNOWN)
    missing.push_back(Setting("vocab_size").named());
  // A vision tower's work and activations scale with the image tokens of a
  // sequence, which a model config does not state.
  if (!model.submodels.empty() && model.training.image_tokens == NDS_UNKNOWN)
    missing.push_back(Setting("image_tokens").named());
  if (missing.empty()) return;
  std::string list = missing.front();
  for (size_t i = 1; i < missing.size(); ++i)
    list += (i + 1 == missing.size() ? " and " : ", ") + missing[i];
  throw UserError("E-MISSING-VALUES",
                  fmt::format("{} does not state what pricing needs: set {}{}",
                              model.file.empty() ? std::string("the config") : model.file, list,
                              needs.why.empty() ? "" : " (" + needs.why + ")"));
}

}  // namespace ndsearch
