// SPDX-License-Identifier: Apache-2.0
#include "core/price/memory/memory_assumptions.hpp"

#include <fmt/format.h>
#include <ndsearch/sdk/model_math.hpp>

#include "core/compile/allocator_share.hpp"
#include "core/model/model_json.hpp"

namespace ndsearch {

std::vector<std::string> memory_assumptions(const Model& model) {
  const nds_training& t = model.training;
  struct Kept {
    const char* key;   // the builder key its provenance is recorded under
    const char* what;  // as the line names it
    nds_dtype dtype;
  };
  const Kept kept[] = {{"params_dtype", "parameters", t.params_dtype},
                       {"grads_dtype", "gradients (kept and reduced)", t.grads_dtype},
                       {"master_dtype", "master weights", t.master_dtype},
                       {"optimizer_dtype", "optimizer states", t.optimizer_dtype}};
  std::string defaulted, from;
  for (const Kept& k : kept) {
    const auto it = model.training_provenance.find(k.key);
    if (it == model.training_provenance.end() || !it->second.starts_with("default:")) continue;
    defaulted += fmt::format("{}{} {}", defaulted.empty() ? "" : ", ", k.what,
                             k.dtype == NDS_DTYPE_NONE ? "none" : dtype_name(k.dtype));
    if (from.find(it->second) == std::string::npos) from += (from.empty() ? "" : ", ") + it->second;
  }
  std::vector<std::string> lines;
  if (!defaulted.empty())
    lines.push_back(
        fmt::format("memory: {} ({}; the config states none of them)", defaulted, from));
  // What the trainer keeps off the device or in less (ABI 1.9), where stated.
  auto where = [&](const char* key) { return training_source(model, key, "stated"); };
  if (t.swapped_ops != 0)
    lines.push_back(
        fmt::format("memory: {} moved to the host after each layer's forward, one layer's "
                    "back for its backward ({})",
                    recompute_ops_words(t.swapped_ops), where("swapped_ops")));
  // How zero 3 holds what it gathers, where the trainer holds it otherwise
  // than ZeRO-3's two layers in flight (ABI 1.8).
  const char* holding = nullptr;
  switch (t.fsdp_holding) {
    case NDS_FSDP2_RESHARD:
      holding = "each block resharded after its forward, the root module kept gathered";
      break;
    case NDS_FSDP2_KEEP:
      holding =
          "every block kept gathered from its forward to its backward, the gradients whole until "
          "the "
          "last micro-batch";
      break;
    case NDS_FSDP_KEEP_SHARDED_GRADS:
      holding =
          "every block kept gathered from its forward to its backward, each micro-batch's "
          "gradients "
          "reduce-scattered into sharded accumulators";
      break;
    case NDS_FSDP2_KEEP_UNDER_PP:
      holding =
          "under pipeline parallelism every block kept gathered, else each resharded after its "
          "forward";
      break;
    default: break;
  }
  if (holding != nullptr)
    lines.push_back(fmt::format("memory: at zero 3, {} ({})", holding, where("fsdp_holding")));
  // The allocator's reserve moves every peak (allocator_share.hpp).
  const AllocatorShare allocator = allocator_share(model);
  lines.push_back(
      fmt::format("memory: the allocator holds {:.1f} % of the activations and communication "
                  "buffers reserved beyond them ({})",
                  100 * allocator.fraction, allocator.words));
  if (t.master_reuses_params == 1)
    lines.push_back(
        fmt::format("memory: master weights kept as the parameter plus a residual, {} bytes "
                    "each ({})",
                    sdk::optimizer_bytes(t).master, where("master_reuses_params")));
  return lines;
}

}  // namespace ndsearch
