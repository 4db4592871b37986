// SPDX-License-Identifier: Apache-2.0
// run_command.hpp: runs a command line through the shell and captures what it
// printed, for end-to-end tests of the CLI.
#pragma once

#include <string>

namespace ndsearch::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;  // stdout
  std::string err;  // stderr
};

CommandResult run_command(const std::string& command_line);

// Runs the command line with stdin, stdout and stderr on a new
// pseudo-terminal, as in a user's terminal; `out` holds everything it wrote
// there (the terminal turns "\n" into "\r\n"), `err` stays empty.
CommandResult run_in_terminal(const std::string& command_line);

}  // namespace ndsearch::test
