// SPDX-License-Identifier: Apache-2.0
#include "core/compile/recompute_strategy.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include "core/compile/plugin_compile.hpp"
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
  const StatusPtr failure = compile_plugin(*plugin_, *table_, &SerializedCalls::recompute_compile,
                                           model, device, &compiled_);
  if (failure)
    throw UserError("E-RECOMPUTE-COMPILE", fmt::format("recompute strategy {} cannot price {}: {}",
                                                       name_, model.file, failure->message));
}

RecomputeStrategy::~RecomputeStrategy() {
  release_plugin(*plugin_, *table_, &SerializedCalls::recompute_release, compiled_);
}

void RecomputeStrategy::evaluate(nds_recompute_item& item) const {
  table_->evaluate(compiled_, &item, 1, sizeof(item));
}

}  // namespace ndsearch
