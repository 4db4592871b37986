// SPDX-License-Identifier: Apache-2.0
// schema_version.hpp: the schema_version every JSON document carries
// (docs/cli.md); one number for all of them, raised when any changes shape.
#pragma once

namespace ndsearch {

inline constexpr int kSchemaVersion = 1;

}  // namespace ndsearch
