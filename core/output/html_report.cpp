// SPDX-License-Identifier: Apache-2.0
#include "core/output/html_report.hpp"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>  // std::getenv
#include <fstream>
#include <regex>
#include <sstream>
#include <string_view>

#include "core/output/json_text.hpp"
#include "core/support/user_error.hpp"

#ifndef NDS_CHARTJS_FILE  // the build sets it (core/CMakeLists.txt)
#define NDS_CHARTJS_FILE "/usr/share/javascript/chart.js/chart.min.js"
#endif

namespace ndsearch {
namespace report_assets {
// core/output/html/, embedded by cmake/embed_text.cmake.
extern const char kPage[];
extern const char kStyle[];
extern const char kScript[];
}  // namespace report_assets

namespace {

constexpr const char* kHowToGet =
    "install Debian's libjs-chart.js (apt-get install libjs-chart.js), or set NDS_CHARTJS to a "
    "Chart.js 3 or 4 UMD file (chart.min.js)";

std::string html_escaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// JSON inside <script type="application/json">: a '<' can only be in a
// string there, where \u003c reads the same and no "</script" ends the block.
std::string script_safe_json(const nlohmann::json& data) {
  const std::string text = json_text(data);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<')
      out += "\\u003c";
    else
      out += c;
  }
  return out;
}

// Copies `page` to `out`, each <!--nds:NAME--> marker replaced by `fill(NAME)`.
template <typename Fill>
void write_filled(std::ostream& out, std::string_view page, Fill fill) {
  constexpr std::string_view kOpen = "<!--nds:", kClose = "-->";
  size_t at = 0;
  while (true) {
    const size_t marker = page.find(kOpen, at);
    if (marker == std::string_view::npos) break;
    const size_t name_end = page.find(kClose, marker);
    if (name_end == std::string_view::npos) break;  // not a marker: copied as it is
    out << page.substr(at, marker - at);
    fill(page.substr(marker + kOpen.size(), name_end - marker - kOpen.size()));
    at = name_end + kClose.size();
  }
  out << page.substr(at);
}

}  // namespace

std::string chart_library_path() {
  if (const char* env = std::getenv("NDS_CHARTJS"); env != nullptr && *env != '\0') return env;
  return NDS_CHARTJS_FILE;
}

ChartLibrary load_chart_library(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw UserError(
        "E-REPORT-CHARTJS",
        fmt::format("the report's chart library {} cannot be read; {}", path, kHowToGet));
  std::ostringstream text;
  text << in.rdbuf();
  ChartLibrary library{path, "", text.str()};
  // Its banner: "/*! * Chart.js v3.9.1 ...". The page's script uses the API of 3 and 4.
  static const std::regex banner(R"(Chart\.js v([34]\.[0-9]+\.[0-9]+))");
  std::smatch match;
  const std::string head = library.code.substr(0, 400);
  if (!std::regex_search(head, match, banner))
    throw UserError("E-REPORT-CHARTJS",
                    fmt::format("{} is not Chart.js 3 or 4 (its first lines name no \"Chart.js "
                                "v3.x.y\" or \"v4.x.y\"); {}",
                                path, kHowToGet));
  library.version = match[1];
  // The page loads it with a plain <script>: the UMD build (chart.min.js,
  // chart.umd.js), not the ES modules beside it (chart.esm.js, chart.mjs).
  if (library.code.find("define.amd") == std::string::npos)
    throw UserError("E-REPORT-CHARTJS",
                    fmt::format("{} is Chart.js {} but not its UMD build (an ES module cannot "
                                "load in the page's script element); {}",
                                path, library.version, kHowToGet));
  std::string lower = library.code;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("</script") != std::string::npos)
    throw UserError("E-REPORT-CHARTJS",
                    fmt::format("{} holds \"</script\", which would end the page's script "
                                "element; {}",
                                path, kHowToGet));
  return library;
}

void write_html_report(std::ostream& out, const std::string& title, const nlohmann::json& data,
                       const ChartLibrary& library) {
  write_filled(out, report_assets::kPage, [&](std::string_view name) {
    if (name == "title")
      out << html_escaped(title);
    else if (name == "style")
      out << report_assets::kStyle;
    else if (name == "library-path")
      out << html_escaped(library.path);
    else if (name == "library-version")
      out << html_escaped(library.version);
    else if (name == "library")
      out << library.code;
    else if (name == "data")
      out << script_safe_json(data);
    else if (name == "script")
      out << report_assets::kScript;
  });
}

}  // namespace ndsearch
