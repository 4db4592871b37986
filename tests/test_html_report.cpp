// SPDX-License-Identifier: Apache-2.0
// test_html_report.cpp: the HTML report (core/output/html_report.*,
// report_data.*; `search -o DIR --report`, `explain --report FILE`): the
// page inlines the chart library and the data so that nothing in the data
// ends its script; a missing or foreign library is E-REPORT-CHARTJS before
// any pricing; the sample of the fitting strategies is every stride-th in
// rank order; the timeline's slices are the trace's, cut where too many; the
// data a search's report carries agrees with the search. That the page draws
// in a browser is tests/report/report_in_chromium.sh's.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/input/parse_config.hpp"
#include "core/output/html_report.hpp"
#include "core/output/report_data.hpp"
#include "core/output/timeline_json.hpp"
#include "core/price/evaluate_strategy.hpp"
#include "core/support/user_error.hpp"
#include "fixtures_paths.hpp"
#include "support/run_command.hpp"
#include "tests/support/shipped.hpp"
#include "tests/support/tiny_model.hpp"

using namespace ndsearch;
using ndsearch::test::tiny_model;
using nlohmann::json;

namespace {

std::filesystem::path scratch(const std::string& name) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("nds_html_report_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

std::string write_file(const std::string& name, const std::string& text) {
  const auto path = scratch(name);
  std::ofstream(path) << text;
  return path.string();
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The report's data block, parsed back.
json report_data_of(const std::string& page) {
  const std::string open = "<script id=\"report-data\" type=\"application/json\">";
  const size_t start = page.find(open);
  REQUIRE(start != std::string::npos);
  const size_t end = page.find("</script>", start);
  return json::parse(page.substr(start + open.size(), end - start - open.size()));
}

// The banner and the UMD wrapper's test of an AMD loader, as chart.min.js has them.
const std::string kFakeLibrary =
    "/*!\n * Chart.js v3.9.1\n * https://www.chartjs.org\n */\n"
    "(function (g) { if (typeof define === 'function' && define.amd) {} })(this);\n"
    "window.Chart = function () {};\n";

std::string error_id(const std::function<void()>& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.id() + ": " + e.what();
  }
  return "no error";
}

ndsearch::test::CommandResult ndsearch_cli(const std::string& args) {
  return ndsearch::test::run_command("env -u NDS_PLUGIN_PATH -u NDS_DEVICE_PATH " +
                                     ndsearch::test::cli() + " " + args);
}

const std::string kTinyOn8 = std::string(NDS_TEST_FIXTURES_SOURCE) +
                             "/configs/hf/tiny-4-layers.json -A nvidia-h100-sxm -d 8 -b 16 "
                             "--seq-len 1024";

}  // namespace

TEST_CASE("The page inlines the library and the data, and nothing in the data ends its script") {
  const ChartLibrary library = load_chart_library(write_file("chart.min.js", kFakeLibrary));
  CHECK(library.version == "3.9.1");
  const json data = {{"kind", "search"}, {"note", "</script><script>alert(1)</script> & <!--"}};
  std::ostringstream page;
  write_html_report(page, "a <b> & \"c\"", data, library);
  const std::string text = page.str();
  CHECK(text.find("window.Chart = function () {};") != std::string::npos);
  CHECK(text.find("<title>a &lt;b&gt; &amp; &quot;c&quot;</title>") != std::string::npos);
  CHECK(text.find("Chart.js 3.9.1") != std::string::npos);  // the footer's credit
  CHECK(text.find("The MIT License") != std::string::npos);
  CHECK(text.find("<!--nds:") == std::string::npos);  // every marker filled
  // The data's '<' reads \u003c: no "</script" and no "<!--" from the data.
  CHECK(text.find("alert(1)</script>") == std::string::npos);
  CHECK(text.find(R"(\u003c/script>\u003cscript>alert(1)\u003c/script> & \u003c!--)") !=
        std::string::npos);
  CHECK(report_data_of(text) == data);
  // The page's own script is there, and ends the page.
  CHECK(text.find("root.dataset.reportReady") != std::string::npos);
}

TEST_CASE("A chart library that is missing, foreign or would end the script is E-REPORT-CHARTJS") {
  const std::string missing = scratch("nowhere.js").string();
  const std::string e1 = error_id([&] { load_chart_library(missing); });
  CHECK(e1.rfind("E-REPORT-CHARTJS: ", 0) == 0);
  CHECK(e1.find(missing) != std::string::npos);
  CHECK(e1.find("apt-get install libjs-chart.js") != std::string::npos);
  CHECK(e1.find("NDS_CHARTJS") != std::string::npos);

  const std::string foreign = write_file("d3.js", "// d3 v7.8.0\nvar d3 = {};\n");
  CHECK(error_id([&] { load_chart_library(foreign); }).find("is not Chart.js 3 or 4") !=
        std::string::npos);
  const std::string old = write_file("chart2.js", "/*!\n * Chart.js v2.9.4\n */\n");
  CHECK(error_id([&] { load_chart_library(old); }).find("is not Chart.js 3 or 4") !=
        std::string::npos);

  // The ES module beside the UMD file in Debian's folder (chart.esm.js).
  const std::string module =
      write_file("chart.esm.js", "/*!\n * Chart.js v3.9.1\n */\nimport {a} from './helpers';\n");
  CHECK(error_id([&] { load_chart_library(module); }).find("not its UMD build") !=
        std::string::npos);

  const std::string ends = write_file("ends.js", kFakeLibrary + "var s = '</SCRIPT>';\n");
  CHECK(error_id([&] { load_chart_library(ends); }).find("\"</script\"") != std::string::npos);
}

TEST_CASE("NDS_CHARTJS names the chart library instead of Debian's") {
  const char* before = std::getenv("NDS_CHARTJS");
  const std::string saved = before == nullptr ? "" : before;
  ::setenv("NDS_CHARTJS", "/opt/chart.umd.js", 1);
  CHECK(chart_library_path() == "/opt/chart.umd.js");
  ::unsetenv("NDS_CHARTJS");
  CHECK(chart_library_path() != "/opt/chart.umd.js");  // the build's (Debian's by default)
  if (before != nullptr) ::setenv("NDS_CHARTJS", saved.c_str(), 1);
}

TEST_CASE("The time-memory chart's sample is every stride-th fitting strategy in rank order") {
  std::vector<PricedCandidate> ranking(10);
  for (size_t i = 0; i < ranking.size(); ++i) {
    ranking[i].time.step_s = 1.0 + 0.1 * static_cast<double>(i);
    ranking[i].peak_bytes = 1e9 * static_cast<double>(10 - i);
  }
  // 10 fits, at most 4 points: a stride of ceil(10 / 4) = 3, ranks 1, 4, 7 and 10.
  const FitSample four = sample_fits(ranking, 4);
  CHECK(four.fits == 10);
  CHECK(four.stride == 3);
  REQUIRE(four.points.size() == 4);
  CHECK(four.points[1][0] == Approx(1.3));
  CHECK(four.points[1][1] == Approx(7e9));
  CHECK(four.points[3][0] == Approx(1.9));
  // At most 10: every one.
  const FitSample all = sample_fits(ranking, 10);
  CHECK(all.stride == 1);
  CHECK(all.points.size() == 10);
  CHECK(sample_fits({}, 4).points.empty());
}

TEST_CASE(
    "The report's timeline holds the trace's slices, cut after the first ones where too many") {
  Model model = tiny_model(16);
  const Machine machine = make_machine(test::shipped_devices(), "nvidia-h100-sxm", 8);
  EvaluationRequest request;
  // pp 2, vpp 2, 8 micro-batches: 2 ranks x 2 chunks x 8 x (forward, backward) = 64
  // passes, and the sends between stages.
  request.strategy = "dp=2,tp=2,pp=2,vpp=2,mbs=1,mbn=8,schedule=interleaved";
  const StrategyEvaluation evaluation =
      evaluate_strategy(test::shipped_plugins(), model, machine, request);
  REQUIRE(evaluation.valid());
  size_t events = 0, passes = 0;
  const json trace = timeline_json(evaluation);
  for (const json& e : trace["traceEvents"]) {
    if (e["ph"] != "X") continue;
    ++events;
    if (e["cat"] == "forward" || e["cat"] == "backward") ++passes;
  }
  CHECK(passes == 64);

  const json whole = report_timeline(evaluation)["timeline"];
  CHECK(whole["tracks"] == json{"pipeline rank 0", "pipeline rank 1"});
  CHECK(whole["slices"].size() == events);
  CHECK(whole["slices_in_step"] == events);
  CHECK_FALSE(whole.contains("cut_at_s"));
  CHECK(whole["step_s"].get<double>() == Approx(evaluation.time->step_s).epsilon(1e-9));

  // Cut to 20: the step's own work whole (micro-batch -1), the first passes by start.
  const json cut = report_timeline(evaluation, 20)["timeline"];
  REQUIRE(cut["slices"].size() == 20);
  CHECK(cut["slices_in_step"] == events);
  size_t own = 0;
  double last_start = 0;
  for (const json& s : cut["slices"]) {
    if (s[4].get<int64_t>() < 0)
      ++own;
    else
      last_start = std::max(last_start, s[2].get<double>());
  }
  CHECK(own > 0);
  CHECK(last_start <= cut["cut_at_s"].get<double>());
}

TEST_CASE("search --report writes the page beside the CSVs, with the search's data") {
  // A budget of 0.05 GiB (2.05 less the H100's 2 GiB reserve): 7 of the 15 fit, 8 are dropped.
  const auto dir = scratch("search");
  std::filesystem::remove_all(dir);
  const auto r = ndsearch_cli("search " + kTinyOn8 + " -l DP TP PP MBS -M 2.05GiB -o " +
                              dir.string() + " --report -t 3");
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("wrote the report: " + (dir / "report.html").string()) != std::string::npos);
  const json data = report_data_of(read_file(dir / "report.html"));
  CHECK(data["kind"] == "search");
  // The page's names, from the core's tables: 12 integer keys then recompute and
  // schedule; the 11 parts of the step; the 6 memory terms as a stage's keys.
  CHECK(data["vocabulary"]["strategy_keys"].size() == 14);
  CHECK(data["vocabulary"]["strategy_keys"].back() == "schedule");
  CHECK(data["vocabulary"]["parts"].size() == 11);
  CHECK(data["vocabulary"]["memory_terms"].front() == "params_bytes");
  const json& search = data["search"];
  for (const json& term : data["vocabulary"]["memory_terms"])
    CHECK(search["ranking"][0]["memory"]["stages"][0].contains(term.get<std::string>()));
  CHECK(search["ranking"].size() == 3);  // -t 3
  // The sample is every fitting strategy here (fewer than 4000), counted as the search counts.
  CHECK(data["sample"]["fits"] == search["counts"]["fit"]);
  CHECK(data["sample"]["stride"] == 1);
  CHECK(data["sample"]["points"].size() == search["counts"]["fit"].get<size_t>());
  // The first point is the best strategy: its step and peak.
  CHECK(data["sample"]["points"][0][0].get<double>() ==
        Approx(search["ranking"][0]["time"]["step_s"].get<double>()));
  CHECK(data["sample"]["points"][0][1].get<double>() ==
        Approx(search["ranking"][0]["memory"]["peak_bytes"].get<double>()));
  // The timeline is the best strategy's: a track per pipeline rank.
  CHECK(data["timeline"]["tracks"].size() == search["ranking"][0]["strategy"]["pp"].get<size_t>());
  // The potentials are recompute_potentials.csv's rows (and its header line).
  std::ifstream csv(dir / "recompute_potentials.csv");
  size_t lines = 0;
  for (std::string line; std::getline(csv, line);) ++lines;
  CHECK(data["potentials"].size() == lines - 1);
  CHECK(data["header"][0].get<std::string>().find("on 8 x nvidia-h100-sxm: global batch 16") !=
        std::string::npos);
  // -o keeps every dropped candidate for dropped.csv; the page carries none of them.
  CHECK(search["counts"]["dropped"].get<uint64_t>() > 0);
  CHECK(search["closest_misses"].empty());
  std::filesystem::remove_all(dir);
}

