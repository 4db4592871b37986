// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/recompute_flag.hpp"

namespace ndsearch::cli {

void add_search_recompute_flag(CLI::App& verb, std::vector<std::string>& modes) {
  verb.add_option("--recompute", modes,
                  "Recompute modes to search: off (none), selective, full; auto = all three")
      ->expected(1, 3);
}

void add_strategy_recompute_flag(CLI::App& verb, std::string& mode) {
  verb.add_option("--recompute", mode,
                  "The strategy's recompute mode: off (none), selective or full (as recompute= in "
                  "--strategy)");
}

}  // namespace ndsearch::cli
