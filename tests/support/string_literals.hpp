// SPDX-License-Identifier: Apache-2.0
// string_literals.hpp: the string literals of a C or C++ source, for the tests
// that read what the program prints without its comments.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ndsearch::test {

struct Literal {
  size_t line;  // where it starts, from 1
  std::string text;
};

// Every string literal of `source`, each with its line, comments skipped;
// raw strings (R"x(...)x") and digit separators (10'000) read as C++ does.
// Escapes are kept as written (\" stays two characters).
std::vector<Literal> string_literals(const std::string& source);

}  // namespace ndsearch::test
