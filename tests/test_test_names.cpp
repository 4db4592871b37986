// SPDX-License-Identifier: Apache-2.0
// test_test_names.cpp: every TEST_CASE name can be run by CTest. The
// discovery (catch_discover_tests) makes one CTest test per name, passed as a
// CMake list: a ';' in a name splits it, and the test CTest runs then
// matches no case and passes without running anything (a stale fp8
// expectation in test_memory.cpp went unseen that way).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

// The names of the TEST_CASEs of `source`: its adjacent string literals joined.
std::vector<std::string> test_names(const std::string& source) {
  std::vector<std::string> names;
  static const std::regex literal(R"re(^\s*"((?:[^"\\]|\\.)*)")re");
  const std::string macro = "\nTEST_CASE(";  // at the start of a line: not in a string
  for (size_t at = source.find(macro); at != std::string::npos; at = source.find(macro, at + 1)) {
    std::string rest = source.substr(at + macro.size(), 2000), name;
    std::smatch m;
    while (std::regex_search(rest, m, literal)) {
      name += m[1].str();
      rest = m.suffix().str();
    }
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

}  // namespace

TEST_CASE("No test name holds a character that CTest's discovery splits or drops") {
  size_t seen = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(NDS_TEST_SOURCE_DIR) / "tests")) {
    if (entry.path().extension() != ".cpp") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    for (const std::string& name : test_names(text.str())) {
      ++seen;
      INFO(entry.path().string() << ": \"" << name << "\"");
      CHECK(name.find(';') == std::string::npos);
    }
  }
  CHECK(seen > 250);  // every file was read: the suite has ~300 cases
}
