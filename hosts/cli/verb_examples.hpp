// SPDX-License-Identifier: Apache-2.0
// verb_examples.hpp: the two example command lines at the end of each verb's
// --help (and of the program's), kept in one table so that one test runs
// them all (tests/test_verb_examples.cpp): an example that stops working
// fails the build's tests.
#pragma once

#include <CLI/CLI.hpp>

#include <array>
#include <string_view>
#include <vector>

namespace ndsearch::cli {

struct VerbExamples {
  std::string_view verb;  // "" (the program), "eval", "plugins list", ...
  std::array<std::string_view, 2>
      examples;  // whole command lines, run from a source checkout's root
};

// Every verb's examples, the program's first.
const std::vector<VerbExamples>& verb_examples();

// Ends the --help of `app` and of each of its verbs (and their verbs) with an
// "Examples:" footer of the table's two lines. Throws std::logic_error for a
// verb the table has no row for: each verb has its examples.
void add_verb_examples(CLI::App& app);

}  // namespace ndsearch::cli
