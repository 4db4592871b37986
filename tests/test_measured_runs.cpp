// SPDX-License-Identifier: Apache-2.0
// test_measured_runs.cpp: reading a user's measured runs (issue 13), in the
// reference's simple and classified CSVs (reference §9.4; fixtures written by
// us from its description) and in ours, with a diagnostic for each row that
// does not read and E-MEASURED-CSV for a file that gives no run.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/compare/measured_runs.hpp"
#include "core/support/csv.hpp"
#include "core/support/user_error.hpp"
#include "tests/support/temp_csv.hpp"

using namespace ndsearch;
namespace fs = std::filesystem;

namespace {

fs::path fixture(const std::string& name) {
  return fs::path(NDS_TEST_FIXTURES_SOURCE) / "measured" / name;
}

// A CSV of `text` in a fresh temporary file.
fs::path csv_file(const std::string& text) {
  return test::temp_csv("measured", text);
}

double part(const MeasuredRun& run, const std::string& name) {
  for (const auto& [n, s] : run.parts)
    if (n == name) return s;
  FAIL("no part " << name << " in the run of line " << run.line);
  return 0;
}

// The UserError's id and message of reading `text`.
std::pair<std::string, std::string> error_of(const std::string& text) {
  const fs::path file = csv_file(text);
  try {
    read_measured_runs(file);
  } catch (const UserError& e) {
    fs::remove(file);
    CHECK(e.exit_code() == 2);
    CHECK_THAT(e.what(), Catch::Contains(file.string()));
    return {e.id(), e.what()};
  }
  fs::remove(file);
  FAIL("no error for\n" << text);
  return {};
}

// The diagnostics of reading `text`, which must still give a run.
std::vector<MeasuredDiagnostic> diagnostics_of(const std::string& text, size_t runs = 1) {
  const fs::path file = csv_file(text);
  const MeasuredRuns read = read_measured_runs(file);
  fs::remove(file);
  CHECK(read.runs.size() == runs);
  return read.diagnostics;
}

// A fixture that reads whole: its format, no diagnostic, `runs` runs.
MeasuredRuns read_fixture(const std::string& name, MeasuredFormat format, size_t runs) {
  MeasuredRuns read = read_measured_runs(fixture(name));
  CHECK(read.format == format);
  CHECK(read.diagnostics.empty());
  REQUIRE(read.runs.size() == runs);
  return read;
}

}  // namespace

TEST_CASE("The CSV line splitter reads quoted commas and doubled quotes, and drops a CR") {
  CHECK(split_csv_line("a,\"b,c\",\"say \"\"hi\"\"\",\r") ==
        std::vector<std::string>{"a", "b,c", "say \"hi\"", ""});
  CHECK(split_csv_line("") == std::vector<std::string>{""});
}

TEST_CASE(
    "The reference's simple CSV: acronyms mapped to our keys (MP = tp, MB = mbn), time in "
    "seconds") {
  const MeasuredRuns read =
      read_fixture("reference_simple.csv", MeasuredFormat::reference_simple, 2);
  CHECK(read.runs[0].line == 2);
  CHECK(read.runs[0].strategy == "dp=8,tp=2,pp=1,mbs=1,mbn=16,recompute=full");
  CHECK(read.runs[0].step_s == 12.5);
  CHECK(read.runs[0].parts.empty());
  CHECK_FALSE(read.runs[0].devices);
  // the reference's "off" is our "none"
  CHECK(read.runs[1].strategy == "dp=4,tp=4,pp=1,mbs=1,mbn=32,recompute=none");
  CHECK(read.runs[1].step_s == 14.25);
}

TEST_CASE(
    "The reference's classified CSV (BOM, CRLF, spaced names): waits mapped to our parts, idle "
    "computed") {
  const MeasuredRuns read =
      read_fixture("reference_classified.csv", MeasuredFormat::reference_classified, 1);
  const MeasuredRun& run = read.runs[0];
  CHECK(run.strategy == "dp=8,tp=2,pp=2,ep=1,mbs=1");
  CHECK(run.step_s == 10.0);
  // By hand from the fixture's row: comp 6.0; dp = dp_wait 0.5 + op_wait
  // 0.25; tp = mp_wait 1.0 + sp_wait 0.5; bubble = pp_wait 1.25; idle =
  // 10 - 6 - (0.5 + 0.25 + 1.0 + 0.5 + 0 + 0 + 1.25) = 0.5.
  CHECK(part(run, "compute") == 6.0);
  CHECK(part(run, "dp") == 0.75);
  CHECK(part(run, "tp") == 1.5);
  CHECK(part(run, "ep") == 0.0);
  CHECK(part(run, "cp") == 0.0);
  CHECK(part(run, "bubble") == 1.25);
  CHECK(part(run, "idle") == Approx(0.5).margin(1e-12));
  CHECK(run.parts.size() == 7);  // step_trainer is read and not a part
}

