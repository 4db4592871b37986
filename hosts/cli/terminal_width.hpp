// SPDX-License-Identifier: Apache-2.0
// terminal_width.hpp: how the CLI lays out the results' text: the width of
// the terminal it prints to, and its flags for the settings core text names.
#pragma once

#include <ndsearch/core/results.hpp>

#include <cstddef>

namespace ndsearch::cli {

// The width of the terminal stdout writes to, or 120 when it is not a
// terminal (a file, a pipe, a test).
size_t stdout_width();

// The text settings of what the CLI prints: the terminal's width, the flags.
TextSettings cli_text();

}  // namespace ndsearch::cli
