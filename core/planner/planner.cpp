// SPDX-License-Identifier: Apache-2.0
// planner.cpp: one wiring per verb: settings -> parse -> machine ->
// calibration -> request -> core call -> result (and the files the settings
// name). The search's is in search_call.cpp.
#include <ndsearch/core/planner.hpp>
#include <ndsearch/core/settings.hpp>

#include <fmt/format.h>

#include <sstream>

#include "core/analyses/explain_strategy.hpp"
#include "core/compare/compare_file.hpp"
#include "core/compare/compare_runs.hpp"
#include "core/compare/measured_runs.hpp"
#include "core/export/priced_layers.hpp"
#include "core/export/write_config.hpp"
#include "core/fit/fit_calibration.hpp"
#include "core/input/parse_config.hpp"
#include "core/output/calibration_json.hpp"
#include "core/output/compare_csv.hpp"
#include "core/output/compare_json.hpp"
#include "core/output/documents.hpp"
#include "core/output/evaluation_json.hpp"
#include "core/output/explain_json.hpp"
#include "core/output/explain_text.hpp"
#include "core/output/fit_json.hpp"
#include "core/output/hardware_text.hpp"
#include "core/output/html_report.hpp"
#include "core/output/json_text.hpp"
#include "core/output/model_text.hpp"
#include "core/output/output_files.hpp"
#include "core/output/plugins_json.hpp"
#include "core/output/plugins_text.hpp"
#include "core/output/report_data.hpp"
#include "core/output/timeline_json.hpp"
#include "core/planner/loaded.hpp"
#include "core/planner/plugin_settings.hpp"
#include "core/planner/requests.hpp"
#include "core/planner/written_config.hpp"
#include "core/price/evaluate_strategy.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

using nlohmann::json;

// The calibration `e` names, read and checked against the priced device.
std::optional<AppliedCalibration> calibration_of(const EvaluateSettings& e, const Device& device) {
  return load_calibration(e.calibration, device, e.force_calibration);
}

// explain's files: the step's timeline and the strategy's page.
std::vector<WrittenFile> explain_files(const Planner::Loaded& loaded, Model& model,
                                       const Machine& machine, const ExplainRequest& request,
                                       const StrategyExplanation& explanation, const json& document,
                                       const ExplainSettings& settings,
                                       const std::optional<ChartLibrary>& library) {
  std::vector<WrittenFile> files;
  if (!settings.timeline.empty() && explanation.evaluation.valid()) {
    write_output_file(settings.timeline, [&](std::ostream& out) {
      out << json_text(timeline_json(explanation.evaluation), 1) << "\n";
    });
    files.push_back(
        {settings.timeline, fmt::format("wrote the timeline: {}", settings.timeline.string())});
  }
  if (library) {
    json data = explain_report_data(loaded.registry, model, machine, request, explanation, document,
                                    explain_header_lines(document, {}));
    data["generator"] = fmt::format("ndsearch {}", NDS_VERSION);
    write_output_file(settings.report, [&](std::ostream& out) {
      write_html_report(out,
                        fmt::format("ndsearch explain: {} on {} x {}", model.display_name(),
                                    machine.devices, machine.device->id),
                        data, *library);
    });
    files.push_back(
        {settings.report, fmt::format("wrote the report: {}", settings.report.string())});
  }
  return files;
}

}  // namespace

Planner::Planner(const PluginSettings& settings) {
  const PluginSearch search = plugin_search(settings);
  const RunScope run(search.options);
  auto loaded = std::make_shared<Loaded>();
  loaded->options = search.options;
  loaded->registry = PluginRegistry::load(search);
  // A device file the user names must be right: an error in it stops the
  // first call that reads the devices (Loaded::catalog).
  loaded->device_file_named = settings.device_file.has_value();
  loaded_ = std::move(loaded);
}

Planner::Planner(Planner&&) noexcept = default;
Planner& Planner::operator=(Planner&&) noexcept = default;
Planner::~Planner() = default;

// The listings' texts are written from what the Planner loaded, which they share.
Listing Planner::plugins() const {
  const RunScope run(loaded_->options);
  return {plugins_json(loaded_->registry),
          [loaded = loaded_](std::ostream& out, const TextSettings& text) {
            write_plugins_text(out, loaded->registry, text);
          }};
}

Listing Planner::hardware() const {
  const RunScope run(loaded_->options);
  return {hardware_document(loaded_->catalog()),
          [loaded = loaded_](std::ostream& out, const TextSettings&) {
            write_hardware_text(out, loaded->catalog().devices());
          }};
}

Listing Planner::device(const std::string& id) const {
  const RunScope run(loaded_->options);
  const Device& device = loaded_->catalog().resolve(id, "the device id");
  return {device_document(device),
          [loaded = loaded_, d = &device](std::ostream& out, const TextSettings&) {
            write_device_text(out, *d);
          }};
}

Listing Planner::model(const ModelSettings& settings) const {
  const RunScope run(loaded_->options);
  json document =
      model_document(parse_config(loaded_->registry, settings.config, parse_options(settings)));
  return {document, [document](std::ostream& out, const TextSettings& text) {
            write_model_text(out, document, text);
          }};
}

