// SPDX-License-Identifier: Apache-2.0
#include "core/memory/memory_assumptions.hpp"

#include <fmt/format.h>

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
  if (defaulted.empty()) return {};
  return {fmt::format("memory: {} ({}; the config states none of them)", defaulted, from)};
}

}  // namespace ndsearch
