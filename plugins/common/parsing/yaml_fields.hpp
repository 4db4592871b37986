// SPDX-License-Identifier: Apache-2.0
// yaml_fields.hpp: reading a training YAML for a parser: load it (a syntax
// error names the file and line), find values by dotted path with their line,
// read them as the builder's types with errors that name file, line, field and
// value, and report the keys of a section that the parser does not know.
// Shared by mindformers-yaml and hyperparallel-yaml.
#pragma once

#include <ndsearch/sdk/parser.hpp>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>  // yaml_to_json

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ndsearch::plugins::yaml {

// A value of the file at a dotted path ("parallel_config.data_parallel").
struct Field {
  YAML::Node node;
  std::string path;
  int64_t line = NDS_UNKNOWN;  // 1-based
};

// An integer read from the file (or a default), with where it came from.
struct Int {
  int64_t value;
  sdk::Where where;
};

class File;

// The layers a MindFormers-style `offset` places (MindFormers' LayerSetting,
// mindformers/models/utils.py; HyperParallel's config_overrides.offset).
struct OffsetSplit {
  std::vector<int64_t>
      layers;  // by stage, or under a list per chunk by virtual stage (chunk·pp + rank)
  std::vector<int64_t> offsets;  // the per-stage offsets (empty for a list per chunk)
  bool per_chunk = false;
};

// One offset per stage (a whole number: the same for every stage), stage i
// holding total / pp + offset[i]; or, with interleaving, a list per chunk
// ([vpp][pp]), virtual stage c·pp + r holding total / (pp·vpp) + offset[c][r].
// Fails (File::bad) on a shape that does not fit pp (named by `pp_field`) and
// vpp, or offsets that do not place the `total` layers (`what` names them).
OffsetSplit split_from_offsets(const File& f, const Field& offset, int64_t total, int64_t pp,
                               int64_t vpp, const std::string& pp_field, const std::string& what);

// A loaded YAML file: its root and its path (for provenance and messages).
class File {
 public:
  // Throws sdk::Error: NDS_NOT_FOUND when unreadable, NDS_INVALID_ARGUMENT
  // naming the line and column of a syntax error or a file that is not
  // regular, LimitError (size, nesting, aliases), DuplicateKeyError.
  static File load(const std::string& path);
  // The root, or nullopt when the file cannot be read or is not YAML (for probe).
  static std::optional<YAML::Node> try_root(const std::string& path) noexcept;

  const YAML::Node& root() const { return root_; }
  const std::string& path() const { return path_; }

  // The value at `dotted` below the root (or below `from`); nullopt when a
  // step is missing or the value is null.
  std::optional<Field> find(std::string_view dotted) const;
  std::optional<Field> find(const Field& from, std::string_view dotted) const;

  sdk::Where at(const Field& f) const { return {path_, f.line, f.path, ""}; }

  int64_t integer(const Field& f) const;  // a whole number (8 and 8.0 alike)
  double real(const Field& f) const;
  bool boolean(const Field& f) const;  // true/false in any case, or 0/1
  std::string text(const Field& f) const;
  std::vector<int64_t> integers(const Field& f) const;  // a list of whole numbers
  // A dtype name ("float32", "bfloat16", "fp16", ...) as the builder names it.
  std::string dtype(const Field& f) const;

  // Reports every key of the mapping `section` that is neither used nor
  // known-and-ignored as a field the parser does not understand.
  void report_unknown(const Field& section, const std::set<std::string>& known,
                      sdk::Builder& b) const;

  // Throws sdk::Error(code) naming file, line, field and value (cut short).
  [[noreturn]] void bad(const Field& f, const std::string& expected,
                        nds_status_code code = NDS_INVALID_ARGUMENT) const;

 private:
  std::string path_;
  YAML::Node root_;
};

// True when `node` is a mapping holding `key`.
bool has(const YAML::Node& node, const char* key);

// The node as JSON: plain scalars become numbers, booleans or null where
// they read as such; quoted scalars stay strings.
nlohmann::json to_json(const YAML::Node& node);

// A trainer's documented default, as provenance.
inline sdk::Where default_of(const char* trainer) {
  return {"", NDS_UNKNOWN, "", trainer};
}

}  // namespace ndsearch::plugins::yaml
