// SPDX-License-Identifier: Apache-2.0
// test_no_outside_citations.cpp: nothing a user reads cites a document the
// user does not have. The design notes and the reference system's notes live
// beside the repository, not in it: a message, a help text, a JSON value or
// a page of docs/ that says "DESIGN §8.2" or "reference §3.4" points nowhere.
// Read: the string literals (not the comments) of core/, hosts/, plugins/ and
// sdk/, the Python package's text, and every line of the Markdown pages
// (docs/, README.md, examples/README.md, abi/*.md). Citing a published paper
// by section ("Narayanan et al. 2021 §2.2") stays fine.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tests/support/string_literals.hpp"

namespace fs = std::filesystem;
using ndsearch::test::Literal;
using ndsearch::test::string_literals;

namespace {

// The citations of documents outside the repository, in lower case (the
// text is lowered before the search: "Reference §3.4" is one too).
const std::vector<std::string_view> kOutside = {"design §", "design.md", "reference §",
                                                "nd_behaviour", "../shared"};

std::string lowered(std::string_view text) {
  std::string out(text);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// The first outside citation in `text`, or empty.
std::string outside_citation(std::string_view text) {
  const std::string low = lowered(text);
  for (std::string_view c : kOutside)
    if (low.find(c) != std::string::npos) return std::string(c);
  return {};
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The lines of a Python file without their comments (a '#' outside quotes
// starts one): its strings and docstrings are what help() and errors show.
std::vector<Literal> python_text(const std::string& source) {
  std::vector<Literal> out;
  std::istringstream in(source);
  std::string line;
  for (size_t n = 1; std::getline(in, line); ++n) {
    char quote = 0;
    size_t end = line.size();
    for (size_t i = 0; i < line.size(); ++i) {
      if (quote != 0) {
        if (line[i] == '\\')
          ++i;
        else if (line[i] == quote)
          quote = 0;
      } else if (line[i] == '"' || line[i] == '\'') {
        quote = line[i];
      } else if (line[i] == '#') {
        end = i;
        break;
      }
    }
    out.push_back({n, line.substr(0, end)});
  }
  return out;
}

struct Finding {
  std::string where;  // file:line
  std::string text;
  std::string citation;
};

std::vector<Finding> scan_sources(const fs::path& root) {
  std::vector<Finding> found;
  for (const char* part : {"core", "hosts", "plugins", "sdk"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / part)) {
      if (!entry.is_regular_file()) continue;
      const std::string ext = entry.path().extension().string();
      std::vector<Literal> texts;
      if (ext == ".cpp" || ext == ".hpp" || ext == ".c" || ext == ".h" || ext == ".inc")
        texts = string_literals(read_file(entry.path()));
      else if (ext == ".py")
        texts = python_text(read_file(entry.path()));
      else
        continue;
      const std::string relative = fs::relative(entry.path(), root).generic_string();
      for (const Literal& l : texts)
        if (const std::string c = outside_citation(l.text); !c.empty())
          found.push_back({relative + ":" + std::to_string(l.line), l.text, c});
    }
  }
  return found;
}

std::vector<fs::path> markdown_pages(const fs::path& root) {
  std::vector<fs::path> pages = {root / "README.md", root / "examples" / "README.md"};
  for (const char* dir : {"docs", "abi"})
    for (const auto& entry : fs::directory_iterator(root / dir))
      if (entry.path().extension() == ".md") pages.push_back(entry.path());
  return pages;
}

}  // namespace

TEST_CASE("The citation scan finds a document outside the repository in text, not in comments") {
  const std::string source =
      "// DESIGN §8.1 in a comment\n/* reference §3.4 */ a = \"checks (DESIGN §8.2)\";\n"
      "b = \"see nd_behaviour.md\"; c = \"Narayanan et al. 2021 §2.2\"; d = \"Reference §3.4\";\n";
  std::vector<std::string> cited;
  for (const Literal& l : string_literals(source)) cited.push_back(outside_citation(l.text));
  CHECK(cited == std::vector<std::string>{"design §", "nd_behaviour", "", "reference §"});
  const auto py = python_text("x = 'a # b'  # DESIGN §8.1\n\"\"\"See DESIGN.md.\"\"\"\n");
  REQUIRE(py.size() == 2);
  CHECK(outside_citation(py[0].text).empty());
  CHECK(outside_citation(py[1].text) == "design.md");
}

TEST_CASE("No string literal of the program cites a document outside the repository") {
  const std::vector<Finding> found = scan_sources(NDS_TEST_SOURCE_DIR);
  for (const Finding& f : found) {
    INFO(f.where << ": \"" << f.text << "\" cites " << f.citation
                 << ", which users do not have; say it in words or point to docs/");
    CHECK(f.citation.empty());
  }
  CHECK(found.empty());
}

TEST_CASE("No page of the documentation cites a document outside the repository") {
  const std::vector<fs::path> pages = markdown_pages(NDS_TEST_SOURCE_DIR);
  REQUIRE(pages.size() >= 10);  // README.md, examples/README.md, docs/*.md, abi/*.md
  size_t lines_read = 0;
  for (const fs::path& page : pages) {
    std::istringstream in(read_file(page));
    std::string line;
    for (size_t n = 1; std::getline(in, line); ++n, ++lines_read) {
      const std::string c = outside_citation(line);
      INFO(page.filename().string() << ":" << n << ": \"" << line << "\" cites " << c
                                    << ", which users do not have; explain it here instead");
      CHECK(c.empty());
    }
  }
  CHECK(lines_read > 2000);  // the pages were read
}
