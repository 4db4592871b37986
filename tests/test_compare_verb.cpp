// SPDX-License-Identifier: Apache-2.0
// test_compare_verb.cpp: `ndsearch compare` end to end. The "measured" runs
// are our own predictions, taken from `eval --format json` for the same
// strategies on tests/fixtures/configs/hf/tiny-4-layers.json (4 layers, 4
// heads) on nvidia-h100-sxm, so every expected metric follows from the
// definitions in core/compare/metrics.hpp: error 0, MAPE 0, Pearson 1, top-k
// the number of runs, top-1 regret 1; scaled by 1.25, every error is
// 1/1.25 − 1 = −0.2.
#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <ndsearch/core/planner.hpp>

#include "core/compare/compare_runs.hpp"
#include "core/output/json_text.hpp"
#include "core/support/csv.hpp"
#include "tests/fixtures_paths.hpp"
#include "tests/support/run_command.hpp"
#include "tests/support/temp_csv.hpp"

using ndsearch::test::cli;
using ndsearch::test::run_command;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kConfig =
    std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/tiny-4-layers.json";
const std::string kSettings = " -A nvidia-h100-sxm --seq-len 512 --format json";

json eval(const std::string& strategy, const std::string& more = " -b 16") {
  auto r = run_command("env -u NDS_PLUGIN_PATH " + cli() + " eval " + kConfig + kSettings + more +
                       " --strategy " + strategy);
  INFO(r.out << r.err);
  return json::parse(r.out);
}

double eval_step_s(const std::string& strategy, const std::string& more = " -b 16") {
  const json j = eval(strategy, more);
  REQUIRE(j["valid"] == true);
  REQUIRE(j["memory"]["fits"] == true);
  return j["time"]["step_s"].get<double>();
}

fs::path csv_file(const std::string& text) {
  return ndsearch::test::temp_csv("compare", text);
}

struct Compare {
  int exit_code;
  std::string out, err;
  json j;
};
Compare compare(const fs::path& csv, const std::string& format = " --format json") {
  auto r =
      run_command("env -u NDS_PLUGIN_PATH " + cli() + " compare " + kConfig +
                  " -A nvidia-h100-sxm -b 16 --seq-len 512 --measured " + csv.string() + format);
  INFO(r.out << r.err);
  Compare c{r.exit_code, r.out, r.err, json()};
  if (format.find("--format json") != std::string::npos && !r.out.empty()) c.j = json::parse(r.out);
  return c;
}

// Four strategies as our CSV's columns spell them, and as --strategy does.
const std::vector<std::pair<std::string, std::string>> kRuns = {
    {"1,1,1,1", "dp=1,tp=1,pp=1,mbs=1"},
    {"2,2,1,1", "dp=2,tp=2,pp=1,mbs=1"},
    {"1,2,1,2", "dp=1,tp=2,pp=1,mbs=2"},
    {"2,1,2,1", "dp=2,tp=1,pp=2,mbs=1"},
};

// Our CSV of the four runs, each measured at `scale` times eval's prediction.
std::string own_runs(double scale, const std::string& extra_rows = "") {
  std::string text = "dp,tp,pp,mbs,step_s\n";
  for (const auto& [cells, strategy] : kRuns)
    text += fmt::format("{},{}\n", cells, scale * eval_step_s(strategy));
  return text + extra_rows;
}

}  // namespace

