// SPDX-License-Identifier: Apache-2.0
// status.hpp: the host's side of nds_status: the one place statuses are made
// and freed, so a plugin never frees memory it did not allocate.
#pragma once

#include <ndsearch/nds_abi.h>

#include <memory>  // std::unique_ptr
#include <string>
#include <string_view>

// The opaque type of the ABI, defined by the host only.
struct nds_status {
  nds_status_code code;
  std::string message;
};

namespace ndsearch {

// Never throws; NDS_OK gives NULL; out of memory gives a shared static status.
nds_status* make_status(nds_status_code code, std::string_view message) noexcept;
// NULL and the shared out-of-memory status are ignored.
void release_status(nds_status* status) noexcept;

struct StatusRelease {
  void operator()(nds_status* s) const noexcept { release_status(s); }
};
using StatusPtr = std::unique_ptr<nds_status, StatusRelease>;

// The name of a code as the ABI spells it ("NDS_INVALID_ARGUMENT").
std::string_view status_code_name(nds_status_code code) noexcept;

}  // namespace ndsearch
