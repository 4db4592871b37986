// SPDX-License-Identifier: Apache-2.0
#include "core/planner/written_config.hpp"

#include <fmt/format.h>

#include <sstream>

#include "core/output/apply_json.hpp"
#include "core/output/output_files.hpp"
#include "core/strategy/strategy.hpp"

namespace ndsearch {
namespace {

// A config with no trainer: what to write in each trainer's config instead.
std::string fragments_text(const ConfigWrite& w, const std::filesystem::path& config) {
  std::string text =
      fmt::format("# {} states no trainer: the strategy {}\n# as each trainer writes it.\n",
                  config.string(), strategy_text(w.strategy));
  for (const ConfigFragment& f : w.fragments)
    text += f.refused.empty()
                ? fmt::format("\n# {} ({})\n{}", f.format, f.parser, f.text)
                : fmt::format("\n# {} ({}): cannot run it: {}\n", f.format, f.parser, f.refused);
  return text;
}

}  // namespace

WrittenConfig written_config(const ConfigWrite& w, const Model& model,
                             const std::filesystem::path& config,
                             const std::filesystem::path& output, bool priced_as_ranked) {
  WrittenConfig r;
  r.document = written_config_json(w, model);
  r.fragments = !w.fragments.empty();
  r.text = r.fragments ? fragments_text(w, config) : w.text;
  r.strategy_text = strategy_text(w.strategy);
  r.key_changes = changes_from_config(model, w.strategy);
  for (const DiffLine& d : w.changes) r.changes.push_back({d.kind, d.line, d.text});
  if (output.empty()) return r;
  write_output_file(output, [&](std::ostream& o) { o << r.text; });
  r.file = WrittenFile{
      output, r.fragments
                  ? fmt::format("wrote {}: the strategy as the trainers that run it write it",
                                output.string())
                  : fmt::format("wrote {} ({} with the strategy applied; read back by {} and "
                                "checked{})",
                                output.string(), config.string(), w.parser,
                                priced_as_ranked ? ": it prices as the ranked job" : "")};
  return r;
}

void WrittenConfig::write_changes(std::ostream& to) const {
  to << fmt::format("strategy: {}\n", strategy_text);
  to << fmt::format("changes from the config: {}\n",
                    key_changes.empty() ? "none" : fmt::format("{}", fmt::join(key_changes, ", ")));
  if (changes.empty()) {
    to << "lines changed: none\n";
    return;
  }
  to << "lines changed:\n";
  for (const ChangedLine& d : changes)
    to << fmt::format("  {} {:>5}: {}\n", d.kind, d.line, d.text);
}

}  // namespace ndsearch
