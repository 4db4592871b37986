// SPDX-License-Identifier: Apache-2.0
// expected_errors.hpp: what a harness accepts as a normal outcome. A
// UserError is how the core refuses bad input (exit 2 for the user); anything
// else that escapes is a finding, and so is a plugin exception that the SDK
// had to catch ("plugin threw: ...", or E-PARSE-FAILED from a parse): the
// issue counts both as bugs.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string_view>

#include "core/support/user_error.hpp"

namespace ndsearch::fuzz {

// The message the SDK gives an exception it caught at the C ABI
// (sdk/plugin.hpp), which the core passes on unchanged. Only its start
// counts: messages quote the input, and the fuzzer learns the words.
inline bool escaped_from_plugin(std::string_view message) {
  return message.substr(0, 12) == "plugin threw";
}

[[noreturn]] inline void report_finding(const char* kind, const char* message) {
  std::fprintf(stderr, "nds fuzz finding: %s: %s\n", kind, message);
  std::abort();  // libFuzzer saves the input as a crash
}

// Runs `body`; returns normally for success or a UserError, aborts otherwise.
template <typename Body>
void expect_only_user_errors(Body&& body) {
  try {
    body();
  } catch (const UserError& e) {
    if (escaped_from_plugin(e.what())) report_finding(e.id().c_str(), e.what());
    if (e.id() == "E-INTERNAL") report_finding("E-INTERNAL", e.what());
    // The SDK's parse boundary turns an exception a parser let escape into
    // E-PARSE-FAILED naming the file: clean for the user, a bug all the same.
    if (e.id() == "E-PARSE-FAILED") report_finding("E-PARSE-FAILED", e.what());
  } catch (const std::exception& e) {
    report_finding("unexpected exception", e.what());
  } catch (...) {
    report_finding("unexpected exception", "not a std::exception");
  }
}

}  // namespace ndsearch::fuzz
