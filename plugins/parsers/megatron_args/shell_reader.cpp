// SPDX-License-Identifier: Apache-2.0
#include "plugins/parsers/megatron_args/shell_reader.hpp"
#include "plugins/parsers/megatron_args/whole_number.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <optional>

namespace ndsearch::plugins::megatron {

std::string Word::text() const {
  std::string t;
  for (const Piece& p : pieces) t += p.text;
  return t;
}
bool Word::known() const {
  for (const Piece& p : pieces)
    if (!p.unknown_why.empty()) return false;
  return true;
}
std::string Word::unknown_why() const {
  for (const Piece& p : pieces)
    if (!p.unknown_why.empty()) return p.unknown_why;
  return "";
}
int Word::branch() const {
  for (const Piece& p : pieces)
    if (p.branch >= 0) return p.branch;
  return -1;
}
int64_t Word::line() const {
  return pieces.empty() ? 0 : pieces.front().line;
}
const std::string& Word::variable() const {
  static const std::string none;
  return pieces.empty() ? none : pieces.front().variable;
}
std::pair<uint64_t, uint32_t> Word::source() const {
  return pieces.empty() ? std::pair<uint64_t, uint32_t>{0, 0}
                        : std::pair{pieces.front().id, pieces.front().offset};
}

namespace {

enum class Truth { yes, no, unknown };

struct Decision {
  Truth truth = Truth::unknown;
  std::string why;
};

Decision decided(bool b) {
  return {b ? Truth::yes : Truth::no, ""};
}

// A piece of a word being read, with what word splitting needs to know.
struct Part {
  Piece piece;
  bool word_break = false;  // "${ARRAY[@]}": the elements are separate words
  bool from_self = false;   // expanded from the variable being assigned (X=("${X[@]}" ...))
};

struct Variable {
  bool array = false;
  std::vector<std::vector<Piece>> elements;  // a scalar has one
};

struct Mode {
  bool skip = false;
  int branch = -1;  // reading an undecidable branch: ShellScript::branches index
};

struct Frame {
  enum class Kind { conditional, loop, group, function_body } kind = Kind::group;
  Mode parent;
  int if_index = -1;
  int branch_index = 0;
  bool taken = false;        // a branch certainly ran
  bool maybe_taken = false;  // a branch may have run
  bool all_maybe = true;     // every branch so far was undecidable
  bool has_else = false;
  int64_t line = 0;
  // What each undecidable branch assigned, per variable: one text per branch.
  std::map<std::string, std::vector<std::string>> assigned;
};

bool is_name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}
bool is_meta(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ';' || c == '&' || c == '|' ||
         c == '<' || c == '>' || c == '(' || c == ')';
}

// $(( ... )): + - * / % and parentheses on whole numbers. A result that
// does not fit in 64 bits is not read (nullopt), as a division by zero;
// nesting deeper than kMaxShellNesting throws TooDeep.
class Arithmetic {
 public:
  struct TooDeep {};
  explicit Arithmetic(const std::string& text) : s_(text) {}
  std::optional<int64_t> evaluate() {
    auto v = sum();
    skip();
    if (!v || pos_ != s_.size()) return std::nullopt;
    return v;
  }

 private:
  // One more level of parentheses or signs; recursion is bounded by it.
  struct Deeper {
    explicit Deeper(int& depth) : depth_(depth) {
      if (++depth_ > kMaxShellNesting) throw TooDeep{};
    }
    ~Deeper() { --depth_; }
    int& depth_;
  };
  static std::optional<int64_t> apply(char op, int64_t a, int64_t b) {
    int64_t r = 0;
    switch (op) {
      case '+': return __builtin_add_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
      case '-': return __builtin_sub_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
      case '*': return __builtin_mul_overflow(a, b, &r) ? std::nullopt : std::optional<int64_t>(r);
      default:
        if (b == 0 || (a == INT64_MIN && b == -1)) return std::nullopt;
        return op == '/' ? a / b : a % b;
    }
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  std::optional<int64_t> sum() {
    auto left = product();
    for (;;) {
      skip();
      if (!left || pos_ >= s_.size() || (s_[pos_] != '+' && s_[pos_] != '-')) return left;
      const char op = s_[pos_++];
      auto right = product();
      if (!right) return std::nullopt;
      left = apply(op, *left, *right);
    }
  }
  std::optional<int64_t> product() {
    auto left = unary();
    for (;;) {
      skip();
      if (!left || pos_ >= s_.size() || (s_[pos_] != '*' && s_[pos_] != '/' && s_[pos_] != '%'))
        return left;
      const char op = s_[pos_++];
      auto right = unary();
      if (!right) return std::nullopt;
      left = apply(op, *left, *right);
    }
  }
  std::optional<int64_t> unary() {
    skip();
    if (pos_ < s_.size() && (s_[pos_] == '-' || s_[pos_] == '+')) {
      const Deeper deeper(depth_);
      const char op = s_[pos_++];
      auto v = unary();
      if (!v) return std::nullopt;
      return op == '-' ? apply('-', 0, *v) : v;
    }
    if (pos_ < s_.size() && s_[pos_] == '(') {
      const Deeper deeper(depth_);
      ++pos_;
      auto v = sum();
      skip();
      if (pos_ >= s_.size() || s_[pos_] != ')') return std::nullopt;
      ++pos_;
      return v;
    }
    size_t start = pos_;
    while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_]))) ++pos_;
    if (start == pos_) return std::nullopt;
    int64_t v = 0;
    if (!whole_number(s_.substr(start, pos_ - start), v)) return std::nullopt;
    return v;
  }
  std::string s_;
  size_t pos_ = 0;
  int depth_ = 0;
};

// The most words of a [ ... ] test ndsearch decides.
constexpr size_t kMaxTestWords = 512;

// The bytes a value's pieces hold, as the limits count them.
size_t piece_bytes(const Piece& p) {
  return sizeof(Piece) + p.text.size() + p.variable.size() + p.unknown_why.size();
}

class Reader {
 public:
  explicit Reader(const std::string& text) : s_(text) {}

