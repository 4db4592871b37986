// SPDX-License-Identifier: Apache-2.0
// results.hpp: what each Planner call answers. Every host (the CLI, the
// Python binding, a C++ program) gets the same result: its JSON document
// (to_json(), docs/cli.md lists the keys), its text as the CLI prints it
// (write_text), the files the settings asked for, already written, and the
// outcome a host turns into an exit code (a refusal, nothing fitting), each
// worded once, here in the core.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <ndsearch/core/user_error.hpp>

namespace ndsearch {

// How a result's text is laid out.
struct TextSettings {
  size_t width = 120;  // the longest line of prose around a table (a terminal's width)
  // How core text spells a setting it names, "the device count (`devices`)"
  // (settings.hpp): the CLI shows its flag instead. Empty: as written.
  std::function<std::string(std::string_view)> spell_settings;
};

// An answer whose text the core writes from what it loaded or read (the
// plugins, the devices, a model, a plugin's checks): its document and text.
class Listing {
 public:
  using TextWriter = std::function<void(std::ostream&, const TextSettings&)>;
  Listing(nlohmann::json document, TextWriter text)
      : document_(std::move(document)), text_(std::move(text)) {}
  const nlohmann::json& to_json() const { return document_; }
  void write_text(std::ostream& out, const TextSettings& text = {}) const { text_(out, text); }

 private:
  nlohmann::json document_;
  TextWriter text_;
};

// `plugins check`: one plugin loaded in a child process and checked.
struct PluginCheck {
  Listing result;                    // {path, passed, end, checks, error, warnings, plugin_stderr}
  std::optional<UserError> failure;  // the check that failed, with its id
  std::string plugin_stderr;         // what the plugin wrote on stderr
};

// A file a call wrote because a setting named it, and the line that says so.
struct WrittenFile {
  std::filesystem::path path;
  std::string note;  // "wrote the report: out/report.html"
};

// `eval`: one strategy checked and priced.
struct Evaluation {
  nlohmann::json document;           // as `eval --format json`
  std::optional<UserError> refused;  // E-STRATEGY-REFUSED: the strategy and the check's reason
  const nlohmann::json& to_json() const { return document; }
  void write_text(std::ostream& out, const TextSettings& text = {}) const;
};

// `explain`: the evaluation with every check, and its rank in a search.
struct Explanation {
  nlohmann::json document;  // as `explain --format json`
  std::optional<UserError> refused;
  std::vector<WrittenFile> files;  // the timeline and the report, where asked for
  const nlohmann::json& to_json() const { return document; }
  void write_text(std::ostream& out, const TextSettings& text = {}) const;
};

// `compare`: measured runs priced as eval prices them.
struct Comparison {
  nlohmann::json document;               // as `compare --format json`
  std::string csv;                       // one row per run (`compare --format csv`)
  std::vector<std::string> part_names;   // the measured parts, in the file's order
  std::optional<UserError> none_priced;  // E-COMPARE-NONE-PRICED
  std::vector<WrittenFile> files;        // compare_runs.csv, where asked for
  const nlohmann::json& to_json() const { return document; }
  void write_text(std::ostream& out, const TextSettings& text = {}) const;
};

// A line the writer removed ('-') or added ('+'), by its line number.
struct ChangedLine {
  char kind = '+';
  int64_t line = 0;  // in the config ('-') or the written text ('+')
  std::string text;
};

// `apply` and `search`'s emitted config: a strategy written into the config.
struct WrittenConfig {
  nlohmann::json document;  // as apply_settings' answer (docs/cli.md, "apply")
  // What is written: the config with the strategy in it, or, for a config
  // that states no trainer, each trainer's flags or table.
  std::string text;
  bool fragments = false;  // `text` is the trainers' fragments
  std::string strategy_text;
  std::vector<std::string> key_changes;  // the strategy keys that differ from the config's
  std::vector<ChangedLine> changes;
  std::optional<WrittenFile> file;  // where it was written, when an output was given
  const nlohmann::json& to_json() const { return document; }
  // What changed: the strategy, the keys and the lines.
  void write_changes(std::ostream& out) const;
};

// `ndsearch-validate`: the published runs priced, and the fits when asked.
struct Validation {
  std::string markdown;          // the tables of docs/validation.md
  std::string parts_text;        // each row's step parts, exposed and hidden, a line per row
  std::string fitted_overheads;  // core/compile/fitted_overheads.inc's initialisers
  std::string fitted_allocator;  // core/compile/fitted_allocator.inc's initialisers
};

// `search`: the ranking, and everything else the settings asked for.
class SearchReport {
 public:
  struct Data;  // the priced search, kept for the text and the streamed JSON
  explicit SearchReport(std::shared_ptr<const Data> data);

  bool fits() const;  // some strategy fits the budget
  // E-SEARCH-NO-FIT (exit 3): the budget, the closest misses and the fixes.
  UserError no_fit() const;
  void write_json(std::ostream& out) const;  // as `search --format json`
  nlohmann::json to_json() const;
  void write_csv(std::ostream& out) const;  // the listed ranking (`search --format csv`)
  // The header, the ranking table, the counts and the closest misses the
  // settings list.
  void write_text(std::ostream& out, const TextSettings& text = {}) const;

  std::vector<WrittenFile> files;               // -o's files, the report, the balancer's file
  std::optional<WrittenConfig> written_config;  // the emitted config
  // Why the emitted config could not be written; the ranking is still worth
  // reading, so the host shows it first.
  std::optional<UserError> emit_failure;

 private:
  std::shared_ptr<const Data> data_;
};

}  // namespace ndsearch
