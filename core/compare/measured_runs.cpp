// SPDX-License-Identifier: Apache-2.0
#include "core/compare/measured_runs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>
#include <cmath>
#include <map>
#include <string_view>

#include <ndsearch/sdk/config_file.hpp>
#include <ndsearch/sdk/units.hpp>

#include "core/model/model_json.hpp"
#include "core/model/strategy_keys.hpp"
#include "core/price/time/time_model.hpp"
#include "core/support/csv.hpp"
#include "core/support/lowercase.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

constexpr const char* kErrorId = "E-MEASURED-CSV";
constexpr size_t kShownBytes = 80;

// What a column holds.
enum class Role {
  strategy,   // a strategy key, read as --strategy reads it (the reference's True/False too)
  step_time,  // `time` or `step_s`: seconds per step, required
  part,       // a measured part in seconds (ours: forward_s ...)
  comp,       // the classified CSV's compute seconds, required there
  wait,       // a classified *_wait column, summed into its part
  ignored,    // step_trainer: read, not used
  devices,    // per-row overrides
  global_batch,
  seq_len,
  peak,  // the measured peak memory: `peak_gib` (GiB) or `peak_bytes`
};

struct Column {
  const char* name;  // lower case, as the header spells it
  Role role;
  const char* key;  // the strategy key, part or override it feeds
};

// The reference's dimension acronyms (its -l, reference §3.1) and our key
// for each: MP is TP, MB is the micro-batch number.
constexpr Column kReferenceColumns[] = {
    {"dp", Role::strategy, "dp"},   {"mp", Role::strategy, "tp"},
    {"tp", Role::strategy, "tp"},   {"pp", Role::strategy, "pp"},
    {"ep", Role::strategy, "ep"},   {"cp", Role::strategy, "cp"},
    {"vpp", Role::strategy, "vpp"}, {"mb", Role::strategy, "mbn"},
    {"mbn", Role::strategy, "mbn"}, {"mbs", Role::strategy, "mbs"},
    {"op", Role::strategy, "op"},   {"sp", Role::strategy, "sp"},
    {"time", Role::step_time, ""},  {"recompute", Role::strategy, "recompute"},
};

// The classified CSV's measured parts (reference §9.4, §6.8 RealParts), as
// issue 13 maps them to ours: op_wait counts as dp, sp_wait as tp, pp_wait
// is the bubble.
constexpr Column kClassifiedColumns[] = {
    {"comp", Role::comp, "compute"},     {"dp_wait", Role::wait, "dp"},
    {"op_wait", Role::wait, "dp"},       {"mp_wait", Role::wait, "tp"},
    {"sp_wait", Role::wait, "tp"},       {"ep_wait", Role::wait, "ep"},
    {"cp_wait", Role::wait, "cp"},       {"pp_wait", Role::wait, "bubble"},
    {"step_trainer", Role::ignored, ""},
};

// Ours besides the strategy keys of strategy_keys.hpp (their aliases
// too, as --strategy reads them): the step time, the overrides and the
// peak; the parts come from kTimeParts.
constexpr Column kOurColumns[] = {
    {"step_s", Role::step_time, ""},          {"devices", Role::devices, ""},
    {"global_batch", Role::global_batch, ""}, {"seq_len", Role::seq_len, ""},
    {"peak_gib", Role::peak, "peak"},         {"peak_bytes", Role::peak, "peak"},
};

constexpr const char* kFormats =
    "the reference's simple CSV (its dimension acronyms, e.g. DP,MP,PP,MBS, and `time`), its "
    "classified CSV (the same with `comp` and `*_wait` columns) or ndsearch's (strategy keys such "
    "as "
    "dp,tp,pp,mbs and `step_s`), or a validation CSV (name,config,device,devices,global_batch,"
    "seq_len,strategy,metric,published,search_only)";

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& what) {
  throw UserError(kErrorId, fmt::format("{}: {}", file.string(), what));
}

std::string_view trimmed(std::string_view s) {
  const size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
}

// Our part columns: "forward_s" ... "overhead_s".
std::vector<std::string> our_part_columns() {
  std::vector<std::string> names;
  for (const auto& [name, field] : kTimeParts) names.push_back(std::string(name) + "_s");
  return names;
}

// The columns a format knows, as its header may spell them.
std::vector<Column> known_columns(MeasuredFormat format, const std::vector<std::string>& parts) {
  std::vector<Column> columns;
  if (format == MeasuredFormat::ndsearch) {
    for (const StrategyKey& k : kStrategyKeys) {
      columns.push_back({k.name.data(), Role::strategy, k.name.data()});
      if (!k.alias.empty()) columns.push_back({k.alias.data(), Role::strategy, k.name.data()});
    }
    columns.insert(columns.end(), std::begin(kOurColumns), std::end(kOurColumns));
    for (size_t i = 0; i < parts.size(); ++i)
      columns.push_back({parts[i].c_str(), Role::part, kTimeParts[i].first});
    return columns;
  }
  columns.assign(std::begin(kReferenceColumns), std::end(kReferenceColumns));
  if (format == MeasuredFormat::reference_classified)
    columns.insert(columns.end(), std::begin(kClassifiedColumns), std::end(kClassifiedColumns));
  return columns;
}

