// SPDX-License-Identifier: Apache-2.0
// mindspeed_refusals.hpp: the settings MindSpeed-LLM's argument checks
// refuse, so that a script asking for them does not run there. Each is a
// warning naming what ndsearch prices instead, an error under --strict.
#pragma once

#include <ndsearch/sdk/parser.hpp>

#include "plugins/parsers/megatron_args/arguments.hpp"

namespace ndsearch::plugins::megatron {

// Reports, for a MindSpeed(-LLM) script, each combination of arguments its
// validate_args refuses (modellink/arguments.py at v1.0.RC3.0,
// mindspeed_llm/training/arguments.py since).
void report_mindspeed_refusals(const Arguments& args, sdk::Builder& b);

}  // namespace ndsearch::plugins::megatron
