// SPDX-License-Identifier: Apache-2.0
// yaml_check.hpp: what yaml-cpp accepts but a config must not hold, found in
// one streaming pass over the parser's events before any node tree is built
// or walked: nesting deeper than kMaxYamlDepth, a key written twice in one
// mapping (yaml-cpp keeps both, and lookups see the first), and aliases that
// expand past kMaxYamlAliasNodes (each `*a` is a copy for every walk of the
// tree, so ten nested doublings are a thousand-fold file).
#pragma once

#include <cstdint>
#include <string>

namespace ndsearch::plugins::yaml {

// Training YAMLs nest 5 deep; yaml-cpp itself stops at 2000, and every
// recursive walk of ours stays far from the stack's end at 256.
inline constexpr int kMaxYamlDepth = 256;
// Nodes that aliases add when expanded; a config's aliases add a few hundred.
inline constexpr uint64_t kMaxYamlAliasNodes = 1'000'000;

// Throws sdk::LimitError (depth, aliases) or sdk::DuplicateKeyError, naming
// `file` and the lines; a YAML syntax error is left for YAML::Load to report
// (it is not caught here: yaml-cpp's exception passes through).
void check_yaml(const std::string& text, const std::string& file);

}  // namespace ndsearch::plugins::yaml
