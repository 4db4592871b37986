// SPDX-License-Identifier: Apache-2.0
// documents.hpp: the documents of the verbs that show what was read, as
// `hardware [ID] --format json` and `model --format json` print them
// (docs/cli.md): the device or model JSON with its schema_version.
#pragma once

#include <nlohmann/json.hpp>

#include "core/input/device_catalog.hpp"
#include "core/model/model.hpp"

namespace ndsearch {

nlohmann::json hardware_document(const DeviceCatalog& catalog);  // {schema_version, devices}
nlohmann::json device_document(const Device& device);
nlohmann::json model_document(const Model& model);

}  // namespace ndsearch
