/* SPDX-License-Identifier: Apache-2.0 */
/* frozen_layout_check.h: turns frozen_layout.h into compile-time assertions in
 * C99 (negative array trick), C11/C17 (_Static_assert) and C++ (static_assert).
 * Only on LP64, where the frozen numbers were taken. */
#ifndef NDSEARCH_TESTS_FROZEN_LAYOUT_CHECK_H_INCLUDED
#define NDSEARCH_TESTS_FROZEN_LAYOUT_CHECK_H_INCLUDED

#include <ndsearch/nds.h>

#if defined(__cplusplus)
#define NDS_ASSERT(cond, name) static_assert(cond, #name)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define NDS_ASSERT(cond, name) _Static_assert(cond, #name)
#else
#define NDS_ASSERT(cond, name) typedef char nds_assert_##name[(cond) ? 1 : -1]
#endif

#if UINTPTR_MAX == UINT64_MAX
#define NDS_FROZEN(T, field, offset) \
  NDS_ASSERT(offsetof(T, field) == (offset), T##_##field##_moved);
/* Grows only by appending; a smaller size means a field was removed. */
#define NDS_FROZEN_SIZE(T, size) NDS_ASSERT(sizeof(T) == (size), T##_size_changed);
/* No struct ends in padding, so NDS_HAS_FIELD is exact (nds_abi.h). */
#define NDS_FROZEN_LAST(T, field) \
  NDS_ASSERT(sizeof(T) == offsetof(T, field) + sizeof(((T*)0)->field), T##_ends_in_padding);
#include "frozen_layout.h"
#undef NDS_FROZEN
#undef NDS_FROZEN_SIZE
#undef NDS_FROZEN_LAST
#endif

#endif