TEST_CASE(
    "compare on our own predictions gives no error, perfect correlation and top-k of every run") {
  const Compare c = compare(csv_file(own_runs(1.0)));
  REQUIRE(c.exit_code == 0);
  CHECK(c.j["schema_version"] == 1);
  CHECK(c.j["device"] == "nvidia-h100-sxm");
  CHECK(c.j["format"] == "ndsearch");
  REQUIRE(c.j["runs"].size() == 4);
  for (const json& run : c.j["runs"]) {
    CHECK(run["refused"].is_null());
    CHECK(run["fits"] == true);
    CHECK(run["error"].get<double>() == Approx(0).margin(1e-9));
    CHECK(run["measured_rank"] == run["predicted_rank"]);
  }
  CHECK(c.j["runs"][1]["line"] == 3);
  CHECK(c.j["runs"][1]["strategy"] == "dp=2,tp=2,pp=1,mbs=1");
  const json& m = c.j["metrics"];
  CHECK(m["mape"].get<double>() == Approx(0).margin(1e-9));
  CHECK(m["pearson"].get<double>() == Approx(1).margin(1e-9));
  CHECK(m["spearman"].get<double>() == Approx(1).margin(1e-9));
  CHECK(m["top_k"] == 4);
  CHECK(m["top1_regret"].get<double>() == Approx(1).margin(1e-9));
}

TEST_CASE("compare with every measured time 1.25 times ours: mean error -0.2, Pearson still 1") {
  const Compare c = compare(csv_file(own_runs(1.25)));
  REQUIRE(c.exit_code == 0);
  const json& m = c.j["metrics"];
  // predicted / measured − 1 = 1 / 1.25 − 1 for every run.
  CHECK(m["mean_error"].get<double>() == Approx(-0.2).margin(1e-12));
  CHECK(m["mape"].get<double>() == Approx(0.2).margin(1e-12));
  CHECK(m["pearson"].get<double>() == Approx(1).margin(1e-9));
  CHECK(m["top_k"] == 4);
}

TEST_CASE("compare lists a run a check refuses with the check's id and scores the rest") {
  // 4 heads (2 KV heads) do not split over tp 3: eval refuses it, and names the check.
  const json refused = eval("dp=1,tp=3,pp=1,mbs=1");
  REQUIRE(refused["valid"] == false);
  const Compare c = compare(csv_file(own_runs(1.0, "1,3,1,1,0.5\n")));
  REQUIRE(c.exit_code == 0);
  REQUIRE(c.j["runs"].size() == 5);
  const json& run = c.j["runs"][4];
  CHECK(run["line"] == 6);
  CHECK(run["refused"]["id"] == refused["refusal"]["id"]);
  CHECK(run["error"].is_null());
  CHECK(run["measured_rank"].is_null());
  CHECK(c.j["priced"] == 4);
  CHECK(c.j["metrics"]["top_k"] == 4);  // the refused 0.5 s run would be measured first
  CHECK(c.j["metrics"]["mape"].get<double>() == Approx(0).margin(1e-9));
  // The table says the same in words.
  const Compare table = compare(csv_file(own_runs(1.0, "1,3,1,1,0.5\n")), " --format table");
  CHECK(table.exit_code == 0);
  CHECK(table.out.find("left out: [" + refused["refusal"]["id"].get<std::string>() + "]") !=
        std::string::npos);
  CHECK(table.out.find("top1_regret") != std::string::npos);
}

TEST_CASE("compare prices a row's own global batch as eval does with that -b") {
  const double b32 = eval_step_s("dp=2,tp=2,pp=1,mbs=1", " -b 32");
  const double b16 = eval_step_s("dp=2,tp=2,pp=1,mbs=1");
  REQUIRE(b32 != Approx(b16));  // else this test could not tell the override was used
  const std::string text =
      fmt::format("dp,tp,pp,mbs,global_batch,step_s\n2,2,1,1,32,{}\n2,2,1,1,,{}\n", b32, b16);
  const Compare c = compare(csv_file(text));
  REQUIRE(c.exit_code == 0);
  for (const json& run : c.j["runs"]) CHECK(run["error"].get<double>() == Approx(0).margin(1e-9));
}

TEST_CASE("compare exits 2 with E-MEASURED-CSV for a file that gives no run") {
  const Compare c = compare(csv_file("dp,tp,step_s\n"), " --format table");
  CHECK(c.exit_code == 2);
  CHECK(c.err.find("[E-MEASURED-CSV]") != std::string::npos);
}

