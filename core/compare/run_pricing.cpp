// SPDX-License-Identifier: Apache-2.0
#include "core/compare/run_pricing.hpp"

#include "core/price/calibration_file.hpp"

namespace ndsearch {

ModelCache::ModelCache(const PluginRegistry& registry, const CompareRequest& request)
    : registry_(registry), request_(request) {
  at(std::nullopt, std::nullopt);
}

Model& ModelCache::at(std::optional<int64_t> global_batch, std::optional<int64_t> seq_len) {
  TrainingOverrides overrides = request_.parse.overrides;
  if (global_batch) overrides.global_batch = global_batch;
  if (seq_len) overrides.seq_len = seq_len;
  const std::pair key{overrides.global_batch, overrides.seq_len};
  auto it = models_.find(key);
  if (it == models_.end()) {
    ParseOptions parse = request_.parse;
    parse.overrides = overrides;
    it = models_.emplace(key, parse_config(registry_, request_.config, parse)).first;
    apply_memory_calibration(it->second, request_.calibration);
  }
  return it->second;
}

RunPricing run_pricing(const DeviceCatalog& catalog, const CompareRequest& request,
                       ModelCache& models, const MeasuredRun& run) {
  RunPricing p;
  p.request = request.base;
  p.request.strategy = run.strategy;
  p.request.devices = run.devices.value_or(request.devices);
  p.model = &models.at(run.global_batch, run.seq_len);
  p.machine = evaluation_machine(catalog, request.device, p.request.devices);
  return p;
}

}  // namespace ndsearch
