// SPDX-License-Identifier: Apache-2.0
// model_text.hpp: what the parser understood of a config, as `model` prints
// it; read from its document (documents.hpp, model_document).
#pragma once

#include <ndsearch/core/results.hpp>
#include <nlohmann/json.hpp>

#include <ostream>

namespace ndsearch {

void write_model_text(std::ostream& out, const nlohmann::json& document, const TextSettings& text);

}  // namespace ndsearch
