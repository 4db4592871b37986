// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/unknown_verb.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <vector>

namespace ndsearch::cli {
namespace {

// Levenshtein distance: one edit is one letter inserted, deleted or changed.
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

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
    // The closest verb, if it is close enough to be a typo (a third of its letters, at least 2).
    std::string best;
    size_t best_distance = 0;
    for (const std::string& verb : verbs) {
      const size_t d = edit_distance(token, verb);
      if (best.empty() || d < best_distance) best = verb, best_distance = d;
    }
    const std::string all = fmt::format("{}", fmt::join(verbs, ", "));
    if (!best.empty() && best_distance <= std::max<size_t>(2, best.size() / 3))
      return fmt::format("unknown command '{}'; did you mean '{}'? (the commands: {})", token, best,
                         all);
    return fmt::format("unknown command '{}'; the commands are {}", token, all);
  }
  return std::nullopt;
}

}  // namespace ndsearch::cli
