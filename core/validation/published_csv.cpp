// SPDX-License-Identifier: Apache-2.0
#include "core/validation/published_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <fstream>

#include "core/support/csv.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {

PublishedCsv::PublishedCsv(std::filesystem::path file, std::vector<std::string> columns)
    : file_(std::move(file)), columns_(std::move(columns)) {}

void PublishedCsv::bad_row(int line, const std::string& what) const {
  throw UserError("E-VALIDATION-CSV",
                  fmt::format("{}:{}: {}; each row needs the columns {}", file_.string(), line,
                              what, fmt::join(columns_, ",")));
}

void PublishedCsv::read(
    const std::function<void(int, const std::vector<std::string>&)>& row) const {
  std::ifstream in(file_);
  if (!in) throw UserError("E-VALIDATION-CSV", fmt::format("{}: cannot be read", file_.string()));
  std::string text;
  int line = 0;
  bool header = true;
  while (std::getline(in, text)) {
    ++line;
    if (!text.empty() && text.back() == '\r') text.pop_back();
    if (text.empty() || text[0] == '#') continue;
    const std::vector<std::string> cells = split_csv_line(text);
    if (header) {
      if (cells != columns_) bad_row(line, "the header is not the expected one");
      header = false;
      continue;
    }
    if (cells.size() != columns_.size())
      bad_row(line, fmt::format("{} columns instead of {}", cells.size(), columns_.size()));
    row(line, cells);
  }
}

std::vector<std::filesystem::path> PublishedCsv::files_of(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    if (entry.path().extension() == ".csv") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

PublishedRun PublishedCsv::run(int line, const std::vector<std::string>& f) const {
  PublishedRun r;
  r.source = file_.stem().string();
  r.line = line;
  r.name = f[0];
  r.config = file_.parent_path() / f[1];
  r.device = f[2];
  r.devices = static_cast<uint64_t>(whole(f[3], "devices", line));
  r.global_batch = whole(f[4], "global_batch", line);
  r.seq_len = whole(f[5], "seq_len", line);
  r.strategy = f[6];
  return r;
}

int64_t PublishedCsv::whole(const std::string& text, const char* column, int line) const {
  int64_t v = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (error != std::errc() || end != text.data() + text.size() || v <= 0 || v > INT32_MAX)
    bad_row(line, fmt::format("column {}: '{}' is not a whole number from 1 to {}", column, text,
                              INT32_MAX));
  return v;
}

double PublishedCsv::positive(const std::string& text, const char* column, int line) const {
  double v = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v <= 0)
    bad_row(line, fmt::format("column {}: '{}' is not a positive number", column, text));
  return v;
}

}  // namespace ndsearch
