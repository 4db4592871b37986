// SPDX-License-Identifier: Apache-2.0
// published_csv.hpp: the one reader of the published-run CSVs of
// validation/ (step times, validation.hpp; measured peaks,
// memory_validation.hpp): '#' comments and blank lines skipped, a header
// that must be the expected one, rows of its width, cells read with
// E-VALIDATION-CSV errors naming the file, line and column.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace ndsearch {

// The facts every published run's row starts with (its first seven columns:
// name, config, device, devices, global_batch, seq_len, strategy).
struct PublishedRun {
  std::string source;  // the CSV's stem, e.g. "megatron-core-h100"
  int line = 0;        // in the CSV
  std::string name;
  std::filesystem::path config;  // the config we wrote, relative to the CSV's folder in the file
  std::string device;
  uint64_t devices = 0;
  int64_t global_batch = 0, seq_len = 0;
  std::string strategy;  // the published keys (DESIGN §8.1)
  // A run of a file named *-check.csv: kept to check that a fit
  // generalises (another version, trainer or size): priced, never fitted on.
  bool kept_for_checking() const { return source.ends_with("-check"); }
};

class PublishedCsv {
 public:
  PublishedCsv(std::filesystem::path file, std::vector<std::string> columns);

  // Calls `row` with each data row's line number and cells, in file order.
  void read(const std::function<void(int line, const std::vector<std::string>& cells)>& row) const;

  // The *.csv files of `folder`, sorted by name.
  static std::vector<std::filesystem::path> files_of(const std::filesystem::path& folder);

  // The first seven columns of a row.
  PublishedRun run(int line, const std::vector<std::string>& cells) const;

  // Cell readers: a whole number from 1 to INT32_MAX; a positive finite number.
  int64_t whole(const std::string& text, const char* column, int line) const;
  double positive(const std::string& text, const char* column, int line) const;

  [[noreturn]] void bad_row(int line, const std::string& what) const;

 private:
  std::filesystem::path file_;
  std::vector<std::string> columns_;
};

}  // namespace ndsearch