TEST_CASE("search --report where nothing fits still writes the page, with the counts and why") {
  const auto dir = scratch("no_fit");
  std::filesystem::remove_all(dir);
  const auto r =
      ndsearch_cli("search " + kTinyOn8 + " -l DP TP -M 2.01GiB -o " + dir.string() + " --report");
  CHECK(r.err.find("E-SEARCH-NO-FIT") != std::string::npos);
  const json data = report_data_of(read_file(dir / "report.html"));
  CHECK(data["search"]["counts"]["fit"] == 0);
  CHECK(data["search"]["ranking"].empty());
  CHECK(data["sample"]["points"].empty());
  CHECK(data["timeline_note"] == "no strategy fits: there is no best strategy to draw");
  std::filesystem::remove_all(dir);
}

TEST_CASE("search --report needs -o, and a missing chart library stops it before the search") {
  const auto r = ndsearch_cli("search " + kTinyOn8 + " --report");
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("E-USAGE") != std::string::npos);
  CHECK(r.err.find("is written into the output folder: give the output folder (-o DIR) too") !=
        std::string::npos);

  const auto dir = scratch("no_library");
  const auto missing = ndsearch::test::run_command(
      "env -u NDS_PLUGIN_PATH -u NDS_DEVICE_PATH NDS_CHARTJS=/nonexistent/chart.js " +
      ndsearch::test::cli() + " search " + kTinyOn8 + " -o " + dir.string() + " --report");
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.find("E-REPORT-CHARTJS") != std::string::npos);
  CHECK(missing.err.find("/nonexistent/chart.js") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "ranking.csv"));  // nothing searched
}

