// SPDX-License-Identifier: Apache-2.0
#include "core/output/model_text.hpp"

#include <fmt/format.h>
#include <ndsearch/core/json_text.hpp>

#include "core/output/parameter_count.hpp"
#include "core/output/text_settings.hpp"

namespace ndsearch {
namespace {

std::string value_text(const nlohmann::json& v) {
  if (v.is_null()) return "unknown";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_number_float()) return fmt::format("{:.4g}", v.get<double>());
  return json_text(v);
}

std::string billions(const nlohmann::json& v) {
  return v.is_null() ? "unknown" : parameter_count(v.get<double>());
}

}  // namespace

void write_model_text(std::ostream& out, const nlohmann::json& j, const TextSettings& text) {
  out << fmt::format("{} ({}, parsed by {})\n", value_text(j["name"]), value_text(j["file"]),
                     value_text(j["framework"]));
  out << fmt::format("  layers        {} ({} dense), {} MTP\n", value_text(j["layers"]),
                     value_text(j["dense_layers"]), value_text(j["mtp_layers"]));
  out << fmt::format("  width         hidden {}, heads {}, KV heads {}, head dim {} ({})\n",
                     value_text(j["hidden_size"]), value_text(j["heads"]),
                     value_text(j["kv_heads"]), value_text(j["head_dim"]),
                     value_text(j["attention"]));
  out << fmt::format("  mlp           {} {}\n", value_text(j["ffn"]),
                     value_text(j["ffn_hidden_size"]));
  if (j["experts"].get<int64_t>() > 0)
    out << fmt::format("  experts       {} routed (top {}) of width {}, {} shared\n",
                       value_text(j["experts"]), value_text(j["experts_per_token"]),
                       value_text(j["moe_ffn_hidden_size"]), value_text(j["shared_experts"]));
  out << fmt::format("  vocabulary    {} (tied: {})\n", value_text(j["vocab_size"]),
                     value_text(j["tied_embeddings"]));
  out << fmt::format("  parameters    {} total, {} active, {} MTP\n", billions(j["params_total"]),
                     billions(j["params_active"]), billions(j["params_mtp"]));
  if (!j["submodels"].empty())
    out << fmt::format("  text model    {} total, {} active\n", billions(j["params_text"]),
                       billions(j["params_text_active"]));
  for (const auto& tower : j["submodels"]) {
    out << fmt::format("  tower         {}: {} layers, {}", value_text(tower["name"]),
                       value_text(tower["layers"]), billions(tower["params"]));
    if (tower["params_by_part"].is_object()) {
      const auto& part = tower["params_by_part"];
      out << fmt::format(" (layers {}, patch embedding {}, positions {}, mergers {})",
                         billions(part["layers"]), billions(part["patch_embedding"]),
                         billions(part["positions"]), billions(part["mergers"]));
    }
    out << "\n";
  }
  if (!j["submodels"].empty())
    out << fmt::format(
        "  images        {} image tokens per sequence, from {} image(s)\n",
        value_text(j["image_tokens"]),
        j["images_per_sample"].is_null() ? std::string("1") : value_text(j["images_per_sample"]));
  out << fmt::format("  training      seq {}, global batch {}, micro-batch {}, recompute {}\n",
                     value_text(j["seq_len"]), value_text(j["global_batch"]),
                     value_text(j["micro_batch_size"]), value_text(j["recompute"]));
  std::string stated;
  for (const auto& [key, value] : j["stated_strategy"].items())
    if (!value.is_null())
      stated += fmt::format("{}{}={}", stated.empty() ? "" : ",", key, value_text(value));
  out << fmt::format("  stated        {}\n", stated.empty() ? "nothing" : stated);
  out << fmt::format(
      "  dtypes        params {}, compute {}, activations {}, grads {}, optimizer {}, master {}\n",
      value_text(j["dtypes"]["params"]), value_text(j["dtypes"]["compute"]),
      value_text(j["dtypes"]["activations"]), value_text(j["dtypes"]["grads"]),
      value_text(j["dtypes"]["optimizer_states"]), value_text(j["dtypes"]["master_weights"]));
  if (j["fp8_recipe"] != "none")
    out << fmt::format("  fp8 recipe    {}\n", value_text(j["fp8_recipe"]));
  std::string on, off;
  for (const auto& [name, value] : j["overlap"].items()) {
    if (value.is_null()) continue;
    std::string& list = value.get<bool>() ? on : off;
    list += (list.empty() ? "" : ",") + name;
  }
  out << fmt::format(
      "  overlap       {}\n",
      on.empty() && off.empty()
          ? std::string("not stated")
          : fmt::format("on: {}; off: {}", on.empty() ? "none" : on, off.empty() ? "none" : off));
  if (j.contains("setup")) {
    const nlohmann::json& s = j["setup"];
    const auto stated = [](const nlohmann::json& v) {
      return v.is_null() ? std::string("not stated") : value_text(v);
    };
    out << fmt::format(
        "  setup         {} ({}): devices {}, global batch {}, ep at most {}, "
        "dimensions {}\n",
        value_text(s["file"]), value_text(s["config_key"]), stated(s["devices"]),
        stated(s["global_batch"]), stated(s["max_ep"]), stated(s["dimensions"]));
  }
  for (const auto& w : j["warnings"])
    out << "  warning       " << spelled(text, w.get<std::string>()) << "\n";
}

}  // namespace ndsearch
