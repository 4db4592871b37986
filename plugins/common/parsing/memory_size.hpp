// SPDX-License-Identifier: Apache-2.0
// memory_size.hpp: a framework's memory string ("58GB", "512MB", "64GiB") in
// bytes, read the way the frameworks and ndsearch read them (DESIGN §8.5):
// GB and GiB are 2^30 bytes, MB and MiB 2^20, KB and KiB 2^10, TB and TiB 2^40.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ndsearch::plugins {

// nullopt when `text` is not a number followed by one of those units (spaces
// and case are ignored: "58 gb" is 58 GiB).
std::optional<int64_t> memory_size_bytes(std::string_view text);

}  // namespace ndsearch::plugins
