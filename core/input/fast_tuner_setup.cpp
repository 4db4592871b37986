// SPDX-License-Identifier: Apache-2.0
#include "core/input/fast_tuner_setup.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>
#include <ndsearch/sdk/config_file.hpp>  // sdk::shown: a value echoed short
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <set>
#include <string_view>
#include <system_error>

#include "core/model/model_limits.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The keys that name the training config, and what each names.
constexpr std::array<std::pair<std::string_view, std::string_view>, 3> kConfigKeys{{
    {"yaml_path", "a MindFormers or HyperParallel YAML"},
    {"shell_path", "a MindSpeed or Megatron launch script"},
    {"toml_path", "a TorchTitan TOML"},
}};

// The keys read beside the config's.
constexpr std::array<std::string_view, 6> kValueKeys{"rank_num", "npus_per_node",       "nnodes",
                                                     "gbs",      "max_expert_parallel", "strategy"};

// The fast-tuner's own keys, which mean nothing to a search: its tools'
// paths, the dataset, where it writes, its environment file.
constexpr std::array<std::string_view, 6> kIgnoredKeys{
    "mindformers_dir", "mindspeed_path", "torchtitan_path", "dataset", "output_path", "env_json"};

// The "strategy" object's flags and the dimensions each searches, as -l
// spells them. SP goes with TP (it needs tp > 1), ETP with EP, VPP with PP.
// FSDP shards over the data-parallel group (ZERO); with DP too it runs
// replicas of shards (HSDP), so the sharding group's size (OP) is searched.
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kStrategyFlags{{
    {"DP", "DP"},
    {"TP", "TP SP"},
    {"EP", "EP ETP"},
    {"FSDP", "ZERO"},
    {"PP", "PP VPP"},
    {"CP", "CP"},
}};

// A JSON value as a message shows it.
std::string shown_value(const json& v) {
  return sdk::shown(v.dump());
}

[[noreturn]] void bad_value(const fs::path& file, std::string_view key, const json& v,
                            const std::string& expected) {
  throw UserError("E-SETUP-VALUE", fmt::format("{}: `{}` = {}: expected {}; fix it", file.string(),
                                               key, shown_value(v), expected));
}

// A whole number from 1 to `most`.
int64_t whole_number(const fs::path& file, std::string_view key, const json& v, int64_t most,
                     const char* what) {
  // A JSON number that is whole (64, 64.0), not a string or a fraction.
  const bool whole = v.is_number() && std::floor(v.get<double>()) == v.get<double>();
  if (!whole || v.get<double>() < 1 || v.get<double>() > static_cast<double>(most))
    bad_value(file, key, v, fmt::format("a whole number of {} from 1 to {}", what, most));
  return v.get<int64_t>();
}

// Each key of every object written twice, found while parsing (the DOM keeps
// only the last).
struct DuplicateKeys {
  std::vector<std::set<std::string>> open;  // the keys of each object being read
  std::string first;                        // the first key seen twice

  bool operator()(int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) open.emplace_back();
    if (event == json::parse_event_t::object_end && !open.empty()) open.pop_back();
    if (event == json::parse_event_t::key && !open.empty() &&
        !open.back().insert(parsed.get<std::string>()).second && first.empty())
      first = parsed.get<std::string>();
    return true;
  }
};

// A key ndsearch does not know: a warning, an error with strict parsing.
void unknown_key(const fs::path& file, const std::string& key, bool strict,
                 std::vector<std::string>& warnings) {
  if (strict)
    throw UserError("E-PARSE-UNKNOWN-FIELD",
                    fmt::format("{}: field `{}` not understood in a fast-tuner setup, an error "
                                "with {}; remove it, or turn strict parsing off to list it as a "
                                "warning",
                                file.string(), key, Setting("strict").named()));
  warnings.push_back(fmt::format("{}: field `{}` not understood in a fast-tuner setup; ignored",
                                 file.string(), key));
}

