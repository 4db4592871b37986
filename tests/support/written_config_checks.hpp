// SPDX-License-Identifier: Apache-2.0
// written_config_checks.hpp: what every apply test checks of a written
// config: the strategy `apply` would write for a --strategy text, and that
// each line the diff removes or adds names one of the keys that changed.
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "core/export/write_config.hpp"

namespace ndsearch::test {

inline void check_only_keys_changed(const ConfigWrite& w, const std::vector<std::string>& keys) {
  REQUIRE_FALSE(w.changes.empty());
  for (const DiffLine& d : w.changes) {
    bool named = false;
    for (const std::string& k : keys) named = named || d.text.find(k) != std::string::npos;
    INFO(d.kind << " " << d.line << ": " << d.text);
    CHECK(named);
  }
}

}  // namespace ndsearch::test
