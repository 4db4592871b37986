// SPDX-License-Identifier: Apache-2.0
#include "core/output/search_text.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>
#include <ndsearch/sdk/units.hpp>

#include "core/model/model_json.hpp"
#include "core/output/ranking_table.hpp"
#include "core/output/search_header.hpp"
#include "core/output/text_settings.hpp"
#include "core/output/wrapped_text.hpp"
#include "core/strategy/strategy.hpp"

namespace ndsearch {
namespace {

constexpr double kGiB = sdk::kBytesPerGiB;  // sizes print in GiB

std::string fixes_text(const SearchResult& r, size_t i) {
  if (i >= r.closest_fixes.size()) return "";
  if (r.closest_fixes[i].empty())
    return "\n      no single change fits (tried recompute=full, zero=3, mbs=1, 2x devices)";
  return fmt::format("\n      fits with {}", fmt::join(r.closest_fixes[i], "; or "));
}

// The first `count` of the closest misses, each with what makes it fit.
std::string misses_text(const SearchResult& r, double budget, size_t count) {
  std::string out;
  for (size_t i = 0; i < r.closest.size() && i < count; ++i) {
    const PricedCandidate& c = r.closest[i];
    out += fmt::format("    {}: peak {:.2f} GiB, {:.3f} GiB over{}\n", strategy_text(c.strategy),
                       c.peak_bytes / kGiB, (c.peak_bytes - budget) / kGiB, fixes_text(r, i));
  }
  return out;
}

std::string refused_text(const SearchCounts& counts) {
  uint64_t total = 0;
  std::string reasons;
  for (const auto& [id, n] : counts.refused) {
    total += n;
    reasons += fmt::format("{}{} {}", reasons.empty() ? "" : ", ", id, n);
  }
  return reasons.empty() ? "0" : fmt::format("{} ({})", total, reasons);
}

std::string counts_text(const SearchCounts& counts, size_t kept) {
  return fmt::format(
      "tested {}, refused {}, priced {}, fit {}, dropped {} (over the budget){}", counts.tested,
      refused_text(counts), counts.priced, counts.fit, counts.dropped,
      counts.outpaced == 0
          ? std::string()
          : fmt::format(", outpaced {} (over with every layer kept, and already no faster "
                        "than the top {} of their tp, pp, cp: recompute only adds time)",
                        counts.outpaced, kept));
}

// The closest misses the table lists after a search where some strategy
// fits: only when asked (misses > 0, or every one).
void write_misses(std::ostream& out, const SearchResult& r, double budget,
                  const SearchTableSettings& table) {
  if (r.counts.dropped == 0 || r.counts.fit == 0 || (table.misses == 0 && !table.every_miss))
    return;
  out << fmt::format("  {} closest dropped:\n", table.every_miss ? "every" : "the");
  out << misses_text(r, budget, table.every_miss ? r.closest.size() : table.misses);
}

}  // namespace

void write_search_text(std::ostream& out, const SearchTextInput& s,
                       const SearchTableSettings& table, const TextSettings& text) {
  const std::vector<std::string> header =
      search_header_lines(s.model, s.machine, s.request, s.options, s.result);
  for (size_t i = 0; i < header.size(); ++i)
    out << wrapped(spelled(text, header[i]), text.width, i == 0 ? "" : "  ", "    ");
  TableOptions rows;
  rows.width = text.width;
  rows.wide = table.wide;
  rows.columns = table.columns;
  rows.devices = s.options.space.devices;
  rows.spell = text.spell_settings;
  print_ranking_table(out, s.result.ranking, rows);
  if (table.pareto && !s.result.pareto.empty()) {
    out << "  Pareto set (no other strategy is both faster and smaller):\n";
    print_ranking_table(out, s.result.pareto, rows);
  }
  out << wrapped(counts_text(s.result.counts, s.options.keep), text.width, "  ", "    ");
  write_misses(out, s.result, s.options.budget.budget_bytes, table);
  out << fmt::format("  {:.3f} s, {:.0f} candidates/s with {} threads\n", s.result.elapsed_s,
                     candidates_per_s(s.result), s.options.threads);
}

UserError search_no_fit(const SearchResult& r, double budget_bytes) {
  return UserError(
      "E-SEARCH-NO-FIT",
      fmt::format("none of the {} candidates priced fits {:.2f} GiB per device.{}\n{}  Otherwise: "
                  "raise {}, {} or {}.",
                  r.counts.priced, budget_bytes / kGiB,
                  r.closest.empty() ? " Every candidate was refused by a check (counts above)."
                                    : " The closest:",
                  misses_text(r, budget_bytes, r.closest.size()), Setting("devices").named(),
                  Setting("max_memory").named(), Setting("dimensions").named()),
      kExitNoFit);
}

}  // namespace ndsearch
