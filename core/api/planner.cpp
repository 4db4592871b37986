// SPDX-License-Identifier: Apache-2.0
#include <ndsearch/core/planner.hpp>
#include <ndsearch/core/settings.hpp>

#include <fmt/format.h>

#include <sstream>

#include "core/api/plugin_settings.hpp"
#include "core/apply/write_config.hpp"
#include "core/compare/compare_file.hpp"
#include "core/compare/compare_runs.hpp"
#include "core/compare/fit_calibration.hpp"
#include "core/compare/measured_runs.hpp"
#include "core/evaluate/evaluate_strategy.hpp"
#include "core/explain/explain_strategy.hpp"
#include "core/hardware/device_catalog.hpp"
#include "core/model/parse_config.hpp"
#include "core/plugins/registry.hpp"
#include "core/plugins/run_options.hpp"
#include "core/recompute/recompute_settings.hpp"
#include "core/report/apply_json.hpp"
#include "core/report/calibration_json.hpp"
#include "core/report/compare_json.hpp"
#include "core/report/documents.hpp"
#include "core/report/evaluation_json.hpp"
#include "core/report/explain_json.hpp"
#include "core/report/fit_json.hpp"
#include "core/report/plugins_json.hpp"
#include "core/report/search_json.hpp"
#include "core/search/search.hpp"
#include "core/search/search_request.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

using nlohmann::json;

ParseOptions parse_options(const ModelSettings& m) {
  ParseOptions options;
  options.framework = m.framework;
  options.strict = m.strict;
  options.any_trainer = m.any_trainer;
  options.overrides = {m.seq_len,
                       m.global_batch,
                       m.micro_batch_size,
                       m.vocab_size,
                       m.image_tokens,
                       m.images_per_sample,
                       m.dtype,
                       m.fp8_recipe,
                       m.overlap,
                       m.recompute_modules,
                       m.routing};
  options.model_config = m.model_config;
  return options;
}

// The calibration `e` names, read and checked against the priced device.
std::optional<AppliedCalibration> calibration_of(const EvaluateSettings& e, const Device& device) {
  return load_calibration(e.calibration, device, e.force_calibration);
}

// Whether a run's plugin options swap the optimizer states (the option
// "swap-optimizer" = "1", as the weights-and-optimizer pass reads it).
bool swaps_optimizer(const PluginOptions& options) {
  const auto it = options.find("swap-optimizer");
  return it != options.end() && it->second == "1";
}

// `swap_optimizer`: the run's plugin options swap the optimizer states.
EvaluationRequest evaluation_request(const EvaluateSettings& e,
                                     const std::optional<AppliedCalibration>& calibration,
                                     bool swap_optimizer) {
  EvaluationRequest request;
  request.strategy = e.strategy;
  request.devices = e.devices;
  request.max_memory = e.max_memory;
  request.reserve_mem = e.reserve_mem;
  request.layers_from_config = e.layers_from_config;
  request.cp_algorithm = e.cp_algo;
  request.calibration = calibration_factors_of(calibration);
  request.recompute = recompute_settings_of(e.recompute, swap_optimizer);
  return request;
}

SearchSpaceRequest space_request(const SpaceSettings& s) { return {s.dimensions, s.only, s.threads}; }

}  // namespace

// Every call works for this Planner's run: a plugin shared with another live
// Planner reads this one's options in the calls made for it (run_options.hpp).
struct Planner::Loaded {
  std::shared_ptr<const PluginOptions> options;
  PluginRegistry registry;
  DeviceCatalog catalog;
};

Planner::Planner(const PluginSettings& settings) {
  const PluginSearch search = plugin_search(settings);
  const RunScope run(search.options);
  auto loaded = std::make_unique<Loaded>();
  loaded->options = search.options;
  loaded->registry = PluginRegistry::load(search);
  // A device file the user names must be right: an error in it stops the run.
  loaded->catalog = DeviceCatalog::load(loaded->registry, settings.device_file.has_value());
  loaded_ = std::move(loaded);
}

Planner::Planner(Planner&&) noexcept = default;
Planner& Planner::operator=(Planner&&) noexcept = default;
Planner::~Planner() = default;

json Planner::plugins() const {
  const RunScope run(loaded_->options); return plugins_json(loaded_->registry); }

json Planner::hardware() const {
  const RunScope run(loaded_->options); return hardware_document(loaded_->catalog); }

json Planner::device(const std::string& id) const {
  const RunScope run(loaded_->options);
  return device_document(loaded_->catalog.resolve(id, "the device id"));
}

json Planner::model(const ModelSettings& settings) const {
  const RunScope run(loaded_->options);
  return model_document(parse_config(loaded_->registry, settings.config, parse_options(settings)));
}

json Planner::apply(const ApplySettings& settings) const {
  const RunScope run(loaded_->options);
  const ParseOptions parse = parse_options(settings.model);
  const Model model = parse_config(loaded_->registry, settings.model.config, parse);
  const nds_strategy s = strategy_to_apply(model, settings.strategy, settings.devices);
  return written_config_json(
      write_config(loaded_->registry, model, settings.model.config, parse, {s, {}, {}, {}}), model);
}