// `given` as it stands, or (relative) under the JSON's folder, a folder above
// it, or the current folder: the first that exists.
fs::path find_config(const fs::path& file, std::string_view key, const std::string& given) {
  const fs::path path(given);
  std::vector<fs::path> tried;
  const auto found = [&tried](const fs::path& candidate) {
    const fs::path normal = candidate.lexically_normal();
    if (std::find(tried.begin(), tried.end(), normal) != tried.end()) return false;
    tried.push_back(normal);
    std::error_code error;
    return fs::exists(normal, error);
  };
  std::error_code error;
  if (path.is_absolute()) {
    if (found(path)) return tried.back();
  } else {
    for (fs::path dir = fs::absolute(file, error).parent_path(); !dir.empty();
         dir = dir.parent_path()) {
      if (found(dir / path)) return tried.back();
      if (dir == dir.root_path()) break;
    }
    if (const fs::path here = fs::current_path(error); !error && found(here / path))
      return tried.back();
  }
  std::string places;
  for (const fs::path& t : tried) places += (places.empty() ? "" : ", ") + t.string();
  throw UserError(
      "E-SETUP-PATH",
      fmt::format("{}: `{}` = \"{}\": no such file{} (tried {}); give the training config's "
                  "path, absolute or relative to the JSON's folder",
                  file.string(), key, sdk::shown(given),
                  path.is_absolute() ? ""
                                     : " in the JSON's folder, a folder above it or the current "
                                       "folder",
                  places));
}

// The "strategy" object: the flags that are true.
std::vector<std::string> strategy_flags(const fs::path& file, const json& strategy, bool strict,
                                        std::vector<std::string>& warnings) {
  if (!strategy.is_object())
    bad_value(file, "strategy", strategy,
              "an object of true/false flags for DP, TP, EP, FSDP, PP and CP");
  std::vector<std::string> on;
  for (const auto& item : strategy.items()) {
    // Named copies: clang 14 cannot capture a structured binding in a lambda.
    const std::string key = item.key();
    const json& value = item.value();
    const bool known = std::any_of(kStrategyFlags.begin(), kStrategyFlags.end(),
                                   [&](const auto& f) { return f.first == key; });
    if (!known) {
      unknown_key(file, "strategy." + key, strict, warnings);
      continue;
    }
    if (!value.is_boolean()) bad_value(file, "strategy." + key, value, "true or false");
    if (value.get<bool>()) on.push_back(key);
  }
  return on;
}

// rank_num, else npus_per_node × nnodes (nnodes 1 when left out); both given
// must agree.
void read_devices(const fs::path& file, const json& j, SetupStated& s) {
  std::optional<int64_t> ranks, per_node, nodes;
  const int64_t most = kMaxDevices.most;
  if (j.contains("rank_num"))
    ranks = whole_number(file, "rank_num", j["rank_num"], most, "devices");
  if (j.contains("npus_per_node"))
    per_node = whole_number(file, "npus_per_node", j["npus_per_node"], most, "devices");
  if (j.contains("nnodes")) nodes = whole_number(file, "nnodes", j["nnodes"], most, "nodes");
  if (nodes && !per_node)
    throw UserError("E-SETUP-VALUE",
                    fmt::format("{}: `nnodes` = {} without `npus_per_node`: state the devices per "
                                "node too, or the device count in `rank_num`",
                                file.string(), *nodes));
  std::optional<int64_t> product;
  if (per_node) {
    product = *per_node * nodes.value_or(1);
    if (*product > most)
      throw UserError(
          "E-SETUP-VALUE",
          fmt::format("{}: `npus_per_node` × `nnodes` = {} × {}: more than {} "
                      "devices ({}); fix them",
                      file.string(), *per_node, nodes.value_or(1), most, kMaxDevices.why));
  }
  if (ranks && product && *ranks != *product)
    throw UserError("E-SETUP-VALUE",
                    fmt::format("{}: `rank_num` = {} but `npus_per_node` × `nnodes` = {} × {} = "
                                "{}: the two device counts disagree; fix one",
                                file.string(), *ranks, *per_node, nodes.value_or(1), *product));
  if (ranks) {
    s.devices = static_cast<uint64_t>(*ranks);
    s.devices_field = fmt::format("`rank_num` = {}", *ranks);
  } else if (product) {
    s.devices = static_cast<uint64_t>(*product);
    s.devices_field = nodes ? fmt::format("`npus_per_node` × `nnodes` = {} × {}", *per_node, *nodes)
                            : fmt::format("`npus_per_node` = {}", *per_node);
  }
}

}  // namespace