MeasuredFormat detect_format(const std::vector<std::string>& names,
                             const std::filesystem::path& file) {
  bool time = false, classified = false;
  for (const std::string& name : names) {
    if (name == "step_s") return MeasuredFormat::ndsearch;
    if (name == "time") time = true;
    if (name == "comp" || (name.size() > 5 && name.compare(name.size() - 5, 5, "_wait") == 0))
      classified = true;
  }
  if (!time)
    fail(file, fmt::format("line 1: the header ({}) matches no format of measured runs; write {}",
                           sdk::shown(fmt::format("{}", fmt::join(names, ","))), kFormats));
  return classified ? MeasuredFormat::reference_classified : MeasuredFormat::reference_simple;
}

// A cell that does not read: the reason, for the diagnostic. One that
// `stops` fails the whole file instead of skipping its row: a measured peak
// is what a memory fit reads, and a wrong one is an error to fix, not a row
// to lose (issue 34: exit 2 naming the file, the column and the value).
struct CellError {
  std::string reason;
  bool stops = false;
};

// A row's cell that stops the file (read_measured_runs reports it).
struct StoppingCell {
  MeasuredDiagnostic diagnostic;
};

int64_t whole_number(std::string_view text, int64_t low, int64_t high) {
  int64_t v = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (error != std::errc() || end != text.data() + text.size() || v < low || v > high)
    throw CellError{fmt::format("not a whole number from {} to {}", low, high)};
  return v;
}

// Seconds: finite, not negative, and more than 0 unless `zero_reason` is
// null (a part may be 0: a dense model's ep_wait).
double seconds(std::string_view text, const char* zero_reason) {
  double v = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (error != std::errc() || end != text.data() + text.size())
    throw CellError{"not a number of seconds"};
  if (!std::isfinite(v)) throw CellError{"not a finite number of seconds"};
  if (v < 0) throw CellError{"a negative time; times are seconds per step"};
  if (v == 0 && zero_reason != nullptr) throw CellError{zero_reason};
  return v;
}

// A measured peak: a positive, finite number of `unit` bytes.
double peak_bytes(std::string_view text, double unit) {
  double v = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    throw CellError{"not a number; a peak is GiB (peak_gib) or bytes (peak_bytes)", true};
  if (!(v > 0)) throw CellError{"a peak of 0 or less; a run that ran held memory", true};
  if (v * unit > 1.0e18) throw CellError{"a peak above an exabyte; check the column's unit", true};
  return v * unit;
}

// A strategy key's cell, read as --strategy reads it, with the reference's
// booleans: its SP as True/False, its recompute column's True (full) and
// False (none).
std::string strategy_cell(std::string_view name, std::string_view text) {
  const StrategyKey& key = *strategy_key(name);
  std::string v = lowercase(text);
  const bool boolean = v == "true" || v == "false";
  if (boolean && key.name == "sp") v = v == "true" ? "1" : "0";
  if (boolean && key.name == "recompute") v = v == "true" ? "full" : "none";
  std::string why;
  const auto value = read_key_value(key, v, why);
  if (!value)
    throw CellError{key.name == "sp" || key.name == "recompute"
                        ? fmt::format("{} (or the reference's True or False)", why)
                        : why};
  return key_value_text(key, *value).value_or("");
}

struct HeaderColumn {
  std::string spelled;  // as written (trimmed)
  Column column;
};

class RowReader {
 public:
  RowReader(MeasuredFormat format, std::vector<HeaderColumn> header)
      : format_(format), header_(std::move(header)) {}

