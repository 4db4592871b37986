// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/parsing/yaml_fields.hpp"

#include "plugins/common/parsing/yaml_check.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace ndsearch::plugins::yaml {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// A plain scalar read as YAML 1.1/1.2 would: nullopt when it is not a number.
std::optional<double> as_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<bool> as_bool(const std::string& s) {
  const std::string l = lower(s);
  if (l == "true" || l == "yes" || l == "on") return true;
  if (l == "false" || l == "no" || l == "off") return false;
  return std::nullopt;
}

bool is_plain(const YAML::Node& n) {
  return n.Tag() != "!";
}  // "!" marks a quoted scalar

}  // namespace

bool has(const YAML::Node& node, const char* key) {
  return node.IsMap() && node[key].IsDefined() && !node[key].IsNull();
}

File File::load(const std::string& path) {
  const std::string text = sdk::read_config_file(path, "training YAML", kDefaultYamlMaxBytes);
  File f;
  f.path_ = path;
  try {
    check_yaml(text, path);  // depth, duplicated keys, aliases: before any tree is built
    f.root_ = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw sdk::Error(NDS_INVALID_ARGUMENT, path + ":" + std::to_string(e.mark.line + 1) + ":" +
                                               std::to_string(e.mark.column + 1) +
                                               ": not valid YAML (" + sdk::shown(e.msg, 200) +
                                               "); fix the syntax at that line");
  }
  return f;
}

std::optional<YAML::Node> File::try_root(const std::string& path) noexcept {
  try {
    const auto text = sdk::try_read_config_file(path, kDefaultYamlMaxBytes);
    if (!text) return std::nullopt;
    check_yaml(*text, path);
    return YAML::Load(*text);
  } catch (...) {
    return std::nullopt;
  }
}

std::optional<Field> File::find(std::string_view dotted) const {
  return find(Field{root_, "", NDS_UNKNOWN}, dotted);
}

std::optional<Field> File::find(const Field& from, std::string_view dotted) const {
  YAML::Node node = from.node;
  std::string path = from.path;
  int64_t line = from.line;
  size_t start = 0;
  while (start <= dotted.size()) {
    size_t end = dotted.find('.', start);
    if (end == std::string_view::npos) end = dotted.size();
    const std::string key(dotted.substr(start, end - start));
    start = end + 1;
    if (!node.IsMap()) return std::nullopt;
    // The key's own mark: a value that is an alias would point at its anchor.
    bool found = false;
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (!it->first.IsScalar() || it->first.Scalar() != key) continue;
      line = it->first.Mark().line + 1;
      node.reset(it->second);  // rebinds; operator= would overwrite the tree
      found = true;
      break;
    }
    if (!found) return std::nullopt;
    path = path.empty() ? key : path + "." + key;
  }
  if (!node.IsDefined() || node.IsNull()) return std::nullopt;
  return Field{node, path, line};
}

void File::bad(const Field& f, const std::string& expected, nds_status_code code) const {
  std::string value = "(a mapping or list)";
  if (f.node.IsScalar()) value = "\"" + sdk::shown(f.node.Scalar()) + "\"";
  throw sdk::Error(code, path_ + (f.line > 0 ? ":" + std::to_string(f.line) : "") + ": `" + f.path +
                             "` = " + value + ": expected " + expected);
}

int64_t File::integer(const Field& f) const {
  if (f.node.IsScalar() && is_plain(f.node))
    if (auto v = as_number(f.node.Scalar()); v && std::floor(*v) == *v && std::fabs(*v) < 9.0e15)
      return static_cast<int64_t>(*v);
  // A scalar that is not a whole number (or past 2^53, which a double read
  // cannot carry exactly) is a bad value; a mapping or list a bad field.
  bad(f, "a whole number (at most 9e15)",
      f.node.IsScalar() ? NDS_OUT_OF_RANGE : NDS_INVALID_ARGUMENT);
}

double File::real(const Field& f) const {
  if (f.node.IsScalar() && is_plain(f.node))
    if (auto v = as_number(f.node.Scalar())) return *v;
  bad(f, "a number");
}

bool File::boolean(const Field& f) const {
  if (f.node.IsScalar()) {
    if (auto v = as_bool(f.node.Scalar())) return *v;
    if (f.node.Scalar() == "0") return false;
    if (f.node.Scalar() == "1") return true;
  }
  bad(f, "True or False");
}

std::string File::text(const Field& f) const {
  if (f.node.IsScalar()) return f.node.Scalar();
  bad(f, "a string");
}

