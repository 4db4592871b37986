// SPDX-License-Identifier: Apache-2.0
// search_report_data.hpp: what a SearchReport keeps of its search to write
// its text and stream its JSON after the call: the plugins (shared with the
// Planner), the model, machine, request and options it ran with, and the
// listed result (the top rows and the closest misses kept).
#pragma once

#include <ndsearch/core/planner.hpp>
#include <ndsearch/core/results.hpp>

#include <memory>

#include "core/input/machine.hpp"
#include "core/model/model.hpp"
#include "core/planner/loaded.hpp"
#include "core/search/search.hpp"
#include "core/search/search_request.hpp"

namespace ndsearch {

struct SearchReport::Data {
  std::shared_ptr<const Planner::Loaded> loaded;
  Model model;
  Machine machine;
  SearchRequest request;
  SearchOptions options;
  SearchResult result;
  SearchTableSettings table;
};

}  // namespace ndsearch
