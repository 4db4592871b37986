// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/setting_flags.hpp"

#include <ndsearch/core/settings.hpp>

#include <algorithm>
#include <array>

namespace ndsearch::cli {
namespace {

// Each as the verbs define it (add_model_flags, add_plugin_flags,
// add_space_flags and the verbs' own options).
constexpr std::array kFlags{
    SettingFlag{"config", "CONFIG", ""},
    SettingFlag{"framework", "-f", ""},
    SettingFlag{"strict", "--strict", ""},
    SettingFlag{"any_trainer", "--any-trainer", ""},
    SettingFlag{"seq_len", "--seq-len", ""},
    SettingFlag{"global_batch", "-b", "B"},
    SettingFlag{"micro_batch_size", "--mbs", ""},
    SettingFlag{"vocab_size", "--vocab-size", ""},
    SettingFlag{"image_tokens", "--image-tokens", "N"},
    SettingFlag{"images_per_sample", "--images-per-sample", "N"},
    SettingFlag{"dtype", "--dtype", ""},
    SettingFlag{"fp8_recipe", "--fp8-recipe", ""},
    SettingFlag{"overlap", "--overlap", ""},
    SettingFlag{"recompute_modules", "--recompute-modules", "LIST"},
    SettingFlag{"routing", "--routing", "R"},
    SettingFlag{"model_config", "--model-config", "FILE"},
    SettingFlag{"device", "-A", ""},
    SettingFlag{"devices", "-d", "N"},
    SettingFlag{"strategy", "--strategy", ""},
    SettingFlag{"recompute_mode", "--recompute", "MODE"},
    SettingFlag{"max_memory", "-M", ""},
    SettingFlag{"reserve_mem", "--reserve-mem", ""},
    SettingFlag{"layers_from_config", "--layers-from-config", ""},
    SettingFlag{"balance_layers", "--balance-layers", ""},
    SettingFlag{"timeline", "--timeline", ""},
    SettingFlag{"cp_algo", "--cp-algo", ""},
    SettingFlag{"recompute_strategy", "--recompute-strategy", "NAME"},
    SettingFlag{"auto_recompute", "--auto-recompute", ""},
    SettingFlag{"offload", "--offload", ""},
    SettingFlag{"host_link", "--host-link-gibps", "GIBPS"},
    SettingFlag{"host_link_overlap", "--host-link-overlap", "SHARE"},
    SettingFlag{"host_memory", "--host-memory", "SIZE"},
    SettingFlag{"top", "-t", ""},
    SettingFlag{"all_misses", "-v 3", ""},
    SettingFlag{"calibration", "--calibration", "FILE"},
    SettingFlag{"force_calibration", "--force", ""},
    SettingFlag{"fit", "--fit", "FILE"},
    SettingFlag{"output_dir", "-o", "DIR"},
    SettingFlag{"ranking_csv", "--ranking-csv", "FILE"},
    SettingFlag{"report", "--report", ""},
    SettingFlag{"ppb_rank", "--ppb-rank", "K"},
    SettingFlag{"emit_config", "--emit-config", "FILE"},
    SettingFlag{"emit_rank", "--rank", "K"},
    SettingFlag{"output", "-o", "FILE"},
    SettingFlag{"columns", "--columns", ""},
    SettingFlag{"wide", "--wide", ""},
    SettingFlag{"dimensions", "-l", ""},
    SettingFlag{"only", "--only", ""},
    SettingFlag{"recompute_modes", "--recompute", "MODES"},
    SettingFlag{"schedules", "--schedule", "NAMES"},
    SettingFlag{"threads", "-j", ""},
    SettingFlag{"plugin_files", "--plugin", ""},
    SettingFlag{"plugin_dirs", "--plugin-path", ""},
    SettingFlag{"device_file", "--device-file", ""},
    SettingFlag{"allow_override", "--allow-override", ""},
    SettingFlag{"plugin_timeout_s", "--plugin-timeout", ""},
    SettingFlag{"swap-optimizer", "--swap-optimizer", ""},
    SettingFlag{"cp-ulysses", "--cp-ulysses", "N"},
};

// explain ranks with the core's default beaten_by; the CLI always reads the
// environment's plugin path; plugin options are flags of their own.
constexpr std::array<std::string_view, 3> kWithoutFlag{"beaten_by", "use_environment", "options"};

// Every row names a setting of the core's list: a misspelt key would never
// match the core's text.
constexpr bool all_known() {
  for (const SettingFlag& f : kFlags)
    if (setting_index(f.key) == kSettingCount) return false;
  for (std::string_view key : kWithoutFlag)
    if (setting_index(key) == kSettingCount) return false;
  return true;
}
static_assert(all_known(), "a row of kFlags or kWithoutFlag is not a key of kSettingNames");

const SettingFlag* flag_of(std::string_view key) {
  const auto it = std::find_if(kFlags.begin(), kFlags.end(),
                               [key](const SettingFlag& f) { return f.key == key; });
  return it == kFlags.end() ? nullptr : &*it;
}

}  // namespace

std::span<const SettingFlag> setting_flags() {
  return kFlags;
}

std::span<const std::string_view> settings_without_flag() {
  return kWithoutFlag;
}

std::string with_flags(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t at = 0;  // copied up to here
  for (size_t open = text.find("(`"); open != std::string_view::npos;
       open = text.find("(`", open + 1)) {
    const size_t close = text.find("`)", open + 2);
    if (close == std::string_view::npos) break;
    const std::string_view quoted = text.substr(open + 2, close - open - 2);
    const size_t equals = quoted.find('=');
    const std::string_view key = quoted.substr(0, equals);
    const SettingFlag* flag = flag_of(key);
    // A setting only where its words come first: "`vocab_size`" alone may be a config's field.
    if (flag == nullptr ||
        !text.substr(0, open).ends_with(std::string(find_setting(key)->words) + " "))
      continue;
    out.append(text.substr(at, open - at)).append("(").append(flag->flag);
    if (equals != std::string_view::npos)
      out.append(" ").append(quoted.substr(equals + 1));
    else if (!flag->placeholder.empty())
      out.append(" ").append(flag->placeholder);
    out.append(")");
    at = close + 2;
    open = close + 1;  // the loop's +1 looks on after the closing "`)"
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace ndsearch::cli
