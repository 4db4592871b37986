// SPDX-License-Identifier: Apache-2.0
// memory_size.cpp: the size parser ("58GB" = 58 GiB, DESIGN §8.5) that -M,
// --reserve-mem and the parsers' memory fields share, through the core's
// memory budget. The input is "MAX\nRESERVE"; with no newline only -M is given.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <ndsearch/sdk/units.hpp>

#include "core/price/memory/budget.hpp"
#include "fuzz/support/expected_errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)ndsearch::sdk::memory_size_bytes(text);
  const size_t newline = text.find('\n');
  const std::optional<std::string> max_memory = text.substr(0, newline);
  std::optional<std::string> reserve_mem;
  if (newline != std::string::npos) reserve_mem = text.substr(newline + 1);
  const ndsearch::Device device;
  const ndsearch::Model model;
  ndsearch::fuzz::expect_only_user_errors(
      [&] { (void)ndsearch::memory_budget(device, model, max_memory, reserve_mem); });
  return 0;
}
