// SPDX-License-Identifier: Apache-2.0
// settings.hpp: the names of the settings a host gives the core: the fields
// of planner.hpp's settings structs, which are the Python keywords, and the
// plugin options shipped plugins read. Core text (errors, refusals,
// warnings, provenance, assumptions) names a setting by its words and its
// key in backticks, "set the device count (`devices`)", or with the value it
// was given, "the device count (`devices=0`)". Words and key together, not
// the key alone: a config's field is also written in backticks
// ("config.json:3: `vocab_size` = 2.5") and is no setting. A host that
// spells settings otherwise (the CLI's flags) rewrites each "words (`key`)"
// in the text it shows; JSON documents keep them as written.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ndsearch {

struct SettingName {
  std::string_view key;    // the field and keyword: "global_batch"
  std::string_view words;  // what it is, in a message: "the global batch"
};

// Every setting core text may name, one entry per key.
inline constexpr SettingName kSettingNames[] = {
    // ModelSettings
    {"config", "the config"},
    {"framework", "the parser"},
    {"strict", "strict parsing"},
    {"any_trainer", "ranking for any trainer"},
    {"seq_len", "the sequence length"},
    {"global_batch", "the global batch"},
    {"micro_batch_size", "the micro-batch size"},
    {"vocab_size", "the vocabulary size"},
    {"image_tokens", "the image tokens per sequence"},
    {"images_per_sample", "the images per sequence"},
    {"dtype", "the dtype"},
    {"fp8_recipe", "the fp8 recipe"},
    {"overlap", "the overlap switches"},
    {"recompute_modules", "the recompute module list"},
    {"routing", "the routing"},
    {"model_config", "the model config"},
    // EvaluateSettings, SearchSettings, ExplainSettings
    {"device", "the device"},
    {"devices", "the device count"},
    {"strategy", "the strategy"},
    {"recompute_mode", "the strategy's recompute mode"},
    {"max_memory", "the device memory"},
    {"reserve_mem", "the memory kept free"},
    {"layers_from_config", "the config's layer split"},
    {"balance_layers", "the layer balancing"},
    {"timeline", "a timeline file"},
    {"cp_algo", "the CP attention algorithm"},
    {"recompute_strategy", "the recompute strategy"},
    {"auto_recompute", "the per-layer recompute"},
    {"offload", "activation offload"},
    {"host_link", "the host link bandwidth"},
    {"host_link_overlap", "the host link overlap"},
    {"host_memory", "the host memory per device"},
    {"top", "the rows listed"},
    {"all_misses", "every closest miss"},
    {"beaten_by", "the strategies listed as faster"},
    {"calibration", "the calibration file"},
    {"force_calibration", "the override of the calibration's device"},
    {"fit", "the calibration file to fit"},
    {"output_dir", "the output folder"},
    {"ranking_csv", "the ranking's CSV file"},
    {"report", "the HTML report"},
    {"ppb_rank", "the rank described for the pipeline balancer"},
    {"emit_config", "the config to write"},
    {"emit_rank", "the rank written into the config"},
    {"output", "the output file"},
    {"columns", "the table's columns"},
    {"wide", "the wide table"},
    // SpaceSettings
    {"dimensions", "the searched dimensions"},
    {"only", "the restrictions of the search"},
    {"recompute_modes", "the recompute modes searched"},
    {"schedules", "the pipeline schedules searched"},
    {"threads", "the pricing threads"},
    // PluginSettings
    {"plugin_files", "the plugin files"},
    {"plugin_dirs", "the plugin directory"},
    {"use_environment", "the plugin search path of the environment"},
    {"device_file", "the device file"},
    {"allow_override", "the override"},
    {"plugin_timeout_s", "the plugin time limit"},
    {"options", "the plugin options"},
    // Keys of PluginSettings::options the shipped plugins read
    {"swap-optimizer", "optimizer swapping"},
    {"cp-ulysses", "the Ulysses degree"},
};

inline constexpr size_t kSettingCount = sizeof(kSettingNames) / sizeof(kSettingNames[0]);

// The index of `key` in kSettingNames, or kSettingCount. An index, not a
// pointer: GCC 12 with -fsanitize cannot compare a pointer into the table
// with nullptr in a constant expression.
constexpr size_t setting_index(std::string_view key) {
  for (size_t i = 0; i < kSettingCount; ++i)
    if (kSettingNames[i].key == key) return i;
  return kSettingCount;
}

// The entry of `key`, or nullptr.
constexpr const SettingName* find_setting(std::string_view key) {
  const size_t i = setting_index(key);
  return i == kSettingCount ? nullptr : &kSettingNames[i];
}

// A setting a message names, checked against kSettingNames when it is
// compiled: Setting("global_btach") does not compile.
class Setting {
 public:
  consteval explicit Setting(const char* key) : index_(setting_index(key)) {
    if (index_ == kSettingCount)
      throw "not a key of kSettingNames";  // a compile error in a consteval call
  }
  constexpr std::string_view key() const { return kSettingNames[index_].key; }
  constexpr std::string_view words() const { return kSettingNames[index_].words; }

  // "the global batch (`global_batch`)", "the global batch (`global_batch=0`)"
  std::string named() const { return text({}, false); }
  std::string named(std::string_view value) const { return text(value, true); }

 private:
  // Appended piece by piece: GCC 12 warns (-Wrestrict) on chains of operator+.
  std::string text(std::string_view value, bool with_value) const {
    std::string out;
    out.append(words()).append(" (`").append(key());
    if (with_value) out.append("=").append(value);
    out.append("`)");
    return out;
  }

  size_t index_;
};

}  // namespace ndsearch