std::vector<int64_t> File::integers(const Field& f) const {
  if (!f.node.IsSequence()) bad(f, "a list of whole numbers");
  std::vector<int64_t> values;
  for (size_t i = 0; i < f.node.size(); ++i)
    values.push_back(integer(
        Field{f.node[i], f.path + "[" + std::to_string(i) + "]", f.node[i].Mark().line + 1}));
  return values;
}

std::string File::dtype(const Field& f) const {
  const std::string name = lower(text(f));
  if (name == "float32" || name == "fp32") return "fp32";
  if (name == "bfloat16" || name == "bf16") return "bf16";
  if (name == "float16" || name == "fp16" || name == "half") return "fp16";
  if (name == "tf32") return "tf32";
  if (name == "float8" || name == "fp8") return "fp8";
  bad(f, "a dtype: float32, bfloat16 or float16 (also fp32, bf16, fp16)");
}

void File::report_unknown(const Field& section, const std::set<std::string>& known,
                          sdk::Builder& b) const {
  if (!section.node.IsMap()) return;
  for (auto it = section.node.begin(); it != section.node.end(); ++it) {
    const std::string key = it->first.IsScalar() ? it->first.Scalar() : "?";
    if (known.count(key) != 0) continue;
    b.unknown_field({path_, it->first.Mark().line + 1,
                     section.path.empty() ? key : section.path + "." + key, ""});
  }
}

nlohmann::json to_json(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return nullptr;
  if (node.IsSequence()) {
    nlohmann::json list = nlohmann::json::array();
    for (const YAML::Node& item : node) list.push_back(to_json(item));
    return list;
  }
  if (node.IsMap()) {
    nlohmann::json object = nlohmann::json::object();
    for (auto it = node.begin(); it != node.end(); ++it)
      object[it->first.Scalar()] = to_json(it->second);
    return object;
  }
  const std::string& s = node.Scalar();
  if (!is_plain(node)) return s;
  if (auto b = as_bool(s)) return *b;
  if (auto v = as_number(s)) {
    if (std::floor(*v) == *v && std::fabs(*v) < 9.0e15 &&
        s.find_first_of(".eE") == std::string::npos)
      return static_cast<int64_t>(*v);
    return *v;
  }
  return s;
}

OffsetSplit split_from_offsets(const File& f, const Field& offset, int64_t total, int64_t pp,
                               int64_t vpp, const std::string& pp_field, const std::string& what) {
  OffsetSplit out;
  std::vector<int64_t> flat;  // the offsets, by virtual stage where per chunk
  out.per_chunk = offset.node.IsSequence() && offset.node.size() > 0 && offset.node[0].IsSequence();
  if (offset.node.IsScalar()) {
    out.offsets.assign(static_cast<size_t>(pp), f.integer(offset));
    flat = out.offsets;
  } else if (!out.per_chunk) {
    out.offsets = f.integers(offset);
    flat = out.offsets;
  } else {
    if (static_cast<int64_t>(offset.node.size()) != vpp)
      f.bad(offset, "one list per chunk (" + std::to_string(vpp) + ", the interleaving)");
    for (size_t c = 0; c < offset.node.size(); ++c) {
      const std::vector<int64_t> row =
          f.integers({offset.node[c], offset.path + "[" + std::to_string(c) + "]", offset.line});
      if (static_cast<int64_t>(row.size()) != pp)
        f.bad(offset, "lists of one offset per pipeline stage (" + std::to_string(pp) + ", " +
                          pp_field + ")");
      flat.insert(flat.end(), row.begin(), row.end());
    }
  }
  if (!out.per_chunk && static_cast<int64_t>(out.offsets.size()) != pp)
    f.bad(offset, "one offset per pipeline stage (" + std::to_string(pp) + ", " + pp_field + ")");
  const int64_t even = total / static_cast<int64_t>(flat.size());
  int64_t sum = 0;
  for (const int64_t o : flat) {
    int64_t layers = 0;
    if (__builtin_add_overflow(even, o, &layers) || layers < 0 ||
        __builtin_add_overflow(sum, layers, &sum))
      f.bad(offset, "offsets that leave every stage at least 0 layers and place the " + what);
    out.layers.push_back(layers);
  }
  if (sum != total)
    f.bad(offset, "offsets that place all " + std::to_string(total) + " " + what +
                      "; these place " + std::to_string(sum) + " over " +
                      std::to_string(flat.size()) + " stages of " + std::to_string(even) +
                      " plus the offset");
  return out;
}

}  // namespace ndsearch::plugins::yaml
