// SPDX-License-Identifier: Apache-2.0
// validate_call.cpp: `ndsearch-validate`'s one wiring: every published run
// of the folder priced with this Planner's plugins, the fits when asked,
// and the texts the tool prints and writes.
#include <ndsearch/core/planner.hpp>

#include <fmt/format.h>

#include "core/fit/validation_report.hpp"
#include "core/planner/loaded.hpp"
#include "core/plugin_host/run_options.hpp"
#include "core/price/time/time_model.hpp"

namespace ndsearch {
namespace {

// "name  step 1.234 s: forward 30.0% ... | hidden: dp 4.0% ...", a line per priced row.
std::string parts_text(const ValidationReport& report) {
  std::string out;
  for (const RowReport& r : report.reports) {
    if (r.result.time.step_s <= 0) continue;  // no candidate priced
    std::string line =
        fmt::format("{:<18} step {:8.3f} s:", r.result.row->name, r.result.time.step_s);
    for (const auto& [name, member] : kTimeParts)
      line += fmt::format(" {} {:.1f}%", name,
                          100 * r.result.time.parts.*member / r.result.time.step_s);
    line += " | hidden:";
    for (const auto& [name, member] : kHiddenParts)
      line += fmt::format(" {} {:.1f}%", name,
                          100 * r.result.time.hidden.*member / r.result.time.step_s);
    out += line + "\n";
  }
  return out;
}

}  // namespace

Validation Planner::validate(const ValidationSettings& settings) const {
  const RunScope run(loaded_->options);
  const ValidationReport report = run_validation(loaded_->registry, loaded_->catalog(),
                                                 settings.folder, {settings.fit, settings.search});
  return {validation_markdown(report), parts_text(report), fitted_overheads_source(report),
          fitted_allocator_source(report.memory)};
}

}  // namespace ndsearch
