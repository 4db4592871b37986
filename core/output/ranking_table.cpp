// SPDX-License-Identifier: Apache-2.0
#include "core/output/ranking_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include <ndsearch/sdk/units.hpp>

#include <ndsearch/core/settings.hpp>

#include "core/model/model_json.hpp"
#include "core/model/strategy_keys.hpp"
#include "core/price/time/time_model.hpp"
#include "core/support/closest_name.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

constexpr double kGiB = sdk::kBytesPerGiB;  // sizes print in GiB

// The columns a default table leaves out first when a line is too long:
// those that follow from others or matter least to the choice, then the
// rest of the largest parts, then the degrees a user tunes least. dp, tp,
// pp, mbn, the step, MFU and the peak always stay.
const std::vector<std::string> kDropOrder = {"parts3", "op",     "etp",       "sp",    "schedule",
                                             "parts2", "tokens", "zero",      "ep",    "cp",
                                             "vpp",    "mbs",    "recompute", "parts1"};

// Four significant digits, the trailing zeros kept so the column aligns.
std::string seconds_text(double s) {
  if (s >= 1000) return fmt::format("{:.0f}", s);
  if (s >= 100) return fmt::format("{:.1f}", s);
  if (s >= 10) return fmt::format("{:.2f}", s);
  return fmt::format("{:.3f}", s);
}

double part_share(const PricedCandidate& c, double TimeParts::*member) {
  return c.time.step_s > 0 ? 100 * c.time.parts.*member / c.time.step_s : 0;
}

// "backward 60, forward 28, overhead 10": the `n` largest parts, % of the step.
std::string largest_parts(const PricedCandidate& c, size_t n) {
  std::vector<std::pair<double, const char*>> parts;
  for (const auto& [name, member] : kTimeParts)
    if (c.time.parts.*member > 0) parts.emplace_back(c.time.parts.*member, name);
  std::stable_sort(parts.begin(), parts.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string text;
  for (size_t i = 0; i < parts.size() && i < n; ++i)
    text += fmt::format("{}{} {:.0f}", i == 0 ? "" : ", ", parts[i].second,
                        c.time.step_s > 0 ? 100 * parts[i].first / c.time.step_s : 0);
  return text;
}

// One line of the table: a strategy, or strategies that cost the same and
// differ in one key (its cell lists their values, "1|2").
struct Row {
  std::vector<const PricedCandidate*> members;
  std::map<std::string, std::string> cells;  // by column key, "rank" too
  std::string layers;                        // --balance-layers' split, or empty
};

std::map<std::string, std::string> strategy_cells(const PricedCandidate& c) {
  std::map<std::string, std::string> cells;
  for (const StrategyKey& k : kStrategyKeys)
    cells[std::string(k.name)] = key_value_text(k, key_value(c.strategy, k)).value_or("?");
  // The recompute cell also says what the chooser picked ("selective: 3 of 8 layers").
  cells["recompute"] = recompute_text(c.strategy.recompute, c.recompute);
  return cells;
}

void add_cost_cells(Row& row, const PricedCandidate& c, uint64_t devices) {
  row.cells["step"] = seconds_text(c.time.step_s);
  row.cells["mfu"] = fmt::format("{:.1f}", 100 * c.time.mfu);
  row.cells["tokens"] = fmt::format(
      "{:.0f}", c.time.tokens_per_s / static_cast<double>(std::max<uint64_t>(devices, 1)));
  row.cells["peak"] = fmt::format("{:.2f}", c.peak_bytes / kGiB);
  for (size_t n = 1; n <= 3; ++n) row.cells["parts" + std::to_string(n)] = largest_parts(c, n);
  for (const auto& [name, member] : kTimeParts)
    row.cells[std::string(name) + "%"] = fmt::format("{:.1f}", part_share(c, member));
}

std::string layers_text(const PricedCandidate& c) {
  if (c.stage_layers.empty()) return "";
  return fmt::format("layers per {}: {}",
                     c.strategy.vpp > 1 ? "virtual stage (chunk·pp + rank)" : "stage",
                     fmt::join(c.stage_layers, " "));
}

// The keys whose values differ between two strategies' cells.
std::vector<std::string> differing_keys(const std::map<std::string, std::string>& a,
                                        const std::map<std::string, std::string>& b) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : a)
    if (b.at(key) != value) keys.push_back(key);
  return keys;
}

