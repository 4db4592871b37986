// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/unknown_verb.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <string_view>
#include <vector>

#include <ndsearch/sdk/closest_name.hpp>

namespace ndsearch::cli {
namespace {

// Whether `token` (a global option without "=value") takes the next word as its value.
bool takes_value(const CLI::App& app, const std::string& token) {
  if (token.find('=') != std::string::npos) return false;
  const CLI::Option* option = app.get_option_no_throw(token);
  return option != nullptr && option->get_type_size() != 0;
}

}  // namespace

std::optional<std::string> unknown_verb_message(const CLI::App& app, int argc,
                                                const char* const* argv) {
  std::vector<std::string> verbs;
  for (const CLI::App* verb : app.get_subcommands([](const CLI::App*) { return true; }))
    verbs.push_back(verb->get_name());
  for (int i = 1; i < argc; ++i) {
    const std::string token = argv[i];
    if (token == "--") return std::nullopt;
    if (token.size() > 1 && token[0] == '-') {
      if (takes_value(app, token)) ++i;
      continue;
    }
    if (std::find(verbs.begin(), verbs.end(), token) != verbs.end()) return std::nullopt;
    const std::string all = fmt::format("{}", fmt::join(verbs, ", "));
    if (const auto best = sdk::closest_name(token, verbs))
      return fmt::format("unknown command '{}'; did you mean '{}'? (the commands: {})", token,
                         *best, all);
    return fmt::format("unknown command '{}'; the commands are {}", token, all);
  }
  return std::nullopt;
}

namespace {

// "--top" and "-t" for each flag of `app` (not its positional arguments).
void add_flag_names(const CLI::App& app, std::vector<std::string>& names) {
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& l : option->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : option->get_snames()) names.push_back("-" + s);
  }
}

bool looks_like_flag(const std::string& token) {
  return token.size() > 1 && token[0] == '-' && token != "--" &&
         (std::isalpha(static_cast<unsigned char>(token[1])) != 0 || token[1] == '-');
}

}  // namespace

std::optional<std::string> unknown_flag_message(const CLI::App& app, int argc,
                                                const char* const* argv) {
  // The verb and its sub-verb (`plugins list`), as the words name them.
  std::vector<std::string> known;
  add_flag_names(app, known);
  std::string where = "`ndsearch";
  const CLI::App* level = &app;
  for (int i = 1; i < argc; ++i)
    for (const CLI::App* v : level->get_subcommands([](const CLI::App*) { return true; }))
      if (v->get_name() == argv[i]) {
        level = v;
        add_flag_names(*v, known);
        where += " " + v->get_name();
        break;
      }
  where += "`";
  for (int i = 1; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;
    if (!looks_like_flag(word)) continue;
    const std::string flag = word.substr(0, word.find('='));
    if (std::find(known.begin(), known.end(), flag) != known.end()) continue;
    // A short flag's value may follow it in the same word (-d64).
    if (flag.size() > 2 && flag[1] != '-' &&
        std::find(known.begin(), known.end(), flag.substr(0, 2)) != known.end())
      continue;
    std::vector<std::string> long_names;
    std::copy_if(known.begin(), known.end(), std::back_inserter(long_names),
                 [](const std::string& n) { return n.size() > 2; });
    const std::optional<std::string> best = sdk::closest_name(flag, long_names);
    return fmt::format("unknown flag '{}' for {}{}; `{} --help` lists its flags", flag, where,
                       best ? fmt::format(" (did you mean '{}'?)", *best) : std::string(),
                       where.substr(1, where.size() - 2));
  }
  return std::nullopt;
}

}  // namespace ndsearch::cli
