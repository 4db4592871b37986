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
  for (const auto& entry :
       fs::recursive_directory_iterator(fs::path(NDS_TEST_SOURCE_DIR) / "tests")) {
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

TEST_CASE(
    "Every line of the release-only list still names a test, so a renamed one stays out of ASan") {
  // scripts/test.sh passes tests/release_only_tests.txt to the sanitizer
  // phase's `ctest -E` as regexes. A renamed test no line matches runs
  // under ASan again, unseen: "At most three fitted factors" outlived its
  // rename to "four" and cost that phase a minute.
  std::vector<std::string> names;
  static const std::regex add_test(R"(add_test\(NAME ([^\s)]+))");
  for (const auto& entry :
       fs::recursive_directory_iterator(fs::path(NDS_TEST_SOURCE_DIR) / "tests")) {
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    if (entry.path().extension() == ".cpp") {
      for (std::string& name : test_names(source)) names.push_back(std::move(name));
    } else if (entry.path().filename() == "CMakeLists.txt") {
      for (std::sregex_iterator m(source.begin(), source.end(), add_test), end; m != end; ++m)
        names.push_back((*m)[1].str());
    }
  }
  std::ifstream list(fs::path(NDS_TEST_SOURCE_DIR) / "tests" / "release_only_tests.txt");
  size_t lines = 0;
  for (std::string line; std::getline(list, line);) {
    if (line.empty()) continue;
    ++lines;
    const std::regex pattern(line);
    bool named = false;
    for (const std::string& name : names) named = named || std::regex_search(name, pattern);
    INFO(line);
    CHECK(named);
  }
  CHECK(lines >= 10);
}
