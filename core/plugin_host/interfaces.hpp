// SPDX-License-Identifier: Apache-2.0
// interfaces.hpp: the interface tables a module offers, checked once at load
// so that later code may call their required functions without checks.
#pragma once

#include <ndsearch/nds.h>

#include <string>
#include <string_view>
#include <vector>

namespace ndsearch {

struct Interfaces {
  const nds_hardware_v1* hardware = nullptr;
  const nds_parser_v1* parser = nullptr;
  const nds_memory_v1* memory = nullptr;
  const nds_cp_attention_v1* cp_attention = nullptr;
  const nds_recompute_v1* recompute = nullptr;  // 1.3

  // The interface ids offered ("nds.hardware/1", ...), in a fixed order.
  std::vector<std::string> ids() const;
};

// Asks the module for every interface this host knows. `where` names the
// plugin in messages. Throws UserError E-PLUGIN-INTERFACE when a table is too
// small for the functions this host requires or one of them is NULL.
Interfaces query_interfaces(const nds_module& module, std::string_view where);

}  // namespace ndsearch