WrittenConfig Planner::apply(const ApplySettings& settings) const {
  const RunScope run(loaded_->options);
  const ParseOptions parse = parse_options(settings.model);
  const Model model = parse_config(loaded_->registry, settings.model.config, parse);
  const nds_strategy s = strategy_to_apply(model, settings.strategy, settings.devices);
  // The split it is priced with (the config's at its own pp and vpp, else
  // the one the trainer builds: Megatron-Core's first/last stages,
  // MindSpeed's padding), and the layers the config's per-stage recompute
  // counts recompute there, which the writer states as search's emitted
  // config does: the job, not only its keys.
  const ConfigWrite w =
      write_config(loaded_->registry, model, settings.model.config, parse,
                   {s, priced_stage_layers(s, model, {}), placed_layer_options(s, model), {}});
  return written_config(w, model, settings.model.config, settings.output, false);
}

Evaluation Planner::evaluate(const EvaluateSettings& settings) const {
  const RunScope run(loaded_->options);
  Model model =
      parse_config(loaded_->registry, settings.model.config, parse_options(settings.model));
  const Machine machine = evaluation_machine(loaded_->catalog(), settings.device, settings.devices);
  const auto calibration = calibration_of(settings, *machine.device);
  apply_memory_calibration(model, calibration);
  const StrategyEvaluation e = evaluate_strategy(
      loaded_->registry, model, machine,
      evaluation_request(settings, calibration, swaps_optimizer(*loaded_->options)));
  Evaluation r;
  r.document = evaluation_json(e);
  add_calibration_json(r.document, calibration, model, *machine.device);
  r.refused = refusal_error(e);
  return r;
}

Comparison Planner::compare(const CompareSettings& settings) const {
  const RunScope run(loaded_->options);
  const EvaluateSettings& e = settings.evaluate;
  CompareRequest request;
  request.config = e.model.config;
  request.parse = parse_options(e.model);
  request.device = e.device;
  request.devices = e.devices;
  // The format, and so whether a config and a device are needed, is the
  // core's to tell; a validation CSV is priced with the shipped model, each
  // row on its own device, so neither a calibration nor a fit applies to it.
  const bool validation = is_validation_csv(settings.measured);
  if (validation && (!e.calibration.empty() || !settings.fit.empty()))
    throw UserError("E-USAGE",
                    fmt::format("{} is a validation CSV, priced with the shipped model on each "
                                "row's device: {} and {} do not apply to it (refit the shipped "
                                "overheads with ndsearch-validate)",
                                settings.measured.string(), Setting("calibration").named(),
                                Setting("fit").named()));
  std::optional<AppliedCalibration> calibration;
  const Device* device = nullptr;
  const bool swap = swaps_optimizer(*loaded_->options);
  if (!validation && !e.device.empty()) {
    device = &loaded_->catalog().resolve(e.device, "the device id");
    calibration = calibration_of(e, *device);
    request.calibration = calibration;
  }
  request.base = evaluation_request(e, calibration, swap);
  const ComparedRuns compared =
      compare_measured_file(loaded_->registry, loaded_->catalog(), request, settings.measured);
  Comparison r;
  r.document = compare_json(compared);
  if (device != nullptr)
    add_calibration_json(r.document, calibration,
                         parse_config(loaded_->registry, e.model.config, parse_options(e.model)),
                         *device);
  if (!settings.fit.empty() && compared.priced() > 0)
    r.document["fit"] = fit_json(fit_calibration_file(loaded_->registry, loaded_->catalog(),
                                                      request, compared, settings.fit));
  std::ostringstream csv;
  write_compare_csv(csv, compared);
  r.csv = csv.str();
  r.part_names = measured_part_names(compared);
  if (!settings.output_dir.empty()) {
    create_output_dir(settings.output_dir);
    const std::filesystem::path file = settings.output_dir / "compare_runs.csv";
    write_output_file(file, [&](std::ostream& out) { out << r.csv; });
    r.files.push_back({file, fmt::format("wrote the runs: {}", file.string())});
  }
  if (compared.priced() == 0)
    r.none_priced = UserError(
        "E-COMPARE-NONE-PRICED",
        fmt::format("{}: none of its {} runs could be priced (each is listed with its reason); "
                    "fix the strategies or the settings they share",
                    settings.measured.string(), compared.runs.size()));
  return r;
}

Explanation Planner::explain(const ExplainSettings& settings) const {
  const RunScope run(loaded_->options);
  // Read first, so that a missing library does not cost the pricing.
  const std::optional<ChartLibrary> library =
      settings.report.empty() ? std::nullopt : std::optional<ChartLibrary>(load_chart_library());
  const EvaluateSettings& e = settings.evaluate;
  Model model = parse_config(loaded_->registry, e.model.config, parse_options(e.model));
  ExplainRequest request;
  // No strategy: the config's own, ranked in the default search on its devices.
  const bool own = e.strategy.empty() && e.recompute_mode.empty();
  const uint64_t devices = own ? prepare_own_strategy(model, e.devices) : e.devices;
  request.rank_by_default = own;
  const Machine machine = evaluation_machine(loaded_->catalog(), e.device, devices);
  const auto calibration = calibration_of(e, *machine.device);
  apply_memory_calibration(model, calibration);
  request.evaluation = evaluation_request(e, calibration, swaps_optimizer(*loaded_->options));
  request.evaluation.devices = devices;
  request.space = space_request(settings.space);
  request.beaten_by = settings.beaten_by;
  const StrategyExplanation explanation =
      explain_strategy(loaded_->registry, model, machine, request);
  Explanation r;
  r.document = explanation_json(explanation);
  add_calibration_json(r.document, calibration, model, *machine.device);
  r.refused = refusal_error(explanation.evaluation);
  r.files =
      explain_files(*loaded_, model, machine, request, explanation, r.document, settings, library);
  return r;
}

}  // namespace ndsearch
