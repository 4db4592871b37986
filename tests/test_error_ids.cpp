// SPDX-License-Identifier: Apache-2.0
// test_error_ids.cpp: docs/cli.md's error table lists every error and warning
// id the sources can print. The ids are read from the string literals of
// core/, hosts/, plugins/ and sdk/ (comments skipped), the table from the
// "## Error ids" section: an id added anywhere without its row fails here,
// naming the id and the file that prints it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The contents of every string literal of a C or C++ source, comments and
// character literals skipped (a raw string's delimiters are not handled:
// the sources hold none with an id).
std::vector<std::string> string_literals(const std::string& code) {
  std::vector<std::string> literals;
  for (size_t i = 0; i < code.size(); ++i) {
    if (code.compare(i, 2, "//") == 0) {
      i = code.find('\n', i);
      if (i == std::string::npos) break;
    } else if (code.compare(i, 2, "/*") == 0) {
      i = code.find("*/", i + 2);
      if (i == std::string::npos) break;
      ++i;
    } else if (code[i] == '"' || code[i] == '\'') {
      const char quote = code[i];
      std::string literal;
      for (++i; i < code.size() && code[i] != quote; ++i) {
        if (code[i] == '\\' && i + 1 < code.size()) literal += code[i++];
        literal += code[i];
      }
      if (quote == '"') literals.push_back(literal);
    }
  }
  return literals;
}

const std::regex kId(R"(\b[EW]-[A-Z0-9]+(-[A-Z0-9]+)*\b)");

// id -> a file that prints it (relative to the source tree).
std::map<std::string, std::string> ids_in_sources() {
  const fs::path root = NDS_TEST_SOURCE_DIR;
  const std::set<std::string> extensions = {".c", ".cc", ".cpp", ".h", ".hpp", ".inc"};
  std::map<std::string, std::string> ids;
  for (const char* dir : {"core", "hosts", "plugins", "sdk"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      if (!entry.is_regular_file() || extensions.count(entry.path().extension().string()) == 0)
        continue;
      for (const std::string& literal : string_literals(read(entry.path())))
        for (std::sregex_iterator it(literal.begin(), literal.end(), kId), end; it != end; ++it)
          ids.emplace(it->str(), fs::relative(entry.path(), root).string());
    }
  }
  return ids;
}

// The ids in the first column of docs/cli.md's "## Error ids" table.
std::set<std::string> ids_in_docs() {
  const std::string doc = read(fs::path(NDS_TEST_SOURCE_DIR) / "docs" / "cli.md");
  const size_t section = doc.find("\n## Error ids");
  REQUIRE(section != std::string::npos);
  std::set<std::string> ids;
  std::istringstream lines(doc.substr(section + 1));
  std::string line;
  std::getline(lines, line);  // the heading
  while (std::getline(lines, line) && line.rfind("## ", 0) != 0) {
    if (line.rfind("|", 0) != 0) continue;
    const std::string first_cell = line.substr(1, line.find('|', 1) - 1);
    for (std::sregex_iterator it(first_cell.begin(), first_cell.end(), kId), end; it != end; ++it)
      ids.insert(it->str());
  }
  return ids;
}

}  // namespace

TEST_CASE("docs/cli.md's error table lists every error and warning id the sources print") {
  const auto printed = ids_in_sources();
  const auto documented = ids_in_docs();
  // A floor, not the count: the table held 42 E- ids before issue 11, the
  // sources far more than a handful; an empty set means the scan broke.
  REQUIRE(printed.size() > 40);
  REQUIRE(documented.size() > 40);
  for (const auto& [id, file] : printed) {
    INFO(id << " (printed by " << file << ") has no row in docs/cli.md's \"## Error ids\" table");
    CHECK(documented.count(id) == 1);
  }
}

TEST_CASE("Every id of docs/cli.md's error table is one the sources can print") {
  const auto printed = ids_in_sources();
  for (const std::string& id : ids_in_docs()) {
    INFO(id << " is documented in docs/cli.md but no source prints it: remove its row or restore "
               "the error");
    CHECK(printed.count(id) == 1);
  }
}

TEST_CASE("The id scan reads literals and skips comments") {
  // Hand-written: one id in a literal, one in each kind of comment, one in a
  // literal holding an escaped quote.
  const std::string code =
      "// \"E-IN-COMMENT\"\n/* \"E-IN-BLOCK\" */ f(\"E-REAL\"); g(\"a \\\" W-AFTER-QUOTE\");";
  const auto literals = string_literals(code);
  REQUIRE(literals.size() == 2);
  CHECK(literals[0] == "E-REAL");
  CHECK(literals[1].find("W-AFTER-QUOTE") != std::string::npos);
}
