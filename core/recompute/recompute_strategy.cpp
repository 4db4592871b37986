// SPDX-License-Identifier: Apache-2.0
#include "core/recompute/recompute_strategy.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>
#include <ndsearch/sdk/hardware.hpp>  // DeviceTable

#include "core/plugins/status.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {

RecomputeStrategy::RecomputeStrategy(const PluginRegistry& registry, Model& model,
                                     const Device& device, std::string name)
    : name_(std::move(name)) {
  std::string known;
  for (const auto& p : registry.plugins()) {
    const nds_recompute_v1* r = p->interfaces.recompute;
    if (r == nullptr) continue;
    known += fmt::format("{}{}", known.empty() ? "" : ", ", r->strategy);
    if (table_ == nullptr && name_ == r->strategy) {
      table_ = r;
      plugin_ = p.get();
    }
  }
  if (table_ == nullptr)
    throw UserError(
        "E-RECOMPUTE-STRATEGY",
        fmt::format("{}: no loaded recompute strategy has this name; known: {}",
                    Setting("recompute_strategy").named(name_), known.empty() ? "none" : known));
  sdk::DeviceTable devices;
  devices.add(device);
  const nds_compile_input input{sizeof(nds_compile_input), &model.view(), devices.data()[0]};
  const SerializedCall call = serialized_call(*plugin_, &SerializedCalls::recompute_compile);
  StatusPtr failure(table_->compile(&input, &compiled_));
  if (failure)
    throw UserError("E-RECOMPUTE-COMPILE", fmt::format("recompute strategy {} cannot price {}: {}",
                                                       name_, model.file, failure->message));
}

RecomputeStrategy::~RecomputeStrategy() {
  if (compiled_ == nullptr || table_->release == nullptr) return;
  const SerializedCall call = serialized_call(*plugin_, &SerializedCalls::recompute_release);
  table_->release(compiled_);
}

void RecomputeStrategy::evaluate(nds_recompute_item& item) const {
  table_->evaluate(compiled_, &item, 1, sizeof(item));
}

}  // namespace ndsearch
