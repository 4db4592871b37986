// SPDX-License-Identifier: Apache-2.0
// The one table of strategy keys (core/model/strategy_keys.hpp) walked
// through every reader and writer: --strategy, --only, -l, the JSON and the
// CSV. A key added to the table, or a reader that grows its own list or
// range, fails here.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/model/model_json.hpp"
#include "core/model/recompute_names.hpp"
#include "core/model/schedule_names.hpp"
#include "core/model/strategy_keys.hpp"
#include "core/output/search_csv.hpp"
#include "core/search/search_space.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/lowercase.hpp"
#include "core/support/user_error.hpp"

using namespace ndsearch;

namespace {

// The error --strategy or --only gives for `text`, or "" when it reads.
template <class Read>
std::string error_of(Read read) {
  try {
    read();
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

// A value every key reads: a degree's least, a named key's first name.
std::string a_value(const StrategyKey& k) {
  if (k.name == "recompute") return "full";
  if (k.name == "schedule") return "zb-v";
  return std::to_string(k.least);
}

}  // namespace

TEST_CASE("Every key of the table reads through --strategy, by its name and its alias") {
  for (const StrategyKey& k : kStrategyKeys) {
    CAPTURE(k.name);
    const std::string v = a_value(k);
    const nds_strategy s = parse_strategy(std::string(k.name) + "=" + v);
    REQUIRE(key_value_text(k, key_value(s, k)) == v);
    if (!k.alias.empty()) {
      // The reference's MP and MB, any case.
      const nds_strategy a = parse_strategy(fmt::format("{}={}", k.alias, v));
      CHECK(key_value(a, k) == key_value(s, k));
    }
    // Every other key stays unset.
    for (const StrategyKey& other : kStrategyKeys)
      if (&other != &k) CHECK(key_value(s, other) == NDS_UNKNOWN);
  }
}

TEST_CASE("A strategy string and the search restrictions accept the same range per key") {
  for (const StrategyKey& k : kStrategyKeys) {
    if (k.field == nullptr) continue;  // named keys: below
    CAPTURE(k.name);
    const std::string key(k.name);
    const std::string range =
        fmt::format("out of range; {} takes {} to {}", k.name, k.least, k.most);
    // The ends of the range read; one past the top is refused by both.
    CHECK(key_value(parse_strategy(fmt::format("{}={}", key, k.most)), k) == k.most);
    CHECK_THAT(error_of([&] { parse_strategy(fmt::format("{}={}", key, k.most + 1)); }),
               Catch::Contains(key + "=" + std::to_string(k.most + 1) + " is " + range));
    const std::string only = fmt::format("{}={},{}", key, k.least, k.most);
    if (k.follows) {
      // dp and mbn follow from the others: --only restricts those.
      CHECK_THAT(error_of([&] { SearchSpace::parse_only({only}); }),
                 Catch::Contains("follows from the others"));
      continue;
    }
    const auto read = SearchSpace::parse_only({only});
    CHECK(read.at(key) == std::vector<int64_t>{k.least, k.most});
    CHECK_THAT(error_of([&] { SearchSpace::parse_only({fmt::format("{}={}", key, k.most + 1)}); }),
               Catch::Contains(std::to_string(k.most + 1) + "\" is " + range));
    // Below the range: 0 for a degree is out of range; -1 is not a whole number.
    const std::string below = std::to_string(k.least - 1);
    const std::string why = k.least == 1 ? range : "not a whole number";
    CHECK_THAT(error_of([&] { parse_strategy(key + "=" + below); }), Catch::Contains(why));
    CHECK_THAT(error_of([&] { SearchSpace::parse_only({key + "=" + below}); }),
               Catch::Contains(why));
  }
  // One integer reader: neither takes a sign or a space ("+2" was a 2 to --only before).
  CHECK_THAT(error_of([] { parse_strategy("tp=+2"); }), Catch::Contains("not a whole number"));
  CHECK_THAT(error_of([] { SearchSpace::parse_only({"tp=+2"}); }),
             Catch::Contains("not a whole number"));
  // The named keys read the same names in both.
  CHECK(SearchSpace::parse_only({"recompute=off"}).at("recompute") ==
        std::vector<int64_t>{NDS_RECOMPUTE_NONE});
  CHECK(parse_strategy("recompute=off").recompute == NDS_RECOMPUTE_NONE);
  CHECK_THAT(error_of([] { parse_strategy("schedule=zigzag"); }),
             Catch::Contains("schedule=zigzag is not 1f1b, interleaved"));
  CHECK_THAT(error_of([] { SearchSpace::parse_only({"schedule=zigzag"}); }),
             Catch::Contains("\"zigzag\" is not 1f1b, interleaved"));
}

TEST_CASE("The searched dimensions read every key and alias in any case, defaults from the table") {
  std::set<std::string> every;
  for (const StrategyKey& k : kStrategyKeys) every.emplace(k.name);
  CHECK(SearchSpace::parse_dimensions(
            strategy_key_list(true).substr(0, strategy_key_list(true).find(';'))) == every);
  CHECK(SearchSpace::parse_dimensions("mp Mb") == std::set<std::string>{"tp", "mbn"});
  // Searched by default: all but op and schedule (docs/cli.md, search).
  std::set<std::string> defaults = every;
  defaults.erase("op");
  defaults.erase("schedule");
  CHECK(default_dimensions() == defaults);
}

TEST_CASE("The JSON and the CSV columns are the table's keys, in its order") {
  nds_strategy s = parse_strategy(
      "dp=8,tp=4,pp=2,cp=1,ep=1,etp=4,vpp=1,sp=1,zero=1,op=8,mbs=1,mbn=16,recompute=full,"
      "schedule=1f1b");
  const nlohmann::json j = strategy_json(s);
  REQUIRE(j.size() == std::size(kStrategyKeys));
  for (const StrategyKey& k : kStrategyKeys) {
    CAPTURE(k.name);
    if (k.field != nullptr)
      CHECK(j.at(std::string(k.name)) == key_value(s, k));
    else
      CHECK(j.at(std::string(k.name)) == *key_value_text(k, key_value(s, k)));
  }
  // Unknown is null.
  CHECK(strategy_json(unset_strategy()).at("tp").is_null());
  CHECK(strategy_json(unset_strategy()).at("schedule").is_null());

  PricedCandidate c;
  c.strategy = s;
  std::ostringstream csv;
  write_ranking_csv(csv, {c});
  std::string header, row;
  std::istringstream lines(csv.str());
  std::getline(lines, header);
  std::getline(lines, row);
  CHECK(header.rfind("rank,dp,tp,pp,cp,ep,etp,vpp,sp,zero,op,mbs,mbn,recompute,schedule,", 0) == 0);
  CHECK(row.rfind("1,8,4,2,1,1,4,1,1,1,8,1,16,full,1f1b,", 0) == 0);
}

TEST_CASE("docs/cli.md's table of strategy keys is the key table rendered") {
  // The rows as the table gives them: the key, its meaning (with the
  // acronym read as it), what it takes where nothing states it.
  std::vector<std::string> rendered = {"| key | meaning | default where nothing is stated |",
                                       "|---|---|---|"};
  for (const StrategyKey& k : kStrategyKeys)
    rendered.push_back(
        fmt::format("| `{}` | {}{} | {} |", k.name, k.description,
                    k.alias.empty() ? "" : fmt::format(" (`{}` accepted)", uppercase(k.alias)),
                    k.default_words));
  std::ifstream doc(std::string(NDS_TEST_SOURCE_DIR) + "/docs/cli.md");
  REQUIRE(doc);
  std::vector<std::string> table;
  for (std::string line; std::getline(doc, line);) {
    if (line == rendered.front())
      table.push_back(line);
    else if (!table.empty() && line.starts_with("|"))
      table.push_back(line);
    else if (!table.empty())
      break;
  }
  CHECK(table == rendered);
  // The named keys' meanings list the names their readers take.
  CHECK(strategy_key("recompute")->description.ends_with(kRecomputeModeNames));
  CHECK(strategy_key("schedule")->description.ends_with(kScheduleNameList));
}
