// SPDX-License-Identifier: Apache-2.0
#include "core/model/strategy_keys.hpp"

#include <fmt/format.h>

#include <charconv>

#include "core/model/model_json.hpp"
#include "core/model/recompute_names.hpp"
#include "core/model/schedule_names.hpp"
#include "core/support/lowercase.hpp"

namespace ndsearch {
namespace {

bool is_recompute(const StrategyKey& key) {
  return key.name == "recompute";
}

// A whole number in the key's range. Digits only: no sign, no space, as
// the strategy string always read them (--only's reader took a '+' before).
std::optional<int32_t> read_number(const StrategyKey& key, std::string_view text,
                                   std::string& why) {
  int64_t number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (text.empty() || text[0] == '-' || ec == std::errc::invalid_argument ||
      end != text.data() + text.size()) {
    why = "not a whole number";
    return std::nullopt;
  }
  if (ec == std::errc::result_out_of_range || !in_range(key, number)) {
    why = fmt::format("out of range; {} takes {} to {}", key.name, key.least, key.most);
    return std::nullopt;
  }
  return static_cast<int32_t>(number);
}

}  // namespace

const StrategyKey* strategy_key(std::string_view typed) {
  const std::string name = lowercase(typed);
  for (const StrategyKey& k : kStrategyKeys)
    if (k.name == name || (!k.alias.empty() && k.alias == name)) return &k;
  return nullptr;
}

std::vector<std::string> strategy_key_names(bool upper) {
  std::vector<std::string> names;
  for (const StrategyKey& k : kStrategyKeys)
    names.push_back(upper ? uppercase(k.name) : std::string(k.name));
  return names;
}

std::string strategy_key_aliases(bool upper) {
  std::string aliases;
  for (const StrategyKey& k : kStrategyKeys)
    if (!k.alias.empty())
      aliases += fmt::format("{}{} = {}", aliases.empty() ? "" : ", ", uppercase(k.alias),
                             upper ? uppercase(k.name) : std::string(k.name));
  return aliases;
}

std::string strategy_key_list(bool upper) {
  return fmt::format("{}; {}", fmt::join(strategy_key_names(upper), " "),
                     strategy_key_aliases(upper));
}

int32_t key_value(const nds_strategy& s, const StrategyKey& key) {
  if (key.field != nullptr) return s.*key.field;
  return is_recompute(key) ? static_cast<int32_t>(s.recompute) : static_cast<int32_t>(s.schedule);
}

void set_key_value(nds_strategy& s, const StrategyKey& key, int32_t value) {
  if (key.field != nullptr)
    s.*key.field = value;
  else if (is_recompute(key))
    s.recompute = static_cast<nds_recompute_mode>(value);
  else
    s.schedule = static_cast<nds_schedule>(value);
}

std::optional<std::string> key_value_text(const StrategyKey& key, int32_t value) {
  if (value == NDS_UNKNOWN) return std::nullopt;
  if (key.field != nullptr) return std::to_string(value);
  const char* name = is_recompute(key) ? recompute_name(static_cast<nds_recompute_mode>(value))
                                       : schedule_name(static_cast<nds_schedule>(value));
  if (name == nullptr) return std::nullopt;
  return std::string(name);
}

std::optional<int32_t> read_key_value(const StrategyKey& key, std::string_view text,
                                      std::string& why) {
  if (key.field != nullptr) return read_number(key, text, why);
  if (is_recompute(key)) {
    if (const auto mode = recompute_mode_named(text)) return static_cast<int32_t>(*mode);
    why = fmt::format("not {}", kRecomputeModeNames);
    return std::nullopt;
  }
  if (const auto schedule = schedule_named(text)) return static_cast<int32_t>(*schedule);
  why = fmt::format("not {}", kScheduleNameList);
  return std::nullopt;
}

}  // namespace ndsearch
