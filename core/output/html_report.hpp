// SPDX-License-Identifier: Apache-2.0
// html_report.hpp: one self-contained HTML page of a search or of one
// strategy (`search -o DIR --report`, `explain --report FILE`): the page's
// markup, style and script (core/output/html/, built into the program), the
// report's data as one JSON block, and the chart library inlined, so that the
// file opens offline in any browser.
//
// The charts are drawn by Chart.js (MIT licence), read at write time from
// Debian's libjs-chart.js: a package the system keeps up to date rather than
// a copy in this repository, and a single file with no dependencies of its
// own (Vega needs Vega-Lite and a dozen more for the same charts).
#pragma once

#include <nlohmann/json.hpp>

#include <ostream>
#include <string>

namespace ndsearch {

// The chart library a page inlines: its file, version and code.
struct ChartLibrary {
  std::string path;
  std::string version;  // "3.9.1", from the file's banner
  std::string code;
};

// Where the library is read from: the environment's NDS_CHARTJS when set,
// else the file of Debian's libjs-chart.js (the build's NDS_CHARTJS_FILE).
std::string chart_library_path();

// Reads the library. Throws UserError E-REPORT-CHARTJS naming the file and
// how to get it when it is missing, is not Chart.js 3 or 4, or holds text
// that would end the page's script element.
ChartLibrary load_chart_library(const std::string& path = chart_library_path());

// Writes the page: `title` in its head and heading, `data` (the report's
// JSON: "kind" is "search" or "explain", see docs/report.md) for the script.
void write_html_report(std::ostream& out, const std::string& title, const nlohmann::json& data,
                       const ChartLibrary& library);

}  // namespace ndsearch
