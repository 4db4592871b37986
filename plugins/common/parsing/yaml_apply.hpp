// SPDX-License-Identifier: Apache-2.0
// yaml_apply.hpp: writing values into a training YAML for `apply`: a key the
// file has gets its new value in place (comments and quoting around it kept);
// a key it lacks goes on a line of its own at the end of its mapping, with the
// mappings above it that are missing too. Every other line stays as it was.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plugins/common/parsing/text_edits.hpp"
#include "plugins/common/parsing/yaml_fields.hpp"

namespace ndsearch::plugins::yaml {

class YamlEditor {
 public:
  // `f` is the loaded file, `text` its bytes.
  YamlEditor(const File& f, const std::string& text) : f_(f), edits_(text) {}

  // Sets the value at `dotted` ("parallel_config.model_parallel") to `value`,
  // written as given (4, True, "1f1b", [1, 0, -1]). Throws sdk::Error
  // (NDS_UNSUPPORTED) naming the line where the file holds a block list or a
  // flow mapping there, which apply does not rewrite.
  void set(const std::string& dotted, const std::string& value);
  // Sets it only where the file has the key.
  void set_if_present(const std::string& dotted, const std::string& value);
  // Sets it where the file has the key or `value` is not the trainer's
  // default (a key left out reads as the default): a number, or a switch in
  // the file's spelling of booleans.
  void set_unless_default(const std::string& dotted, int64_t value, int64_t default_value);
  void set_flag_unless_default(const std::string& dotted, bool value, bool default_value);
  bool has(const std::string& dotted) const;
  // A boolean in the spelling the file uses at `dotted` (True/False or true/false).
  std::string boolean(const std::string& dotted, bool value) const;

  // The edited text (added keys included).
  std::string text();

 private:
  struct Located {
    std::vector<std::string> parts;  // of the dotted path
    size_t found = 0;                // how many leading parts the file has
    int64_t key_line = 0;            // 1-based line of the last found key (0: the root)
    YAML::Node node;                 // the value of the last found key (the root when none)
  };
  struct Missing {
    std::vector<std::string> parts;  // below the found mapping
    std::string value;
  };
  Located locate(const std::string& dotted) const;
  int64_t block_end(
      int64_t key_line) const;  // the last line of the mapping under key_line (0: the file)
  std::string child_indent(const Located& at) const;

  const File& f_;
  TextEdits edits_;
  // Keys to add, by the line of the mapping they go under, in the order set.
  std::vector<std::pair<Located, Missing>> missing_;
};

// "[1, 0, -1]": a list as apply writes it, on one line.
std::string flow_list(const std::vector<int64_t>& values);

// The offsets from the even split that give stage i `layers[i]` layers, as
// MindFormers and HyperParallel state them: each stage holds total / stages
// plus its offset (the offsets take up the remainder).
std::vector<int64_t> offsets_from_even_split(const std::vector<int64_t>& layers);

// The `offset` value that states `split` (layers per virtual stage, chunk·pp
// + rank) over `pp` stages: one list of pp offsets, or under virtual stages
// one row of pp per chunk ("[[0, 1], [1, -1]]", MindFormers' 2-D form, which
// LayerSetting reads chunk by chunk: mindformers/models/utils.py). Refuses
// (cannot_write) the V-shaped schedules, whose second chunks run backwards.
// `mtp`: layers the trainer's offsets count after the last decoder layer
// (multi-token prediction, which MindFormers' mtp_depth and HyperParallel
// count in), placed on the last non-empty virtual stage, where the model
// runs them and where the parsers take them off again.
std::string offset_value(const std::string& where, std::vector<int64_t> split, int64_t pp,
                         bool v_shaped, int64_t mtp);

}  // namespace ndsearch::plugins::yaml