// Rows in rank order; a strategy joins the row above when both print the same
// step and peak, keep the same layers and differ in that row's one key.
std::vector<Row> grouped_rows(const std::vector<PricedCandidate>& list, uint64_t devices) {
  std::vector<Row> rows;
  std::optional<std::string> group_key;  // the key the last row's members differ in
  std::map<std::string, std::string> first_cells;
  size_t first_rank = 0;
  for (size_t i = 0; i < list.size(); ++i) {
    const PricedCandidate& c = list[i];
    std::map<std::string, std::string> cells = strategy_cells(c);
    if (!rows.empty()) {
      Row& last = rows.back();
      const PricedCandidate& head = *last.members.front();
      const std::vector<std::string> keys = differing_keys(first_cells, cells);
      const bool same_cost = seconds_text(head.time.step_s) == seconds_text(c.time.step_s) &&
                             fmt::format("{:.2f}", head.peak_bytes / kGiB) ==
                                 fmt::format("{:.2f}", c.peak_bytes / kGiB) &&
                             head.stage_layers == c.stage_layers;
      if (same_cost && keys.size() == 1 && (!group_key || *group_key == keys.front())) {
        group_key = keys.front();
        last.members.push_back(&c);
        std::string& cell = last.cells[keys.front()];
        cell += "|" + cells[keys.front()];
        last.cells["rank"] = fmt::format("{}-{}", first_rank, i + 1);
        continue;
      }
    }
    group_key.reset();
    first_cells = cells;
    first_rank = i + 1;
    cells["rank"] = std::to_string(i + 1);
    Row row{{&c}, std::move(cells), layers_text(c)};
    add_cost_cells(row, c, devices);
    rows.push_back(std::move(row));
  }
  return rows;
}

struct Column {
  std::string key;
  std::string header;
  bool left = false;  // the parts' text reads left to right
};

std::string header_of(const std::string& key) {
  if (key == "step") return "step s";
  if (key == "mfu") return "MFU%";
  if (key == "tokens") return "tok/s/dev";
  if (key == "peak") return "peak GiB";
  if (key.rfind("parts", 0) == 0) return "largest parts, % of step";
  return key;
}

Column column_of(const std::string& key) {
  const bool parts = key.rfind("parts", 0) == 0;
  return {key, header_of(key), parts};
}

// Each column as wide as its header or its widest cell.
std::vector<size_t> column_widths(const std::vector<Column>& columns,
                                  const std::vector<Row>& rows) {
  std::vector<size_t> widths;
  for (const Column& col : columns) {
    size_t w = col.header.size();
    for (const Row& r : rows) w = std::max(w, r.cells.at(col.key).size());
    widths.push_back(w);
  }
  return widths;
}

size_t line_width(const std::vector<Column>& columns, const std::vector<Row>& rows) {
  size_t width = 1;  // the indent before the rank
  for (size_t w : column_widths(columns, rows)) width += 1 + w;
  return width;
}

// Whether `holds` is true of the strategy of every member of every row.
template <class Predicate>
bool every_strategy(const std::vector<Row>& rows, Predicate holds) {
  for (const Row& r : rows)
    for (const PricedCandidate* c : r.members)
      if (!holds(c->strategy)) return false;
  return true;
}

// What every row shares, said once: "cp 1, ep 1; etp = tp" (those keys leave
// the table).
std::string shared_settings(const std::vector<Row>& rows, std::vector<std::string>& keys) {
  std::vector<std::string> same, derived;
  std::vector<std::string> kept;
  for (const std::string& key : keys) {
    const std::string& first = rows.front().cells.at(key);
    const bool constant = std::all_of(rows.begin(), rows.end(),
                                      [&](const Row& r) { return r.cells.at(key) == first; });
    if (constant) {
      same.push_back(key + " " + first);
    } else if (key == "etp" &&
               every_strategy(rows, [](const nds_strategy& st) { return st.etp == st.tp; })) {
      derived.emplace_back("etp = tp");
    } else if (key == "op" && every_strategy(rows, [](const nds_strategy& st) {
                 return static_cast<int64_t>(st.op) == static_cast<int64_t>(st.dp) * st.cp;
               })) {
      derived.emplace_back("op = dp·cp");
    } else if (key == "schedule" && every_strategy(rows, [](const nds_strategy& st) {
                 return st.schedule == (st.vpp > 1 ? NDS_SCHEDULE_INTERLEAVED : NDS_SCHEDULE_1F1B);
               })) {
      derived.emplace_back("schedule interleaved where vpp > 1, else 1f1b");
    } else {
      kept.push_back(key);
    }
  }
  keys = kept;
  std::string text = fmt::format("{}", fmt::join(same, ", "));
  if (!derived.empty())
    text += fmt::format("{}{}", text.empty() ? "" : "; ", fmt::join(derived, ", "));
  return text;
}

