// SPDX-License-Identifier: Apache-2.0
// overlap_fields.hpp: builder keys that state every overlap switch on or
// off, for tests that price a model with communication fully hidden where it
// can be, or fully exposed (a config that states none is priced as a
// well-tuned Megatron-Core run instead).
#pragma once

#include <utility>
#include <vector>

#include "core/model/builder.hpp"

namespace ndsearch::test {

using Fields = std::vector<std::pair<const char*, ModelBuilder::Value>>;

inline Fields overlap_fields(int64_t on) {
  return {{"overlap.tp_comm", on},    {"overlap.grad_reduce", on}, {"overlap.param_gather", on},
          {"overlap.moe_a2a", on},    {"overlap.p2p", on},         {"overlap.cp", on},
          {"overlap.moe_shared", on}, {"overlap.tp_async", on}};
}

}  // namespace ndsearch::test
