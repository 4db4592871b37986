// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/recompute_flag.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/model/model_json.hpp"
#include "core/strategy/recompute_names.hpp"
#include "core/support/lowercase.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch::cli {
namespace {

bool states_recompute(const std::string& text) {
  const std::string t = lowercase(text);
  for (size_t at = t.find("recompute"); at != std::string::npos; at = t.find("recompute", at + 1)) {
    const bool starts = at == 0 || t[at - 1] == ',' || t[at - 1] == ' ';
    size_t after = at + 9;
    while (after < t.size() && t[after] == ' ') ++after;
    if (starts && after < t.size() && t[after] == '=') return true;
  }
  return false;
}

}  // namespace

void add_search_recompute_flag(CLI::App& verb, std::vector<std::string>& modes) {
  verb.add_option("--recompute", modes,
                  "Recompute modes to search: off (none), selective, full; auto = all three")
      ->expected(1, 3);
}

void apply_search_recompute(const std::vector<std::string>& modes, std::vector<std::string>& only) {
  if (modes.empty()) return;
  for (const std::string& item : only)
    if (states_recompute(item))
      throw UserError(
          "E-USAGE",
          fmt::format("--recompute and --only \"{}\" both restrict recompute; give one", item));
  std::vector<std::string> names;
  auto add = [&](nds_recompute_mode mode) {
    const std::string name = recompute_name(mode);
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  for (const std::string& m : modes) {
    if (lowercase(m) == "auto") {
      for (nds_recompute_mode mode :
           {NDS_RECOMPUTE_NONE, NDS_RECOMPUTE_SELECTIVE, NDS_RECOMPUTE_FULL})
        add(mode);
    } else if (const auto mode = recompute_mode_named(m)) {
      add(*mode);
    } else {
      throw UserError("E-USAGE",
                      fmt::format("--recompute {}: not a recompute mode; give {}, or auto "
                                  "(all three)",
                                  m, kRecomputeModeNames));
    }
  }
  std::string item = "recompute=";
  for (size_t i = 0; i < names.size(); ++i) item += (i ? "," : "") + names[i];
  only.push_back(item);
}

void add_strategy_recompute_flag(CLI::App& verb, std::string& mode) {
  verb.add_option("--recompute", mode,
                  "The strategy's recompute mode: off (none), selective or full (as recompute= in "
                  "--strategy)");
}

void apply_strategy_recompute(const std::string& mode, std::string& strategy) {
  if (mode.empty()) return;
  if (lowercase(mode) == "auto")
    throw UserError("E-USAGE",
                    "--recompute auto names all three modes, and one strategy has one; give off, "
                    "selective or full here, or search them (search --recompute auto)");
  const auto named = recompute_mode_named(mode);
  if (!named)
    throw UserError("E-USAGE", fmt::format("--recompute {}: not a recompute mode; give {}", mode,
                                           kRecomputeModeNames));
  if (states_recompute(strategy))
    throw UserError("E-USAGE",
                    fmt::format("--recompute and --strategy \"{}\" both give the recompute mode; "
                                "give one",
                                strategy));
  strategy += (strategy.empty() ? "" : ",") + std::string("recompute=") + recompute_name(*named);
}

}  // namespace ndsearch::cli