TEST_CASE("compare exits 2 with E-COMPARE-NONE-PRICED when every run is refused") {
  const Compare c = compare(csv_file("dp,tp,pp,mbs,step_s\n1,3,1,1,0.5\n"), " --format table");
  CHECK(c.exit_code == 2);
  CHECK(c.err.find("[E-COMPARE-NONE-PRICED]") != std::string::npos);
  CHECK(c.err.find("none of its 1 runs") != std::string::npos);
  CHECK(c.out.find("left out:") != std::string::npos);
}

TEST_CASE(
    "Our predicted parts take the classified CSV's names: compute, bubble with pp, idle as "
    "overhead") {
  ndsearch::TimeParts p;
  p.forward = 1, p.backward = 2, p.recompute = 4, p.optimizer = 8;
  p.tp = 16, p.cp = 32, p.ep = 64, p.dp = 128, p.pp = 256, p.bubble = 512, p.overhead = 1024;
  const auto classified =
      ndsearch::predicted_parts(p, ndsearch::MeasuredFormat::reference_classified);
  CHECK(classified == std::map<std::string, double>{{"compute", 15},
                                                    {"tp", 16},
                                                    {"cp", 32},
                                                    {"ep", 64},
                                                    {"dp", 128},
                                                    {"bubble", 768},
                                                    {"idle", 1024}});
  const auto ours = ndsearch::predicted_parts(p, ndsearch::MeasuredFormat::ndsearch);
  CHECK(ours.size() == 11);
  CHECK(ours.at("bubble") == 512);
  CHECK(ours.at("pp") == 256);
  CHECK(ours.at("overhead") == 1024);
}

TEST_CASE("Planner::compare answers with the document compare --format json prints") {
  const fs::path runs = csv_file(own_runs(1.25));
  const Compare c = compare(runs);
  REQUIRE(c.exit_code == 0);
  ndsearch::PluginSettings plugins;
  plugins.shipped_dir = NDS_TEST_SHIPPED_PLUGINS;
  plugins.use_environment = false;
  plugins.vet_helper = NDS_TEST_VET;
  const ndsearch::Planner planner(plugins);
  ndsearch::CompareSettings settings;
  settings.evaluate.model.config = kConfig;
  settings.evaluate.model.global_batch = 16;
  settings.evaluate.model.seq_len = 512;
  settings.evaluate.device = "nvidia-h100-sxm";
  settings.measured = runs;
  CHECK(planner.compare(settings).to_json() == c.j);
}

TEST_CASE("compare scores a run our memory model says does not fit, and marks it") {
  // Issue 33: a measured run ran, so a memory model that says it does not fit
  // is the model's miss, not a reason to drop the run from the metrics.
  // -M 2.01GB less the H100's 2 GiB runtime reserve leaves 0.01 GiB; eval
  // prints a 0.06 GiB peak for this run (tiny-4-layers, -b 16, --seq-len 512;
  // bf16 gradients, an HF config's default).
  // The measured step is eval's own, so its error is 0.
  const std::string row =
      fmt::format("dp,tp,pp,mbs,step_s\n1,1,1,1,{}\n", eval_step_s("dp=1,tp=1,pp=1,mbs=1"));
  const Compare c = compare(csv_file(row), " -M 2.01GB --format json");
  INFO(c.err);
  CHECK(c.exit_code == 0);
  REQUIRE(c.j["runs"].size() == 1);
  const json& run = c.j["runs"][0];
  CHECK(run["fits"] == false);
  CHECK(run["predicted_s"].is_number());
  CHECK(run["error"].get<double>() == Approx(0).margin(1e-6));
  CHECK(run["refused"].is_null());
  CHECK(run["memory_miss"] == "does not fit: peak 0.06 GiB over budget 0.01 GiB");
  CHECK(c.j["priced"] == 1);
}

