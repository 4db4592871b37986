/* SPDX-License-Identifier: Apache-2.0 */
/* draft/nds_recompute.h: "nds.draft.recompute/0", a recompute strategy that
 * chooses, per candidate, how many layers of each chunk to recompute so the
 * ranks fit their budget at the least recompute time. DRAFT: no shipped
 * implementation yet, outside the ABI baseline, may change in any release.
 * It becomes "nds.recompute/1" in nds_recompute.h when a strategy ships. */
#ifndef NDSEARCH_DRAFT_NDS_RECOMPUTE_H_INCLUDED
#define NDSEARCH_DRAFT_NDS_RECOMPUTE_H_INCLUDED

#include "../nds_candidate.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NDS_DRAFT_RECOMPUTE_INTERFACE_ID "nds.draft.recompute/0"

/* One candidate of a batch; the host sets the inputs and zeroes the outputs. */
typedef struct nds_recompute_item {
  size_t struct_size;
  const nds_candidate* candidate; /* in: chunk_recomputed_layers is the host's guess */
  const double* budget_bytes;     /* in: pp entries, what each rank may use */
  /* in: pp entries, each rank's bytes without recompute, and the bytes one
   * recomputed layer of each chunk saves (pp·vpp entries). */
  const double* rank_bytes;
  const double* chunk_layer_saving_bytes;
  uint32_t* chunk_recomputed_layers; /* out: pp·vpp entries */
  nds_status_code code;              /* out: NDS_OK or NDS_INFEASIBLE */
  /* Add fields only at the end. */
} nds_recompute_item;

typedef struct nds_recompute_compiled nds_recompute_compiled;

typedef struct nds_recompute_draft0 {
  size_t struct_size;
  const char* strategy; /* "uniform", "per-layer", ... */
  /* [serialized] */
  nds_status* (*compile)(const nds_compile_input* input, nds_recompute_compiled** compiled);
  /* [hot] pure, reentrant, no allocation, no logging */
  void (*evaluate)(const nds_recompute_compiled* compiled, nds_recompute_item* items,
                   size_t count, size_t item_stride);
  /* [serialized] NULL is allowed */
  void (*release)(nds_recompute_compiled* compiled);
  /* Add fields only at the end. */
} nds_recompute_draft0;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NDSEARCH_DRAFT_NDS_RECOMPUTE_H_INCLUDED */
