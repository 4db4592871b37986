// SPDX-License-Identifier: Apache-2.0
// json_text.hpp: JSON as every verb prints it. Strings from a config (a
// name, a path, a warning quoting a field) may hold bytes that are not UTF-8;
// nlohmann's dump throws on them by default, so each is written as U+FFFD
// instead: the output stays valid JSON and the verb its exit code.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace ndsearch {

// `indent` < 0: one line, as nlohmann's dump().
inline std::string json_text(const nlohmann::json& j, int indent = -1) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace ndsearch
