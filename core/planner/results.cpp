// SPDX-License-Identifier: Apache-2.0
// results.cpp: each result's text, written from its document (or, for the
// search, from the rows it kept), as every host shows it.
#include <ndsearch/core/results.hpp>

#include "core/output/compare_text.hpp"
#include "core/output/evaluation_text.hpp"
#include "core/output/explain_text.hpp"
#include "core/output/search_csv.hpp"
#include "core/output/search_json.hpp"
#include "core/output/search_text.hpp"
#include "core/planner/search_report_data.hpp"
#include "core/plugin_host/run_options.hpp"

#include <sstream>

namespace ndsearch {

void Evaluation::write_text(std::ostream& out, const TextSettings& text) const {
  write_evaluation_text(out, document, text);
}

void Explanation::write_text(std::ostream& out, const TextSettings& text) const {
  write_explanation_text(out, document, text);
}

void Comparison::write_text(std::ostream& out, const TextSettings& text) const {
  write_comparison_text(out, document, part_names, text);
}

SearchReport::SearchReport(std::shared_ptr<const Data> data) : data_(std::move(data)) {}

bool SearchReport::fits() const {
  return data_->result.counts.fit > 0;
}

UserError SearchReport::no_fit() const {
  return search_no_fit(data_->result, data_->options.budget.budget_bytes);
}

void SearchReport::write_json(std::ostream& out) const {
  const RunScope run(data_->loaded->options);
  Model model = data_->model;  // priced again per row; the report stays as it was
  write_search_json(out, data_->loaded->registry, model, data_->machine, data_->request,
                    data_->options, data_->result);
}

nlohmann::json SearchReport::to_json() const {
  std::ostringstream text;
  write_json(text);
  return nlohmann::json::parse(text.str());
}

void SearchReport::write_csv(std::ostream& out) const {
  write_ranking_csv(out, data_->result.ranking);
}

void SearchReport::write_text(std::ostream& out, const TextSettings& text) const {
  const Data& d = *data_;
  write_search_text(out, {d.model, d.machine, d.request, d.options, d.result}, d.table, text);
}

}  // namespace ndsearch
