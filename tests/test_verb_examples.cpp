// SPDX-License-Identifier: Apache-2.0
// test_verb_examples.cpp: `ndsearch --help` and every verb's `--help` end
// with an "Examples:" footer of two command lines (hosts/cli/verb_examples.cpp),
// and each of them runs: from the repository root, with this build's program
// and plugins, it exits 0. An example that breaks fails here.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"

using ndsearch::test::cli;
using ndsearch::test::run_command;

namespace {

// The verbs a --help lists under "SUBCOMMANDS:" (CLI11's heading, any case).
std::vector<std::string> verbs_listed(const std::string& help) {
  std::vector<std::string> verbs;
  std::istringstream in(help);
  std::string line;
  bool in_list = false;
  while (std::getline(in, line)) {
    if (line == "Subcommands:" || line == "SUBCOMMANDS:") {
      in_list = true;
    } else if (in_list) {
      if (line.rfind("  ", 0) != 0 || line.size() < 3 || line[2] == ' ') break;
      verbs.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
  }
  return verbs;
}

// The command lines of the help's "Examples:" footer: the lines after it
// that start with "  ndsearch ".
std::vector<std::string> examples_of(const std::string& help) {
  std::vector<std::string> examples;
  std::istringstream in(help);
  std::string line;
  bool in_footer = false;
  while (std::getline(in, line)) {
    if (line == "Examples:")
      in_footer = true;
    else if (in_footer && line.rfind("  ndsearch ", 0) == 0)
      examples.push_back(line.substr(2));
  }
  return examples;
}

std::string help_of(const std::string& verb) {
  const auto r = run_command(cli() + " " + verb + " --help");
  INFO("ndsearch " << verb << " --help\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return r.out;
}

// An example as this build runs it from the repository root: its
// `ndsearch` is this build's program and `build/lib/ndsearch/plugins/` the
// build's plugin folder (whatever the build folder is called).
std::string as_built(const std::string& example) {
  std::string line = cli() + example.substr(std::string("ndsearch").size());
  const std::string shipped = "build/lib/ndsearch/plugins/";
  const std::string built = std::string(NDS_TEST_SHIPPED_PLUGINS) + "/";
  for (size_t at = line.find(shipped); at != std::string::npos;
       at = line.find(shipped, at + built.size()))
    line.replace(at, shipped.size(), built);
  return line;
}

// The help of `verb` ends with two examples, and both run from the root.
void check_examples(const std::string& verb) {
  const std::string help = help_of(verb);
  const std::vector<std::string> examples = examples_of(help);
  INFO("ndsearch " << verb << " --help:\n" << help);
  REQUIRE(examples.size() == 2);
  CHECK(examples[0] != examples[1]);
  // The footer is the end of the help: nothing but its note after it.
  CHECK(help.find("Examples:") > help.rfind("Options:"));
  for (const std::string& example : examples) {
    const std::string line = "cd " + std::string(NDS_TEST_SOURCE_DIR) +
                             " && env -u NDS_PLUGIN_PATH -u NDS_DEVICE_PATH " + as_built(example) +
                             " > /dev/null";
    const auto r = run_command(line);
    INFO("example `" << example << "` ran as `" << line << "`:\n" << r.err);
    CHECK(r.exit_code == 0);
  }
}

}  // namespace

TEST_CASE("The example scan reads a help's verbs and its two example lines") {
  const std::string help =
      "Usage: ndsearch plugins [OPTIONS] SUBCOMMAND\n\nOptions:\n  -h,--help   Print this help\n\n"
      "Subcommands:\n  list                        The plugins found\n  check   Check one\n\n"
      "Examples:\n  ndsearch plugins list\n  ndsearch plugins check x.so --format json\n"
      "  (from the root of a source checkout)\n";
  CHECK(verbs_listed(help) == std::vector<std::string>{"list", "check"});
  CHECK(examples_of(help) == std::vector<std::string>{"ndsearch plugins list",
                                                      "ndsearch plugins check x.so --format json"});
  CHECK(as_built("ndsearch plugins check build/lib/ndsearch/plugins/a.so") ==
        cli() + " plugins check " + NDS_TEST_SHIPPED_PLUGINS + "/a.so");
}

TEST_CASE("Every verb and sub-verb of ndsearch has a test of its --help examples here") {
  // A new verb gets its two examples (hosts/cli/verb_examples.cpp) and a
  // TEST_CASE below; this list is the verbs those cover.
  CHECK(verbs_listed(help_of("")) == std::vector<std::string>{"eval", "search", "explain", "apply",
                                                              "compare", "model", "hardware",
                                                              "plugins"});
  CHECK(verbs_listed(help_of("plugins")) == std::vector<std::string>{"list", "check"});
  for (const char* verb : {"eval", "search", "explain", "apply", "compare", "model", "hardware"})
    CHECK(verbs_listed(help_of(verb)).empty());
}

TEST_CASE("The examples of ndsearch --help run") {
  check_examples("");
}
TEST_CASE("The examples of ndsearch eval --help run") {
  check_examples("eval");
}
TEST_CASE("The examples of ndsearch search --help run") {
  check_examples("search");
}
TEST_CASE("The examples of ndsearch explain --help run") {
  check_examples("explain");
}
TEST_CASE("The examples of ndsearch apply --help run") {
  check_examples("apply");
}
TEST_CASE("The examples of ndsearch compare --help run") {
  check_examples("compare");
}
TEST_CASE("The examples of ndsearch model --help run") {
  check_examples("model");
}
TEST_CASE("The examples of ndsearch hardware --help run") {
  check_examples("hardware");
}
TEST_CASE("The examples of ndsearch plugins --help run") {
  check_examples("plugins");
}
TEST_CASE("The examples of ndsearch plugins list --help run") {
  check_examples("plugins list");
}
TEST_CASE("The examples of ndsearch plugins check --help run") {
  check_examples("plugins check");
}
