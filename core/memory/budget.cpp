// SPDX-License-Identifier: Apache-2.0
#include "core/memory/budget.hpp"

#include <ndsearch/sdk/units.hpp>

#include <fmt/format.h>

#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

double size_flag(const std::string& flag, const std::string& text) {
  auto bytes = sdk::memory_size_bytes(text);
  if (!bytes)
    throw UserError("E-USAGE", fmt::format("{} {}: expected a size such as 58GB (GiB), 512MiB or 80GiB", flag, text));
  return static_cast<double>(*bytes);
}

}  // namespace

Budget memory_budget(const Device& device, const Model& model, const std::optional<std::string>& max_memory,
                     const std::optional<std::string>& reserve_mem) {
  Budget b;
  if (max_memory) {
    b.capacity_bytes = size_flag("-M", *max_memory);
    b.capacity_source = "-M";
  } else if (model.training.device_memory_bytes != NDS_UNKNOWN) {
    b.capacity_bytes = static_cast<double>(model.training.device_memory_bytes);
    auto it = model.training_provenance.find("device_memory_bytes");
    b.capacity_source = "config: " + (it == model.training_provenance.end() ? model.file : it->second);
  } else {
    b.capacity_bytes = static_cast<double>(device.memory_bytes);
    b.capacity_source = "device " + device.id;
  }
  b.reserved_bytes = static_cast<double>(device.reserved_bytes);
  if (reserve_mem) b.reserve_mem_bytes = size_flag("--reserve-mem", *reserve_mem);
  b.budget_bytes = b.capacity_bytes - b.reserved_bytes - b.reserve_mem_bytes;
  return b;
}

}  // namespace ndsearch
