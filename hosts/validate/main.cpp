// SPDX-License-Identifier: Apache-2.0
// ndsearch-validate: the time and memory models against the published runs
// of validation/: prints the tables of docs/validation.md, refits the trainer
// overheads and the allocator shares (--fit) and writes them where the core
// reads them.
//   ndsearch-validate validation [--fit] [--search] [--write-doc docs/validation.md]
//                     [--write-factors core/time/fitted_overheads.inc]
//                     [--write-allocator core/memory/fitted_allocator.inc]
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

#include "core/calibration/report.hpp"
#include "core/support/user_error.hpp"

namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!(out << text)) throw ndsearch::UserError("E-OUTPUT", fmt::format("{}: cannot be written", path));
}

// Replaces what lies between the doc's two markers with `table`.
void write_doc(const std::string& path, const std::string& table) {
  constexpr const char* kBegin = "<!-- validation table: begin (ndsearch-validate --write-doc) -->";
  constexpr const char* kEnd = "<!-- validation table: end -->";
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string doc = text.str();
  const size_t begin = doc.find(kBegin), end = doc.find(kEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin)
    throw ndsearch::UserError(
        "E-VALIDATION-DOC",
        fmt::format("{}: the markers '{}' and '{}' are missing", path, kBegin, kEnd));
  write_file(path, doc.substr(0, begin + std::string(kBegin).size()) + "\n" + table + "\n" + doc.substr(end));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ndsearch-validate: the time and memory models against published training runs"};
  std::string folder, doc, factors, allocator;
  ndsearch::ValidationOptions options;
  app.add_option("folder", folder, "The folder of validation CSVs")->required();
  app.add_flag("--fit", options.fit, "Refit the trainer overheads and allocator shares, with leave-one-out errors");
  app.add_flag("--search", options.search, "Run the search of each row");
  app.add_option("--write-doc", doc,
                 "Write the tables into this markdown file, between its markers");
  bool parts = false;
  app.add_flag("--parts", parts, "Print each row's time parts, exposed and hidden");
  app.add_option("--write-factors", factors,
                 "Write the fitted overheads (C++ initialisers) to this file");
  app.add_option("--write-allocator", allocator,
                 "Write the fitted allocator shares (C++ initialisers) to this file");
  CLI11_PARSE(app, argc, argv);
  try {
    ndsearch::PluginSearch search;
    search.install_dir = ndsearch::default_plugin_dir();
    const ndsearch::PluginRegistry registry = ndsearch::PluginRegistry::load(search);
    const ndsearch::DeviceCatalog devices = ndsearch::DeviceCatalog::load(registry, false);
    const ndsearch::ValidationReport report =
        ndsearch::run_validation(registry, devices, folder, options);
    const std::string table = ndsearch::validation_markdown(report);
    std::cout << table;
    if (parts)
      for (const ndsearch::RowReport& r : report.reports) {
        if (r.result.time.step_s <= 0) continue;  // no candidate priced
        std::string line =
            fmt::format("{:<18} step {:8.3f} s:", r.result.row->name, r.result.time.step_s);
        for (const auto& [name, member] : ndsearch::kTimeParts)
          line += fmt::format(" {} {:.1f}%", name,
                              100 * r.result.time.parts.*member / r.result.time.step_s);
        line += " | hidden:";
        for (const auto& [name, member] : ndsearch::kHiddenParts)
          line += fmt::format(" {} {:.1f}%", name,
                              100 * r.result.time.hidden.*member / r.result.time.step_s);
        std::cout << line << "\n";
      }
    if (!doc.empty()) write_doc(doc, table);
    if (!factors.empty()) write_file(factors, ndsearch::fitted_overheads_source(report));
    if (!allocator.empty()) write_file(allocator, ndsearch::fitted_allocator_source(report.memory));
    return 0;
  } catch (const ndsearch::UserError& e) {
    std::cerr << fmt::format("ndsearch-validate: error [{}]: {}\n", e.id(), e.what());
    return 2;
  } catch (const std::exception& e) {
    std::cerr << fmt::format("ndsearch-validate: error [E-INTERNAL]: {}\n", e.what());
    return 1;
  }
}
