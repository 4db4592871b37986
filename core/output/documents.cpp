// SPDX-License-Identifier: Apache-2.0
#include "core/output/documents.hpp"

#include "core/hardware/device_json.hpp"
#include "core/model/model_json.hpp"
#include "core/output/schema_version.hpp"

namespace ndsearch {

nlohmann::json hardware_document(const DeviceCatalog& catalog) {
  nlohmann::json devices = nlohmann::json::array();
  for (const Device& d : catalog.devices()) devices.push_back(device_to_json(d));
  return {{"schema_version", kSchemaVersion}, {"devices", devices}};
}

nlohmann::json device_document(const Device& device) {
  nlohmann::json j = device_to_json(device);
  j["schema_version"] = kSchemaVersion;
  return j;
}

nlohmann::json model_document(const Model& model) {
  nlohmann::json j = model_to_json(model);
  j["schema_version"] = kSchemaVersion;
  return j;
}

}  // namespace ndsearch
