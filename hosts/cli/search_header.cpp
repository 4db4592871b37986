// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/search_header.hpp"

#include <fmt/format.h>
#include <ndsearch/sdk/units.hpp>

#include <filesystem>
#include <iostream>

#include "core/model/model_json.hpp"
#include "core/report/calibration_json.hpp"
#include "hosts/cli/calibration_flags.hpp"
#include "hosts/cli/ranking_table.hpp"
#include "hosts/cli/setting_flags.hpp"

namespace ndsearch::cli {
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
  return fmt::format(
      "bounds: tp <= {} KV heads; pp <= min({} the machine allows, {} layers, batch {}); {}vpp <= "
      "min({}, pp, layers / pp); mbn >= pp (docs/cli.md, \"Search bounds\")",
      b.kv_heads, b.pipeline_bound, b.layers, b.global_batch,
      b.routed_experts > 0 ? fmt::format("ep <= {} routed experts; ", b.routed_experts)
                           : std::string(),
      b.max_vpp);
}

std::string searched_text(const SearchSpace& space) {
  std::vector<std::string> keys;
  for (const char* k : {"dp", "tp", "pp", "cp", "ep", "etp", "vpp", "sp", "zero", "op", "mbs",
                        "mbn", "recompute", "schedule"})
    if (space.searched.count(k) != 0) keys.emplace_back(k);
  return fmt::format("searched: {}; the other settings keep the config's value",
                     fmt::join(keys, " "));
}

}  // namespace

void print_search_header(const Model& model, const Machine& machine, const SearchRequest& request,
                         const SearchOptions& options, const SearchResult& result, size_t width) {
  const std::string file = std::filesystem::path(model.file).filename().string();
  const std::string name = model.main.name.empty() || model.main.name == file
                               ? file
                               : fmt::format("{} ({})", model.main.name, file);
  std::cout << wrapped(
      fmt::format("{} on {} x {}: global batch {}, sequence {}, {}", name, options.space.devices,
                  machine.device->id, options.space.global_batch, model.training.seq_len,
                  precision_text(model.training)),
      width, "", "    ");
  std::cout << wrapped(with_flags(budget_text(options.budget)), width, "  ", "    ");
  for (const std::string& a : result.assumptions)
    std::cout << wrapped("assumes " + with_flags(a), width, "  ", "    ");
  print_calibration_line(calibration_json(request.calibration, *machine.device),
                         trainer_overheads_json(model, *machine.device));
  std::cout << wrapped(with_flags(searched_text(options.space)), width, "  ", "    ");
  std::cout << wrapped(bounds_text(result.bounds), width, "  ", "    ");
}

}  // namespace ndsearch::cli
