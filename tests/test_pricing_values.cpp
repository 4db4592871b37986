// SPDX-License-Identifier: Apache-2.0
// test_pricing_values.cpp: every value pricing needs and a config leaves
// unknown is named in one error, with the setting (the CLI: the flag) that
// gives each, before any pricing: an HF config.json states no global batch,
// sequence length or (no_vocab.json) vocabulary.
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <ndsearch/core/planner.hpp>

#include "fixtures_paths.hpp"
#include "support/error_text.hpp"
#include "support/run_command.hpp"
#include "support/shipped.hpp"

namespace {

// An 8B-like Llama with no vocab_size, as a user might trim a config.json.
const std::string kNoVocab = std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/no_vocab.json";

std::string cli(const std::string& verb_and_flags) {
  return "env -u NDS_PLUGIN_PATH " + ndsearch::test::cli() + " " + verb_and_flags;
}

}  // namespace

TEST_CASE("An HF config missing three values gets one error naming them all") {
  const auto r =
      ndsearch::test::run_command(cli("search " + kNoVocab + " -A nvidia-h100-sxm -d 8"));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "ndsearch: error [E-MISSING-VALUES]: " + kNoVocab +
                     " does not state what pricing needs: set the global batch (-b B), the "
                     "sequence length (--seq-len) and the vocabulary size (--vocab-size)\n");
  // The core names the settings, for every host.
  ndsearch::SearchSettings s;
  s.model.config = kNoVocab;
  s.device = "nvidia-h100-sxm";
  s.devices = 8;
  CHECK(ndsearch::test::error_text([&] {
          ndsearch::Planner(ndsearch::test::shipped_plugin_settings()).search(s).to_json();
        }) == "[E-MISSING-VALUES] " + kNoVocab +
                  " does not state what pricing needs: set the global batch (`global_batch`), the "
                  "sequence length (`seq_len`) and the vocabulary size (`vocab_size`)");
}

TEST_CASE("Without a device count the search lists it with the rest") {
  const auto r =
      ndsearch::test::run_command(cli("search " + kNoVocab + " -A nvidia-h100-sxm -b 8"));
  CHECK(r.exit_code == 2);
  CHECK(r.err == "ndsearch: error [E-MISSING-VALUES]: " + kNoVocab +
                     " does not state what pricing needs: set the device count (-d N), the "
                     "sequence length (--seq-len) and the vocabulary size (--vocab-size)\n");
}

TEST_CASE("One missing value is named alone, in eval and explain too") {
  const std::string given = " -A nvidia-h100-sxm -d 8 -b 8 --vocab-size 32000";
  const std::string expected = "ndsearch: error [E-MISSING-VALUES]: " + kNoVocab +
                               " does not state what pricing needs: set the sequence length "
                               "(--seq-len)\n";
  for (const std::string verb : {"search ", "eval ", "explain "}) {
    const std::string strategy = verb == "search " ? "" : " --strategy tp=2";
    const auto r = ndsearch::test::run_command(cli(verb + kNoVocab + given + strategy));
    INFO(verb);
    CHECK(r.exit_code == 2);
    CHECK(r.err == expected);
  }
  // eval without a global batch: needed only when the strategy's mbn follows it.
  const auto needs =
      ndsearch::test::run_command(cli("eval " + kNoVocab +
                                      " -A nvidia-h100-sxm -d 8 --seq-len 1024 --vocab-size 32000 "
                                      "--strategy tp=2"));
  CHECK(needs.err == "ndsearch: error [E-MISSING-VALUES]: " + kNoVocab +
                         " does not state what pricing needs: set the global batch (-b B)\n");
  const auto given_mbn =
      ndsearch::test::run_command(cli("eval " + kNoVocab +
                                      " -A nvidia-h100-sxm -d 8 --seq-len 1024 --vocab-size 32000 "
                                      "--strategy tp=2,mbn=4 --format json"));
  CHECK(given_mbn.exit_code == 0);
}

TEST_CASE("Nothing missing: the search runs") {
  const auto r = ndsearch::test::run_command(
      cli("search " + kNoVocab +
          " -A nvidia-h100-sxm -d 8 -b 8 --seq-len 1024 --vocab-size 32000 -t 1 --format json"));
  INFO(r.err);
  CHECK(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["counts"]["fit"].get<uint64_t>() > 0);
}
