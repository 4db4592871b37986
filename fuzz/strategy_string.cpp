// SPDX-License-Identifier: Apache-2.0
// strategy_string.cpp: the --strategy parser ("dp=8,tp=4,recompute=full",
// DESIGN §8.1) and the text it prints back for what it accepted.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/strategy/strategy.hpp"
#include "fuzz/support/expected_errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ndsearch::fuzz::expect_only_user_errors([&] {
    const nds_strategy parsed = ndsearch::parse_strategy(text);
    (void)ndsearch::strategy_text(parsed);
  });
  return 0;
}