TEST_CASE("compare stops with the budget's error for a memory size every run shares") {
  const Compare c =
      compare(csv_file("dp,tp,pp,mbs,step_s\n1,1,1,1,0.5\n"), " -M lots --format table");
  CHECK(c.exit_code == 2);
  CHECK(c.err.find("[E-USAGE]") != std::string::npos);
  CHECK(c.out.empty());  // not one refusal per run
}

namespace {

// Our CSV of two runs measuring every time part: each part 1/20 of the
// step, the step 1.25 times eval's prediction (so the error is −0.2), and a
// third run tp 3 refuses.
std::string runs_with_parts() {
  std::string text = "dp,tp,pp,mbs,step_s";
  for (const auto& [name, member] : ndsearch::kTimeParts) text += fmt::format(",{}_s", name);
  text += "\n";
  for (const auto& [cells, strategy] : {kRuns[0], kRuns[1]}) {
    const double step_s = 1.25 * eval_step_s(strategy);
    text += fmt::format("{},{}", cells, step_s);
    for (size_t i = 0; i < ndsearch::kTimeParts.size(); ++i)
      text += fmt::format(",{}", step_s / 20);
    text += "\n";
  }
  return text + "1,3,1,1,0.5" + std::string(ndsearch::kTimeParts.size(), ',') + "\n";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A number cell of the CSV is the shortest text of the JSON's double, "" of null.
std::string cell_of(const json& value) {
  return value.is_null() ? std::string() : fmt::format("{}", value.get<double>());
}

}  // namespace

TEST_CASE("compare --format csv writes a row per run with the JSON's numbers and parts") {
  const fs::path runs = csv_file(runs_with_parts());
  const Compare csv = compare(runs, " --format csv");
  const Compare j = compare(runs);
  REQUIRE(csv.exit_code == 0);
  REQUIRE(j.exit_code == 0);
  const std::vector<std::string> lines = lines_of(csv.out);
  REQUIRE(lines.size() == 4);  // the header and three runs
  std::vector<std::string> header = ndsearch::split_csv_line(lines[0]);
  REQUIRE(header.size() == 10 + 2 * ndsearch::kTimeParts.size());
  CHECK(header[0] == "line");
  CHECK(header[9] == "refused_reason");
  CHECK(header[10] == "measured_forward_s");
  CHECK(header[11] == "predicted_forward_s");
  CHECK(header.back() == "predicted_overhead_s");
  // The second run by hand: line 3, its strategy quoted for its commas,
  // error 1 / 1.25 − 1, both ranks 2 of 2 or 1 of 2 alike, forward measured
  // at step / 20 and predicted as eval's forward.
  CHECK(lines[2].rfind("3,\"dp=2,tp=2,pp=1,mbs=1\",", 0) == 0);
  const std::vector<std::string> row = ndsearch::split_csv_line(lines[2]);
  REQUIRE(row.size() == header.size());
  const json evaluated = eval("dp=2,tp=2,pp=1,mbs=1");
  const double step_s = 1.25 * evaluated["time"]["step_s"].get<double>();
  CHECK(std::stod(row[2]) == Approx(step_s).epsilon(1e-12));
  CHECK(std::stod(row[3]) == Approx(evaluated["time"]["step_s"].get<double>()).epsilon(1e-12));
  CHECK(std::stod(row[4]) == Approx(-0.2).margin(1e-12));
  CHECK(row[5] == row[6]);
  CHECK(row[7] == "1");
  CHECK(row[8].empty());
  CHECK(std::stod(row[10]) == Approx(step_s / 20).epsilon(1e-12));
  CHECK(std::stod(row[11]) ==
        Approx(evaluated["time"]["parts"]["forward"].get<double>()).epsilon(1e-12));
  // Every cell is the JSON document's value.
  for (size_t r = 0; r < 3; ++r) {
    const json& run = j.j["runs"][r];
    const std::vector<std::string> cells = ndsearch::split_csv_line(lines[r + 1]);
    INFO("run " << r << ": " << lines[r + 1]);
    CHECK(cells[0] == std::to_string(run["line"].get<int>()));
    CHECK(cells[1] == run["strategy"]);
    CHECK(cells[2] == cell_of(run["measured_s"]));
    CHECK(cells[3] == cell_of(run["predicted_s"]));
    CHECK(cells[4] == cell_of(run["error"]));
    CHECK(cells[5] ==
          (run["measured_rank"].is_null() ? "" : ndsearch::json_text(run["measured_rank"])));
    CHECK(cells[7] == (run["fits"] == true ? "1" : "0"));
    CHECK(cells[8] == (run["refused"].is_null() ? "" : run["refused"]["id"].get<std::string>()));
    CHECK(cells[9] ==
          (run["refused"].is_null() ? "" : run["refused"]["reason"].get<std::string>()));
    for (size_t p = 0; p < ndsearch::kTimeParts.size(); ++p) {
      const char* name = ndsearch::kTimeParts[p].first;
      const bool measured = run["parts"].contains(name);
      CHECK(cells[10 + 2 * p] == (measured ? cell_of(run["parts"][name]["measured_s"]) : ""));
      CHECK(cells[11 + 2 * p] == (measured ? cell_of(run["parts"][name]["predicted_s"]) : ""));
    }
  }
  // The refused run: no prediction, error or ranks; fits 0; no parts.
  const std::vector<std::string> refused = ndsearch::split_csv_line(lines[3]);
  CHECK(refused[3].empty());
  CHECK(refused[4].empty());
  CHECK(refused[7] == "0");
  CHECK_FALSE(refused[8].empty());
  CHECK(refused[10].empty());
}

TEST_CASE("compare -o DIR creates DIR and writes the per-run CSV there too") {
  const fs::path runs = csv_file(runs_with_parts());
  const fs::path dir = fs::path(runs.string() + ".out") / "nested";
  const Compare table = compare(runs, " --format table -o " + dir.string());
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("top1_regret") != std::string::npos);  // stdout still has the table
  const Compare csv = compare(runs, " --format csv");
  CHECK(read_file(dir / "compare_runs.csv") == csv.out);
  fs::remove_all(dir.parent_path());
}