TEST_CASE(
    "explain --report writes one strategy's page: its table, stages, timeline and potentials") {
  const auto file = scratch("explain.html");
  const auto r = ndsearch_cli("explain " + kTinyOn8 +
                              " --strategy dp=2,tp=2,pp=2,mbs=1,mbn=8 --report " + file.string());
  REQUIRE(r.exit_code == 0);
  const json data = report_data_of(read_file(file));
  CHECK(data["kind"] == "explain");
  CHECK(data["explain"]["strategy"]["pp"] == 2);
  CHECK(data["explain"]["memory"]["stages"].size() == 2);
  CHECK(data["timeline"]["tracks"].size() == 2);
  // Selective and full recompute on each of the two stages (no offload: the search offloads
  // nothing).
  CHECK(data["potentials"].size() == 4);
  for (const json& p : data["potentials"]) CHECK(p["rank"] == 1);
  CHECK(data["header"][1].get<std::string>().rfind("strategy ", 0) == 0);
  std::filesystem::remove(file);
}

TEST_CASE("explain --report of a refused strategy writes the page, with why it has no timeline") {
  const auto file = scratch("refused.html");
  const auto r = ndsearch_cli("explain " + kTinyOn8 + " --strategy tp=3 --report " + file.string());
  CHECK(r.exit_code == 2);  // refused, as explain says without --report
  const json data = report_data_of(read_file(file));
  CHECK(data["explain"]["valid"] == false);
  CHECK(data["timeline_note"].get<std::string>().find("refused by a check") != std::string::npos);
  CHECK(data["potentials"].empty());
  std::filesystem::remove(file);
}
