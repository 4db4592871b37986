// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/calibration_flags.hpp"

namespace ndsearch::cli {

void add_calibration_flags(CLI::App& verb, std::filesystem::path& file, bool& force) {
  verb.add_option("--calibration", file,
                  "A calibration file (compare --fit writes one) applied on top of the shipped "
                  "trainer overheads");
  verb.add_flag("--force", force, "Apply a --calibration fitted on another device anyway");
}

}  // namespace ndsearch::cli