bool is_fast_tuner_setup(const std::string& text) {
  const size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string::npos || text[start] != '{') return false;  // a YAML, a script, a TOML
  const json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return false;
  return std::any_of(kConfigKeys.begin(), kConfigKeys.end(),
                     [&](const auto& k) { return j.contains(k.first); });
}

FastTunerSetup read_fast_tuner_setup(const fs::path& file, const std::string& text, bool strict) {
  DuplicateKeys duplicates;
  json j = json::parse(text, std::ref(duplicates), /*allow_exceptions=*/false);
  if (!j.is_object())  // is_fast_tuner_setup said it parses
    throw UserError("E-SETUP-VALUE",
                    fmt::format("{}: not a JSON object; fix the file", file.string()));
  if (!duplicates.first.empty())
    throw UserError("E-PARSE-DUPLICATE", fmt::format("{}: `{}` is written twice; keep one",
                                                     file.string(), duplicates.first));
  FastTunerSetup setup;
  SetupStated& s = setup.stated;
  s.file = file.string();
  std::string given;
  for (const auto& [key, what] : kConfigKeys) {
    if (!j.contains(key)) continue;
    const json& v = j[std::string(key)];
    if (!v.is_string() || v.get<std::string>().empty())
      bad_value(file, key, v, fmt::format("the path of the training config ({})", what));
    if (!s.config_key.empty())
      throw UserError("E-SETUP-VALUE",
                      fmt::format("{}: names two training configs, `{}` and `{}`; keep one",
                                  file.string(), s.config_key, key));
    s.config_key = key;
    given = v.get<std::string>();
  }
  read_devices(file, j, s);
  if (j.contains("gbs"))
    s.global_batch = whole_number(file, "gbs", j["gbs"], kMaxBatch.most, "sequences");
  if (j.contains("max_expert_parallel"))
    s.max_ep = whole_number(file, "max_expert_parallel", j["max_expert_parallel"], kMaxDevices.most,
                            "devices");
  if (j.contains("strategy"))
    s.dimensions = setup_dimensions(strategy_flags(file, j["strategy"], strict, setup.warnings));
  for (const auto& [key, value] : j.items()) {
    const auto is = [&key = key](std::string_view k) { return k == key; };
    const bool known = std::any_of(kConfigKeys.begin(), kConfigKeys.end(),
                                   [&](const auto& k) { return is(k.first); }) ||
                       std::any_of(kValueKeys.begin(), kValueKeys.end(), is) ||
                       std::any_of(kIgnoredKeys.begin(), kIgnoredKeys.end(), is);
    if (!known) unknown_key(file, key, strict, setup.warnings);
  }
  setup.config = find_config(file, s.config_key, given);
  return setup;
}

void note_once(Model& model, const std::string& warning) {
  if (std::find(model.warnings.begin(), model.warnings.end(), warning) == model.warnings.end())
    model.warnings.push_back(warning);
}

uint64_t run_devices(Model& model, uint64_t requested) {
  const SetupStated& s = model.setup;
  if (requested != 0 && s.devices != 0 && requested != s.devices)
    note_once(model, fmt::format("{} states {} devices; {} replaces it", s.file, s.devices_field,
                                 Setting("devices").named(std::to_string(requested))));
  return requested != 0 ? requested : s.devices;
}

std::string run_dimensions(Model& model, const std::string& requested) {
  const SetupStated& s = model.setup;
  if (!requested.empty() && !s.dimensions.empty() && requested != s.dimensions)
    note_once(model, fmt::format("{}'s `strategy` would search {}; {} replace them", s.file,
                                 s.dimensions, Setting("dimensions").named(requested)));
  return requested.empty() ? s.dimensions : requested;
}

std::string setup_dimensions(const std::vector<std::string>& on) {
  std::string dims;
  const auto has = [&on](std::string_view flag) {
    return std::find(on.begin(), on.end(), flag) != on.end();
  };
  for (const auto& [flag, searched] : kStrategyFlags)
    if (has(flag)) dims += fmt::format("{}{}", dims.empty() ? "" : " ", searched);
  if (has("FSDP") && has("DP")) dims += " OP";
  return dims + (dims.empty() ? "" : " ") + "MBS MBN RECOMPUTE";
}

}  // namespace ndsearch