  ShellScript run() {
    read_list();
    if (!frames_.empty()) {
      throw ShellSyntaxError(frames_.back().line,
                             "the block opened here (if/for/while/{) is never closed");
    }
    if (!out_.launched) {
      // The script launches nothing itself: its arguments are what its
      // variables hold (a MODEL_ARGS="..." file sourced by a launcher).
      for (const auto& name : assignment_order_) {
        auto it = vars_.find(name);
        if (it == vars_.end()) continue;
        std::vector<Word> words;
        for (const auto& element : it->second.elements) {
          std::vector<Part> parts;
          for (const Piece& p : element) parts.push_back({p, false, false});
          for (Part& part : parts) part.piece.quoted = false;
          for (Word& w : split(parts)) words.push_back(std::move(w));
          count_words(words.size());
        }
        out_.argument_lists.push_back(std::move(words));
      }
    }
    return std::move(out_);
  }

 private:
  // ---- Characters ------------------------------------------------------------
  bool eof() const { return pos_ >= s_.size(); }
  char peek(size_t ahead = 0) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }
  char get() {
    const char c = s_[pos_++];
    if (c == '\n') ++line_;
    return c;
  }
  bool starts_with(const char* text) const {
    return s_.compare(pos_, std::char_traits<char>::length(text), text) == 0;
  }
  void skip_blanks() {
    for (;;) {
      if (is_blank(peek())) {
        get();
      } else if (peek() == '\\' && peek(1) == '\n') {
        get();
        get();
      } else {
        return;
      }
    }
  }
  void skip_comment() {
    while (!eof() && peek() != '\n') get();
  }
  // A newline ends a command; here-document bodies start after it.
  void newline() {
    get();
    for (const auto& [delimiter, strip_tabs] : heredocs_) {
      for (;;) {
        if (eof())
          throw ShellSyntaxError(line_,
                                 "a here-document never reaches its end line '" + delimiter + "'");
        size_t end = s_.find('\n', pos_);
        std::string text =
            s_.substr(pos_, end == std::string::npos ? std::string::npos : end - pos_);
        if (strip_tabs)
          text.erase(0, text.find_first_not_of('\t') == std::string::npos
                            ? text.size()
                            : text.find_first_not_of('\t'));
        pos_ = end == std::string::npos ? s_.size() : end + 1;
        ++line_;
        if (text == delimiter) break;
      }
    }
    heredocs_.clear();
  }

  // ---- Pieces ------------------------------------------------------------------
  Part literal(std::string text, bool quoted, int64_t line) {
    Part part;
    part.piece.text = std::move(text);
    part.piece.line = line;
    part.piece.variable = assigning_;
    part.piece.id = next_id_++;
    part.piece.quoted = quoted;
    part.piece.branch = mode_.branch;
    return part;
  }
  Part unknown(const std::string& placeholder, const std::string& why, bool quoted) {
    Part part = literal(placeholder, quoted, line_);
    part.piece.unknown_why = why;
    return part;
  }
  // Appends one character of written text, a new piece per line.
  void add_char(std::vector<Part>& parts, char c, bool quoted, int64_t line) {
    if (!parts.empty()) {
      Part& last = parts.back();
      if (!last.word_break && !last.from_self && last.piece.id == last_literal_id_ &&
          last.piece.quoted == quoted && last.piece.line == line &&
          last.piece.unknown_why.empty()) {
        last.piece.text += c;
        return;
      }
    }
    parts.push_back(literal(std::string(1, c), quoted, line));
    last_literal_id_ = parts.back().piece.id;
  }

  // ---- Expansions --------------------------------------------------------------
  std::optional<Variable> lookup(const std::string& name) const {
    auto it = vars_.find(name);
    if (it == vars_.end()) return std::nullopt;
    return it->second;
  }
  static std::string unset_why(const std::string& name) {
    if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0])))
      return "$" + name + " is a positional argument, given only when the script is run";
    if (name == "@" || name == "*" || name == "#")
      return "$" + name + " is the script's arguments, given only when it is run";
    if (name.size() == 1 && !is_name_char(name[0]))
      return "$" + name + " is known only when the script runs";
    return name + " is not set in the script (it would come from the environment)";
  }

  // The parts of a variable's value: its elements joined (or broken into
  // words for a quoted [@]).
  std::vector<Part> value_parts(const Variable& v, const std::string& name,
                                const std::string& subscript, bool quoted) {
    count_expansion(v, name);
    std::vector<Part> parts;
    auto add_element = [&](const std::vector<Piece>& element) {
      for (const Piece& p : element) {
        Part part{p, false, name == assigning_ && !assigning_.empty()};
        part.piece.quoted = quoted;
        parts.push_back(part);
      }
    };
    if (subscript == "@" || subscript == "*") {
      for (size_t i = 0; i < v.elements.size(); ++i) {
        if (i > 0) {
          if (quoted && subscript == "@") {
            Part brk;
            brk.word_break = true;
            parts.push_back(brk);
          } else {
            Part space = literal(" ", quoted, line_);
            parts.push_back(space);
          }
        }
        add_element(v.elements[i]);
      }
      return parts;
    }
    size_t index = 0;
    if (!subscript.empty()) {
      int64_t i = 0;
      if (!whole_number(subscript, i) || i < 0) {
        parts.push_back(unknown(
            "${" + name + "[" + subscript + "]}",
            "the index [" + subscript + "] of " + name + " is known only when the script runs",
            quoted));
        return parts;
      }
      index = static_cast<size_t>(i);
    }
    if (index < v.elements.size()) add_element(v.elements[index]);
    return parts;
  }

  static size_t value_bytes(const Variable& v) {
    size_t bytes = 0;
    for (const auto& element : v.elements)
      for (const Piece& p : element) bytes += piece_bytes(p);
    return bytes;
  }
  // Every expansion copies the value: together they stay under the limit, so
  // a script expanding a large value many times stops, fast.
  void count_expansion(const Variable& v, const std::string& name) {
    expanded_bytes_ += value_bytes(v);
    if (expanded_bytes_ > kMaxShellExpandedBytes)
      throw ShellLimitError(line_, "expanding " + name +
                                       " here brings what the script's expansions copy past " +
                                       std::to_string(kMaxShellExpandedBytes >> 20) +
                                       " MiB; no launch script expands so much: fix the script");
  }
  void count_words(size_t words) {
    words_ += words;
    if (words_ > kMaxShellWords)
      throw ShellLimitError(
          line_, "more than " + std::to_string(kMaxShellWords) +
                     " words; a launch script has a few hundred: give the script, not a data file");
  }
  // A value past kMaxShellValueBytes (X="$X$X" doubling, say) is refused.
  void check_value_size(const Variable& v, const std::string& name) const {
    const size_t bytes = value_bytes(v);
    if (bytes > kMaxShellValueBytes)
      throw ShellLimitError(
          line_, "the value of " + name + " grows past " +
                     std::to_string(kMaxShellValueBytes >> 20) + " MiB (it would hold " +
                     std::to_string(bytes) +
                     " bytes with the reader's bookkeeping); no launch script holds so much in a "
                     "variable: fix the assignment");
  }

  static bool empty_value(const Variable& v) {
    for (const auto& element : v.elements)
      for (const Piece& p : element)
        if (!p.text.empty() || !p.unknown_why.empty()) return false;
    return true;
  }
  static bool known_value(const Variable& v) {
    for (const auto& element : v.elements)
      for (const Piece& p : element)
        if (!p.unknown_why.empty()) return false;
    return true;
  }

  // Text up to the `close` that matches, quotes and nesting respected.
  std::string balanced(char open, char close) {
    int depth = 1;
    std::string text;
    while (!eof()) {
      char c = get();
      if (c == '\\' && !eof()) {
        text += c;
        text += get();
        continue;
      }
      if (c == '\'') {
        text += c;
        while (!eof() && peek() != '\'') text += get();
        if (!eof()) text += get();
        continue;
      }
      if (c == open) ++depth;
      if (c == close && --depth == 0) return text;
      text += c;
    }
    throw ShellSyntaxError(line_,
                           std::string("a '") + open + "' is never closed by '" + close + "'");
  }

  // After '$'. Appends the expansion's parts.
  void expansion(std::vector<Part>& parts, bool quoted) {
    // ${X:-${Y:-...}} recurses once per level: bounded, so the stack is.
    struct Deeper {
      Deeper(int& depth, int64_t line) : depth_(depth) {
        if (++depth_ > kMaxShellNesting)
          throw ShellLimitError(
              line, "expansions (${...:-${...}}, $(( )), quotes inside them) nest more than " +
                        std::to_string(kMaxShellNesting) +
                        " deep; no launch script does: fix the script");
      }
      ~Deeper() { --depth_; }
      int& depth_;
    } deeper(expansion_depth_, line_);
    if (starts_with("((")) {
      const int64_t line = line_;
      pos_ += 2;
      std::string expr = balanced('(', ')');
      if (peek() == ')') get();
      arithmetic(parts, expr, quoted, line);
      return;
    }
    if (peek() == '(') {
      get();
      std::string command = balanced('(', ')');
      parts.push_back(
          unknown("$(" + command + ")", "the output of the command $(" + command + ")", quoted));
      return;
    }
    if (peek() == '{') {
      get();
      braced(parts, quoted);
      return;
    }
    std::string name;
    if (is_name_start(peek())) {
      while (is_name_char(peek())) name += get();
    } else if (std::isdigit(static_cast<unsigned char>(peek())) ||
               std::string("@*#?$!-").find(peek()) != std::string::npos) {
      name = std::string(1, get());
    } else {
      add_char(parts, '$', quoted, line_);
      return;
    }
    plain_value(parts, name, "", quoted);
  }

  void plain_value(std::vector<Part>& parts, const std::string& name, const std::string& subscript,
                   bool quoted) {
    auto v = lookup(name);
    if (!v) {
      parts.push_back(unknown("$" + name, unset_why(name), quoted));
      return;
    }
    for (Part& p : value_parts(*v, name, subscript, quoted)) parts.push_back(std::move(p));
  }

  void arithmetic(std::vector<Part>& parts, const std::string& expr, bool quoted, int64_t line) {
    std::string plain;
    std::string why;
    for (size_t i = 0; i < expr.size();) {
      size_t start = i;
      if (expr[i] == '$') ++i;
      bool braced = i < expr.size() && expr[i] == '{' && start != i;
      if (braced) ++i;
      if (i < expr.size() && is_name_start(expr[i])) {
        size_t name_start = i;
        while (i < expr.size() && is_name_char(expr[i])) ++i;
        const std::string name = expr.substr(name_start, i - name_start);
        if (braced && i < expr.size() && expr[i] == '}') ++i;
        auto v = lookup(name);
        if (!v || !known_value(*v) || v->elements.empty()) {
          if (why.empty()) why = v ? name + " is not known" : unset_why(name);
          continue;
        }
        std::string text;
        for (const Piece& p : v->elements[0]) text += p.text;
        plain += "(" + text + ")";
        continue;
      }
      if (start != i) {
        if (why.empty()) why = "$((" + expr + ")) uses a value known only when the script runs";
        ++i;
        continue;
      }
      plain += expr[i++];
    }
    std::optional<int64_t> value;
    try {
      if (why.empty()) value = Arithmetic(plain).evaluate();
    } catch (const Arithmetic::TooDeep&) {
      throw ShellLimitError(line, "$(( )) nests parentheses or signs more than " +
                                      std::to_string(kMaxShellNesting) +
                                      " deep; no launch script does: fix the arithmetic");
    }
    if (!value) {
      parts.push_back(unknown(
          "$((" + expr + "))",
          why.empty() ? "$((" + expr + ")) is not arithmetic ndsearch can read" : why, quoted));
      return;
    }
    parts.push_back(literal(std::to_string(*value), quoted, line));
  }

  // After "${".
  void braced(std::vector<Part>& parts, bool quoted) {
    if (peek() == '#' || peek() == '!') {
      std::string text = balanced('{', '}');
      parts.push_back(
          unknown("${" + text + "}", "${" + text + "} is known only when the script runs", quoted));
      return;
    }
    std::string name;
    if (is_name_start(peek())) {
      while (is_name_char(peek())) name += get();
    } else {
      while (std::isdigit(static_cast<unsigned char>(peek()))) name += get();
      if (name.empty() && !eof()) name = std::string(1, get());
    }
    std::string subscript;
    if (peek() == '[') {
      get();
      while (!eof() && peek() != ']') subscript += get();
      if (!eof()) get();
    }
    if (peek() == '}') {
      get();
      plain_value(parts, name, subscript, quoted);
      return;
    }
    std::string op;
    if (peek() == ':' && std::string("-=+?").find(peek(1)) != std::string::npos) {
      op += get();
      op += get();
    } else if (std::string("-=+?").find(peek()) != std::string::npos) {
      op += get();
    } else {
      std::string rest = balanced('{', '}');
      parts.push_back(unknown(
          "${" + name + rest + "}",
          "${" + name + rest + "} changes the text of " + name + " when the script runs", quoted));
      return;
    }
    std::vector<Part> operand = read_until_brace(quoted);
    auto v = lookup(name);
    const bool colon = op[0] == ':';
    const char kind = op.back();
    const bool set = v && (!colon || !empty_value(*v));
    if (v && !known_value(*v) && (kind == '-' || kind == '=' || kind == '+')) {
      // Set to something unknown: whether it is empty is unknown too.
      for (Part& p : value_parts(*v, name, subscript, quoted)) parts.push_back(std::move(p));
      return;
    }
    switch (kind) {
      case '-':
      case '?':
        if (set) {
          for (Part& p : value_parts(*v, name, subscript, quoted)) parts.push_back(std::move(p));
        } else {
          for (Part& p : operand) parts.push_back(std::move(p));
        }
        return;
      case '=':
        if (set) {
          for (Part& p : value_parts(*v, name, subscript, quoted)) parts.push_back(std::move(p));
        } else {
          Variable assigned;
          assigned.elements.emplace_back();
          for (const Part& p : operand) assigned.elements[0].push_back(p.piece);
          assign(name, assigned, false);
          for (Part& p : operand) parts.push_back(std::move(p));
        }
        return;
      case '+':
        if (set)
          for (Part& p : operand) parts.push_back(std::move(p));
        return;
      default: return;
    }
  }

  // The word after ${NAME:- ... up to its closing brace.
  std::vector<Part> read_until_brace(bool quoted) {
    std::vector<Part> parts;
    while (!eof() && peek() != '}') {
      if (!quoted && peek() == '\'') {
        get();
        const int64_t line = line_;
        while (!eof() && peek() != '\'') add_char(parts, get(), true, line);
        if (!eof()) get();
      } else if (!quoted && peek() == '"') {
        get();
        double_quoted(parts);
      } else if (peek() == '$') {
        get();
        expansion(parts, quoted);
      } else if (peek() == '\\' && pos_ + 1 < s_.size()) {
        get();
        if (peek() == '\n') {
          get();
        } else {
          add_char(parts, get(), true, line_);
        }
      } else {
        const int64_t line = line_;
        add_char(parts, get(), quoted, line);
      }
    }
    if (eof()) throw ShellSyntaxError(line_, "a '${' is never closed by '}'");
    get();
    return parts;
  }

  // After the opening '"'.
  void double_quoted(std::vector<Part>& parts) {
    const int64_t start = line_;
    for (;;) {
      if (eof()) throw ShellSyntaxError(start, "a double quote opened here is never closed");
      char c = peek();
      if (c == '"') {
        get();
        if (parts.empty()) parts.push_back(literal("", true, line_));
        return;
      }
      if (c == '\\') {
        get();
        char n = peek();
        if (n == '\n') {
          get();  // a continuation inside quotes joins the lines
        } else if (n == '$' || n == '`' || n == '"' || n == '\\') {
          add_char(parts, get(), true, line_);
        } else {
          add_char(parts, '\\', true, line_);
        }
        continue;
      }
      if (c == '$') {
        get();
        expansion(parts, true);
        continue;
      }
      if (c == '`') {
        get();
        std::string command;
        while (!eof() && peek() != '`') command += get();
        if (!eof()) get();
        parts.push_back(
            unknown("`" + command + "`", "the output of the command `" + command + "`", true));
        continue;
      }
      const int64_t line = line_;
      add_char(parts, get(), true, line);
    }
  }

  // One shell word (unexpanded text up to a metacharacter), expanded now.
  std::vector<Part> read_word_parts() {
    std::vector<Part> parts;
    while (!eof()) {
      char c = peek();
      if (c == '\\') {
        if (peek(1) == '\n') {
          get();
          get();
          continue;
        }
        get();
        if (!eof()) add_char(parts, get(), true, line_);
        continue;
      }
      if (is_meta(c)) break;
      if (c == '\'') {
        get();
        const int64_t start = line_;
        bool any = false;
        while (!eof() && peek() != '\'') {
          const int64_t line = line_;
          add_char(parts, get(), true, line);
          any = true;
        }
        if (eof()) throw ShellSyntaxError(start, "a single quote opened here is never closed");
        get();
        if (!any) parts.push_back(literal("", true, line_));
        continue;
      }
      if (c == '"') {
        get();
        double_quoted(parts);
        continue;
      }
      if (c == '$') {
        get();
        expansion(parts, false);
        continue;
      }
      if (c == '`') {
        get();
        std::string command;
        while (!eof() && peek() != '`') command += get();
        if (!eof()) get();
        parts.push_back(
            unknown("`" + command + "`", "the output of the command `" + command + "`", false));
        continue;
      }
      const int64_t line = line_;
      add_char(parts, get(), false, line);
    }
    return parts;
  }

  // Word splitting: unquoted expansion results split on blanks and newlines.
  static std::vector<Word> split(const std::vector<Part>& parts) {
    std::vector<Word> words;
    Word current;
    bool has = false;
    auto finish = [&] {
      if (has) words.push_back(std::move(current));
      current = Word();
      has = false;
    };
    for (const Part& part : parts) {
      if (part.word_break) {
        finish();
        continue;
      }
      const Piece& p = part.piece;
      if (p.quoted || !p.unknown_why.empty()) {
        current.pieces.push_back(p);
        has = true;
        continue;
      }
      int64_t line = p.line;
      Piece run = p;
      run.text.clear();
      for (size_t i = 0; i < p.text.size(); ++i) {
        const char c = p.text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
          if (!run.text.empty()) {
            current.pieces.push_back(run);
            has = true;
          }
          finish();
          if (c == '\n') ++line;
          run = p;
          run.text.clear();
          run.line = line;
          run.offset = p.offset + static_cast<uint32_t>(i + 1);
          continue;
        }
        run.text += c;
      }
      if (!run.text.empty()) {
        current.pieces.push_back(run);
        has = true;
      }
    }
    finish();
    return words;
  }

  // ---- Assignments ----------------------------------------------------------------
  // NAME=, NAME+=, NAME[i]= at the reading position; returns the name, or
  // nothing (position unchanged).
  struct AssignmentHead {
    std::string name;
    std::string subscript;
    bool append = false;
  };
  std::optional<AssignmentHead> assignment_head() {
    size_t i = pos_;
    if (!is_name_start(peek())) return std::nullopt;
    AssignmentHead head;
    while (i < s_.size() && is_name_char(s_[i])) head.name += s_[i++];
    if (i < s_.size() && s_[i] == '[') {
      size_t close = s_.find(']', i);
      if (close == std::string::npos) return std::nullopt;
      head.subscript = s_.substr(i + 1, close - i - 1);
      i = close + 1;
    }
    if (i < s_.size() && s_[i] == '+') {
      head.append = true;
      ++i;
    }
    if (i >= s_.size() || s_[i] != '=') return std::nullopt;
    pos_ = i + 1;
    return head;
  }

  struct Assignment {
    AssignmentHead head;
    Variable value;
  };

  Assignment read_assignment(const AssignmentHead& head) {
    Assignment a{head, {}};
    assigning_ = head.name;
    if (peek() == '(') {
      get();
      a.value.array = true;
      for (;;) {
        skip_blanks();
        if (eof())
          throw ShellSyntaxError(line_, "the array " + head.name + "=( ... ) is never closed");
        if (peek() == '\n') {
          newline();
          continue;
        }
        if (peek() == '#') {
          skip_comment();
          continue;
        }
        if (peek() == ')') {
          get();
          break;
        }
        auto parts = read_word_parts();
        if (parts.empty()) {
          // a metacharacter inside the array: keep it as text
          add_char(parts, get(), false, line_);
        }
        for (Part& p : parts) mark_uncertain(p);
        for (Word& w : split(parts)) a.value.elements.push_back(std::move(w.pieces));
      }
    } else {
      auto parts = read_word_parts();
      a.value.elements.emplace_back();
      for (Part& p : parts) {
        if (p.word_break) {
          a.value.elements[0].push_back(literal(" ", false, line_).piece);
          continue;
        }
        mark_uncertain(p);
        a.value.elements[0].push_back(p.piece);
      }
    }
    assigning_.clear();
    return a;
  }

  // In an undecidable branch, what an assignment writes may not happen: mark
  // it, except what it keeps of the variable's own earlier value.
  void mark_uncertain(Part& p) const {
    if (mode_.branch >= 0 && p.piece.branch < 0 && !p.from_self) p.piece.branch = mode_.branch;
  }

  void assign(const std::string& name, const Variable& value, bool append,
              const std::string& subscript = "") {
    if (mode_.branch >= 0 && !frames_.empty() && frames_.back().kind == Frame::Kind::conditional &&
        !append) {
      std::string text;
      for (const auto& element : value.elements) {
        for (const Piece& p : element) text += p.unknown_why.empty() ? p.text : "\x01";
        text += "\x02";
      }
      frames_.back().assigned[name].push_back(text);
    }
    if (std::find(assignment_order_.begin(), assignment_order_.end(), name) ==
        assignment_order_.end())
      assignment_order_.push_back(name);
    Variable& v = vars_[name];
    if (!subscript.empty() && subscript != "@" && subscript != "*") {
      int64_t index = 0;
      if (whole_number(subscript, index) && index >= 0) {
        if (index >= kMaxShellArrayIndex)
          throw ShellLimitError(line_,
                                name + "[" + subscript + "]: an array index of " +
                                    std::to_string(kMaxShellArrayIndex) +
                                    " or more; no launch script has such an array: fix the index");
        v.array = true;
        if (v.elements.size() <= static_cast<size_t>(index))
          v.elements.resize(static_cast<size_t>(index) + 1);
        if (!value.elements.empty()) {
          auto& element = v.elements[static_cast<size_t>(index)];
          if (!append) element.clear();
          element.insert(element.end(), value.elements[0].begin(), value.elements[0].end());
        }
        check_value_size(v, name);
      }
      return;
    }
    if (!append) {
      check_value_size(value, name);
      v = value;
      return;
    }
    if (value.array) {
      v.array = true;
      v.elements.insert(v.elements.end(), value.elements.begin(), value.elements.end());
    } else if (!value.elements.empty()) {
      if (v.elements.empty()) v.elements.emplace_back();
      v.elements[0].insert(v.elements[0].end(), value.elements[0].begin(), value.elements[0].end());
    }
    check_value_size(v, name);
  }

  // Every branch of an if/else that assigned a variable the same text: the
  // value is the same whichever runs.
  void settle_agreeing_assignments(const Frame& f) {
    const int count = out_.ifs[static_cast<size_t>(f.if_index)].branch_count;
    for (const auto& [name, texts] : f.assigned) {
      if (static_cast<int>(texts.size()) != count) continue;
      if (std::adjacent_find(texts.begin(), texts.end(), std::not_equal_to<>()) != texts.end())
        continue;
      auto it = vars_.find(name);
      if (it == vars_.end()) continue;
      for (auto& element : it->second.elements)
        for (Piece& p : element)
          if (p.branch >= 0 && out_.branches[static_cast<size_t>(p.branch)].if_index == f.if_index)
            p.branch = -1;
    }
  }

  // ---- Commands ----------------------------------------------------------------
  struct Command {
    std::vector<Word> words;
    std::vector<Assignment> assignments;
    int64_t line = 0;
  };

  // The next raw word without reading it (for keywords).
  std::string peek_raw_word() const {
    size_t i = pos_;
    std::string w;
    while (i < s_.size() && !is_meta(s_[i])) w += s_[i++];
    return w;
  }

  static bool is_assignment_builtin(const std::string& w) {
    return w == "export" || w == "declare" || w == "local" || w == "readonly" || w == "typeset";
  }

  // Reads a simple command up to its terminator (not consumed).
  Command read_command() {
    Command cmd;
    cmd.line = line_;
    bool assignments_allowed = true;
    bool double_bracket = false;
    for (;;) {
      skip_blanks();
      if (eof()) break;
      char c = peek();
      if (c == '#') {
        skip_comment();
        break;
      }
      if (c == '\n' || c == ';' || c == ')') break;
      if (c == '&' || c == '|') {
        if (double_bracket && (starts_with("&&") || starts_with("||"))) {
          cmd.words.push_back(Word{{literal(std::string(2, c), false, line_).piece}});
          get();
          get();
          continue;
        }
        break;
      }
      if (c == '(') {
        // a subshell or function parentheses: read as text
        get();
        if (peek() == ')') get();
        continue;
      }
      // Redirections: an optional descriptor, the operator, its target.
      size_t digits = 0;
      while (std::isdigit(static_cast<unsigned char>(peek(digits)))) ++digits;
      if (peek(digits) == '<' || peek(digits) == '>' || (c == '&' && peek(1) == '>')) {
        redirection(digits);
        continue;
      }
      if (assignments_allowed) {
        const size_t save = pos_;
        if (auto head = assignment_head()) {
          cmd.assignments.push_back(read_assignment(*head));
          continue;
        }
        pos_ = save;
      }
      auto parts = read_word_parts();
      for (Part& p : parts)
        if (mode_.branch >= 0 && p.piece.branch < 0) p.piece.branch = mode_.branch;
      auto words = split(parts);
      count_words(words.size());
      for (Word& w : words) cmd.words.push_back(std::move(w));
      if (!cmd.words.empty()) {
        const std::string first = cmd.words.front().text();
        assignments_allowed = is_assignment_builtin(first);
        if (first == "[[") double_bracket = true;
        if (double_bracket && cmd.words.size() > 1 && cmd.words.back().text() == "]]")
          double_bracket = false;
      }
    }
    return cmd;
  }

  void redirection(size_t digits) {
    pos_ += digits;
    std::string op;
    if (peek() == '&') op += get();
    while (peek() == '<' || peek() == '>') op += get();
    if (peek() == '&' || peek() == '-') op += get();
    if (op == "<<<" || op.back() == '&') {
      skip_blanks();
      read_word_parts();
      return;
    }
    skip_blanks();
    if (op == "<<" || op == "<<-") {
      std::string delimiter;
      while (!eof() && !is_meta(peek())) {
        char c = get();
        if (c != '\'' && c != '"' && c != '\\') delimiter += c;
      }
      heredocs_.emplace_back(delimiter, op == "<<-");
      return;
    }
    read_word_parts();
  }

  void execute(Command& cmd) {
    if (mode_.skip) return;
    if (cmd.words.empty()) {
      for (const Assignment& a : cmd.assignments)
        assign(a.head.name, a.value, a.head.append, a.head.subscript);
      return;
    }
    const std::string first = cmd.words.front().text();
    if (is_assignment_builtin(first)) {
      for (const Assignment& a : cmd.assignments)
        assign(a.head.name, a.value, a.head.append, a.head.subscript);
      return;
    }
    if (first == "unset") {
      for (size_t i = 1; i < cmd.words.size(); ++i) vars_.erase(cmd.words[i].text());
      return;
    }
    // NAME=value before a command sets it for that command only.
    for (size_t i = 0; i < cmd.words.size(); ++i) {
      const std::string text = cmd.words[i].text();
      if (!cmd.words[i].known() || text.size() < 4 || text.compare(text.size() - 3, 3, ".py") != 0)
        continue;
      out_.launched = true;
      out_.launcher_words.assign(cmd.words.begin(),
                                 cmd.words.begin() + static_cast<std::ptrdiff_t>(i));
      out_.argument_lists.emplace_back(cmd.words.begin() + static_cast<std::ptrdiff_t>(i + 1),
                                       cmd.words.end());
      return;
    }
  }

  // ---- Conditions --------------------------------------------------------------
  static Decision combine_or(const Decision& a, const Decision& b) {
    if (a.truth == Truth::yes || b.truth == Truth::yes) return decided(true);
    if (a.truth == Truth::no) return b;
    if (b.truth == Truth::no) return a;
    return a;
  }
  static Decision combine_and(const Decision& a, const Decision& b) {
    if (a.truth == Truth::no || b.truth == Truth::no) return decided(false);
    if (a.truth == Truth::yes) return b;
    if (b.truth == Truth::yes) return a;
    return a;
  }

  // A test command's words between its brackets.
  static Decision test_expression(const std::vector<Word>& w, size_t begin, size_t end) {
    // Each || or && is a level of recursion and a scan: a test longer than
    // any script writes is not decided (and so cannot exhaust the stack).
    if (end - begin > kMaxTestWords)
      return {Truth::unknown, "the test has more than " + std::to_string(kMaxTestWords) + " words"};
    // or-terms, then and-terms, left to right
    for (size_t i = end; i-- > begin;) {
      const std::string t = w[i].text();
      if ((t == "||" || t == "-o") && i > begin) {
        return combine_or(test_expression(w, begin, i), test_expression(w, i + 1, end));
      }
    }
    for (size_t i = end; i-- > begin;) {
      const std::string t = w[i].text();
      if ((t == "&&" || t == "-a") && i > begin && i + 1 < end) {
        return combine_and(test_expression(w, begin, i), test_expression(w, i + 1, end));
      }
    }
    if (begin < end && w[begin].text() == "!") {
      Decision d = test_expression(w, begin + 1, end);
      if (d.truth != Truth::unknown) d.truth = d.truth == Truth::yes ? Truth::no : Truth::yes;
      return d;
    }
    const size_t n = end - begin;
    auto unknown_in = [&](size_t from, size_t to) -> std::optional<Decision> {
      for (size_t i = from; i < to; ++i)
        if (!w[i].known()) return Decision{Truth::unknown, w[i].unknown_why()};
      return std::nullopt;
    };
    if (n == 0) return decided(false);
    if (n == 1) {
      if (auto u = unknown_in(begin, end)) return *u;
      return decided(!w[begin].text().empty());
    }
    if (n == 2) {
      const std::string op = w[begin].text();
      if (op == "-z" || op == "-n") {
        if (auto u = unknown_in(begin + 1, end)) return *u;
        const bool empty = w[begin + 1].text().empty();
        return decided(op == "-z" ? empty : !empty);
      }
      return {Truth::unknown,
              "the test '" + op + " " + w[begin + 1].text() + "' looks at the file system"};
    }
    if (n == 3) {
      const std::string op = w[begin + 1].text();
      if (auto u = unknown_in(begin, end)) return *u;
      const std::string a = w[begin].text(), b = w[begin + 2].text();
      if (op == "=" || op == "==") {
        if (b.find_first_of("*?[") != std::string::npos)
          return {Truth::unknown, "the pattern '" + b + "'"};
        return decided(a == b);
      }
      if (op == "!=") return decided(a != b);
      int64_t x = 0, y = 0;
      if (whole_number(a, x) && whole_number(b, y)) {
        if (op == "-eq") return decided(x == y);
        if (op == "-ne") return decided(x != y);
        if (op == "-lt") return decided(x < y);
        if (op == "-le") return decided(x <= y);
        if (op == "-gt") return decided(x > y);
        if (op == "-ge") return decided(x >= y);
      }
    }
    std::string text;
    for (size_t i = begin; i < end; ++i) text += (i == begin ? "" : " ") + w[i].text();
    return {Truth::unknown, "the test '" + text + "' is not one ndsearch decides"};
  }

  static Decision command_status(const Command& cmd) {
    if (cmd.words.empty()) return decided(true);
    const std::string first = cmd.words.front().text();
    const std::string last = cmd.words.back().text();
    if ((first == "[" && last == "]") || (first == "[[" && last == "]]"))
      return test_expression(cmd.words, 1, cmd.words.size() - 1);
    if (first == "test") return test_expression(cmd.words, 1, cmd.words.size());
    if (first == "true" || first == ":") return decided(true);
    if (first == "false") return decided(false);
    std::string text;
    for (const Word& w : cmd.words) text += (text.empty() ? "" : " ") + w.text();
    return {Truth::unknown, "it depends on what `" + text + "` does when run"};
  }

  // The condition of if/elif/while: an and-or list, up to `then`/`do`.
  Decision read_condition(const char* keyword) {
    Decision result = decided(true);
    bool first = true;
    std::string op;
    for (;;) {
      const size_t start = pos_;
      skip_blanks();
      if (peek() == '!' && is_blank(peek(1))) get();
      Command cmd = read_command();
      Decision d = command_status(cmd);
      if (first) {
        result = d;
      } else {
        result = op == "&&" ? combine_and(result, d) : combine_or(result, d);
      }
      first = false;
      skip_blanks();
      if (starts_with("&&") || starts_with("||")) {
        op = s_.substr(pos_, 2);
        pos_ += 2;
        continue;
      }
      while (!eof() && (peek() == ';' || peek() == '\n' || is_blank(peek()) || peek() == '#')) {
        if (peek() == '#') {
          skip_comment();
        } else if (peek() == '\n') {
          newline();
        } else {
          get();
        }
      }
      if (peek_raw_word() == keyword) {
        pos_ += std::char_traits<char>::length(keyword);
        return result;
      }
      if (eof())
        throw ShellSyntaxError(line_,
                               std::string("a condition is never followed by '") + keyword + "'");
      // A character no command starts with (`if )`): reading on would read
      // the same empty command for ever.
      if (pos_ == start)
        throw ShellSyntaxError(line_, std::string("unexpected '") + peek() +
                                          "' in a condition before '" + keyword + "'");
      // another command of the condition list
    }
  }

  // ---- Blocks --------------------------------------------------------------------
  int new_branch(Frame& f, const std::string& why) {
    if (f.if_index < 0) {
      f.if_index = static_cast<int>(out_.ifs.size());
      out_.ifs.push_back({f.line, why, 0, false});
    }
    IfStatement& s = out_.ifs[static_cast<size_t>(f.if_index)];
    out_.branches.push_back({f.if_index, s.branch_count++});
    return static_cast<int>(out_.branches.size()) - 1;
  }

  // Chooses how the branch just opened is read.
  void enter_branch(Frame& f, std::optional<Decision> condition) {
    if (f.parent.skip || f.taken) {
      mode_ = {true, -1};
      if (!f.parent.skip) f.all_maybe = false;
      return;
    }
    const Truth truth = condition ? condition->truth : Truth::yes;
    if (truth == Truth::no) {
      mode_ = {true, -1};
      f.all_maybe = false;
      return;
    }
    if (truth == Truth::yes && !f.maybe_taken) {
      mode_ = f.parent;
      f.taken = true;
      f.all_maybe = false;
      return;
    }
    const std::string why =
        condition && truth == Truth::unknown ? condition->why : "an earlier branch may have run";
    mode_ = {false, new_branch(f, why)};
    f.maybe_taken = true;
  }

  void open_if() {
    Frame f;
    f.kind = Frame::Kind::conditional;
    f.parent = mode_;
    f.line = line_;
    frames_.push_back(f);
    mode_ = {true, -1};  // the condition itself changes nothing
    Decision d = read_condition("then");
    enter_branch(frames_.back(),
                 frames_.back().parent.skip ? std::nullopt : std::optional<Decision>(d));
  }

  Frame& innermost(Frame::Kind kind, const char* word) {
    if (frames_.empty() || frames_.back().kind != kind)
      throw ShellSyntaxError(line_, std::string("'") + word + "' without the block it closes");
    return frames_.back();
  }

  void read_list() {
    for (;;) {
      skip_blanks();
      if (eof()) return;
      const char c = peek();
      if (c == '\n') {
        newline();
        continue;
      }
      if (c == ';' || c == '&' || c == '|') {
        // separators; `a && b` runs b as a "maybe" (what a decides is unknown)
        get();
        if (peek() == c) get();
        continue;
      }
      if (c == '#') {
        skip_comment();
        continue;
      }
      if (c == ')') {
        get();
        continue;
      }
      if (c == '(') {
        get();
        continue;
      }
      const std::string raw = peek_raw_word();
      if (raw == "if") {
        pos_ += 2;
        open_if();
        continue;
      }
      if (raw == "elif") {
        pos_ += 4;
        Frame& f = innermost(Frame::Kind::conditional, "elif");
        mode_ = {true, -1};
        Decision d = read_condition("then");
        enter_branch(f, f.parent.skip || f.taken ? std::nullopt : std::optional<Decision>(d));
        continue;
      }
      if (raw == "else") {
        pos_ += 4;
        Frame& f = innermost(Frame::Kind::conditional, "else");
        f.has_else = true;
        enter_branch(f, std::nullopt);
        continue;
      }
      if (raw == "fi") {
        pos_ += 2;
        Frame f = innermost(Frame::Kind::conditional, "fi");
        frames_.pop_back();
        if (f.if_index >= 0 && f.has_else && f.all_maybe && f.parent.branch < 0) {
          out_.ifs[static_cast<size_t>(f.if_index)].exhaustive = true;
          settle_agreeing_assignments(f);
        }
        mode_ = f.parent;
        continue;
      }
      if (raw == "for" || raw == "while" || raw == "until") {
        Frame f;
        f.kind = Frame::Kind::loop;
        f.parent = mode_;
        f.line = line_;
        pos_ += raw.size();
        mode_ = {true, -1};
        if (raw == "for") {
          Command header = read_command();
          (void)header;
          while (!eof() && peek_raw_word() != "do") {
            if (peek() == '\n') {
              newline();
            } else {
              get();
            }
          }
          pos_ += 2;
        } else {
          read_condition("do");
        }
        frames_.push_back(f);
        Frame& loop = frames_.back();
        if (loop.parent.skip) {
          mode_ = {true, -1};
        } else {
          mode_ = {false, new_branch(loop, "it is inside the loop starting on line " +
                                               std::to_string(loop.line))};
        }
        continue;
      }
      if (raw == "do") {
        pos_ += 2;
        continue;
      }
      if (raw == "done") {
        pos_ += 4;
        Frame f = innermost(Frame::Kind::loop, "done");
        frames_.pop_back();
        mode_ = f.parent;
        continue;
      }
      if (raw == "case") {
        skip_case();
        continue;
      }
      if (raw == "{") {
        get();
        Frame f;
        f.kind = Frame::Kind::group;
        f.parent = mode_;
        f.line = line_;
        if (pending_function_) {
          f.kind = Frame::Kind::function_body;
          mode_ = {true, -1};
          pending_function_ = false;
        }
        frames_.push_back(f);
        continue;
      }
      if (raw == "}") {
        get();
        if (frames_.empty() || (frames_.back().kind != Frame::Kind::group &&
                                frames_.back().kind != Frame::Kind::function_body))
          throw ShellSyntaxError(line_, "'}' without the '{' it closes");
        mode_ = frames_.back().parent;
        frames_.pop_back();
        continue;
      }
      if (raw == "function") {
        pos_ += 8;
        skip_blanks();
        peek_raw_word();
        while (!eof() && !is_meta(peek())) get();
        skip_blanks();
        if (peek() == '(') {
          get();
          if (peek() == ')') get();
        }
        pending_function_ = true;
        continue;
      }
      if (!raw.empty() && s_.compare(pos_ + raw.size(), 2, "()") == 0) {
        pos_ += raw.size() + 2;
        pending_function_ = true;
        continue;
      }
      if (raw == "!") {
        get();
        continue;
      }
      Command cmd = read_command();
      execute(cmd);
    }
  }

  // case ... esac: read as nothing (no script sets a model argument there).
  void skip_case() {
    int depth = 0;
    while (!eof()) {
      skip_blanks();
      if (peek() == '\n') {
        newline();
        continue;
      }
      if (peek() == '#') {
        skip_comment();
        continue;
      }
      const std::string raw = peek_raw_word();
      if (raw == "case") ++depth;
      if (raw == "esac" && --depth == 0) {
        pos_ += 4;
        return;
      }
      if (raw.empty()) {
        get();
      } else {
        pos_ += raw.size();
      }
    }
    throw ShellSyntaxError(line_, "'case' is never closed by 'esac'");
  }

  const std::string& s_;
  size_t pos_ = 0;
  int64_t line_ = 1;
  uint64_t next_id_ = 1;
  uint64_t last_literal_id_ = 0;
  std::string assigning_;
  std::map<std::string, Variable> vars_;
  std::vector<std::string> assignment_order_;
  std::vector<Frame> frames_;
  std::vector<std::pair<std::string, bool>> heredocs_;
  bool pending_function_ = false;
  int expansion_depth_ = 0;
  size_t expanded_bytes_ = 0;
  size_t words_ = 0;
  Mode mode_;
  ShellScript out_;
};

}  // namespace

ShellScript read_shell_script(const std::string& text) {
  return Reader(text).run();
}

}  // namespace ndsearch::plugins::megatron
