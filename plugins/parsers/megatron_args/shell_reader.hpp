// SPDX-License-Identifier: Apache-2.0
// shell_reader.hpp: reads a launch script (bash) the way a person would,
// without running it: assignments, ${VAR}, ${VAR:-default}, $((arithmetic)),
// arrays, quoting, comments, backslash continuations, export, and if/elif/else
// on what the script itself knows. Every word keeps the line (and variable)
// where its text was written, so a flag's value can be traced to its source.
// A value the script cannot know (a positional $3, the environment, a command's
// output) stays unknown with the reason; a branch on such a value is read as
// "maybe" and what it sets is marked with that branch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ndsearch::plugins::megatron {

// A run of text from one place in the script.
struct Piece {
  std::string text;
  int64_t line = 0;
  std::string variable;  // the variable whose assignment wrote it ("" in a command)
  std::string
      unknown_why;      // non-empty: the text is a placeholder for a value the script cannot know
  int branch = -1;      // index into ShellScript::branches when set inside an undecidable `if`
  uint64_t id = 0;      // the same for every copy of one written piece of text
  uint32_t offset = 0;  // where `text` starts inside that written piece
  bool quoted = false;  // protected from word splitting
};

// One shell word after expansion.
struct Word {
  std::vector<Piece> pieces;

  std::string text() const;
  bool known() const;
  std::string unknown_why() const;  // the first unknown piece's reason
  int branch() const;               // the first piece's branch, -1 when certain
  int64_t line() const;             // where its first piece was written
  const std::string& variable() const;
  // The written text its first character comes from: two words with one
  // source are one occurrence seen through two variables.
  std::pair<uint64_t, uint32_t> source() const;
};

// A branch of an `if` whose condition the script cannot decide.
struct Branch {
  int if_index = 0;  // into ShellScript::ifs
  int index = 0;     // 0 for the `then` part, 1... for elif/else
};
struct IfStatement {
  int64_t line = 0;
  std::string why;          // why the condition cannot be decided
  int branch_count = 0;     // branches read as "maybe"
  bool exhaustive = false;  // has an `else` and every branch was a "maybe"
};

struct ShellScript {
  // Arguments of the trainer: the words after the Python program of the launch
  // command (torchrun ... pretrain_gpt.py ARGS), or, where the script launches
  // nothing itself, each variable's words (the script only defines arguments).
  std::vector<std::vector<Word>> argument_lists;
  std::vector<Word> launcher_words;  // the launch command's words before the program
  bool launched = false;             // argument_lists come from a launch command
  std::vector<Branch> branches;
  std::vector<IfStatement> ifs;
};

// A script the reader cannot follow (an unterminated quote, an `if` without
// `fi`): the message names the line.
class ShellSyntaxError : public std::runtime_error {
 public:
  ShellSyntaxError(int64_t line, const std::string& what) : std::runtime_error(what), line_(line) {}
  int64_t line() const noexcept { return line_; }

 private:
  int64_t line_;
};

// What the reader refuses to follow (a script no person writes, and one that
// would otherwise exhaust the stack or memory): nesting deeper than these,
// a variable's value larger than kMaxShellValueBytes, or more than
// kMaxShellExpandedBytes copied by all expansions together.
// $(( ( ... ) )) parentheses and signs, ${X:-${Y:-...}} expansions:
inline constexpr int kMaxShellNesting = 256;
inline constexpr size_t kMaxShellValueBytes = size_t{1} << 20;
inline constexpr size_t kMaxShellExpandedBytes = size_t{64} << 20;
inline constexpr int64_t kMaxShellArrayIndex = 65536;
// Words of all commands and values: a launch script has a few hundred, and
// each costs the reader ~250 bytes (1.9 million took 36 s and 1.7 GB).
inline constexpr size_t kMaxShellWords = 100'000;

// A limit above was passed; the message names the line and the variable.
class ShellLimitError : public std::runtime_error {
 public:
  ShellLimitError(int64_t line, const std::string& what) : std::runtime_error(what), line_(line) {}
  int64_t line() const noexcept { return line_; }

 private:
  int64_t line_;
};

// Throws ShellSyntaxError or ShellLimitError.
ShellScript read_shell_script(const std::string& text);

}  // namespace ndsearch::plugins::megatron