  // The run of one row, or nullopt with its diagnostic added.
  std::optional<MeasuredRun> read(int line, std::string_view text,
                                  std::vector<MeasuredDiagnostic>& out) {
    if (auto bad = sdk::invalid_utf8_offset(text)) {
      out.push_back({line, "", "", fmt::format("not UTF-8 (byte {} of the line)", *bad + 1)});
      return std::nullopt;
    }
    const std::vector<std::string> cells = split_csv_line(text);
    if (cells.size() != header_.size()) {
      out.push_back(
          {line, "", sdk::shown(text, kShownBytes),
           fmt::format("{} cells where the header has {} columns", cells.size(), header_.size())});
      return std::nullopt;
    }
    MeasuredRun run;
    run.line = line;
    std::map<std::string, std::string> keys;
    std::map<std::string, double> parts;
    double comp = 0, waits = 0;
    bool has_step = false;
    for (size_t i = 0; i < cells.size(); ++i) {
      const HeaderColumn& h = header_[i];
      const std::string_view cell = trimmed(cells[i]);
      const bool required = h.column.role == Role::step_time || h.column.role == Role::comp;
      try {
        if (cell.empty()) {
          if (required) throw CellError{"empty; every run needs it"};
          continue;  // not stated: the core's defaults apply
        }
        switch (h.column.role) {
          case Role::strategy: keys[h.column.key] = strategy_cell(h.column.key, cell); break;
          case Role::step_time:
            run.step_s = seconds(cell, "a step time of 0 s; a measured step takes time");
            has_step = true;
            break;
          case Role::part: parts[h.column.key] = seconds(cell, nullptr); break;
          case Role::comp:
            comp = seconds(cell, "0 s of compute; a measured step computes");
            parts[h.column.key] = comp;
            break;
          case Role::wait: {
            const double s = seconds(cell, nullptr);
            parts[h.column.key] += s;
            waits += s;
            break;
          }
          case Role::ignored: break;
          case Role::devices:
            run.devices = static_cast<uint64_t>(whole_number(cell, 1, kMostDegree));
            break;
          case Role::global_batch: run.global_batch = whole_number(cell, 1, INT32_MAX); break;
          case Role::seq_len: run.seq_len = whole_number(cell, 1, INT32_MAX); break;
          case Role::peak:
            run.peak_bytes = peak_bytes(
                cell, std::string_view(h.column.name) == "peak_gib" ? sdk::kBytesPerGiB : 1.0);
            break;
        }
      } catch (const CellError& e) {
        if (e.stops) throw StoppingCell{{line, h.spelled, sdk::shown(cell, kShownBytes), e.reason}};
        out.push_back({line, h.spelled, sdk::shown(cell, kShownBytes), e.reason});
        return std::nullopt;
      }
    }
    if (!has_step) return std::nullopt;  // unreachable: the header requires the column
    run.strategy = strategy_text_of(keys);
    if (!add_parts(run, parts, comp + waits, line, out)) return std::nullopt;
    const std::string identity = fmt::format("{}|{}|{}|{}", run.strategy, run.devices.value_or(0),
                                             run.global_batch.value_or(0), run.seq_len.value_or(0));
    if (auto [it, first] = seen_.emplace(identity, line); !first) {
      out.push_back({line, "", sdk::shown(run.strategy, kShownBytes),
                     fmt::format("the same run as line {} (same strategy and overrides); keep one "
                                 "measurement per run",
                                 it->second)});
      return std::nullopt;
    }
    return run;
  }

 private:
  static std::string strategy_text_of(const std::map<std::string, std::string>& keys) {
    std::string text;
    for (const StrategyKey& k : kStrategyKeys)
      if (auto it = keys.find(std::string(k.name)); it != keys.end())
        text += fmt::format("{}{}={}", text.empty() ? "" : ",", k.name, it->second);
    return text;
  }

  // The parts in a fixed order; for a classified row also idle, what the
  // step time leaves after comp and the waits. Parts summing to more than
  // the step time are the row's mistake.
  bool add_parts(MeasuredRun& run, const std::map<std::string, double>& parts,
                 double classified_sum, int line, std::vector<MeasuredDiagnostic>& out) const {
    double sum = 0;
    const auto take = [&](const std::string& name) {
      if (auto it = parts.find(name); it != parts.end()) {
        run.parts.emplace_back(name, it->second);
        sum += it->second;
      }
    };
    if (format_ == MeasuredFormat::reference_classified) take("compute");
    for (const auto& [name, field] : kTimeParts) take(name);
    const double slack = 1e-9 * run.step_s;  // the rounding of a sum written in decimals
    if (sum > run.step_s + slack) {
      out.push_back(
          {line, "", fmt::format("{} s", sum),
           fmt::format("the measured parts sum to more than the step time ({} s)", run.step_s)});
      return false;
    }
    if (format_ == MeasuredFormat::reference_classified)
      run.parts.emplace_back("idle", std::max(0.0, run.step_s - classified_sum));
    return true;
  }

  MeasuredFormat format_;
  std::vector<HeaderColumn> header_;
  std::map<std::string, int> seen_;  // run identity -> its first line
};

