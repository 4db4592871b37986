// SPDX-License-Identifier: Apache-2.0
// search_progress.hpp: how far a running search is, for a host to show while
// it waits (a progress line); the search writes it after each unit of work
// (a (tp, pp, cp) triple), never per candidate.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace ndsearch {

struct SearchProgress {
  std::atomic<uint64_t> tested{0};     // candidates enumerated so far
  std::atomic<size_t> units_done{0};   // triples priced
  std::atomic<size_t> units_total{0};  // triples in the space (0 until the search starts pricing)
};

}  // namespace ndsearch
