// SPDX-License-Identifier: Apache-2.0
#include "core/price/memory/memory_evaluator.hpp"

#include <ndsearch/sdk/hardware.hpp>  // DeviceTable: a device back as the ABI's table

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/compile/allocator_share.hpp"
#include "core/support/status.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {

double RankMemory::peak() const {
  double total = 0;
  for (double b : bytes) total += b;
  return total;
}

MemoryEvaluator::MemoryEvaluator(const PluginRegistry& registry, Model& model, const Device& device,
                                 uint32_t max_pp) {
  for (const auto& p : registry.plugins())
    if (p->interfaces.memory != nullptr)
      passes_.push_back({p.get(), p->interfaces.memory, nullptr});
  if (passes_.empty())
    throw UserError("E-MEMORY-NO-PASS",
                    "no memory pass is loaded (see `ndsearch plugins list`); the shipped ones "
                    "are weights-and-optimizer, activations, comm-buffers and allocator");
  std::stable_sort(passes_.begin(), passes_.end(), [](const Pass& a, const Pass& b) {
    return std::tie(a.table->phase, a.plugin->id) < std::tie(b.table->phase, b.plugin->id);
  });
  sdk::DeviceTable devices;
  devices.add(device);
  const nds_compile_input input = compile_input(model, devices.data()[0]);
  for (Pass& pass : passes_) {
    const SerializedCall call = serialized_call(*pass.plugin, &SerializedCalls::memory_compile);
    StatusPtr failure(pass.table->compile(&input, &pass.compiled));
    if (failure) {
      throw UserError("E-MEMORY-COMPILE",
                      fmt::format("memory pass {} ({}) cannot price {}: {}", pass.plugin->id,
                                  pass.plugin->path.string(), model.file, failure->message));
    }
  }
  prior_.assign(static_cast<size_t>(max_pp) * NDS_MEMORY_TERM_COUNT_V1, 0.0);
  bytes_.assign(prior_.size(), 0.0);
}

MemoryEvaluator::~MemoryEvaluator() {
  for (Pass& pass : passes_) {
    if (pass.compiled == nullptr || pass.table->release == nullptr) continue;
    const SerializedCall call = serialized_call(*pass.plugin, &SerializedCalls::memory_release);
    pass.table->release(pass.compiled);
  }
}

std::string MemoryEvaluator::evaluate(const nds_candidate& candidate,
                                      std::vector<RankMemory>& ranks) {
  const auto pp = static_cast<size_t>(candidate.strategy->pp);
  constexpr size_t terms = NDS_MEMORY_TERM_COUNT_V1;
  if (prior_.size() < pp * terms) {
    prior_.resize(pp * terms);
    bytes_.resize(pp * terms);
  }
  ranks.resize(pp);
  std::fill(prior_.begin(), prior_.begin() + static_cast<ptrdiff_t>(pp * terms), 0.0);
  int32_t phase = passes_.front().table->phase;
  for (const Pass& pass : passes_) {
    if (pass.table->phase != phase) {  // a new phase sees the sums so far
      phase = pass.table->phase;
      for (size_t r = 0; r < pp; ++r)
        for (size_t t = 0; t < terms; ++t) prior_[r * terms + t] = ranks[r].bytes[t];
    }
    if (pass.table == passes_.front().table)
      for (RankMemory& r : ranks) r.bytes.fill(0.0);
    std::fill(bytes_.begin(), bytes_.begin() + static_cast<ptrdiff_t>(pp * terms), 0.0);
    nds_memory_item item{sizeof(nds_memory_item),
                         &candidate,
                         static_cast<uint32_t>(terms),
                         prior_.data(),
                         bytes_.data(),
                         NDS_OK,
                         nullptr};
    pass.table->evaluate(pass.compiled, &item, 1, sizeof(item));
    if (item.code != NDS_OK)
      return fmt::format("{}: {}", pass.plugin->id,
                         item.reason != nullptr ? item.reason : "refused the candidate");
    for (size_t r = 0; r < pp; ++r)
      for (size_t t = 0; t < terms; ++t) ranks[r].bytes[t] += bytes_[r * terms + t];
  }
  // A byte count that is not a finite number >= 0 (a pass's overflow, a NaN)
  // must refuse the candidate: compared with the budget it would "fit".
  for (size_t r = 0; r < pp; ++r)
    for (size_t t = 0; t < terms; ++t)
      if (!(ranks[r].bytes[t] >= 0) || !std::isfinite(ranks[r].bytes[t]))
        return fmt::format(
            "the memory passes gave {} bytes for term {} of rank {}; a byte count must be a finite "
            "number >= 0 (is a model size beyond what the passes can price?)",
            ranks[r].bytes[t], t, r);
  return {};
}

std::vector<std::string> MemoryEvaluator::pass_ids() const {
  std::vector<std::string> ids;
  for (const Pass& p : passes_) ids.push_back(p.plugin->id);
  return ids;
}

}  // namespace ndsearch
