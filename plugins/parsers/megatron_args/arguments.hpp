// SPDX-License-Identifier: Apache-2.0
// arguments.hpp: Megatron-LM / MindSpeed command-line arguments as a script
// (or a MindSpeed JSON argument file) gives them: each occurrence of a flag
// with its values and where they were written, and the rule that the last
// occurrence wins (argparse), with "maybe" occurrences from undecidable
// branches of the script kept apart.
#pragma once

#include <ndsearch/sdk/parser.hpp>

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "plugins/parsers/megatron_args/shell_reader.hpp"

namespace ndsearch::plugins::megatron {

struct Occurrence {
  std::string flag;   // "--num-layers"
  std::string field;  // as the file spells it, when not the flag ("num_layers" in a JSON file)
  Word flag_word;
  std::vector<Word> values;
};

// What a flag resolves to.
struct Found {
  enum class State { absent, known, unknown } state = State::absent;
  const Occurrence* occurrence = nullptr;  // known: the one that wins; unknown: the last
  std::string why;                         // unknown: why
};

class Arguments {
 public:
  Arguments(std::string file, const ShellScript* script)
      : file_(std::move(file)), script_(script) {}

  // Reads flags out of a list of words: `--flag value...`; words before the
  // first flag are not arguments. Occurrences seen already (the same written
  // text reached through two variables) are skipped.
  void add_words(const std::vector<Word>& words);
  void add(Occurrence occurrence) { all_.push_back(std::move(occurrence)); }

  // The winning occurrence of any of `flags` (synonyms; the last wins).
  Found find(std::initializer_list<const char*> flags) const;
  bool has(std::initializer_list<const char*> flags) const {
    return find(flags).state == Found::State::known;
  }

  const std::vector<Occurrence>& all() const { return all_; }
  const std::string& file() const { return file_; }

  // Provenance of an occurrence's value (the text of value `index`, or the
  // flag itself for a switch): the line where it was written, and the flag,
  // with the variable that carried it when that is not the flag's own line.
  sdk::Where where(const Occurrence& o, size_t index = 0) const;
  sdk::Where at(const Occurrence& o) const;  // the flag's own line

 private:
  std::string file_;
  const ShellScript* script_;
  std::vector<Occurrence> all_;
  std::set<std::pair<uint64_t, uint32_t>> seen_;  // a set: a script may hold millions of words
};

// How many values a known flag takes: 0 (a switch), 1, or -1 (one or more).
// Unknown flags take every value up to the next flag.
int flag_arity(const std::string& flag);
// Whether the flag is one ndsearch knows (read or knowingly ignored).
bool is_known_flag(const std::string& flag);

}  // namespace ndsearch::plugins::megatron
