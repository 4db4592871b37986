// SPDX-License-Identifier: Apache-2.0
// text_settings.hpp: core text as the host spells it (results.hpp,
// TextSettings): the settings it names in the host's words.
#pragma once

#include <ndsearch/core/results.hpp>

#include <functional>
#include <string>
#include <string_view>

namespace ndsearch {

using SettingSpelling = std::function<std::string(std::string_view)>;

inline std::string spelled(const SettingSpelling& spell, std::string_view core_text) {
  return spell ? spell(core_text) : std::string(core_text);
}

inline std::string spelled(const TextSettings& text, std::string_view core_text) {
  return spelled(text.spell_settings, core_text);
}

}  // namespace ndsearch