TEST_CASE("compare -o exits 2 with E-OUTPUT naming a directory it cannot create") {
  const fs::path runs = csv_file(runs_with_parts());
  // A regular file cannot hold a directory, whoever runs the test (root included).
  const fs::path dir = runs / "out";
  const Compare c = compare(runs, " --format json -o " + dir.string());
  CHECK(c.exit_code == 2);
  CHECK(c.err.find("[E-OUTPUT]") != std::string::npos);
  CHECK(c.err.find(dir.string()) != std::string::npos);
  CHECK(c.err.find("Not a directory") != std::string::npos);  // the system's reason
  CHECK(c.out.empty());
}

TEST_CASE("compare's table shows each run's measured and predicted parts within 120 columns") {
  const fs::path runs = csv_file(runs_with_parts());
  const Compare c = compare(runs, " --format table");
  REQUIRE(c.exit_code == 0);
  size_t parts_lines = 0;
  for (const std::string& line : lines_of(c.out)) {
    INFO(line);
    CHECK(line.size() < 120);
    if (line.find("parts s (measured/predicted):") != std::string::npos) ++parts_lines;
  }
  CHECK(parts_lines == 2);  // the two runs that measured parts, not the refused one
  // Eleven parts do not fit one line: the last is on a continuation line.
  CHECK(c.out.find("  overhead ") != std::string::npos);
  CHECK(c.out.find("  forward ") != std::string::npos);
}

