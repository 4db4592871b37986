// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/schedule_flag.hpp"

namespace ndsearch::cli {

void add_search_schedule_flag(CLI::App& verb, std::vector<std::string>& schedules) {
  verb.add_option(
          "--schedule", schedules,
          "Pipeline schedules to search: 1f1b, interleaved, gpipe, zb-v, dualpipe, dualpipe-v; "
          "all = every one (default: the config's, else interleaved if vpp > 1, else 1f1b)")
      ->expected(1, 6)
      ->delimiter(',');
}

}  // namespace ndsearch::cli
