// SPDX-License-Identifier: Apache-2.0
#include "core/plugin_host/interfaces.hpp"

#include <fmt/format.h>

#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

[[noreturn]] void bad_table(std::string_view where, std::string_view interface_id,
                            std::string_view what) {
  throw UserError("E-PLUGIN-INTERFACE",
                  fmt::format("{}: its {} table {}; rebuild the plugin against this ndsearch's "
                              "headers (ABI {})",
                              where, interface_id, what, NDS_ABI_VERSION_STRING));
}

// The table, if offered, after checking that its struct reaches `last_required`
// and that the required function pointers are set.
template <class Table>
const Table* fetch(const nds_module& module, const char* interface_id, std::string_view where,
                   size_t required_size,
                   std::initializer_list<const void* (*)(const Table&)> required) {
  const auto* table = static_cast<const Table*>(module.get_interface(interface_id));
  if (table == nullptr) return nullptr;
  if (table->struct_size < required_size)
    bad_table(where, interface_id,
              fmt::format("has struct_size {}, smaller than the {} bytes ABI 1.0 requires",
                          table->struct_size, required_size));
  for (auto get : required)
    if (get(*table) == nullptr) bad_table(where, interface_id, "leaves a required function NULL");
  return table;
}

}  // namespace

std::vector<std::string> Interfaces::ids() const {
  std::vector<std::string> ids;
  if (parser != nullptr) ids.emplace_back(NDS_PARSER_INTERFACE_ID);
  if (hardware != nullptr) ids.emplace_back(NDS_HARDWARE_INTERFACE_ID);
  if (memory != nullptr) ids.emplace_back(NDS_MEMORY_INTERFACE_ID);
  if (cp_attention != nullptr) ids.emplace_back(NDS_CP_ATTENTION_INTERFACE_ID);
  if (recompute != nullptr) ids.emplace_back(NDS_RECOMPUTE_INTERFACE_ID);
  return ids;
}

Interfaces query_interfaces(const nds_module& module, std::string_view where) {
  Interfaces found;
  found.hardware = fetch<nds_hardware_v1>(
      module, NDS_HARDWARE_INTERFACE_ID, where,
      offsetof(nds_hardware_v1, get_devices) + sizeof(void*),
      {[](const nds_hardware_v1& t) { return reinterpret_cast<const void*>(t.get_devices); }});
  found.parser = fetch<nds_parser_v1>(
      module, NDS_PARSER_INTERFACE_ID, where, offsetof(nds_parser_v1, parse) + sizeof(void*),
      {[](const nds_parser_v1& t) { return reinterpret_cast<const void*>(t.probe); },
       [](const nds_parser_v1& t) { return reinterpret_cast<const void*>(t.parse); }});
  // A compile-once table must hold all of 1.0: `flags` says whether evaluate
  // may run on several threads, and a missing field must not read as "yes".
  found.memory = fetch<nds_memory_v1>(
      module, NDS_MEMORY_INTERFACE_ID, where, offsetof(nds_memory_v1, flags) + sizeof(uint64_t),
      {[](const nds_memory_v1& t) { return reinterpret_cast<const void*>(t.compile); },
       [](const nds_memory_v1& t) { return reinterpret_cast<const void*>(t.evaluate); }});
  found.cp_attention = fetch<nds_cp_attention_v1>(
      module, NDS_CP_ATTENTION_INTERFACE_ID, where,
      offsetof(nds_cp_attention_v1, flags) + sizeof(uint64_t),
      {[](const nds_cp_attention_v1& t) { return static_cast<const void*>(t.algorithm); },
       [](const nds_cp_attention_v1& t) { return reinterpret_cast<const void*>(t.compile); },
       [](const nds_cp_attention_v1& t) { return reinterpret_cast<const void*>(t.evaluate); }});
  found.recompute = fetch<nds_recompute_v1>(
      module, NDS_RECOMPUTE_INTERFACE_ID, where,
      offsetof(nds_recompute_v1, flags) + sizeof(uint64_t),
      {[](const nds_recompute_v1& t) { return static_cast<const void*>(t.strategy); },
       [](const nds_recompute_v1& t) { return reinterpret_cast<const void*>(t.compile); },
       [](const nds_recompute_v1& t) { return reinterpret_cast<const void*>(t.evaluate); }});
  return found;
}

}  // namespace ndsearch