json Planner::evaluate(const EvaluateSettings& settings) const {
  const RunScope run(loaded_->options);
  Model model = parse_config(loaded_->registry, settings.model.config, parse_options(settings.model));
  const Machine machine = evaluation_machine(loaded_->catalog, settings.device, settings.devices);
  const auto calibration = calibration_of(settings, *machine.device);
  apply_memory_calibration(model, calibration);
  json j = evaluation_json(evaluate_strategy(
      loaded_->registry, model, machine,
      evaluation_request(settings, calibration, swaps_optimizer(*loaded_->options))));
  add_calibration_json(j, calibration, model, *machine.device);
  return j;
}

json Planner::compare(const CompareSettings& settings) const {
  const RunScope run(loaded_->options);
  const EvaluateSettings& e = settings.evaluate;
  CompareRequest request;
  request.config = e.model.config;
  request.parse = parse_options(e.model);
  request.device = e.device;
  request.devices = e.devices;
  // A validation CSV is priced with the shipped model on each row's device
  // (compare_file.hpp): no calibration or fit applies to it.
  const bool validation = is_validation_csv(settings.measured);
  if (validation && (!e.calibration.empty() || !settings.fit.empty()))
    throw UserError("E-USAGE",
                    fmt::format("{} is a validation CSV, priced with the shipped model on each "
                                "row's device: {} and {} do not apply to it",
                                settings.measured.string(), Setting("calibration").named(),
                                Setting("fit").named()));
  std::optional<AppliedCalibration> calibration;
  const Device* device = nullptr;
  request.base = evaluation_request(e, calibration, swaps_optimizer(*loaded_->options));
  if (!validation && !e.device.empty()) {
    device = &loaded_->catalog.resolve(e.device, "the device id");
    calibration = calibration_of(e, *device);
    request.base = evaluation_request(e, calibration, swaps_optimizer(*loaded_->options));
    request.calibration = calibration;
  }
  const Comparison comparison =
      compare_measured_file(loaded_->registry, loaded_->catalog, request, settings.measured);
  json j = compare_json(comparison);
  if (device != nullptr)
    add_calibration_json(j, calibration,
                         parse_config(loaded_->registry, e.model.config, parse_options(e.model)),
                         *device);
  if (!settings.fit.empty() && comparison.priced() > 0)
    j["fit"] = fit_json(fit_calibration_file(loaded_->registry, loaded_->catalog, request,
                                             comparison, settings.fit));
  return j;
}

json Planner::explain(const ExplainSettings& settings) const {
  const RunScope run(loaded_->options);
  const EvaluateSettings& e = settings.evaluate;
  Model model = parse_config(loaded_->registry, e.model.config, parse_options(e.model));
  ExplainRequest request;
  // No strategy: the config's own, ranked in the default search on its devices.
  const uint64_t devices = e.strategy.empty() ? prepare_own_strategy(model, e.devices) : e.devices;
  request.rank_by_default = e.strategy.empty();
  const Machine machine = evaluation_machine(loaded_->catalog, e.device, devices);
  const auto calibration = calibration_of(e, *machine.device);
  apply_memory_calibration(model, calibration);
  request.evaluation = evaluation_request(e, calibration, swaps_optimizer(*loaded_->options));
  request.evaluation.devices = devices;
  request.space = space_request(settings.space);
  request.beaten_by = settings.beaten_by;
  json j = explanation_json(explain_strategy(loaded_->registry, model, machine, request));
  add_calibration_json(j, calibration, model, *machine.device);
  return j;
}

// As `search` lists them: the top `top`, and the five closest misses unless
// all are asked for.
void Planner::write_search(const SearchSettings& settings, std::ostream& out) const {
  const RunScope run(loaded_->options);
  Model model = parse_config(loaded_->registry, settings.model.config, parse_options(settings.model));
  SearchRequest request;
  request.space = space_request(settings.space);
  request.max_memory = settings.max_memory;
  request.reserve_mem = settings.reserve_mem;
  request.cp_algorithm = settings.cp_algo;
  request.recompute = recompute_settings_of(settings.recompute, swaps_optimizer(*loaded_->options));
  request.balance_layers = settings.balance_layers;
  request.devices = search_device_count(model, settings.devices);
  const Machine machine = make_machine(loaded_->catalog, settings.device, request.devices);
  request.calibration =
      load_calibration(settings.calibration, *machine.device, settings.force_calibration);
  apply_memory_calibration(model, request.calibration);
  SearchOptions options = search_options(model, machine, request);
  options.keep = settings.top;
  options.closest_misses = settings.all_misses ? 0 : 5;
  SearchResult result = run_search(loaded_->registry, model, *machine.device, options);
  keep_listed(result, settings.top, options.closest_misses);
  write_search_json(out, loaded_->registry, model, machine, request, options, result);
}

json Planner::search(const SearchSettings& settings) const {
  std::ostringstream text;
  write_search(settings, text);
  return json::parse(text.str());
}

}  // namespace ndsearch
