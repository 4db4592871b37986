// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/shared_flags.hpp"

#include <ndsearch/core/strategy_vocabulary.hpp>

namespace ndsearch::cli {

CLI::Option* add_device_flag(CLI::App& verb, std::string& device, const std::string& note) {
  return verb.add_option("-A,--device", device,
                         "The accelerator: an id of `ndsearch hardware`, or A2 / A3" +
                             (note.empty() ? "" : " (" + note + ")"));
}

void add_memory_flags(CLI::App& verb, std::optional<std::string>& max_memory,
                      std::optional<std::string>& reserve_mem) {
  verb.add_option("-M,--max-memory", max_memory,
                  "Device memory to use instead of the device's (58GB = 58 GiB)");
  verb.add_option("--reserve-mem", reserve_mem, "Memory to keep free beside the runtime's reserve");
}

void add_cp_algo_flag(CLI::App& verb, std::string& cp_algo) {
  verb.add_option("--cp-algo", cp_algo,
                  "Context-parallel attention: ring, ulysses, hybrid, allgather-kv (default: the "
                  "config's, else ring)");
}

CLI::Option* add_strategy_flag(CLI::App& verb, std::string& strategy, const std::string& unset) {
  return verb.add_option("--strategy", strategy,
                         "KEY=VALUE pairs of " + strategy_key_words() +
                             ", e.g. \"tp=4,pp=4,mbs=1,recompute=full\"; " + unset);
}

}  // namespace ndsearch::cli