TEST_CASE("Our CSV: strategy keys, step_s, per-row overrides and measured parts by name") {
  const MeasuredRuns read = read_fixture("ours.csv", MeasuredFormat::ndsearch, 2);
  const MeasuredRun& a = read.runs[0];
  CHECK(a.line == 3);  // the comment line counts
  CHECK(a.strategy == "dp=8,tp=2,pp=1,mbs=1,recompute=selective,schedule=1f1b");
  CHECK(a.step_s == 3.5);
  CHECK_FALSE(a.devices);
  CHECK_FALSE(a.global_batch);
  CHECK_FALSE(a.seq_len);
  REQUIRE(a.parts.size() == 3);
  CHECK(a.parts[0] == std::pair<std::string, double>("forward", 1.0));
  CHECK(a.parts[1] == std::pair<std::string, double>("dp", 0.25));
  CHECK(a.parts[2] == std::pair<std::string, double>("bubble", 0.0));
  const MeasuredRun& b = read.runs[1];
  CHECK(b.strategy == "dp=16,tp=1,pp=1,mbs=1");  // empty cells are not stated
  CHECK(b.step_s == 2.75);
  CHECK(b.devices == uint64_t{16});
  CHECK(b.global_batch == int64_t{512});
  CHECK(b.seq_len == int64_t{4096});
  CHECK(b.parts.empty());
}

TEST_CASE(
    "The format is told from the header: step_s is ours, comp or a wait is classified, time alone "
    "simple") {
  const auto format_of = [](const std::string& text) {
    const fs::path file = csv_file(text);
    const MeasuredFormat f = read_measured_runs(file).format;
    fs::remove(file);
    return f;
  };
  CHECK(format_of("TP,STEP_S\n2,1.5\n") == MeasuredFormat::ndsearch);
  CHECK(format_of("MP,Time\n2,1.5\n") == MeasuredFormat::reference_simple);
  CHECK(format_of("MP,time,comp\n2,1.5,1\n") == MeasuredFormat::reference_classified);
  CHECK(format_of("time,comp,pp_wait\n1.5,1,0.2\n") == MeasuredFormat::reference_classified);
}

TEST_CASE(
    "A ragged row is skipped with a diagnostic naming its line and cell count, and the rest go "
    "on") {
  const auto d = diagnostics_of("dp,step_s\n2,1.0\n4\n8,1.0,9\n");
  REQUIRE(d.size() == 2);
  CHECK(d[0].line == 3);
  CHECK(d[0].value == "4");
  CHECK_THAT(d[0].reason, Catch::Contains("1 cells") && Catch::Contains("2 columns"));
  CHECK(d[1].line == 4);
  CHECK_THAT(d[1].reason, Catch::Contains("3 cells"));
}

TEST_CASE("A time that is not a positive finite number of seconds is a diagnostic on its column") {
  const auto d = diagnostics_of("dp,step_s\n1,1.0\n2,fast\n3,-1\n4,0\n5,nan\n6,inf\n7,\n");
  REQUIRE(d.size() == 6);
  for (const auto& x : d) CHECK(x.column == "step_s");
  CHECK(d[0].line == 3);
  CHECK(d[0].value == "fast");
  CHECK_THAT(d[0].reason, Catch::Contains("not a number"));
  CHECK_THAT(d[1].reason, Catch::Contains("negative"));
  CHECK_THAT(d[2].reason, Catch::Contains("0 s"));
  CHECK(d[3].value == "nan");
  CHECK_THAT(d[3].reason, Catch::Contains("finite"));
  CHECK_THAT(d[4].reason, Catch::Contains("finite"));
  CHECK(d[5].line == 8);
  CHECK_THAT(d[5].reason, Catch::Contains("empty"));
}

