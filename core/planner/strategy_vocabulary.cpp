// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>
#include <ndsearch/core/strategy_vocabulary.hpp>

#include <iterator>
#include <vector>

#include "core/model/strategy_keys.hpp"

namespace ndsearch {

std::string strategy_key_words() {
  return fmt::format("{}", fmt::join(strategy_key_names(), " "));
}

std::string default_dimension_words() {
  const std::vector<std::string> upper = strategy_key_names(true);
  std::vector<std::string> searched;
  std::vector<std::string> others;
  for (size_t i = 0; i < std::size(kStrategyKeys); ++i)
    (kStrategyKeys[i].searched_by_default ? searched : others).push_back(upper[i]);
  return fmt::format("{}; {}; also {}", fmt::join(searched, " "), strategy_key_aliases(true),
                     fmt::join(others, ", "));
}

}  // namespace ndsearch
