// SPDX-License-Identifier: Apache-2.0
// sanitized.hpp: whether this test program (and so the CLI it runs, built
// alike) carries AddressSanitizer, under g++ or clang: its shadow memory
// reserves terabytes of address space, so no `ulimit -v` can bound it, and
// its -O0 code is several times slower than Release.
#pragma once

namespace ndsearch::test {

#if defined(__SANITIZE_ADDRESS__)  // g++
inline constexpr bool kAddressSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)  // clang
inline constexpr bool kAddressSanitized = true;
#else
inline constexpr bool kAddressSanitized = false;
#endif
#else
inline constexpr bool kAddressSanitized = false;
#endif

}  // namespace ndsearch::test
