// SPDX-License-Identifier: Apache-2.0
// test_ranking_table.cpp: the search's table as a terminal shows it: what
// every row shares said once, strategies that cost the same and differ in
// one key on one row, the width kept, --columns and --wide.
#include <catch2/catch.hpp>
#include <ndsearch/sdk/units.hpp>

#include <sstream>

#include "core/output/ranking_table.hpp"

namespace {

using ndsearch::PricedCandidate;
using ndsearch::TableOptions;

// A 1F1B strategy on dp·tp devices; its step of `step_s` is 60 % backward,
// 30 % forward and 10 % dp, its peak `peak_gib`.
PricedCandidate candidate(int32_t dp, int32_t tp, int32_t zero, double step_s, double peak_gib) {
  PricedCandidate c;
  c.strategy = nds_strategy{};
  c.strategy.dp = dp, c.strategy.tp = tp, c.strategy.pp = 1, c.strategy.cp = 1, c.strategy.ep = 1;
  c.strategy.etp = tp, c.strategy.vpp = 1, c.strategy.sp = tp > 1 ? 1 : 0, c.strategy.zero = zero;
  c.strategy.op = dp, c.strategy.mbs = 1, c.strategy.mbn = 4;
  c.strategy.recompute = NDS_RECOMPUTE_NONE, c.strategy.schedule = NDS_SCHEDULE_1F1B;
  c.time.step_s = step_s;
  c.time.parts.backward = 0.6 * step_s, c.time.parts.forward = 0.3 * step_s,
  c.time.parts.dp = 0.1 * step_s;
  c.time.mfu = 0.5;
  c.time.tokens_per_s = 8 * 4096 * 4 * 8 / step_s;  // 8 devices: 4096·32 tokens per device per step
  c.peak_bytes = peak_gib * ndsearch::sdk::kBytesPerGiB;
  return c;
}

std::string table(const std::vector<PricedCandidate>& rows, TableOptions options = {}) {
  options.devices = 8;
  std::ostringstream out;
  ndsearch::print_ranking_table(out, rows, options);
  return out.str();
}

}  // namespace

TEST_CASE("Strategies that cost the same and differ in one key share a row") {
  // Ranks 1 and 2 print the same step (2.000 s) and peak (10.00 GiB) and
  // differ in zero alone: one row "1-2" with zero "1|2". Rank 3 costs more.
  // Every row shares pp, cp, ep, vpp, mbs, mbn, recompute and the schedule;
  // etp = tp and op = dp·cp hold in each, so those leave the table.
  // tokens/s per device: 8·4096·32 / 2 s / 8 devices = 65536; at 4 s 32768.
  const std::string text = table({candidate(4, 2, 1, 2.0, 10.0), candidate(4, 2, 2, 2.0001, 10.001),
                                  candidate(8, 1, 1, 4.0, 20.0)});
  CHECK(text ==
        "  same in every row: pp 1, cp 1, ep 1, vpp 1, mbs 1, mbn 4, recompute none, schedule "
        "1f1b; etp = tp, "
        "op = dp·cp\n"
        "  rank dp tp sp zero step s MFU% tok/s/dev peak GiB largest parts, % of step\n"
        "   1-2  4  2  1  1|2  2.000 50.0     65536    10.00 backward 60, forward 30, dp 10\n"
        "     3  8  1  0    1  4.000 50.0     32768    20.00 backward 60, forward 30, dp 10\n");
}

TEST_CASE("Equal costs that differ in two keys stay two rows") {
  const std::string text = table({candidate(4, 2, 1, 2.0, 10.0), candidate(8, 1, 2, 2.0, 10.0)});
  CHECK_THAT(text, Catch::Contains("\n     1  4  2  1    1  2.000") &&
                       Catch::Contains("\n     2  8  1  0    2  2.000"));
}

TEST_CASE("The default table keeps to its width, saying which columns it left out") {
  // Ten strategies that differ in every key, with five-digit degrees: the
  // table drops the third and second largest parts, then op, etp, sp and the
  // schedule, in that order, until its lines fit 120 characters.
  std::vector<PricedCandidate> rows;
  for (int32_t i = 0; i < 10; ++i) {
    PricedCandidate c = candidate(10000 + i, 1 + i % 2, i % 4, 1.0 + i, 10.0 + i);
    c.strategy.pp = 1 + i % 3, c.strategy.cp = 1 + i % 2, c.strategy.ep = 16 * (1 + i % 2);
    c.strategy.etp = 1 + (i + 1) % 2, c.strategy.vpp = 1 + i % 4, c.strategy.op = 99999 - i;
    c.strategy.mbs = 1 + i % 5, c.strategy.mbn = 100 + i;
    c.strategy.recompute = i % 2 == 0 ? NDS_RECOMPUTE_SELECTIVE : NDS_RECOMPUTE_FULL;
    c.strategy.schedule = i % 2 == 0 ? NDS_SCHEDULE_INTERLEAVED : NDS_SCHEDULE_DUALPIPE;
    rows.push_back(c);
  }
  const std::string text = table(rows);
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) CHECK(line.size() <= 120);
  CHECK_THAT(text, Catch::Contains("left out to fit 120 columns: op, etp"));
  CHECK_THAT(text,
             Catch::Contains(" dp ") && Catch::Contains(" mbn ") && Catch::Contains(" peak GiB"));
  // At 200 columns nothing is left out, and the three largest parts show.
  TableOptions wide_terminal;
  wide_terminal.width = 200;
  const std::string wide = table(rows, wide_terminal);
  CHECK_THAT(wide,
             !Catch::Contains("left out") && Catch::Contains("backward 60, forward 30, dp 10"));
}

TEST_CASE("The table's columns as --columns chooses them, and every one with --wide") {
  TableOptions chosen;
  chosen.columns = {"tp", "step", "dp%"};
  CHECK(table({candidate(4, 2, 1, 2.0, 10.0)}, chosen) ==
        "  rank tp step s  dp%\n"
        "     1  2  2.000 10.0\n");
  TableOptions wide;
  wide.wide = true;
  const std::string all = table({candidate(4, 2, 1, 2.0, 10.0)}, wide);
  CHECK_THAT(all,
             Catch::StartsWith(
                 "  rank dp tp pp cp ep etp vpp sp zero op mbs mbn recompute schedule step s MFU% "
                 "tok/s/dev peak GiB forward% backward% recompute% optimizer% tp% cp% ep%  dp% pp% "
                 "bubble% overhead%\n"));
  // The dp column is as wide as its cell, 10.0 (% of the step).
  CHECK_THAT(all, Catch::Contains(" 60.0 ") && Catch::Contains(" 10.0 "));  // backward%, dp%
  CHECK_THROWS_WITH(ndsearch::check_table_columns({"dp", "stpe"}),
                    Catch::Contains("unknown column \"stpe\" (did you mean 'step'?)"));
}

TEST_CASE("Text around the table wraps at the width") {
  CHECK(ndsearch::wrapped("aaa bbb ccc ddd", 9, "  ", "    ") == "  aaa bbb\n    ccc\n    ddd\n");
  // A word longer than the width gets a line of its own.
  CHECK(ndsearch::wrapped("a bbbbbbbbbbbb c", 6, "", "") == "a\nbbbbbbbbbbbb\nc\n");
}
