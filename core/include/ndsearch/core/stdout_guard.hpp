// SPDX-License-Identifier: Apache-2.0
// stdout_guard.hpp: keeps a program's standard output for the program alone.
// Plugins run in-process and may print (printf, write(1, ...)); a line of theirs
// in the middle of `--format json` corrupts it. After the guard, descriptor 1
// (what plugins reach) is a copy of stderr, and std::cout writes to a private
// copy of the original stdout. For programs that write with std::cout only
// (the CLI); a library host keeps its stdout as it is.
#pragma once

namespace ndsearch {

// Idempotent; call before any plugin is loaded. Returns false (and changes
// nothing) when the descriptors cannot be duplicated.
bool keep_stdout_from_plugins();

// The descriptor of the program's real stdout: the private copy once guarded,
// else 1. Output written without std::cout (write(2), a FILE*) must use it.
int host_stdout_fd() noexcept;

}  // namespace ndsearch
