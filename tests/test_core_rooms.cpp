// SPDX-License-Identifier: Apache-2.0
// test_core_rooms.cpp: the core's folders follow the pipeline
// (docs/architecture.md). Each folder of core/ is a room at one stage; an
// #include "core/<room>/..." of a file in another room is an edge, and every
// edge points down the stages: a room includes only rooms of lower stages,
// so there is no cycle between rooms and none can creep in. A new folder
// must be given its stage here (and in docs/architecture.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <iterator>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

// The stages, lowest first; rooms of one stage do not include each other.
const std::map<std::string, int> kStage = {
    {"support", 0},                                      // no core dependency
    {"model", 1},       {"hardware", 1},                 // the IR and the devices
    {"plugin_host", 2},                                  // loading, isolation, conformance
    {"input", 3},       {"strategy", 3},                 // configs and plugins -> IR; strategies
    {"compile", 4},                                      // model + device + plugins, once per run
    {"price", 5},                                        // one strategy's memory and time
    {"search", 6},                                       // enumerate, rank, balance
    {"validation", 7},                                   // published runs priced
    {"analyses", 8},    {"compare", 8},  {"export", 8},  // of priced candidates
    {"fit", 9},                                          // the shipped and the user's fits
    {"output", 10},                                      // JSON, CSV, HTML, text
    {"planner", 11},                                     // one wiring per verb
};

struct Edge {
  std::string from, to, file;
};

// Every include of another room by a file of core/ (the public headers of
// core/include are the API, not a room).
std::vector<Edge> room_edges(const fs::path& core) {
  const std::regex include(R"re(#include "core/([a-z_]+)/)re");
  std::vector<Edge> edges;
  for (const auto& entry : fs::recursive_directory_iterator(core)) {
    if (!entry.is_regular_file()) continue;
    const fs::path relative = fs::relative(entry.path(), core);
    const std::string room = relative.begin()->string();
    if (room == "include" || relative.begin() == std::prev(relative.end())) continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string s = text.str();
    for (std::sregex_iterator m(s.begin(), s.end(), include), end; m != end; ++m)
      if ((*m)[1] != room) edges.push_back({room, (*m)[1], relative.string()});
  }
  return edges;
}

std::set<std::string> rooms(const fs::path& core) {
  std::set<std::string> names;
  for (const auto& entry : fs::directory_iterator(core))
    if (entry.is_directory() && entry.path().filename() != "include")
      names.insert(entry.path().filename().string());
  return names;
}

}  // namespace

TEST_CASE("Every folder of the core is a room with a stage") {
  for (const std::string& room : rooms(fs::path(NDS_TEST_SOURCE_DIR) / "core")) {
    INFO(room << ": give it a stage in kStage and docs/architecture.md");
    CHECK(kStage.count(room) == 1);
  }
}

TEST_CASE("Every include between rooms of the core points down the stages") {
  const std::vector<Edge> edges = room_edges(fs::path(NDS_TEST_SOURCE_DIR) / "core");
  // The graph is real: the planner includes the search, the search the pricing.
  CHECK(std::any_of(edges.begin(), edges.end(),
                    [](const Edge& e) { return e.from == "planner" && e.to == "search"; }));
  CHECK(std::any_of(edges.begin(), edges.end(),
                    [](const Edge& e) { return e.from == "search" && e.to == "price"; }));
  for (const Edge& e : edges) {
    if (kStage.count(e.from) == 0 || kStage.count(e.to) == 0) continue;  // the test above
    INFO(e.file << " (" << e.from << ", stage " << kStage.at(e.from) << ") includes core/" << e.to
                << " (stage " << kStage.at(e.to) << "): an edge up the stages or across one");
    CHECK(kStage.at(e.to) < kStage.at(e.from));
  }
}
