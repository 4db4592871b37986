// SPDX-License-Identifier: Apache-2.0
// byte_counts.hpp: bytes as the outputs print them: whole numbers (the
// passes sum fractions of bytes), saturated at the int64 range, so that a sum
// too large to print never wraps to a negative count (llround of a double
// beyond 2^63 is undefined).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace ndsearch {

inline int64_t whole_bytes(double bytes) {
  constexpr double kMost = 9.2233720368547748e18;  // the largest double below 2^63
  if (std::isnan(bytes)) return 0;                 // refused before printing; never "fits"
  if (bytes >= kMost) return std::numeric_limits<int64_t>::max();
  if (bytes <= -kMost) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(std::llround(bytes));
}

// a + b without wrapping (both whole byte counts).
inline int64_t add_bytes(int64_t a, int64_t b) {
  int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum))
    return b > 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
  return sum;
}

}  // namespace ndsearch
