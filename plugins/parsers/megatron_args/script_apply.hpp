// SPDX-License-Identifier: Apache-2.0
// script_apply.hpp: a strategy written into a Megatron-LM / MindSpeed launch
// script: the value of each flag the strategy changes edited where it is
// written (in the command, or in the one variable assignment that feeds it),
// flags to add on lines of their own before the first parallelism flag, and
// flags to drop taken out; every other byte of the script kept.
#pragma once

#include <ndsearch/sdk/parser.hpp>

#include <string>

namespace ndsearch::plugins::megatron {

// The script at `path` (its text `text`) with `applied` in it. Throws
// sdk::Error(NDS_UNSUPPORTED) for what Megatron-LM / MindSpeed cannot run
// (ZeRO-2, a schedule it lacks, a split it cannot state) or a flag whose
// value the script computes (the message names the line).
std::string apply_to_script(const std::string& path, const std::string& text,
                            const sdk::AppliedStrategy& applied);

// The flags of `applied`, one per line, for a user's own launch script.
std::string megatron_flags(const sdk::AppliedStrategy& applied);

}  // namespace ndsearch::plugins::megatron
