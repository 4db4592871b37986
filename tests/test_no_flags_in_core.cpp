// SPDX-License-Identifier: Apache-2.0
// test_no_flags_in_core.cpp: no string literal of the core, the SDK or the
// shipped plugins names a flag of the CLI. Their text reaches every host
// (the Python binding, a C++ program), which has no such flags; a setting is
// named by its words and key ("the device count (`devices`)", settings.hpp)
// and the CLI writes its flag (hosts/cli/setting_flags.cpp). Comments may
// name flags: only literals are read.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "hosts/cli/setting_flags.hpp"
#include "tests/support/string_literals.hpp"

namespace fs = std::filesystem;
using ndsearch::test::Literal;
using ndsearch::test::string_literals;

namespace {

// Appended piece by piece: GCC 12 warns (-Wrestrict) on chains of operator+.
std::string joined(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

// One pattern per flag of the CLI's table: the flag as a word of its own
// ("-d N", "(--only)"), not inside one ("E-DEVICE", "--seq-length").
std::vector<std::pair<std::string, std::regex>> cli_flag_patterns() {
  std::vector<std::pair<std::string, std::regex>> patterns;
  for (const ndsearch::cli::SettingFlag& f : ndsearch::cli::setting_flags()) {
    if (f.flag.empty() || f.flag.front() != '-') continue;  // CONFIG
    const std::string flag(f.flag.substr(0, f.flag.find(' ')));
    patterns.emplace_back(flag,
                          std::regex(joined({"(^|[^A-Za-z0-9_-])", flag, "($|[^A-Za-z0-9_-])"})));
  }
  return patterns;
}

// Files whose literals are not ndsearch's text: the sample configs vetting
// parses are trainers' launch scripts (Megatron-LM's --vocab-size is its own),
// and so is the Megatron parser's table of the trainer's flags.
bool not_our_text(const fs::path& relative) {
  const std::string p = relative.generic_string();
  return p == "core/plugin_host/sample_configs.cpp" ||
         p.rfind("plugins/parsers/megatron_args/", 0) == 0;
}

}  // namespace

TEST_CASE("The source scan finds a flag in a literal and not in a comment") {
  const auto literals = string_literals(
      "// give -d N\n/* --only */ x = \"set -d N\"; y = R\"(raw --seq-len)\"; n = 10'000; c = "
      "'\"';\n"
      "z = \"--seq-length -dx E-DEVICE\";\n");
  REQUIRE(literals.size() == 3);
  CHECK(literals[0].text == "set -d N");
  CHECK(literals[1].text == "raw --seq-len");
  CHECK(literals[2].line == 3);
  const auto patterns = cli_flag_patterns();
  auto names = [&](const std::string& text) {
    std::string found;
    for (const auto& [flag, pattern] : patterns)
      if (std::regex_search(text, pattern)) found += flag + " ";
    return found;
  };
  CHECK(names(literals[0].text) == "-d ");
  CHECK(names(literals[1].text) == "--seq-len ");
  CHECK(names(literals[2].text).empty());
}

TEST_CASE("No string literal of the core, the SDK or a shipped plugin names a CLI flag") {
  const auto patterns = cli_flag_patterns();
  REQUIRE(patterns.size() > 20);  // every flag of the table (setting_flags.cpp)
  const fs::path root(NDS_TEST_SOURCE_DIR);
  size_t literals_read = 0;
  for (const char* part : {"core", "sdk", "plugins"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / part)) {
      const std::string ext = entry.path().extension().string();
      if (ext != ".cpp" && ext != ".hpp" && ext != ".c" && ext != ".h") continue;
      const fs::path relative = fs::relative(entry.path(), root);
      if (not_our_text(relative)) continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      for (const Literal& l : string_literals(text.str())) {
        ++literals_read;
        for (const auto& [flag, pattern] : patterns) {
          INFO(relative.string() << ":" << l.line << ": \"" << l.text << "\" names " << flag
                                 << "; name the setting instead: Setting(\"key\").named()");
          CHECK_FALSE(std::regex_search(l.text, pattern));
        }
      }
    }
  }
  CHECK(literals_read > 2000);  // every file was read: the three hold ~4,000 literals
}
