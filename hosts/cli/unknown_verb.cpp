// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/unknown_verb.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "core/support/closest_name.hpp"

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
    if (const auto best = closest_name(token, verbs))
      return fmt::format("unknown command '{}'; did you mean '{}'? (the commands: {})", token,
                         *best, all);
    return fmt::format("unknown command '{}'; the commands are {}", token, all);
  }
  return std::nullopt;
}

}  // namespace ndsearch::cli