std::vector<Column> columns_of(const std::vector<std::string>& keys) {
  std::vector<Column> columns{{"rank", "rank"}};
  for (const std::string& key : keys) columns.push_back(column_of(key));
  return columns;
}

void print_rows(std::ostream& out, const std::vector<Column>& columns, const std::vector<Row>& rows,
                size_t width) {
  const std::vector<size_t> widths = column_widths(columns, rows);
  auto line = [&](auto cell_of) {
    std::string text = " ";
    for (size_t i = 0; i < columns.size(); ++i) {
      const std::string cell = cell_of(columns[i]);
      const bool last = i + 1 == columns.size();
      text += " " + (columns[i].left ? (last ? cell : fmt::format("{:<{}}", cell, widths[i]))
                                     : fmt::format("{:>{}}", cell, widths[i]));
    }
    out << text << "\n";
  };
  line([](const Column& col) { return col.header; });
  for (const Row& r : rows) {
    line([&](const Column& col) { return r.cells.at(col.key); });
    if (!r.layers.empty()) out << wrapped(r.layers, width, "        ", "          ");
  }
}

}  // namespace

const std::vector<std::string>& table_column_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n = strategy_key_names();
    n.insert(n.end(), {"step", "mfu", "tokens", "peak", "parts"});
    for (const auto& [name, member] : kTimeParts) n.push_back(std::string(name) + "%");
    return n;
  }();
  return names;
}

void check_table_columns(const std::vector<std::string>& columns) {
  const std::vector<std::string>& known = table_column_names();
  for (const std::string& c : columns)
    if (std::find(known.begin(), known.end(), c) == known.end())
      throw UserError("E-USAGE", fmt::format("{}: unknown column \"{}\"{}; the columns are {}",
                                             Setting("columns").named(c), c, did_you_mean(c, known),
                                             fmt::join(known, ", ")));
}

void print_ranking_table(std::ostream& out, const std::vector<PricedCandidate>& list,
                         const TableOptions& options) {
  if (list.empty()) return;
  const std::vector<Row> rows = grouped_rows(list, options.devices);
  if (!options.columns.empty()) {
    std::vector<std::string> keys = options.columns;
    for (std::string& k : keys)
      if (k == "parts") k = "parts3";
    print_rows(out, columns_of(keys), rows, options.width);
    return;
  }
  if (options.wide) {
    std::vector<std::string> keys = strategy_key_names();
    keys.insert(keys.end(), {"step", "mfu", "tokens", "peak"});
    for (const auto& [name, member] : kTimeParts) keys.push_back(std::string(name) + "%");
    print_rows(out, columns_of(keys), rows, options.width);
    return;
  }
  std::vector<std::string> strategy = strategy_key_names();
  const std::string shared = shared_settings(rows, strategy);
  std::vector<std::string> keys = strategy;
  keys.insert(keys.end(), {"step", "mfu", "tokens", "peak", "parts3"});
  std::vector<std::string> left_out;
  for (const std::string& drop : kDropOrder) {
    if (line_width(columns_of(keys), rows) <= options.width) break;
    if (drop.rfind("parts", 0) == 0) {  // fewer of the largest parts
      auto at = std::find(keys.begin(), keys.end(), drop);
      if (at == keys.end()) continue;
      if (drop == "parts1")
        keys.erase(at);
      else
        *at = "parts" + std::to_string(drop.back() - '0' - 1);
      if (drop == "parts1") left_out.emplace_back("the largest parts");
      continue;
    }
    auto at = std::find(keys.begin(), keys.end(), drop);
    if (at == keys.end()) continue;
    keys.erase(at);
    left_out.push_back(drop);
  }
  if (!shared.empty()) out << wrapped("same in every row: " + shared, options.width, "  ", "    ");
  print_rows(out, columns_of(keys), rows, options.width);
  if (!left_out.empty())
    out << wrapped(
        spelled(options.spell,
                fmt::format("left out to fit {} columns: {} ({} shows every column, {} chooses "
                            "them)",
                            options.width, fmt::join(left_out, ", "), Setting("wide").named(),
                            Setting("columns").named())),
        options.width, "  ", "    ");
}

}  // namespace ndsearch
