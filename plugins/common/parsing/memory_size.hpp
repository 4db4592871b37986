// SPDX-License-Identifier: Apache-2.0
// memory_size.hpp: a framework's memory string ("58GB") in bytes; the rule
// lives in the SDK (ndsearch/sdk/units.hpp), shared with the core's -M.
#pragma once

#include <ndsearch/sdk/units.hpp>

namespace ndsearch::plugins {

using sdk::memory_size_bytes;

}  // namespace ndsearch::plugins