TEST_CASE(
    "A bad part is a diagnostic, a part of 0 a measurement, and parts above the step time are "
    "refused") {
  const auto d =
      diagnostics_of("dp,step_s,tp_s\n1,1.0,0\n2,1.0,-0.5\n3,1.0,NaN\n4,1.0,x\n5,1.0,2.0\n");
  REQUIRE(d.size() == 4);
  CHECK(d[0].line == 3);
  CHECK(d[0].column == "tp_s");
  CHECK(d[0].value == "-0.5");
  CHECK_THAT(d[1].reason, Catch::Contains("finite"));
  CHECK_THAT(d[2].reason, Catch::Contains("not a number"));
  CHECK(d[3].line == 6);
  CHECK_THAT(d[3].reason, Catch::Contains("more than the step time"));
  // a classified row whose waits exceed its time, and a comp of 0
  const auto c =
      diagnostics_of("dp,time,comp,dp_wait\n1,1.0,0.5,0.25\n2,1.0,0.5,0.75\n3,1.0,0,0.1\n");
  REQUIRE(c.size() == 2);
  CHECK(c[0].line == 3);
  CHECK_THAT(c[0].reason, Catch::Contains("more than the step time"));
  CHECK(c[1].column == "comp");
}

TEST_CASE(
    "A degree that is not a positive whole number is a diagnostic naming the column and value") {
  const auto d = diagnostics_of(
      "dp,TP,zero,sp,step_s\n1,1,1,1,1.0\n0,1,1,1,1.0\n2,2.5,1,1,1.0\n"
      "2,1,4,1,1.0\n2,1,1,2,1.0\n99999999999,1,1,1,1.0\n");
  REQUIRE(d.size() == 5);
  CHECK(d[0].line == 3);
  CHECK(d[0].column == "dp");
  CHECK(d[0].value == "0");
  // Each range is strategy_keys.hpp's, as --strategy reads it: degrees 1 to
  // 2^24 = 16777216, zero 0 to 3, sp 0 to 1.
  CHECK(d[0].reason == "out of range; dp takes 1 to 16777216");
  CHECK(d[1].column == "TP");  // as the header spells it
  CHECK(d[1].value == "2.5");
  CHECK(d[1].reason == "not a whole number");
  CHECK(d[2].column == "zero");
  CHECK(d[2].reason == "out of range; zero takes 0 to 3");
  CHECK(d[3].column == "sp");
  CHECK(d[3].reason == "out of range; sp takes 0 to 1 (or the reference's True or False)");
  CHECK(d[4].value == "99999999999");
  CHECK(d[4].reason == "out of range; dp takes 1 to 16777216");
}

TEST_CASE("Recompute and schedule values: ours and the reference's spellings, and a bad one") {
  const fs::path file =
      csv_file("recompute,step_s,schedule\nFull,1,1f1b\nsel,1,1f1b\nnone,1,zigzag\n");
  const MeasuredRuns read = read_measured_runs(file);
  fs::remove(file);
  REQUIRE(read.runs.size() == 1);
  CHECK(read.runs[0].strategy == "recompute=full,schedule=1f1b");
  REQUIRE(read.diagnostics.size() == 2);
  CHECK(read.diagnostics[0].column == "recompute");
  CHECK(read.diagnostics[0].value == "sel");
  CHECK(read.diagnostics[1].column == "schedule");
  CHECK_THAT(read.diagnostics[1].reason, Catch::Contains("1f1b"));
}

TEST_CASE("A duplicated run is a diagnostic on the later line, naming the earlier one") {
  const auto d =
      diagnostics_of("dp,mbs,step_s,devices\n8,1,1.0,8\n8,2,1.0,8\n 8 ,1,1.1,8\n8,1,1.2,16\n", 3);
  REQUIRE(d.size() == 1);
  CHECK(d[0].line == 4);
  CHECK(d[0].value == "dp=8,mbs=1");
  CHECK_THAT(d[0].reason, Catch::Contains("same run as line 2"));
}

TEST_CASE("A value echoed in a diagnostic is cut to 80 bytes") {
  const auto d = diagnostics_of("dp,step_s\n1,1\n2," + std::string(5000, '9') + "x\n");
  REQUIRE(d.size() == 1);
  CHECK(d[0].value.size() < 120);
  CHECK_THAT(d[0].value, Catch::Contains("(5001 bytes)"));
}

