// SPDX-License-Identifier: Apache-2.0
#include "core/output/search_header.hpp"

#include <fmt/format.h>

#include <ndsearch/sdk/units.hpp>

#include <filesystem>

#include <ndsearch/core/settings.hpp>
#include "core/model/model_json.hpp"
#include "core/model/strategy_keys.hpp"
#include "core/model/trainer_limits.hpp"
#include "core/output/calibration_json.hpp"
#include "core/output/calibration_text.hpp"
#include "core/output/wrapped_text.hpp"

namespace ndsearch {
namespace {

constexpr double kGiB = sdk::kBytesPerGiB;  // sizes print in GiB

std::string precision_text(const nds_training& t) {
  if (t.compute_dtype == NDS_DTYPE_FP8)
    return fmt::format("fp8 ({} scaling)", fp8_recipe_name(t.fp8_recipe));
  return dtype_name(t.compute_dtype);
}

std::string budget_text(const Budget& b) {
  return fmt::format(
      "budget {:.2f} GiB per device: {:.2f} GiB from {}, less {:.2f} GiB reserved{}",
      b.budget_bytes / kGiB, b.capacity_bytes / kGiB, b.capacity_source, b.reserved_bytes / kGiB,
      b.reserve_mem_bytes > 0 ? fmt::format(" and {:.2f} GiB kept free", b.reserve_mem_bytes / kGiB)
                              : std::string());
}

std::string bounds_text(const SpaceBounds& b) {
  std::string ep;
  if (b.routed_experts > 0)
    ep = b.max_ep > 0 && b.max_ep < b.routed_experts
             ? fmt::format("ep <= {} (the setup's max_expert_parallel; {} routed experts); ",
                           b.max_ep, b.routed_experts)
             : fmt::format("ep <= {} routed experts; ", b.routed_experts);
  return fmt::format(
      "bounds: tp <= {} KV heads; pp <= min({} the machine allows, {} layers, batch {}); {}vpp <= "
      "min({}, pp, layers / pp); mbn >= pp (docs/cli.md, \"Search bounds\")",
      b.kv_heads, b.pipeline_bound, b.layers, b.global_batch, ep, b.max_vpp);
}

// Where a fast-tuner setup JSON's values went: "setup args.json (yaml_path
// names tiny.yaml): 32 devices from `rank_num` = 32, global batch 64 from
// `gbs`"; a value given as a setting instead says so.
std::string setup_text(const Model& model, const SearchOptions& options) {
  const SetupStated& s = model.setup;
  std::vector<std::string> parts;
  if (s.devices > 0)
    parts.push_back(s.devices == options.space.devices
                        ? fmt::format("{} devices from {}", s.devices, s.devices_field)
                        : fmt::format("{} devices from {} (its {} replaced)", options.space.devices,
                                      Setting("devices").named(), s.devices_field));
  if (s.global_batch != NDS_UNKNOWN)
    parts.push_back(s.global_batch == options.space.global_batch
                        ? fmt::format("global batch {} from `gbs`", s.global_batch)
                        : fmt::format("global batch {} from {} (its `gbs` = {} replaced)",
                                      options.space.global_batch, Setting("global_batch").named(),
                                      s.global_batch));
  if (!s.dimensions.empty())
    parts.push_back(fmt::format("its strategy flags search {}", s.dimensions));
  return fmt::format("setup {} ({} names {}){}{}",
                     std::filesystem::path(s.file).filename().string(), s.config_key,
                     std::filesystem::path(model.file).filename().string(),
                     parts.empty() ? "" : ": ", fmt::join(parts, ", "));
}

std::string searched_text(const SearchSpace& space) {
  std::vector<std::string> keys;
  for (const StrategyKey& k : kStrategyKeys)
    if (space.searched.contains(std::string(k.name))) keys.emplace_back(k.name);
  return fmt::format("searched: {}; the other settings keep the config's value",
                     fmt::join(keys, " "));
}

}  // namespace

std::vector<std::string> search_header_lines(const Model& model, const Machine& machine,
                                             const SearchRequest& request,
                                             const SearchOptions& options,
                                             const SearchResult& result) {
  const std::string file = std::filesystem::path(model.file).filename().string();
  const std::string name = model.main.name.empty() || model.main.name == file
                               ? file
                               : fmt::format("{} ({})", model.main.name, file);
  std::vector<std::string> lines{fmt::format("{} on {} x {}: global batch {}, sequence {}, {}",
                                             name, options.space.devices, machine.device->id,
                                             options.space.global_batch, model.training.seq_len,
                                             precision_text(model.training))};
  if (!model.setup.file.empty()) lines.push_back((setup_text(model, options)));
  lines.push_back((budget_text(options.budget)));
  for (const std::string& a : result.assumptions) lines.push_back("assumes " + (a));
  const std::string calibration =
      calibration_line(calibration_json(request.calibration, *machine.device),
                       trainer_overheads_json(model, *machine.device));
  if (!calibration.empty()) lines.push_back(calibration);
  lines.push_back((trainer_limits_text(model)));
  lines.push_back((recompute_default_text(model, options.space.searched.count("recompute") != 0,
                                          request.recompute.strategy)));
  // The config's stated split, priced where a row runs its own pp and vpp.
  if (states_own_split(model))
    lines.push_back((fmt::format(
        "layers: the config's stated split at its own pp {} and vpp {}, the trainer's own split "
        "elsewhere",
        model.stated.pp, model.stated.vpp != NDS_UNKNOWN ? model.stated.vpp : 1)));
  // A stated partial sharding group: kept where it divides a row's dp·cp,
  // else adapted to dp·cp by op_from_config, the one rule every verb applies.
  const nds_strategy& st = model.stated;
  if (options.space.searched.count("op") == 0 && st.op != NDS_UNKNOWN && st.dp != NDS_UNKNOWN &&
      static_cast<int64_t>(st.op) !=
          static_cast<int64_t>(st.dp) * (st.cp != NDS_UNKNOWN ? st.cp : 1))
    lines.push_back((fmt::format(
        "op: the config's {} where it divides a row's dp·cp, else adapted to dp·cp (as eval, "
        "explain, compare and apply do)",
        st.op)));
  lines.push_back((searched_text(options.space)));
  lines.push_back(bounds_text(result.bounds));
  return lines;
}

}  // namespace ndsearch
