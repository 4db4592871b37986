// SPDX-License-Identifier: Apache-2.0
// test_setting_names.cpp: the core names a setting by its words and key
// ("the device count (`devices`)"), never by a CLI flag, so that every host
// can show it; the CLI writes each such name as its flag ("-d N").
#include <catch2/catch.hpp>
#include <ndsearch/core/planner.hpp>
#include <ndsearch/core/settings.hpp>

#include <regex>
#include <string>

#include "hosts/cli/setting_flags.hpp"
#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"

namespace {

using ndsearch::cli::with_flags;

// tiny-4-layers.json is an HF config: it states no device count, global
// batch or sequence length.
const std::string kTiny = std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/tiny-4-layers.json";
const char* const kDevice = "nvidia-h100-sxm";  // 80 GiB, 2 GiB of it the runtime's reserve

ndsearch::Planner shipped_planner() {
  ndsearch::PluginSettings plugins;
  plugins.shipped_dir = NDS_TEST_SHIPPED_PLUGINS;
  plugins.use_environment = false;
  plugins.vet_helper = NDS_TEST_VET;
  return ndsearch::Planner(plugins);
}

// The flags of the CLI's table that `text` names, e.g. "-d" in "give -d N".
std::vector<std::string> cli_flags_in(const std::string& text) {
  std::vector<std::string> found;
  for (const ndsearch::cli::SettingFlag& f : ndsearch::cli::setting_flags()) {
    if (f.flag.empty() || f.flag.front() != '-') continue;
    const std::string flag(f.flag.substr(0, f.flag.find(' ')));
    const std::regex named("(^|[^A-Za-z0-9_-])" + flag + "($|[^A-Za-z0-9_-])");
    if (std::regex_search(text, named)) found.push_back(flag);
  }
  return found;
}

template <class Call>
std::string error_of(Call call) {
  try {
    call();
  } catch (const ndsearch::UserError& e) {
    return e.what();
  }
  FAIL("no UserError");
  return {};
}

}  // namespace

TEST_CASE("Core messages name the setting by its words and key, never a CLI flag") {
  const ndsearch::Planner planner = shipped_planner();
  ndsearch::SearchSettings search;
  search.model.config = kTiny;
  search.device = kDevice;
  ndsearch::EvaluateSettings evaluate;
  evaluate.model.config = kTiny;
  evaluate.device = kDevice;
  evaluate.devices = 2;
  evaluate.model.global_batch = 8;
  std::string message, expected;

  SECTION("no device count") {
    search.model.global_batch = 8;
    message = error_of([&] { planner.search(search).to_json(); });
    expected = "set the device count (`devices`)";
  }
  SECTION("no global batch") {
    search.devices = 8;
    message = error_of([&] { planner.search(search).to_json(); });
    expected = "set the global batch (`global_batch`)";
  }
  SECTION("no sequence length") {
    evaluate.strategy = "cp=2";  // dp = 2 / cp = 1
    message = error_of([&] { planner.evaluate(evaluate).to_json(); });
    expected = "set the sequence length (`seq_len`)";
  }
  SECTION("a budget of nothing with memory kept free") {
    // 80 GiB less the 2 GiB reserve less 200 GiB kept free leaves -122 GiB.
    evaluate.model.seq_len = 1024;
    evaluate.reserve_mem = "200GB";
    message = error_of([&] { planner.evaluate(evaluate).to_json(); });
    expected = "the memory kept free (`reserve_mem=200GB`)";
    CHECK_THAT(message, Catch::Contains("raise the device memory (`max_memory`)"));
    CHECK_THAT(message, Catch::Contains("lower the memory kept free (`reserve_mem`)"));
  }
  SECTION("a strategy outside the space of -l and --only") {
    ndsearch::ExplainSettings explain;
    explain.evaluate = evaluate;
    explain.evaluate.devices = 8;
    explain.evaluate.model.seq_len = 1024;
    explain.evaluate.strategy = "tp=2";
    explain.space.dimensions = "TP";
    explain.space.only = {"tp=1"};
    const nlohmann::json j = planner.explain(explain).to_json();
    REQUIRE(j["search"]["rank"].is_null());
    message = j["search"]["note"].get<std::string>();
    expected = "tp=2: left out by the restrictions of the search (`only=tp=...`)";
  }
  SECTION("a restriction that does not read") {
    search.devices = 8;
    search.model.global_batch = 8;
    search.space.only = {"pp=two"};
    message = error_of([&] { planner.search(search).to_json(); });
    expected = "the restrictions of the search (`only=pp=two`): \"two\" is not a whole number";
  }
  INFO(message);
  CHECK_THAT(message, Catch::Contains(expected));
  CHECK(cli_flags_in(message).empty());
}

