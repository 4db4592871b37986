// SPDX-License-Identifier: Apache-2.0
// unknown_verb.hpp: "unknown command 'evl'; did you mean 'eval'?" for a
// command line whose verb is not one of ndsearch's (CLI11 says only "A
// subcommand is required" there), and "unknown flag '--tpo'; did you mean
// '--top'?" for a flag the verb does not have.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace ndsearch::cli {

// The message for the first word of argv that is neither a global option,
// an option's value nor a verb of `app`; nullopt when the verb is known
// (or there is no word at all).
std::optional<std::string> unknown_verb_message(const CLI::App& app, int argc,
                                                const char* const* argv);

// The message for the first word of argv that looks like a flag (-x, --xyz,
// --xyz=value) and is neither a flag of its verb nor a global one, naming
// the closest flag; nullopt when every flag is known.
std::optional<std::string> unknown_flag_message(const CLI::App& app, int argc,
                                                const char* const* argv);

}  // namespace ndsearch::cli
