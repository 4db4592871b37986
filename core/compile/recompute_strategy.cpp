// SPDX-License-Identifier: Apache-2.0
#include "core/compile/recompute_strategy.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>
#include <ndsearch/sdk/hardware.hpp>  // DeviceTable

#include "core/compile/allocator_share.hpp"
#include "core/support/status.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {

namespace {

// The first loaded plugin offering strategy `name`, or E-RECOMPUTE-STRATEGY
// listing the names that are loaded.
const LoadedPlugin& offering(const PluginRegistry& registry, const std::string& name) {
  std::string known;
  for (const auto& p : registry.plugins()) {
    const nds_recompute_v1* r = p->interfaces.recompute;
    if (r == nullptr) continue;
    if (name == r->strategy) return *p;
    known += fmt::format("{}{}", known.empty() ? "" : ", ", r->strategy);
  }
  throw UserError(
      "E-RECOMPUTE-STRATEGY",
      fmt::format("{}: no loaded recompute strategy has this name; known: {}",
                  Setting("recompute_strategy").named(name), known.empty() ? "none" : known));
}

}  // namespace

bool RecomputeStrategy::follows_candidate(const PluginRegistry& registry, const std::string& name) {
  return (offering(registry, name).interfaces.recompute->flags & NDS_RECOMPUTE_FOLLOWS_CANDIDATE) !=
         0;
}

RecomputeStrategy::RecomputeStrategy(const PluginRegistry& registry, Model& model,
                                     const Device& device, std::string name)
    : name_(std::move(name)),
      plugin_(&offering(registry, name_)),
      table_(plugin_->interfaces.recompute) {
  sdk::DeviceTable devices;
  devices.add(device);
  const nds_compile_input input = compile_input(model, devices.data()[0]);
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
