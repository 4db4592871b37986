/* SPDX-License-Identifier: Apache-2.0 */
/* nds_memory.h: "nds.memory/1", a memory pass. Compiled once per (model,
 * device), then evaluated on batches of candidates; the core sums what every
 * loaded pass returns, per pipeline rank and per named term. */
#ifndef NDSEARCH_NDS_MEMORY_H_INCLUDED
#define NDSEARCH_NDS_MEMORY_H_INCLUDED

#include "nds_candidate.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NDS_MEMORY_INTERFACE_ID "nds.memory/1"

/* The named terms of a rank's memory, in bytes. */
typedef int32_t nds_memory_term;
enum {
  NDS_MEMORY_PARAMS = 0,
  NDS_MEMORY_GRADS = 1,
  NDS_MEMORY_OPTIMIZER = 2, /* optimizer states and master weights */
  NDS_MEMORY_ACTIVATIONS = 3,
  NDS_MEMORY_COMM_BUFFERS = 4,
  NDS_MEMORY_OTHER = 5,
  NDS_MEMORY_TERM_COUNT_V1 = 6
};

/* One candidate of a batch. The host sets every input and zeroes `bytes` and
 * the outputs before the call. */
typedef struct nds_memory_item {
  size_t struct_size;
  const nds_candidate* candidate; /* in */
  uint32_t term_count;            /* in: terms per rank in `bytes` and `prior_bytes` */
  /* in: pp × term_count, the sums of every pass of a lower phase ([rank·term_count
   * + term]); all zero for phase 0. */
  const double* prior_bytes;
  double* bytes;          /* out: pp × term_count, this pass's bytes per rank and term */
  nds_status_code code;   /* out: NDS_OK, NDS_INFEASIBLE or NDS_INVALID_ARGUMENT */
  const char* reason;     /* out: static text when code != NDS_OK, else NULL */
  /* Add fields only at the end. */
} nds_memory_item;

typedef struct nds_memory_compiled nds_memory_compiled; /* the pass's own */

/* ---- Interface "nds.memory/1" ---------------------------------------------------- */
typedef struct nds_memory_v1 {
  size_t struct_size;

  /* [serialized] Builds the pass's tables for one (model, device). On success
   * *compiled is non-NULL and owned by the pass until release. A status names
   * the model field the pass cannot handle. May log. */
  nds_status* (*compile)(const nds_compile_input* input, nds_memory_compiled** compiled);

  /* [hot] Fills `count` items, `item_stride` bytes apart. Pure function of its
   * inputs, reentrant (distinct items from several threads at once), no
   * allocation, no logging, never throws. */
  void (*evaluate)(const nds_memory_compiled* compiled, nds_memory_item* items, size_t count,
                   size_t item_stride);

  /* [serialized] Frees what compile made. NULL is allowed. */
  void (*release)(nds_memory_compiled* compiled);

  /* Passes run in ascending phase; a pass of phase n sees the sums of phases < n
   * (an allocator-fragmentation pass reads the dynamic bytes, say). */
  int32_t phase;
  uint64_t flags; /* NDS_FLAG_* of nds_candidate.h */
  /* Add fields only at the end. */
} nds_memory_v1;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NDSEARCH_NDS_MEMORY_H_INCLUDED */
