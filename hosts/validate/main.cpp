// SPDX-License-Identifier: Apache-2.0
// ndsearch-validate: the time and memory models against the published runs
// of validation/: prints the tables of docs/validation.md, refits the trainer
// overheads and the allocator shares (--fit) and writes them where the core
// reads them.
//   ndsearch-validate validation [--fit] [--search] [--write-doc docs/validation.md]
//                     [--write-factors core/compile/fitted_overheads.inc]
//                     [--write-allocator core/compile/fitted_allocator.inc]
#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include <fstream>
#include <iostream>
#include <sstream>

#include <ndsearch/core/planner.hpp>

namespace {

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  if (!(out << text))
    throw ndsearch::UserError("E-OUTPUT", fmt::format("{}: cannot be written", path));
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
  write_file(path, doc.substr(0, begin + std::string(kBegin).size()) + "\n" + table + "\n" +
                       doc.substr(end));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"ndsearch-validate: the time and memory models against published training runs"};
  std::string doc, factors, allocator;
  ndsearch::ValidationSettings options;
  app.add_option("folder", options.folder, "The folder of validation CSVs")->required();
  app.add_flag("--fit", options.fit,
               "Refit the trainer overheads and allocator shares, with leave-one-out errors");
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
    // The shipped plugins only: the published runs are priced as shipped.
    ndsearch::PluginSettings plugins;
    plugins.use_environment = false;
    const ndsearch::Validation v = ndsearch::Planner(plugins).validate(options);
    std::cout << v.markdown;
    if (parts) std::cout << v.parts_text;
    if (!doc.empty()) write_doc(doc, v.markdown);
    if (!factors.empty()) write_file(factors, v.fitted_overheads);
    if (!allocator.empty()) write_file(allocator, v.fitted_allocator);
    return 0;
  } catch (const ndsearch::UserError& e) {
    std::cerr << fmt::format("ndsearch-validate: error [{}]: {}\n", e.id(), e.what());
    return 2;
  } catch (const std::exception& e) {
    std::cerr << fmt::format("ndsearch-validate: error [E-INTERNAL]: {}\n", e.what());
    return 1;
  }
}
