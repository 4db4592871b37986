// SPDX-License-Identifier: Apache-2.0
// validation.hpp: published training runs (validation/*.csv, each row the
// facts of one run and the launch script we wrote for it) priced by the time
// model and compared with what was measured, under one rule for what the
// source does not publish.
#pragma once

#include <ndsearch/nds_model.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/input/device_catalog.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/price/time/time_model.hpp"
#include "core/strategy/placement.hpp"
#include "core/validation/published_csv.hpp"

namespace ndsearch {

// What a source publishes, and how we compute the same from an estimate.
enum class Metric {
  mfu,                 // model FLOPs utilisation (DESIGN §8.7 convention)
  hfu_tflops_per_gpu,  // FLOP/s per GPU counting the recomputed forward (Narayanan et al. 2021 eq.
                       // 3)
  model_tflops_per_gpu,  // model FLOP/s per GPU
  tokens_per_s_per_gpu,
};

struct ValidationRow : PublishedRun {
  Metric metric = Metric::mfu;
  double published = 0;
  // What the trainer of the run could do, as --only restricts the search
  // ("sp=0 zero=0" for a trainer before sequence parallelism); empty: nothing.
  std::string search_only;
};

// Reads every *.csv of `folder` (sorted by name), rows in file order. Throws
// UserError E-VALIDATION-CSV naming the file, line and column for a row that
// does not read.
std::vector<ValidationRow> read_validation_rows(const std::filesystem::path& folder);
// The rows of one validation CSV, with the same errors.
std::vector<ValidationRow> read_validation_file(const std::filesystem::path& file);
// Whether the header row (split into cells) is a validation CSV's.
bool is_validation_header(const std::vector<std::string>& cells);

struct RowResult {
  const ValidationRow* row = nullptr;
  std::string trainer;      // trainer_family of its config
  nds_strategy strategy{};  // the published keys, the rest by the rule
  bool fits = false;        // in memory, under our model
  double peak_bytes = 0, budget_bytes = 0;
  TimeEstimate time;
  double predicted = 0;  // in the row's metric
  // The relative error of the step time, predicted / measured - 1, the one
  // error every report uses (compare's too). The measured step is the one
  // the published metric implies: every metric here is inversely
  // proportional to the step time, so measured_step = predicted_step *
  // predicted / published, and the error is published / predicted - 1.
  double error = 0;
};

// The step a published run took, as its metric implies (see RowResult::error);
// NaN when the row was not priced.
double measured_step_s(const RowResult& result);

// One row's model, device and search-space facts, parsed once and priced as
// often as the fitter needs.
class RowPricer {
 public:
  RowPricer(const PluginRegistry& registry, const DeviceCatalog& devices, const ValidationRow& row);
  // The rule for what the source does not publish: mbs 1; the recompute mode
  // the least that fits (none, then selective, then full); vpp the one the
  // time model ranks best within the search's bound, min(4, pp, layers /
  // pp), among those the checks accept (1 when pp is 1).
  RowResult price(const std::optional<TrainerOverheads>& overheads) const;
  ~RowPricer();
  RowPricer(const RowPricer&) = delete;
  RowPricer& operator=(const RowPricer&) = delete;
  Model& model() { return model_; }
  const Model& model() const { return model_; }
  const Device& device() const { return device_; }
  const ValidationRow& row() const { return row_; }

 private:
  struct Candidate {
    Placement placement;
    double peak = 0;
    bool fits = false;
  };
  void place_candidates();

  const PluginRegistry& registry_;
  const ValidationRow& row_;
  const Device& device_;
  Model model_;
  std::unique_ptr<CpModel> cp_;
  double budget_bytes_ = 0;
  std::vector<Candidate>
      candidates_;  // per vpp: the least recompute that fits, and those that did not
};

// An estimate in `metric` for a run on `devices` devices.
double metric_value(Metric metric, const TimeEstimate& estimate, uint64_t devices);

// The metric's name as the CSV spells it.
const char* metric_name(Metric metric);

}  // namespace ndsearch
