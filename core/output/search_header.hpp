// SPDX-License-Identifier: Apache-2.0
// search_header.hpp: what a search's table stands on, said above it: the
// model, the machine, the batch, the sequence, the precision, the budget and
// where it came from, the time model's assumptions, the calibration, the
// dimensions searched and their bounds.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/input/machine.hpp"
#include "core/model/model.hpp"
#include "core/search/search.hpp"
#include "core/search/search_request.hpp"

namespace ndsearch {

// The lines, unwrapped: the model and machine first, then the budget, the
// assumptions, the calibration, the dimensions searched and the bounds.
std::vector<std::string> search_header_lines(const Model& model, const Machine& machine,
                                             const SearchRequest& request,
                                             const SearchOptions& options,
                                             const SearchResult& result);

}  // namespace ndsearch
