// SPDX-License-Identifier: Apache-2.0
// degree_product.hpp: the product of parallel degrees or batch factors, each
// up to 2^24 (kMaxDevices, --strategy's cap): four of them overflow 64 bits,
// so the product saturates instead of wrapping (a wrapped product can be 0,
// then a divisor, or match a device count by accident).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <limits>

namespace ndsearch {

inline constexpr int64_t kSaturatedProduct = std::numeric_limits<int64_t>::max();

// The product of `factors` (each >= 0), or kSaturatedProduct when it does
// not fit an int64. A negative factor (NDS_UNKNOWN) gives -1.
inline int64_t degree_product(std::initializer_list<int64_t> factors) {
  for (int64_t f : factors)
    if (f <= 0) return f < 0 ? -1 : 0;
  int64_t product = 1;
  for (int64_t f : factors)
    if (__builtin_mul_overflow(product, f, &product)) return kSaturatedProduct;
  return product;
}

}  // namespace ndsearch
