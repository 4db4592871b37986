// SPDX-License-Identifier: Apache-2.0
// only_flag.cpp: the --only parser ("tp=2,4,8 pp=1,2"). Each line of the
// input is one --only flag, as the command line repeats it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/search/search_space.hpp"
#include "fuzz/support/expected_errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> flags;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    flags.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  ndsearch::fuzz::expect_only_user_errors([&] { (void)ndsearch::SearchSpace::parse_only(flags); });
  return 0;
}
