// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/parsing/yaml_apply.hpp"

#include <algorithm>
#include <map>
#include <sstream>

namespace ndsearch::plugins::yaml {
namespace {

std::vector<std::string> split(const std::string& dotted) {
  std::vector<std::string> parts;
  std::istringstream in(dotted);
  std::string p;
  while (std::getline(in, p, '.')) parts.push_back(p);
  return parts;
}

bool blank_or_comment(const std::string& line) {
  const size_t c = line.find_first_not_of(" \t");
  return c == std::string::npos || line[c] == '#';
}

size_t indent_of(const std::string& line) {
  const size_t c = line.find_first_not_of(" \t");
  return c == std::string::npos ? line.size() : c;
}

}  // namespace

YamlEditor::Located YamlEditor::locate(const std::string& dotted) const {
  Located at;
  at.parts = split(dotted);
  // reset, not =: assigning to a yaml-cpp node writes into the node it refers to.
  at.node.reset(f_.root());
  for (const std::string& part : at.parts) {
    if (!at.node.IsMap()) break;
    bool next = false;
    for (auto it = at.node.begin(); it != at.node.end(); ++it) {
      if (!it->first.IsScalar() || it->first.Scalar() != part) continue;
      at.key_line = it->first.Mark().line + 1;
      at.node.reset(it->second);
      ++at.found;
      next = true;
      break;
    }
    if (!next) break;
  }
  return at;
}

bool YamlEditor::has(const std::string& dotted) const {
  const Located at = locate(dotted);
  return at.found == at.parts.size() && !at.node.IsNull();
}

std::string YamlEditor::boolean(const std::string& dotted, bool value) const {
  const Located at = locate(dotted);
  const auto is_boolean = [](const std::string& v) {
    return v == "True" || v == "False" || v == "true" || v == "false";
  };
  bool capital = false;
  if (at.found == at.parts.size() && at.node.IsScalar() && is_boolean(at.node.Scalar())) {
    capital = std::isupper(static_cast<unsigned char>(at.node.Scalar()[0])) != 0;
  } else {
    // Not a boolean there yet: as the file writes its booleans, most often.
    int upper = 0, lower = 0;
    for (int64_t i = 1; i <= edits_.line_count(); ++i) {
      const std::string& l = edits_.line(i);
      upper +=
          (l.find(": True") != std::string::npos || l.find(": False") != std::string::npos) ? 1 : 0;
      lower +=
          (l.find(": true") != std::string::npos || l.find(": false") != std::string::npos) ? 1 : 0;
    }
    capital = upper > lower;
  }
  return value ? (capital ? "True" : "true") : (capital ? "False" : "false");
}

void YamlEditor::set_if_present(const std::string& dotted, const std::string& value) {
  if (has(dotted)) set(dotted, value);
}

void YamlEditor::set_unless_default(const std::string& dotted, int64_t value,
                                    int64_t default_value) {
  if (value != default_value || has(dotted)) set(dotted, std::to_string(value));
}

void YamlEditor::set_flag_unless_default(const std::string& dotted, bool value,
                                         bool default_value) {
  if (value != default_value || has(dotted)) set(dotted, boolean(dotted, value));
}

void YamlEditor::set(const std::string& dotted, const std::string& value) {
  const Located at = locate(dotted);
  const std::string where = f_.path() + ":" + std::to_string(at.key_line);
  if (at.found == at.parts.size()) {
    if (at.node.IsMap() || (at.node.IsSequence() && at.node.Style() != YAML::EmitterStyle::Flow))
      throw sdk::Error(NDS_UNSUPPORTED, where + ": `" + dotted + "` holds a block " +
                                            (at.node.IsMap() ? "mapping" : "list") +
                                            "; apply writes one value there (" + value +
                                            "): write it on one line and apply again");
    std::string line = edits_.line(at.key_line);
    const Span span = value_after_key(line, at.parts.back(), ':');
    if (!span.found())
      throw sdk::Error(NDS_UNSUPPORTED, where + ": `" + dotted +
                                            "`'s value is not on its key's line; set it to " +
                                            value + " by hand");
    if (line.compare(span.begin, span.end - span.begin, value) == 0) return;
    // A quoted value stays quoted.
    std::string written = value;
    const char q = span.end > span.begin ? line[span.begin] : 0;
    if ((q == '"' || q == '\'') && value.front() != '[' && value.front() != q)
      written = q + value + q;
    line.replace(span.begin, span.end - span.begin, written);
    edits_.replace_line(at.key_line, line);
    return;
  }
  if (!at.node.IsMap() && !(at.found == 0 && at.node.IsNull()))
    throw sdk::Error(
        NDS_UNSUPPORTED,
        where + ": `" + dotted + "` goes below a value that is not a mapping; add it by hand");
  if (at.found > 0 && at.node.Style() == YAML::EmitterStyle::Flow)
    throw sdk::Error(NDS_UNSUPPORTED, where + ": `" + dotted +
                                          "` goes into a mapping written on one line ({...}); "
                                          "write it as a block and apply again");
  Missing m;
  m.parts.assign(at.parts.begin() + static_cast<std::ptrdiff_t>(at.found), at.parts.end());
  m.value = value;
  missing_.emplace_back(at, std::move(m));
}

int64_t YamlEditor::block_end(int64_t key_line) const {
  int64_t last = key_line;
  const size_t own = key_line == 0 ? 0 : indent_of(edits_.line(key_line));
  for (int64_t i = key_line + 1; i <= edits_.line_count(); ++i) {
    const std::string& l = edits_.line(i);
    if (blank_or_comment(l)) continue;
    if (key_line != 0 && indent_of(l) <= own) break;
    if (l.rfind("---", 0) == 0 || l.rfind("...", 0) == 0) break;  // the next document
    last = i;
  }
  return last;
}

std::string YamlEditor::child_indent(const Located& at) const {
  if (at.found == 0) return "";
  if (at.node.IsMap() && at.node.size() > 0) {
    const int64_t child = at.node.begin()->first.Mark().line + 1;
    return edits_.indentation(child);
  }
  return edits_.indentation(at.key_line) + "  ";
}

std::string YamlEditor::text() {
  // Group the keys to add by the mapping they go under; emit each group's
  // missing mappings once, their keys below them, in the order they were set.
  std::map<int64_t, std::vector<size_t>> by_anchor;
  std::vector<int64_t> order;
  for (size_t i = 0; i < missing_.size(); ++i) {
    const int64_t anchor = missing_[i].first.key_line;
    if (by_anchor.count(anchor) == 0) order.push_back(anchor);
    by_anchor[anchor].push_back(i);
  }
  for (int64_t anchor : order) {
    const Located& at = missing_[by_anchor[anchor].front()].first;
    const std::string indent = child_indent(at);
    std::vector<std::string> lines;
    std::vector<std::vector<std::string>> opened;  // the mappings written so far, as paths
    for (size_t i : by_anchor[anchor]) {
      const Missing& m = missing_[i].second;
      // The longest prefix already written (from this group) is reused.
      std::vector<std::string> path;
      for (size_t d = 0; d + 1 < m.parts.size(); ++d) {
        path.push_back(m.parts[d]);
        if (std::find(opened.begin(), opened.end(), path) == opened.end()) {
          opened.push_back(path);
          lines.push_back(indent + std::string(2 * d, ' ') + m.parts[d] + ":");
        }
      }
      // A key below an opened mapping goes right after that mapping's last line.
      const std::string line =
          indent + std::string(2 * (m.parts.size() - 1), ' ') + m.parts.back() + ": " + m.value;
      if (m.parts.size() == 1) {
        lines.push_back(line);
        continue;
      }
      const std::vector<std::string> parent(m.parts.begin(), m.parts.end() - 1);
      const std::string parent_line =
          indent + std::string(2 * (parent.size() - 1), ' ') + parent.back() + ":";
      auto pos = std::find(lines.begin(), lines.end(), parent_line);
      const size_t depth = indent.size() + 2 * (parent.size() - 1);
      auto after = pos + 1;
      while (after != lines.end() && indent_of(*after) > depth) ++after;
      lines.insert(after, line);
    }
    const int64_t end = block_end(anchor);
    for (std::string& l : lines) edits_.insert_after(end, std::move(l));
  }
  missing_.clear();
  return edits_.text();
}

std::string flow_list(const std::vector<int64_t>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

std::string offset_value(const std::string& where, std::vector<int64_t> split, int64_t pp,
                         bool v_shaped, int64_t mtp) {
  for (size_t i = split.size(); i-- > 0;)
    if (split[i] > 0 || i == 0) {
      split[i] += mtp;
      break;
    }
  const std::vector<int64_t> offsets = offsets_from_even_split(split);
  if (static_cast<int64_t>(split.size()) == pp) return flow_list(offsets);
  if (v_shaped)
    cannot_write(where,
                 "an uneven split under a V-shaped schedule: write its per-chunk offsets "
                 "by hand, or apply a strategy with the even split");
  std::string rows;
  for (size_t at = 0; at < offsets.size(); at += static_cast<size_t>(pp))
    rows +=
        (rows.empty() ? "" : ", ") +
        flow_list({offsets.begin() + static_cast<std::ptrdiff_t>(at),
                   offsets.begin() + static_cast<std::ptrdiff_t>(at + static_cast<size_t>(pp))});
  return "[" + rows + "]";
}

std::vector<int64_t> offsets_from_even_split(const std::vector<int64_t>& layers) {
  int64_t total = 0;
  for (int64_t n : layers) total += n;
  std::vector<int64_t> offsets;
  for (int64_t n : layers) offsets.push_back(n - total / static_cast<int64_t>(layers.size()));
  return offsets;
}

}  // namespace ndsearch::plugins::yaml
