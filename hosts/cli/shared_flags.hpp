// SPDX-License-Identifier: Apache-2.0
// shared_flags.hpp: the flags several verbs share, each defined once here
// with one help text: -A, -M and --reserve-mem, --cp-algo, --strategy. (-d is
// model_options.hpp's, the pricing and recompute flags have their files.)
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace ndsearch::cli {

// -A/--device; `note` adds what differs for the verb ("not with a validation CSV").
CLI::Option* add_device_flag(CLI::App& verb, std::string& device, const std::string& note = "");

// -M and --reserve-mem into `max_memory` and `reserve_mem`.
void add_memory_flags(CLI::App& verb, std::optional<std::string>& max_memory,
                      std::optional<std::string>& reserve_mem);

// --cp-algo into `cp_algo`.
void add_cp_algo_flag(CLI::App& verb, std::string& cp_algo);

// --strategy as KEY=VALUE pairs of the strategy keys, into `strategy`;
// `unset` says what the verb does with the keys (or the whole strategy)
// left out.
CLI::Option* add_strategy_flag(CLI::App& verb, std::string& strategy, const std::string& unset);

}  // namespace ndsearch::cli
