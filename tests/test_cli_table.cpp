// SPDX-License-Identifier: Apache-2.0
// test_cli_table.cpp: `ndsearch search` as a user reads it: the header says
// what the ranking stands on, every line fits 120 columns when stdout is not
// a terminal, the closest misses only when asked or when nothing fits, a
// progress line only on a terminal, the first three warnings at the default
// verbosity, and the closest flag for one typed wrong.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fixtures_paths.hpp"
#include "support/run_command.hpp"
#include "support/unwrapped.hpp"

namespace {

using ndsearch::test::run_command;

const std::string kMixtral =
    std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/mixtral-8x7b.json";
const std::string kMixtralOn64 = kMixtral + " -A nvidia-h100-sxm -d 64 -b 256 --seq-len 4096";

ndsearch::test::CommandResult ndsearch_cli(const std::string& args) {
  return run_command("env -u NDS_PLUGIN_PATH -u NDS_DEVICE_PATH " + ndsearch::test::cli() + " " +
                     args);
}

// How many times `what` stands in `text`.
size_t occurrences(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Characters, not bytes: "·" is one column on a terminal.
size_t columns_of(const std::string& line) {
  size_t n = 0;
  for (unsigned char c : line) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("A search over every dimension of an MoE fits 120 columns and says what it stands on") {
  const auto r = ndsearch_cli("search " + kMixtralOn64);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    INFO(line);
    CHECK(columns_of(line) <= 120);
  }
  // The header: model and file, devices, batch, sequence and precision (the
  // config states no dtype: bf16), then the budget and where it came from
  // (the H100's 80 GiB less its 2 GiB runtime reserve).
  CHECK_THAT(r.out,
             Catch::StartsWith(
                 "MixtralForCausalLM (mixtral-8x7b.json) on 64 x nvidia-h100-sxm: global "
                 "batch 256, sequence 4096, bf16\n"
                 "  budget 78.00 GiB per device: 80.00 GiB from device nvidia-h100-sxm, less "
                 "2.00 GiB reserved\n"
                 "  assumes overlap on: "));
  CHECK_THAT(r.out, Catch::Contains("\n  assumes precision: bf16 GEMMs and activations\n"));
  CHECK_THAT(r.out, Catch::Contains(
                        "\n  searched: dp tp pp cp ep etp vpp sp zero mbs mbn recompute; the other "
                        "settings keep the config's value\n"));
  // Mixtral: 8 KV heads, 32 layers, 8 routed experts.
  CHECK_THAT(r.out, Catch::Contains(
                        "\n  bounds: tp <= 8 KV heads; pp <= min(8 the machine allows, 32 layers, "
                        "batch 256); ep <= 8 routed experts; "));
  CHECK_THAT(r.out,
             Catch::Contains("  rank ") && Catch::Contains(" step s MFU% tok/s/dev peak GiB"));
  // No document outside the repository, and no misses after a search that fits.
  CHECK_THAT(r.out, !Catch::Contains("§") && !Catch::Contains("DESIGN") &&
                        !Catch::Contains("closest dropped"));
}

TEST_CASE("The closest misses show with --misses N, at -v 3, and when nothing fits") {
  // Over tp, pp, cp and ep alone (256 candidates: cheap under the sanitizers).
  const auto asked = ndsearch_cli("search " + kMixtralOn64 + " -l tp pp cp ep -t 1 --misses 2");
  REQUIRE(asked.exit_code == 0);
  const std::string misses = asked.out.substr(asked.out.find("  the closest dropped:\n"));
  // Two misses, each one line with its peak and how far over, then its fixes.
  CHECK(occurrences(misses, "GiB over") == 2);

  // At -v 3, every one: tp and pp of 1, 2, 4 and 8 make 16 candidates, 4
  // of them over 78 GiB; each is listed. Mixtral's 46.7 B parameters in bf16
  // with bf16 gradients (an HF config's well-tuned Megatron-Core run) are
  // 4 bytes each, 174 GiB on one rank: over at tp·pp 1 and 2 (87 GiB), and
  // at tp 1, pp 4 (43.5 GiB) the first stage's four micro-batches in flight
  // of 4096 unrecomputed tokens take it over; tp 2 or 4 at tp·pp 4 fit.
  const auto every = ndsearch_cli("search " + kMixtralOn64 + " -l tp pp -t 1 -v 3");
  REQUIRE(every.exit_code == 0);
  CHECK_THAT(every.out, Catch::Contains("dropped 4 (over the budget)\n  every closest dropped:\n"));
  CHECK(occurrences(every.out, "GiB over") == 4);

  // 2 GiB (4 GB less the H100's 2 GiB reserve) holds no strategy of Mixtral
  // on 64 devices: the five closest go to stderr with the error.
  const auto none = ndsearch_cli("search " + kMixtralOn64 + " -l tp pp cp ep -M 4GB");
  CHECK(none.exit_code == 3);
  CHECK_THAT(none.err, Catch::Contains("[E-SEARCH-NO-FIT]"));
  CHECK(occurrences(none.err, "GiB over") == 5);
}

TEST_CASE("A flag typed wrong gets the closest flag of its verb") {
  const auto r = ndsearch_cli("search " + kMixtralOn64 + " --tpo 3");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err,
             Catch::Contains("unknown flag '--tpo' for `ndsearch search` (did you mean '--top'?); "
                             "`ndsearch search --help` lists its flags"));
  const auto far = ndsearch_cli("eval " + kMixtralOn64 + " --zzzzzz");
  CHECK_THAT(far.err, Catch::Contains(
                          "unknown flag '--zzzzzz' for `ndsearch eval`; `ndsearch eval --help`"));
}

TEST_CASE("The default verbosity shows the first three warnings and counts the others") {
  // Five device files in NDS_DEVICE_PATH, each with a name that is not a
  // string: each is skipped with a warning naming its file.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("nds_warnings_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  for (int i = 0; i < 5; ++i)
    std::ofstream(dir / ("bad" + std::to_string(i) + ".toml")) << "id = \"bad\"\nname = 3\n";
  const auto at = [&](const std::string& verbosity) {
    return run_command("env -u NDS_PLUGIN_PATH NDS_DEVICE_PATH=" + dir.string() + " " +
                       ndsearch::test::cli() + " hardware" + verbosity);
  };
  const auto v1 = at("");
  CHECK(v1.exit_code == 0);
  CHECK(occurrences(v1.err, "`name` must be a string") == 3);
  CHECK_THAT(v1.err, Catch::Contains(
                         "ndsearch: note: 2 more warnings not shown; -v 2 shows every warning"));
  const auto v2 = at(" -v 2");
  CHECK(occurrences(v2.err, "`name` must be a string") == 5);
  CHECK_THAT(v2.err, !Catch::Contains("not shown"));
  CHECK(at(" -v 0").err.empty());
  std::filesystem::remove_all(dir);
}

TEST_CASE("A search longer than a second shows its progress on a terminal, and only there") {
  // DeepSeek-V3 on 1024 A3 (1.4 M candidates) on one thread takes about a
  // second here; the line shows after 100 ms instead of a second, so that a
  // faster machine shows it too. Its stdout goes to /dev/null: what the
  // terminal shows is stderr.
  const std::string search = ndsearch::test::cli() + " search " + std::string(NDS_TEST_EXAMPLES) +
                             "/deepseek-v3-hyperparallel/deepseek_v3.yaml -A A3 -j 1 -t 1";
  const auto terminal = ndsearch::test::run_in_terminal(
      "env -u NDS_PLUGIN_PATH NDS_PROGRESS_AFTER_MS=100 " + search + " >/dev/null");
  INFO(terminal.err);
  REQUIRE(terminal.exit_code == 0);
  CHECK_THAT(terminal.out, Catch::Contains("\rsearching: ") &&
                               Catch::Contains(" candidates tested, ") &&
                               Catch::Contains(" % of the space, about "));
  // The line is erased when the search ends.
  CHECK_THAT(terminal.out, Catch::EndsWith("\r\x1b[K"));
  const auto piped = run_command("env -u NDS_PLUGIN_PATH NDS_PROGRESS_AFTER_MS=100 " + search);
  CHECK(piped.exit_code == 0);
  CHECK_THAT(piped.err, !Catch::Contains("searching"));
}

TEST_CASE("The header of a search from a fast-tuner setup says which values came from it") {
  // Our setup fixture names small_moe.sh (16 routed experts) and states
  // rank_num 16, gbs 32 and max_expert_parallel 4.
  const std::string setup = std::string(NDS_TEST_FIXTURES_SOURCE) +
                            "/fasttuner/config/setup_config/args_for_parallel_tool_mcore.json";
  const auto r = ndsearch_cli("search " + setup + " -A nvidia-h100-sxm -t 1");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string out = ndsearch::test::unwrapped(r.out);
  CHECK_THAT(out,
             Catch::Contains(
                 "\n  setup args_for_parallel_tool_mcore.json (shell_path names small_moe.sh): 16 "
                 "devices from `rank_num` = 16, global batch 32 from `gbs`\n"));
  CHECK_THAT(out,
             Catch::Contains("; ep <= 4 (the setup's max_expert_parallel; 16 routed experts); "));
  // A flag replaces the setup's value, and the header says so.
  const auto given = ndsearch_cli("search " + setup + " -A nvidia-h100-sxm -t 1 -b 64");
  REQUIRE(given.exit_code == 0);
  CHECK_THAT(
      ndsearch::test::unwrapped(given.out),
      Catch::Contains("global batch 64 from the global batch (-b B) (its `gbs` = 32 replaced)"));
}
