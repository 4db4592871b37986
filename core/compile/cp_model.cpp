// SPDX-License-Identifier: Apache-2.0
#include "core/compile/cp_model.hpp"

#include <algorithm>

#include <ndsearch/sdk/model_math.hpp>  // kv_heads_repeated

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include "core/compile/plugin_compile.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {

CpModel::CpModel(const PluginRegistry& registry, Model& model, const Device& device,
                 std::string algorithm)
    : algorithm_(std::move(algorithm)) {
  std::string known;
  for (const auto& p : registry.plugins()) {
    const nds_cp_attention_v1* cp = p->interfaces.cp_attention;
    if (cp == nullptr) continue;
    known += fmt::format("{}{}", known.empty() ? "" : ", ", cp->algorithm);
    if (table_ == nullptr && algorithm_ == cp->algorithm) {
      table_ = cp;
      plugin_ = p.get();
    }
  }
  if (table_ == nullptr)
    throw UserError(
        "E-CP-ALGO",
        fmt::format("{}: no loaded CP attention model has this name; known: {}",
                    Setting("cp_algo").named(algorithm_), known.empty() ? "none" : known));
  const StatusPtr failure =
      compile_plugin(*plugin_, *table_, &SerializedCalls::cp_compile, model, device, &compiled_);
  if (failure)
    throw UserError("E-CP-COMPILE", fmt::format("CP attention model {} cannot price {}: {}",
                                                algorithm_, model.file, failure->message));
}

namespace {
// Where a training key came from, in the output's words: a parser's
// "default:<trainer>" is that trainer's default (the config sets none).
std::string said_by(const Model& model, const char* key) {
  const std::string where = training_source(model, key, "the config");
  return where.rfind("default:", 0) == 0 ? where.substr(8) + "'s default" : where;
}
}  // namespace

std::string CpModel::assumption(const Model& model) const {
  const std::string& stated = model.cp_algorithm;
  const std::string flag = Setting("cp_algo").named();
  const std::string chooser =
      algorithm_ == stated ? "as " + said_by(model, "cp_algorithm") + " states"
      : stated.empty()     ? (algorithm_ == "ring" ? "the config states none"
                                                   : "as " + flag + " states; the config states none")
                           : fmt::format("as {} states, over the config's {}", flag, stated);
  std::string line = fmt::format("context parallelism: {} ({})", algorithm_, chooser);
  const nds_training& t = model.training;
  // The plugin option --cp-ulysses wins over the config's degree (cp-hybrid).
  const PluginOptions* options = plugin_->options.get();
  const auto option =
      options != nullptr ? options->find("cp-ulysses") : PluginOptions::const_iterator{};
  if (algorithm_ == "hybrid" && options != nullptr && option != options->end())
    line += fmt::format("; {}-way Ulysses inside its rings (as {} states)", option->second,
                        Setting("cp-ulysses").named());
  else if (algorithm_ == "hybrid" && t.cp_ulysses_degree > 0)
    line += fmt::format("; {}-way Ulysses inside its rings ({})", t.cp_ulysses_degree,
                        said_by(model, "cp_ulysses_degree"));
  if (sdk::kv_heads_repeated(t, algorithm_))
    line += fmt::format("; K and V repeated to the query heads before the all-to-all ({})",
                        said_by(model, "cp_kv_heads_repeated"));
  return line;
}

CpModel::~CpModel() {
  release_plugin(*plugin_, *table_, &SerializedCalls::cp_release, compiled_);
}

std::string CpModel::choose_algorithm(const std::string& requested, const Model& model) {
  if (!requested.empty()) return requested;
  return !model.cp_algorithm.empty() ? model.cp_algorithm : "ring";
}

CpBuffers CpModel::buffers(const nds_candidate& candidate, uint32_t block_count) const {
  CpBuffers out;
  for (uint32_t b = 0; b < block_count; ++b) {
    CpCost cost = evaluate(candidate, b);
    out.bytes = std::max(out.bytes, cost.extra_activation_bytes);
    if (!cost.refusal.empty()) {
      out.refusal = std::move(cost.refusal);
      break;
    }
  }
  return out;
}

CpCost CpModel::evaluate(const nds_candidate& candidate, uint32_t block_index) const {
  CpCost cost;
  nds_cp_item item{};
  item.struct_size = sizeof(item);
  item.candidate = &candidate;
  item.block_index = block_index;
  item.comms = cost.comms.data();
  item.comm_capacity = static_cast<uint32_t>(cost.comms.size());
  item.comm_elem_size = sizeof(nds_cp_comm);
  table_->evaluate(compiled_, &item, 1, sizeof(item));
  if (item.code != NDS_OK) cost.refusal = item.reason != nullptr ? item.reason : "refused";
  cost.comm_count = std::min<uint32_t>(item.comm_count, item.comm_capacity);
  cost.extra_activation_bytes = item.extra_activation_bytes;
  return cost;
}

}  // namespace ndsearch
