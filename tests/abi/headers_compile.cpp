// SPDX-License-Identifier: Apache-2.0
// headers_compile.cpp: every ABI header compiled as C++17 and C++20 with
// -pedantic -Werror, and the frozen layout asserted.
#include <ndsearch/nds.h>
#include <ndsearch/nds_recompute.h>

#include "frozen_layout_check.h"

int nds_headers_compile_cpp() {
  return NDS_ABI_MAJOR;
}
