// SPDX-License-Identifier: Apache-2.0
// closest_name.hpp: "did you mean ...?" for a name typed wrong; the rule is
// the SDK's (sdk/closest_name.hpp), so that parsers say the same.
#pragma once

#include <ndsearch/sdk/closest_name.hpp>

namespace ndsearch {

using sdk::closest_name;
using sdk::did_you_mean;
using sdk::edit_distance;

}  // namespace ndsearch
