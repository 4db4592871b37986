// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/model_verb.hpp"

#include <fmt/format.h>

#include <iostream>

#include "core/report/documents.hpp"
#include "core/report/json_text.hpp"
#include "core/support/user_error.hpp"
#include "hosts/cli/model_options.hpp"
#include "hosts/cli/parameter_count.hpp"
#include "hosts/cli/setting_flags.hpp"

namespace ndsearch::cli {
namespace {


std::string text(const nlohmann::json& v) {
  if (v.is_null()) return "unknown";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number_float()) return fmt::format("{:.4g}", v.get<double>());
  return json_text(v);
}

std::string billions(const nlohmann::json& v) {
  return v.is_null() ? "unknown" : parameter_count(v.get<double>());
}

void print_table(const nlohmann::json& j) {
  std::cout << fmt::format("{} ({}, parsed by {})\n", text(j["name"]), text(j["file"]), text(j["framework"]));
  std::cout << fmt::format("  layers        {} ({} dense), {} MTP\n", text(j["layers"]), text(j["dense_layers"]),
                           text(j["mtp_layers"]));
  std::cout << fmt::format("  width         hidden {}, heads {}, KV heads {}, head dim {} ({})\n", text(j["hidden_size"]),
                           text(j["heads"]), text(j["kv_heads"]), text(j["head_dim"]), text(j["attention"]));
  std::cout << fmt::format("  mlp           {} {}\n", text(j["ffn"]), text(j["ffn_hidden_size"]));
  if (j["experts"].get<int64_t>() > 0)
    std::cout << fmt::format("  experts       {} routed (top {}) of width {}, {} shared\n", text(j["experts"]),
                             text(j["experts_per_token"]), text(j["moe_ffn_hidden_size"]), text(j["shared_experts"]));
  std::cout << fmt::format("  vocabulary    {} (tied: {})\n", text(j["vocab_size"]), text(j["tied_embeddings"]));
  std::cout << fmt::format("  parameters    {} total, {} active, {} MTP\n", billions(j["params_total"]),
                           billions(j["params_active"]), billions(j["params_mtp"]));
  if (!j["submodels"].empty())
    std::cout << fmt::format("  text model    {} total, {} active\n", billions(j["params_text"]),
                             billions(j["params_text_active"]));
  for (const auto& tower : j["submodels"]) {
    std::cout << fmt::format("  tower         {}: {} layers, {}", text(tower["name"]),
                             text(tower["layers"]), billions(tower["params"]));
    if (tower["params_by_part"].is_object()) {
      const auto& part = tower["params_by_part"];
      std::cout << fmt::format(" (layers {}, patch embedding {}, positions {}, mergers {})",
                               billions(part["layers"]), billions(part["patch_embedding"]),
                               billions(part["positions"]), billions(part["mergers"]));
    }
    std::cout << "\n";
  }
  if (!j["submodels"].empty())
    std::cout << fmt::format(
        "  images        {} image tokens per sequence, from {} image(s)\n", text(j["image_tokens"]),
        j["images_per_sample"].is_null() ? std::string("1") : text(j["images_per_sample"]));
  std::cout << fmt::format("  training      seq {}, global batch {}, micro-batch {}, recompute {}\n",
                           text(j["seq_len"]), text(j["global_batch"]), text(j["micro_batch_size"]), text(j["recompute"]));
  std::string stated;
  for (const auto& [key, value] : j["stated_strategy"].items())
    if (!value.is_null()) stated += fmt::format("{}{}={}", stated.empty() ? "" : ",", key, text(value));
  std::cout << fmt::format("  stated        {}\n", stated.empty() ? "nothing" : stated);
  std::cout << fmt::format(
      "  dtypes        params {}, compute {}, activations {}, grads {}, optimizer {}, master {}\n",
      text(j["dtypes"]["params"]), text(j["dtypes"]["compute"]), text(j["dtypes"]["activations"]),
      text(j["dtypes"]["grads"]), text(j["dtypes"]["optimizer_states"]),
      text(j["dtypes"]["master_weights"]));
  if (j["fp8_recipe"] != "none")
    std::cout << fmt::format("  fp8 recipe    {}\n", text(j["fp8_recipe"]));
  std::string on, off;
  for (const auto& [name, value] : j["overlap"].items()) {
    if (value.is_null()) continue;
    std::string& list = value.get<bool>() ? on : off;
    list += (list.empty() ? "" : ",") + name;
  }
  std::cout << fmt::format(
      "  overlap       {}\n",
      on.empty() && off.empty()
          ? std::string("not stated")
          : fmt::format("on: {}; off: {}", on.empty() ? "none" : on, off.empty() ? "none" : off));
  if (j.contains("setup")) {
    const nlohmann::json& s = j["setup"];
    const auto stated = [](const nlohmann::json& v) {
      return v.is_null() ? std::string("not stated") : text(v);
    };
    std::cout << fmt::format(
        "  setup         {} ({}): devices {}, global batch {}, ep at most {}, "
        "dimensions {}\n",
        text(s["file"]), text(s["config_key"]), stated(s["devices"]), stated(s["global_batch"]),
        stated(s["max_ep"]), stated(s["dimensions"]));
  }
  for (const auto& w : j["warnings"])
    std::cout << "  warning       " << with_flags(w.get<std::string>()) << "\n";
}

}  // namespace

void add_model_verb(CLI::App& app, const PluginFlags& flags, std::function<int()>& run) {
  struct Args {
    ModelFlags model;
    std::string format = "table";
  };
  auto args = std::make_shared<Args>();
  CLI::App* verb = app.add_subcommand("model", "What the parser understood of a config");
  add_model_flags(*verb, args->model);
  verb->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  verb->callback([&run, &flags, args] {
    run = [&flags, args] {
      PluginRegistry registry = PluginRegistry::load(plugin_search(flags));
      const Model model = read_model(registry, args->model);
      const nlohmann::json j = model_document(model);
      if (args->format == "json")
        std::cout << json_text(j, 2) << "\n";
      else
        print_table(j);
      return kExitOk;
    };
  });
}

}  // namespace ndsearch::cli