TEST_CASE(
    "compare scores a measured peak like a step: its error and the MAPE, and a bad peak is exit "
    "2") {
  // Issue 34: a measured peak per run (peak_gib, GiB of 2^30, or peak_bytes)
  // is compared with eval's peak for the same run: predicted / measured - 1.
  const json e = eval("dp=1,tp=1,pp=1,mbs=1", " -b 16");
  REQUIRE(e["valid"] == true);
  const double peak = e["memory"]["peak_bytes"].get<double>();
  const double step = e["time"]["step_s"].get<double>();
  // Line 2 measured 1.25x less than we say (+25 %), line 3 twice as much
  // (-50 %), in GiB; line 4 leaves its peak empty: timed, not scored on memory.
  const std::string rows =
      fmt::format("dp,tp,pp,mbs,step_s,peak_gib\n1,1,1,1,{0},{1}\n1,1,1,2,{0},{2}\n1,1,1,4,{0},\n",
                  step, peak / 1.25 / (1024.0 * 1024 * 1024), 2 * peak / (1024.0 * 1024 * 1024));
  const Compare c = compare(csv_file(rows));
  INFO(c.err);
  REQUIRE(c.exit_code == 0);
  REQUIRE(c.j["runs"].size() == 3);
  CHECK(c.j["runs"][2]["peak_error"].is_null());
  CHECK(c.j["runs"][0]["peak_error"].get<double>() == Approx(0.25).epsilon(1e-6));
  CHECK(c.j["runs"][0]["predicted_peak_bytes"].get<double>() == Approx(peak));
  // mbs 2 holds more activations than mbs 1: its own peak, against 2 x mbs 1's.
  const double peak2 = c.j["runs"][1]["predicted_peak_bytes"].get<double>();
  CHECK(peak2 > peak);
  CHECK(c.j["runs"][1]["peak_error"].get<double>() == Approx(peak2 / (2 * peak) - 1).epsilon(1e-6));
  CHECK(c.j["peaks"]["runs"] == 2);
  CHECK(c.j["peaks"]["mape"].get<double>() ==
        Approx((0.25 + std::abs(peak2 / (2 * peak) - 1)) / 2).epsilon(1e-6));
  CHECK(c.j["skipped"].empty());
  // A peak that is not a number, 0 or negative stops the file: exit 2
  // naming it, the line, the column and the value (issue 34's bad input).
  const std::string nan_file =
      csv_file(fmt::format("dp,tp,pp,mbs,step_s,peak_gib\n1,1,1,1,{},zero\n", step));
  const Compare nan = compare(nan_file);
  CHECK(nan.exit_code == 2);
  CHECK_THAT(nan.err, Catch::Contains("E-MEASURED-CSV") && Catch::Contains(nan_file) &&
                          Catch::Contains("line 2, column peak_gib = \"zero\": not a number"));
  // peak_bytes reads bytes; 0 and both columns at once are refused.
  const Compare bytes =
      compare(csv_file(fmt::format("dp,tp,pp,mbs,step_s,peak_bytes\n1,1,1,1,{},{}\n", step, peak)));
  CHECK(bytes.j["runs"][0]["peak_error"].get<double>() == Approx(0).margin(1e-9));
  for (const char* bad : {"0", "-3"}) {
    const Compare zero = compare(csv_file(fmt::format(
        "dp,tp,pp,mbs,step_s,peak_gib\n1,1,1,1,{},1\n1,1,1,2,{},{}\n", step, step, bad)));
    CHECK(zero.exit_code == 2);
    CHECK_THAT(zero.err, Catch::Contains(fmt::format(
                             "line 3, column peak_gib = \"{}\": a peak of 0 or less", bad)));
  }
  const Compare both = compare(
      csv_file(fmt::format("dp,tp,pp,mbs,step_s,peak_gib,peak_bytes\n1,1,1,1,{},1,2\n", step)));
  CHECK(both.exit_code == 2);
  CHECK_THAT(both.err, Catch::Contains("E-MEASURED-CSV") && Catch::Contains("keep one"));
}