TEST_CASE(
    "An unknown or doubled column is the header's error, naming it and the format's columns") {
  auto [id, message] = error_of("dp,tp,step_s,speed\n1,1,1.0,3\n");
  CHECK(id == "E-MEASURED-CSV");
  CHECK_THAT(message, Catch::Contains("\"speed\"") && Catch::Contains("ndsearch measured runs") &&
                          Catch::Contains("forward_s") && Catch::Contains("seq_len"));
  std::tie(id, message) = error_of("DP,MP,time,etp\n1,1,1.0,1\n");
  CHECK_THAT(message, Catch::Contains("\"etp\"") && Catch::Contains("reference simple") &&
                          Catch::Contains("mbs"));
  std::tie(id, message) = error_of("MP,TP,time\n1,1,1.0\n");
  CHECK(id == "E-MEASURED-CSV");
  CHECK_THAT(message, Catch::Contains("\"MP\" and \"TP\""));
}

TEST_CASE("A header that matches no format names the three formats' required columns") {
  const auto [id, message] = error_of("dp,tp,seconds\n1,1,1.0\n");
  CHECK(id == "E-MEASURED-CSV");
  CHECK_THAT(message, Catch::Contains("matches no format") && Catch::Contains("`time`") &&
                          Catch::Contains("`comp`") && Catch::Contains("`step_s`"));
}

TEST_CASE("An empty file, a header alone or only invalid rows is E-MEASURED-CSV with the reason") {
  auto [id, message] = error_of("");
  CHECK(id == "E-MEASURED-CSV");
  CHECK_THAT(message, Catch::Contains("empty"));
  std::tie(id, message) = error_of("\xEF\xBB\xBF\n# nothing timed yet\n");
  CHECK_THAT(message, Catch::Contains("empty"));
  std::tie(id, message) = error_of("dp,step_s\r\n");
  CHECK(id == "E-MEASURED-CSV");
  CHECK_THAT(message, Catch::Contains("no run"));
  std::tie(id, message) = error_of("dp,step_s\n0,1\n2,-3\n4\n");
  CHECK(id == "E-MEASURED-CSV");
  CHECK_THAT(message,
             Catch::Contains("none of its 3 runs") && Catch::Contains("line 2 column dp \"0\"") &&
                 Catch::Contains("line 3 column step_s \"-3\"") && Catch::Contains("line 4"));
}

TEST_CASE("A measured-runs path that is missing or not a regular file is E-MEASURED-CSV") {
  for (const fs::path& path : {fs::path("/nonexistent/runs.csv"), fs::temp_directory_path()}) {
    try {
      read_measured_runs(path);
      FAIL("no error for " << path);
    } catch (const UserError& e) {
      CHECK(e.id() == "E-MEASURED-CSV");
      CHECK_THAT(e.what(), Catch::Contains(path.string()) && Catch::Contains("measured-runs CSV"));
    }
  }
}

TEST_CASE("A row that is not UTF-8 is a diagnostic, and a file over the size limit is refused") {
  const auto d = diagnostics_of("dp,step_s\n1,1\n2,\xff\n");
  REQUIRE(d.size() == 1);
  CHECK(d[0].line == 3);
  CHECK_THAT(d[0].reason, Catch::Contains("UTF-8"));
  const fs::path file = csv_file("dp,step_s\n1,1\n");
  setenv("NDS_CONFIG_MAX_BYTES", "8", 1);
  try {
    read_measured_runs(file);
    FAIL("no error over the limit");
  } catch (const UserError& e) {
    CHECK(e.id() == "E-MEASURED-CSV");
    CHECK_THAT(e.what(),
               Catch::Contains("8-byte limit") && Catch::Contains("NDS_CONFIG_MAX_BYTES"));
  }
  unsetenv("NDS_CONFIG_MAX_BYTES");
  fs::remove(file);
}

TEST_CASE("A file of more than kMaxMeasuredRows runs is E-MEASURED-CSV, not a silent cut") {
  std::string text = "dp,step_s\n";
  for (size_t i = 1; i <= kMaxMeasuredRows + 1; ++i) text += std::to_string(i) + ",1\n";
  const auto [id, message] = error_of(text);
  CHECK(id == "E-MEASURED-CSV");
  CHECK_THAT(message, Catch::Contains("more than 100000 runs"));
}

TEST_CASE("The reference's SP column reads True and False as our sp 1 and 0") {
  const fs::path file = csv_file("MP,SP,time\n2,True,1.5\n4,false,1.5\n");
  const MeasuredRuns read = read_measured_runs(file);
  fs::remove(file);
  REQUIRE(read.runs.size() == 2);
  CHECK(read.runs[0].strategy == "tp=2,sp=1");
  CHECK(read.runs[1].strategy == "tp=4,sp=0");
}
