// SPDX-License-Identifier: Apache-2.0
#include "core/output/search_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/model/model_json.hpp"
#include "core/model/strategy_keys.hpp"
#include "core/support/byte_counts.hpp"

namespace ndsearch {
namespace {

// The strategy's columns: its keys' names, in the table's order (built on
// first use: a static std::string could throw before main).
const std::string& strategy_header() {
  static const std::string header = fmt::format("{}", fmt::join(strategy_key_names(), ","));
  return header;
}
constexpr const char* kTermsHeader =
    "params_bytes,grads_bytes,optimizer_bytes,activations_bytes,comm_buffers_bytes,other_bytes";
// step_s, the exposed parts in kTimeParts' order (forward_s ... overhead_s),
// then the hidden communication (hidden_tp_s ... hidden_pp_s).
const std::string kTimeHeader = [] {
  std::string header = "step_s";
  for (const auto& [name, member] : kTimeParts) header += fmt::format(",{}_s", name);
  for (const auto& [name, member] : kHiddenParts) header += fmt::format(",hidden_{}_s", name);
  return header + ",mfu,hfu,tokens_per_s";
}();

// Each key's value, as its column holds it; an unknown name is an empty cell.
std::string strategy_cells(const nds_strategy& s) {
  std::string cells;
  for (const StrategyKey& k : kStrategyKeys) {
    const int32_t v = key_value(s, k);
    cells +=
        fmt::format("{}{}", cells.empty() ? "" : ",",
                    k.field != nullptr ? std::to_string(v) : key_value_text(k, v).value_or(""));
  }
  return cells;
}

// Bytes as whole numbers (the passes sum fractions of bytes), as eval prints them.
std::string terms_cells(const PricedCandidate& c) {
  std::string cells;
  for (double bytes : c.peak_terms)
    cells += fmt::format("{}{}", cells.empty() ? "" : ",", whole_bytes(bytes));
  return cells;
}

std::string time_cells(const TimeEstimate& e) {
  // {} prints the shortest text that reads back to the same double.
  std::string cells = fmt::format("{}", e.step_s);
  for (const auto& [name, member] : kTimeParts) cells += fmt::format(",{}", e.parts.*member);
  for (const auto& [name, member] : kHiddenParts) cells += fmt::format(",{}", e.hidden.*member);
  return cells + fmt::format(",{},{},{}", e.mfu, e.hfu, e.tokens_per_s);
}

}  // namespace

void write_ranking_csv(std::ostream& out, const std::vector<PricedCandidate>& ranking) {
  out << "rank," << strategy_header() << ",peak_bytes," << kTermsHeader << "," << kTimeHeader
      << "\n";
  for (size_t i = 0; i < ranking.size(); ++i) {
    const PricedCandidate& c = ranking[i];
    out << fmt::format("{},{},{},{},{}\n", i + 1, strategy_cells(c.strategy),
                       whole_bytes(c.peak_bytes), terms_cells(c), time_cells(c.time));
  }
}

void write_dropped_csv(std::ostream& out, const std::vector<PricedCandidate>& dropped,
                       double budget_bytes) {
  out << strategy_header() << ",peak_bytes,miss_bytes," << kTermsHeader << "\n";
  for (const PricedCandidate& c : dropped)
    out << fmt::format("{},{},{},{}\n", strategy_cells(c.strategy), whole_bytes(c.peak_bytes),
                       whole_bytes(c.peak_bytes - budget_bytes), terms_cells(c));
}

void write_potentials_csv(std::ostream& out, const std::vector<RecomputePotential>& rows) {
  out << "rank,stage,option,layers,saved_bytes,extra_s\n";
  for (const RecomputePotential& p : rows)
    out << fmt::format("{},{},{},{},{},{}\n", p.rank, p.stage, layer_option_name(p.option),
                       p.layers, whole_bytes(p.saved_bytes), p.extra_s);
}

void write_priced_csv(std::ostream& out, const SearchResult& result, double budget_bytes) {
  std::vector<std::pair<const PricedCandidate*, bool>> all;  // (candidate, fits)
  for (const PricedCandidate& c : result.ranking) all.emplace_back(&c, true);
  for (const PricedCandidate& c : result.closest) all.emplace_back(&c, false);
  std::sort(all.begin(), all.end(),
            [](const auto& a, const auto& b) { return a.first->index < b.first->index; });
  out << strategy_header() << ",fits,peak_bytes,miss_bytes," << kTermsHeader << "," << kTimeHeader
      << "\n";
  for (const auto& [c, fits] : all)
    out << fmt::format("{},{},{},{},{},{}\n", strategy_cells(c->strategy), fits ? 1 : 0,
                       whole_bytes(c->peak_bytes),
                       std::max<int64_t>(0, whole_bytes(c->peak_bytes - budget_bytes)),
                       terms_cells(*c), fits ? time_cells(c->time) : std::string(",,,,,,,,,,,,,"));
}

}  // namespace ndsearch