std::vector<HeaderColumn> read_header(MeasuredFormat format,
                                      const std::vector<std::string>& spelled,
                                      const std::vector<std::string>& names,
                                      const std::vector<std::string>& parts,
                                      const std::filesystem::path& file) {
  const std::vector<Column> known = known_columns(format, parts);
  std::vector<HeaderColumn> header;
  std::map<std::string, std::string>
      fed;  // a key, a time or an override -> the column that gives it
  for (size_t i = 0; i < names.size(); ++i) {
    auto it = std::find_if(known.begin(), known.end(),
                           [&](const Column& c) { return names[i] == c.name; });
    if (it == known.end()) {
      std::vector<std::string> list;
      for (const Column& c : known) list.emplace_back(c.name);
      fail(file,
           fmt::format("line 1: unknown column \"{}\" for {} measured runs; its columns are {}",
                       sdk::shown(spelled[i], kShownBytes), measured_format_name(format),
                       fmt::join(list, ",")));
    }
    // A column given twice (also through an alias: MP and TP) would let one
    // silently replace the other; the classified waits are summed on purpose.
    const std::string target = it->role == Role::wait ? names[i]
                               : it->role == Role::peak
                                   ? std::string("peak")
                                   : fmt::format("{}:{}", it->key, int(it->role));
    if (auto [previous, first] = fed.emplace(target, spelled[i]); !first)
      fail(file, fmt::format("line 1: columns \"{}\" and \"{}\" give the same value; keep one",
                             previous->second, sdk::shown(spelled[i], kShownBytes)));
    header.push_back({spelled[i], *it});
  }
  if (format == MeasuredFormat::reference_classified &&
      std::find(names.begin(), names.end(), "comp") == names.end())
    fail(file,
         "line 1: a classified CSV (it has *_wait columns) needs a `comp` column, the compute "
         "seconds");
  return header;
}

std::string read_file_text(const std::filesystem::path& file) {
  try {
    return sdk::read_config_file(file.string(), "measured-runs CSV");
  } catch (const sdk::Error& e) {
    const auto [tag, message] = sdk::split_error_tag(e.what());
    if (tag.empty()) throw UserError("E-USAGE", message);  // NDS_CONFIG_MAX_BYTES does not read
    throw UserError(kErrorId, message);
  }
}

}  // namespace

const char* measured_format_name(MeasuredFormat format) {
  switch (format) {
    case MeasuredFormat::reference_simple: return "reference simple";
    case MeasuredFormat::reference_classified: return "reference classified";
    case MeasuredFormat::ndsearch: return "ndsearch";
    case MeasuredFormat::validation: return "validation";
  }
  return "?";
}

MeasuredRuns read_measured_runs(const std::filesystem::path& file) {
  const std::string text = read_file_text(file);
  std::string_view rest(text);
  if (rest.substr(0, 3) == "\xEF\xBB\xBF") rest.remove_prefix(3);
  MeasuredRuns result;
  result.file = file;
  const std::vector<std::string> part_columns = our_part_columns();
  std::optional<RowReader> rows;
  int line = 0;
  size_t read_rows = 0;
  while (!rest.empty()) {
    const size_t end = rest.find('\n');
    const std::string_view raw = rest.substr(0, end);
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    ++line;
    const std::string_view content = trimmed(raw.substr(0, raw.find_last_not_of('\r') + 1));
    if (content.empty() || content[0] == '#') continue;
    if (!rows) {
      if (auto bad = sdk::invalid_utf8_offset(raw))
        fail(file, fmt::format("line {}: the header is not UTF-8 (byte {})", line, *bad + 1));
      std::vector<std::string> spelled, names;
      for (const std::string& cell : split_csv_line(raw)) {
        spelled.emplace_back(trimmed(cell));
        names.push_back(lowercase(spelled.back()));
      }
      const MeasuredFormat format = detect_format(names, file);
      result.format = format;
      rows.emplace(format, read_header(format, spelled, names, part_columns, file));
      continue;
    }
    if (++read_rows > kMaxMeasuredRows)
      fail(file, fmt::format("more than {} runs; split the file", kMaxMeasuredRows));
    try {
      if (auto run = rows->read(line, content, result.diagnostics))
        result.runs.push_back(std::move(*run));
    } catch (const StoppingCell& s) {
      const MeasuredDiagnostic& d = s.diagnostic;
      fail(file,
           fmt::format("line {}, column {} = \"{}\": {}; give the run's measured peak, or leave "
                       "the cell empty",
                       d.line, d.column, d.value, d.reason));
    }
  }
  if (!rows) fail(file, fmt::format("empty; the first row must be a header: {}", kFormats));
  if (read_rows == 0) fail(file, "a header and no run; add one row per measured run");
  if (result.runs.empty()) {
    std::vector<std::string> first;
    for (size_t i = 0; i < result.diagnostics.size() && i < 3; ++i) {
      const MeasuredDiagnostic& d = result.diagnostics[i];
      first.push_back(fmt::format("line {}{}{}{}: {}", d.line, d.column.empty() ? "" : " column ",
                                  d.column, d.value.empty() ? "" : fmt::format(" \"{}\"", d.value),
                                  d.reason));
    }
    fail(file, fmt::format("none of its {} runs reads; {}", read_rows, fmt::join(first, "; ")));
  }
  return result;
}

}  // namespace ndsearch
