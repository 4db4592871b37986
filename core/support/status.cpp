// SPDX-License-Identifier: Apache-2.0
#include "core/support/status.hpp"

#include <new>  // std::nothrow

namespace ndsearch {
namespace {
// Returned when a status cannot be allocated; never freed.
nds_status out_of_memory_status{NDS_INTERNAL, "out of memory while reporting an error"};
}  // namespace

nds_status* make_status(nds_status_code code, std::string_view message) noexcept {
  if (code == NDS_OK) return nullptr;
  try {
    return new nds_status{code, std::string(message)};
  } catch (...) {
    return &out_of_memory_status;
  }
}

void release_status(nds_status* status) noexcept {
  if (status != &out_of_memory_status) delete status;
}

std::string_view status_code_name(nds_status_code code) noexcept {
  switch (code) {
    case NDS_OK: return "NDS_OK";
    case NDS_INVALID_ARGUMENT: return "NDS_INVALID_ARGUMENT";
    case NDS_NOT_FOUND: return "NDS_NOT_FOUND";
    case NDS_UNSUPPORTED: return "NDS_UNSUPPORTED";
    case NDS_OUT_OF_RANGE: return "NDS_OUT_OF_RANGE";
    case NDS_FAILED_PRECONDITION: return "NDS_FAILED_PRECONDITION";
    case NDS_INTERNAL: return "NDS_INTERNAL";
    case NDS_ABI_MISMATCH: return "NDS_ABI_MISMATCH";
    case NDS_INFEASIBLE: return "NDS_INFEASIBLE";
    default: return "unknown status code";
  }
}

}  // namespace ndsearch
