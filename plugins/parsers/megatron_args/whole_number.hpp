// SPDX-License-Identifier: Apache-2.0
// whole_number.hpp: the Megatron parser's one reader of an integer, as
// Python's int() reads a decimal (argparse's type=int, a layer pattern's
// list expression, bash arithmetic's operands): an optional sign, then
// digits, nothing else. A value outside int64 is not read.
#pragma once

#include <charconv>
#include <cstdint>
#include <string_view>

namespace ndsearch::plugins::megatron {

inline bool whole_number(std::string_view text, int64_t& value) {
  // from_chars reads a '-' but not a '+'; int("+8") is 8.
  const bool plus = !text.empty() && text[0] == '+';
  const std::string_view digits = plus ? text.substr(1) : text;
  if (digits.empty() || (plus && digits[0] == '-')) return false;
  int64_t v = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (error != std::errc() || end != digits.data() + digits.size()) return false;
  value = v;
  return true;
}

}  // namespace ndsearch::plugins::megatron
