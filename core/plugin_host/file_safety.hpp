// SPDX-License-Identifier: Apache-2.0
// file_safety.hpp: whether a plugin library or the folder holding it could have
// been changed by someone other than root or the user running ndsearch. Such a
// library runs with the user's rights once loaded, so it is refused.
#pragma once

#include <filesystem>
#include <string>

namespace ndsearch {

// Why `path` (a plugin file or folder) is unsafe to load from: writable by its
// group or by others, or owned by neither root nor the current user. Empty
// when it is safe or cannot be read (loading then reports the real problem).
std::string unsafe_reason(const std::filesystem::path& path);

}  // namespace ndsearch
