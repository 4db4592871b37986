// SPDX-License-Identifier: Apache-2.0
// megatron_args.cpp: the "megatron-args" parser plugin: Megatron-LM and
// MindSpeed-LLM launch scripts (bash, read without running them), MindSpeed's
// JSON argument files (keys are argument names: num_layers, hidden_size...)
// and MindSpeed-LLM's FSDP2 YAML.
#include <ndsearch/sdk/parser.hpp>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <map>
#include <set>

#include "plugins/common/parsing/json_lines.hpp"
#include "plugins/common/parsing/yaml_check.hpp"
#include "plugins/parsers/megatron_args/arguments.hpp"
#include "plugins/parsers/megatron_args/model.hpp"
#include "plugins/parsers/megatron_args/script_apply.hpp"
#include "plugins/parsers/megatron_args/shell_reader.hpp"

namespace {

using namespace ndsearch;
using namespace ndsearch::plugins::megatron;

bool starts_json(const std::string& text) {
  const size_t i = text.find_first_not_of(" \t\r\n");
  return i != std::string::npos && text[i] == '{';
}

// Megatron argument names as a JSON argument file spells them.
bool megatron_argument_file(const nlohmann::json& j) {
  if (!j.is_object() || j.contains("model_type") || j.contains("architectures")) return false;
  if (!j.contains("num_layers")) return false;
  int shape_keys = 0;
  for (const char* key :
       {"hidden_size", "num_attention_heads", "ffn_hidden_size", "seq_length",
        "tensor_model_parallel_size", "pipeline_model_parallel_size", "micro_batch_size",
        "global_batch_size", "num_query_groups", "kv_channels"})
    shape_keys += j.contains(key) ? 1 : 0;
  return shape_keys >= 1;
}

// MindSpeed-LLM's FSDP2 backend YAML: model.model_id with parallel.fsdp_modules.
bool fsdp2_yaml(const YAML::Node& root) {
  return root.IsMap() && root["model"] && root["model"].IsMap() && root["model"]["model_id"] &&
         root["parallel"] && root["parallel"].IsMap() &&
         (root["parallel"]["fsdp_modules"] || root["parallel"]["fsdp_size"]);
}

// A JSON value as the words a command line would carry.
Word json_word(const std::string& text, int64_t line, uint64_t id) {
  Piece p;
  p.text = text;
  p.line = line == NDS_UNKNOWN ? 0 : line;
  p.id = id;
  return Word{{p}};
}

std::string json_scalar(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

class MegatronArgs final : public sdk::ParserPlugin {
 public:
  MegatronArgs()
      : sdk::ParserPlugin("Megatron-LM / MindSpeed launch script, JSON argument file or FSDP2 YAML",
                          kAliases) {
    writes_configs();
  }

  std::string apply(const std::string& path, const sdk::AppliedStrategy& applied) override {
    if (path.empty()) return megatron_flags(applied);
    const std::string text = sdk::read_config_file(path, "launch script or argument file");
    const bool yaml_name = path.size() > 5 && (path.compare(path.size() - 5, 5, ".yaml") == 0 ||
                                               path.compare(path.size() - 4, 4, ".yml") == 0);
    if (starts_json(text) || yaml_name)
      throw sdk::Error(NDS_UNSUPPORTED,
                       path +
                           ": apply writes Megatron-LM / MindSpeed launch scripts, not JSON "
                           "argument files or FSDP2 YAML; set these arguments in it by hand:\n" +
                           megatron_flags(applied));
    try {
      return apply_to_script(path, text, applied);
    } catch (const ShellLimitError& e) {
      throw sdk::LimitError(path + ":" + std::to_string(e.line()) + ": " + e.what());
    } catch (const ShellSyntaxError& e) {
      throw sdk::Error(NDS_INVALID_ARGUMENT,
                       path + ":" + std::to_string(e.line()) + ": " + e.what());
    }
  }

  double probe(const std::string& path) override {
    const auto text = sdk::try_read_config_file(path);
    if (!text) return 0;
    if (starts_json(*text)) {
      const auto j = plugins::json_top_level_keys(*text);  // no DOM: a probe reads every file
      if (!j) return 0;
      if (j->contains("model_type") || j->contains("architectures")) return 0.05;
      return megatron_argument_file(*j) ? 0.9 : 0;
    }
    const bool yaml_name = path.size() > 5 && (path.compare(path.size() - 5, 5, ".yaml") == 0 ||
                                               path.compare(path.size() - 4, 4, ".yml") == 0);
    if (yaml_name) {
      try {
        if (static_cast<int64_t>(text->size()) >
            sdk::config_max_bytes(plugins::yaml::kDefaultYamlMaxBytes))
          return 0;
        plugins::yaml::check_yaml(*text, path);  // bounds what YAML::Load costs
        return fsdp2_yaml(YAML::Load(*text)) ? 0.9 : 0;
      } catch (...) {
        return 0;
      }
    }
    int markers = 0;
    for (const char* marker :
         {"--num-layers", "--hidden-size", "--num-attention-heads", "--tensor-model-parallel-size",
          "--seq-length", "--micro-batch-size", "pretrain_gpt.py"})
      markers += text->find(marker) != std::string::npos ? 1 : 0;
    if (markers >= 2) return 0.95;
    if (text->find("torchrun") != std::string::npos ||
        text->find("pretrain_gpt.py") != std::string::npos)
      return 0.5;
    return 0;
  }

  void parse(const std::string& path, sdk::Builder& builder) override {
    const auto text =
        std::optional<std::string>(sdk::read_config_file(path, "launch script or argument file"));
    if (starts_json(*text)) return parse_json(path, *text, builder);
    const bool yaml_name = path.size() > 5 && (path.compare(path.size() - 5, 5, ".yaml") == 0 ||
                                               path.compare(path.size() - 4, 4, ".yml") == 0);
    if (yaml_name) {
      // yaml-cpp is slow: the YAML limit, as for the other YAML parsers.
      return parse_fsdp2_yaml(
          path, sdk::read_config_file(path, "FSDP2 YAML", plugins::yaml::kDefaultYamlMaxBytes),
          builder);
    }
    parse_script(path, *text, builder);
  }

 private:
  static constexpr const char* kAliases[] = {"mindspeed", "megatron", nullptr};

  static void report_unknown_flags(const Arguments& args, sdk::Builder& builder) {
    for (const Occurrence& o : args.all())
      if (!is_known_flag(o.flag)) builder.unknown_field(args.at(o));
  }

  // argparse keeps a flag's last value, and so does ndsearch; a flag given
  // twice with different values is most often a mistake, so say so (once
  // per flag, naming both lines).
  static void warn_repeated_flags(const Arguments& args) {
    std::map<std::string, const Occurrence*> first;
    std::set<std::string> warned;
    const auto value_text = [](const Occurrence& o) {
      std::string t;
      for (const Word& v : o.values) t += (t.empty() ? "" : " ") + v.text();
      return t;
    };
    for (const Occurrence& o : args.all()) {
      if (o.flag_word.branch() >= 0) continue;  // inside an undecidable `if`: not a repeat
      auto [it, fresh] = first.emplace(o.flag, &o);
      if (fresh || warned.count(o.flag) != 0 || value_text(*it->second) == value_text(o)) continue;
      warned.insert(o.flag);
      sdk::host().log(NDS_LOG_WARN,
                      args.file() + ":" + std::to_string(o.flag_word.line()) + ": " + o.flag +
                          " is given again ('" + sdk::shown(value_text(o)) + "'; line " +
                          std::to_string(it->second->flag_word.line()) + " gave '" +
                          sdk::shown(value_text(*it->second)) +
                          "'); the last one is used, as argparse does: delete the other");
    }
  }

  static void parse_script(const std::string& path, const std::string& text,
                           sdk::Builder& builder) {
    ShellScript script;
    try {
      script = read_shell_script(text);
    } catch (const ShellLimitError& e) {
      throw sdk::LimitError(path + ":" + std::to_string(e.line()) + ": " + e.what());
    } catch (const ShellSyntaxError& e) {
      throw sdk::Error(NDS_INVALID_ARGUMENT,
                       path + ":" + std::to_string(e.line()) + ": " + e.what() +
                           "; ndsearch reads the script without running it and cannot follow this "
                           "line; fix the script (bash -n " +
                           path + " checks it)");
    }
    Arguments args(path, &script);
    for (const auto& list : script.argument_lists) args.add_words(list);
    Arguments launcher(path, &script);
    launcher.add_words(script.launcher_words);
    report_unknown_flags(args, builder);
    warn_repeated_flags(args);
    build_model(args, launcher, builder);
  }

  static void parse_json(const std::string& path, const std::string& text, sdk::Builder& builder) {
    // Before the DOM: refuses a nesting too deep and an argument written twice.
    const std::map<std::string, int64_t> lines = plugins::json_key_lines(text, path);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const nlohmann::json::out_of_range& e) {  // a number beyond a double: 1e999
      throw sdk::Error(NDS_OUT_OF_RANGE, path + ": a number beyond the range of a double (" +
                                             sdk::shown(e.what(), 200) + "); fix it");
    } catch (const nlohmann::json::parse_error& e) {
      throw sdk::Error(NDS_INVALID_ARGUMENT,
                       path + ": not valid JSON (" + sdk::shown(e.what(), 200) + "); fix the file");
    }
    if (!j.is_object())
      throw sdk::Error(NDS_INVALID_ARGUMENT,
                       path + ": a JSON argument file is an object of argument names");
    Arguments args(path, nullptr);
    uint64_t id = 1;
    for (const auto& [key, value] : j.items()) {
      const auto at = lines.find(key);
      const int64_t line = at == lines.end() ? NDS_UNKNOWN : at->second;
      Occurrence o;
      o.field = key;
      std::string flag = key;
      for (char& c : flag) c = c == '_' ? '-' : c;
      o.flag = "--" + flag;
      // Argument names whose flag is spelled otherwise (argparse dest names).
      if (key == "add_bias_linear") {
        if (!value.is_boolean() || value.get<bool>()) continue;
        o.flag = "--disable-bias-linear";
        o.flag_word = json_word(o.flag, line, id++);
        args.add(o);
        continue;
      } else if (key == "params_dtype" && value.is_string()) {
        const std::string dtype = value.get<std::string>();
        if (dtype.find("bfloat16") != std::string::npos || dtype == "bf16")
          o.flag = "--bf16";
        else if (dtype.find("float16") != std::string::npos || dtype == "fp16")
          o.flag = "--fp16";
        else
          continue;
        o.flag_word = json_word(o.flag, line, id++);
        args.add(o);
        continue;
      }
      o.flag_word = json_word(o.flag, line, id++);
      if (value.is_null()) continue;
      if (value.is_boolean()) {
        if (!value.get<bool>()) continue;
      } else if (value.is_array()) {
        // Each value is a word, as in a script: as many as a script may hold.
        if (value.size() > kMaxShellWords)
          throw sdk::LimitError(path + ":" + std::to_string(line) + ": `" + sdk::shown(key) +
                                "` lists " + std::to_string(value.size()) +
                                " values, more than the " + std::to_string(kMaxShellWords) +
                                " words a launch script may hold");
        for (const auto& item : value) o.values.push_back(json_word(json_scalar(item), line, id++));
      } else if (value.is_object()) {
        sdk::Where w{path, line, key, ""};
        builder.unknown_field(w);
        continue;
      } else {
        o.values.push_back(json_word(json_scalar(value), line, id++));
      }
      args.add(o);
    }
    report_unknown_flags(args, builder);
    build_model(args, Arguments(path, nullptr), builder);
  }

  static void parse_fsdp2_yaml(const std::string& path, const std::string& text,
                               sdk::Builder& builder) {
    YAML::Node root;
    try {
      plugins::yaml::check_yaml(text, path);  // depth, duplicated keys, aliases
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      throw sdk::Error(NDS_INVALID_ARGUMENT,
                       path + ": not valid YAML (" + sdk::shown(e.what(), 200) + "); fix the file");
    }
    if (!fsdp2_yaml(root)) {
      throw sdk::Error(
          NDS_UNSUPPORTED,
          path +
              ": not a MindSpeed-LLM FSDP2 YAML (no model.model_id with parallel.fsdp_modules); "
              "name its framework with -f");
    }
    // A field of the wrong shape (`data: 1`, a map for model_id) makes
    // yaml-cpp throw where it is read: the error names the place.
    try {
      read_fsdp2_fields(path, root, builder);
    } catch (const YAML::Exception& e) {
      const std::string at = e.mark.line >= 0 ? ":" + std::to_string(e.mark.line + 1) : "";
      throw sdk::Error(NDS_INVALID_ARGUMENT,
                       path + at + ": a field does not have the shape an FSDP2 YAML gives it (" +
                           sdk::shown(e.msg, 120) + "); fix it");
    }
  }

  static void read_fsdp2_fields(const std::string& path, const YAML::Node& root,
                                sdk::Builder& builder) {
    auto where = [&](const YAML::Node& node, const std::string& field) {
      return sdk::Where{path, node.Mark().line >= 0 ? node.Mark().line + 1 : NDS_UNKNOWN, field,
                        ""};
    };
    const YAML::Node model = root["model"];
    builder.set_string("name", model["model_id"].as<std::string>(),
                       where(model["model_id"], "model.model_id"));
    if (const YAML::Node cutoff = root["data"] ? root["data"]["cutoff_len"] : YAML::Node();
        cutoff) {
      int64_t seq = 0;
      try {
        seq = cutoff.as<int64_t>();
      } catch (const YAML::Exception&) {
        throw sdk::Error(
            NDS_OUT_OF_RANGE,
            path + ":" + std::to_string(cutoff.Mark().line + 1) + ": data.cutoff_len '" +
                sdk::shown(cutoff.IsScalar() ? cutoff.Scalar() : "(a mapping or list)") +
                "': expected a whole number of tokens; fix it");
      }
      builder.set("seq_len", seq, where(cutoff, "data.cutoff_len"));
    }
    const YAML::Node parallel = root["parallel"];
    if (parallel["fsdp_modules"]) {
      // FSDP2 shards parameters, gradients and optimizer states.
      builder.set("stated.zero", 3, where(parallel["fsdp_modules"], "parallel.fsdp_modules"));
      builder.set("capabilities.zero3", 1,
                  where(parallel["fsdp_modules"], "parallel.fsdp_modules"));
    }
    if (const YAML::Node recompute = parallel["recompute"]; recompute) {
      bool on = false;
      try {
        on = recompute.as<bool>();
      } catch (const YAML::Exception&) {
        throw sdk::Error(NDS_INVALID_ARGUMENT,
                         path + ":" + std::to_string(recompute.Mark().line + 1) +
                             ": parallel.recompute: expected True or False; fix it");
      }
      builder.set_string("stated.recompute", on ? "full" : "none",
                         where(recompute, "parallel.recompute"));
    }
    if (const YAML::Node opt = root["training"] ? root["training"]["optimizer"] : YAML::Node();
        opt) {
      const std::string name = opt.as<std::string>();
      if (name == "adamw" || name == "adam") {
        builder.set_string("optimizer", name, where(opt, "training.optimizer"));
        builder.set("optimizer_states", 2, where(opt, "training.optimizer"));
      } else {
        builder.unknown_field(where(opt, "training.optimizer"));
      }
    }
    // The model's shape is not in this file: the FSDP2 backend loads it from
    // the Hugging Face checkpoint of model_id. Say so; the core then reports
    // that no layers were found.
    sdk::host().log(NDS_LOG_WARN,
                    path + ": the FSDP2 YAML names its model (model.model_id '" +
                        model["model_id"].as<std::string>() +
                        "') but not its shape, which comes from the Hugging Face checkpoint; give "
                        "that checkpoint's config.json as the model config (`model_config`)");
  }
};

}  // namespace

NDS_SDK_MODULE(
    MegatronArgs, "megatron-args", "1.0.0",
    "Megatron-LM and MindSpeed-LLM launch scripts, MindSpeed JSON argument files and FSDP2 YAML")
