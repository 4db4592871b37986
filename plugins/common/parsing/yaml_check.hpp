// SPDX-License-Identifier: Apache-2.0
// yaml_check.hpp: what yaml-cpp accepts but a config must not hold, found in
// one streaming pass over the parser's events before any node tree is built
// or walked: more than kMaxYamlNodes values, nesting deeper than
// kMaxYamlDepth, a key written twice in one
// mapping (yaml-cpp keeps both, and lookups see the first), and aliases that
// expand past kMaxYamlAliasNodes (each `*a` is a copy for every walk of the
// tree, so ten nested doublings are a thousand-fold file).
#pragma once

#include <cstdint>
#include <string>

namespace ndsearch::plugins::yaml {

// The size limit on a YAML unless NDS_CONFIG_MAX_BYTES says otherwise:
// training YAMLs are a few KiB, and yaml-cpp scans some text (a long plain
// scalar) at under 2 MB/s, so 16 MiB would take a YAML probe ten seconds.
inline constexpr int64_t kDefaultYamlMaxBytes = int64_t{1} << 20;

// Training YAMLs nest 5 deep; yaml-cpp itself stops at 2000, and every
// recursive walk of ours stays far from the stack's end at 256.
inline constexpr int kMaxYamlDepth = 256;
// Nodes that aliases add when expanded; a config's aliases add a few hundred.
inline constexpr uint64_t kMaxYamlAliasNodes = 1'000'000;
// Values in the file: a training YAML holds a few hundred. yaml-cpp takes
// ~500 bytes and microseconds a node, and each YAML parser's probe loads the
// file: 1.5 million nodes cost 50 s and 800 MB before this limit.
inline constexpr uint64_t kMaxYamlNodes = 100'000;

// Throws sdk::LimitError (depth, aliases) or sdk::DuplicateKeyError, naming
// `file` and the lines; a YAML syntax error is left for YAML::Load to report
// (it is not caught here: yaml-cpp's exception passes through).
void check_yaml(const std::string& text, const std::string& file);

}  // namespace ndsearch::plugins::yaml