TEST_CASE("The CLI writes each setting the core names as its flag") {
  CHECK(with_flags("x.json states no device count; set the device count (`devices`)") ==
        "x.json states no device count; set the device count (-d N)");
  CHECK(with_flags("the device count (`devices=0`): give at least 1") ==
        "the device count (-d 0): give at least 1");
  CHECK(with_flags("the restrictions of the search (`only=tp=2,x`): bad") ==
        "the restrictions of the search (--only tp=2,x): bad");
  CHECK(with_flags("the sequence length (`seq_len`) and the global batch (`global_batch`)") ==
        "the sequence length (--seq-len) and the global batch (-b B)");
  CHECK(with_flags("the Ulysses degree (`cp-ulysses`)") == "the Ulysses degree (--cp-ulysses N)");
  // A config's field is no setting: a key not preceded by its words stays.
  const std::string field =
      "config.json:3: `vocab_size` = 2.5 (`vocab_size`), `ndsearch plugins list`";
  CHECK(with_flags(field) == field);
  // Keys the CLI has no flag for, and text that is not closed, stay as written.
  CHECK(with_flags("the plugin options (`options`)") == "the plugin options (`options`)");
  CHECK(with_flags("the device count (`devices") == "the device count (`devices");
}

TEST_CASE(
    "Every setting has a CLI flag or is listed without one, and each flag is one the CLI defines") {
  std::string help;
  for (const char* verb : {"", " model", " eval", " search", " explain", " hardware", " plugins"})
    help += ndsearch::test::run_command(ndsearch::test::cli() + verb + " --help").out;
  const auto flags = ndsearch::cli::setting_flags();
  const auto without = ndsearch::cli::settings_without_flag();
  for (const ndsearch::SettingName& s : ndsearch::kSettingNames) {
    INFO(s.key);
    const bool has_flag =
        std::any_of(flags.begin(), flags.end(),
                    [&](const ndsearch::cli::SettingFlag& f) { return f.key == s.key; });
    const bool listed_without = std::find(without.begin(), without.end(), s.key) != without.end();
    CHECK(has_flag != listed_without);
  }
  for (const ndsearch::cli::SettingFlag& f : flags) {
    const std::string flag(f.flag.substr(0, f.flag.find(' ')));
    INFO(f.key << " -> " << flag);
    // CLI11's help lists "-d,--devices" and positional CONFIG.
    const std::regex in_help("(^|[ ,])" + flag + "($|[ ,=])");
    CHECK(std::regex_search(help, in_help));
  }
}

TEST_CASE("The CLI prints the flag where the core names a setting") {
  const std::string eval =
      "env -u NDS_PLUGIN_PATH " + ndsearch::test::cli() + " eval " + kTiny + " -A " + kDevice;
  const std::string search =
      "env -u NDS_PLUGIN_PATH " + ndsearch::test::cli() + " search " + kTiny + " -A " + kDevice;
  std::string command, expected;
  int exit_code = 2;
  SECTION("no device count") {
    command = search + " -b 8";
    expected = "set the device count (-d N)";
  }
  SECTION("no global batch") {
    command = search + " -d 8";
    expected = "set the global batch (-b B)";
  }
  SECTION("no sequence length") {
    command = eval + " -d 2 -b 8 --strategy cp=2";
    expected = "does not state what pricing needs: set the sequence length (--seq-len)";
  }
  SECTION("a budget of nothing with memory kept free") {
    command = eval + " -d 2 -b 8 --seq-len 1024 --reserve-mem 200GB";
    expected =
        "the memory kept free (--reserve-mem 200GB), 200.00 GiB, leaves -122.00 GiB; raise the "
        "device memory "
        "(-M) or lower the memory kept free (--reserve-mem)";
  }
  SECTION("a strategy outside the space of -l and --only") {
    command = "env -u NDS_PLUGIN_PATH " + ndsearch::test::cli() + " explain " + kTiny + " -A " +
              kDevice + " -d 8 -b 8 --seq-len 1024 --strategy tp=2 -l TP --only tp=1 2>&1";
    expected = "tp=2: left out by the restrictions of the search (--only tp=...)";
    exit_code = 0;
  }
  const auto r = ndsearch::test::run_command(command);
  INFO(command << "\n" << r.out << r.err);
  CHECK(r.exit_code == exit_code);
  CHECK_THAT(r.out + r.err, Catch::Contains(expected));
  CHECK_THAT(r.out + r.err, !Catch::Contains("`"));  // every setting was written as its flag
}
