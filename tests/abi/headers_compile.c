/* SPDX-License-Identifier: Apache-2.0 */
/* headers_compile.c: every ABI header, stable and draft, compiled as C99, C11
 * and C17 with -pedantic -Werror (the build fails on any warning), and the
 * frozen layout asserted. */
#include <ndsearch/nds.h>
#include <ndsearch/nds_recompute.h>

#include "frozen_layout_check.h"

/* ISO C forbids an empty translation unit. */
int nds_headers_compile_c(void);
int nds_headers_compile_c(void) {
  return NDS_ABI_MAJOR;
}
