// SPDX-License-Identifier: Apache-2.0
// recompute_strategy.hpp: a loaded "nds.recompute/1" strategy, compiled once
// for a (model, device) and asked per candidate for its per-layer choice.
#pragma once

#include <ndsearch/nds_recompute.h>

#include <string>

#include "core/hardware/device.hpp"
#include "core/model/model.hpp"
#include "core/plugin_host/registry.hpp"

namespace ndsearch {

class RecomputeStrategy {
 public:
  // Throws UserError E-RECOMPUTE-STRATEGY (no loaded plugin offers `name`,
  // listing those that are) or E-RECOMPUTE-COMPILE.
  RecomputeStrategy(const PluginRegistry& registry, Model& model, const Device& device,
                    std::string name);
  RecomputeStrategy(const RecomputeStrategy&) = delete;
  RecomputeStrategy& operator=(const RecomputeStrategy&) = delete;
  ~RecomputeStrategy();

  const std::string& name() const { return name_; }
  // NDS_RECOMPUTE_FOLLOWS_CANDIDATE: asked for every candidate, its recompute key kept.
  bool follows_candidate() const { return (table_->flags & NDS_RECOMPUTE_FOLLOWS_CANDIDATE) != 0; }
  // The same for the strategy `name` offers, without compiling it (throws
  // E-RECOMPUTE-STRATEGY as the constructor does).
  static bool follows_candidate(const PluginRegistry& registry, const std::string& name);
  // [hot] The strategy's evaluate on one item (the host zeroed its outputs).
  void evaluate(nds_recompute_item& item) const;

 private:
  std::string name_;
  const LoadedPlugin* plugin_ = nullptr;
  const nds_recompute_v1* table_ = nullptr;  // plugin_'s
  nds_recompute_compiled* compiled_ = nullptr;
};

}  // namespace ndsearch
