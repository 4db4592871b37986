/* SPDX-License-Identifier: Apache-2.0 */
/* nds_recompute.h: "nds.recompute/1" (ABI 1.3), a recompute strategy: for each
 * pipeline rank of a candidate, how many layers of each group of alike layers
 * keep their activations, recompute them selectively or fully, or offload them
 * to host memory, so that the rank fits its budget at the least extra time.
 *
 * The host prices; the strategy chooses. For every rank the host fills a menu:
 * per group and option, the bytes one layer frees at the rank's peak and the
 * seconds per step it adds, measured with the loaded memory passes and the time
 * model. The strategy writes the count of layers per group and option; the host
 * then lays the choice out layer by layer (nds_candidate.layer_option: in each
 * group, in layer order, the offloaded layers first, then full, selective,
 * kept, as the reference counts "the first n layers") and prices the candidate
 * again with the memory passes and the time model. */
#ifndef NDSEARCH_NDS_RECOMPUTE_H_INCLUDED
#define NDSEARCH_NDS_RECOMPUTE_H_INCLUDED

#include "nds_candidate.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NDS_RECOMPUTE_INTERFACE_ID "nds.recompute/1"

/* What one layer of a group changes under one option instead of NDS_LAYER_KEEP. */
typedef struct nds_recompute_option_cost {
  /* Bytes the layer frees at its rank's peak: what it keeps per micro-batch
   * less, times the micro-batches in flight for its chunk. 0 under KEEP. */
  double saved_bytes;
  /* Seconds per step the layer adds: its recomputed forward per micro-batch
   * times the micro-batches of a step. 0 under KEEP and OFFLOAD (the copies'
   * cost depends on how many layers share the link: see nds_recompute_rank). */
  double extra_s;
} nds_recompute_option_cost;

/* Layers alike: the same block of the model in the same chunk of the rank. */
typedef struct nds_recompute_group {
  size_t struct_size;
  uint32_t chunk;       /* the chunk of the rank, [0, vpp) */
  uint32_t block;       /* index of the layers' block in the model */
  uint32_t first_layer; /* model-order index of the group's first layer */
  uint32_t layers;      /* how many */
  nds_recompute_option_cost option[NDS_LAYER_OPTION_COUNT_V1]; /* indexed by nds_layer_option */
  /* Under NDS_LAYER_OFFLOAD: bytes one layer copies to host after each
   * micro-batch's forward and back before its backward, and the host memory
   * it takes at the rank's peak. 0 where offload does not apply. */
  double offload_copy_bytes;
  double offload_host_bytes;
  /* Add fields only at the end. */
} nds_recompute_group;

/* One pipeline rank of a candidate. */
typedef struct nds_recompute_rank {
  size_t struct_size;
  double budget_bytes;            /* in: what the rank may use */
  double bytes_without_recompute; /* in: the rank's peak with every layer kept */
  /* in: charged once when any layer of the rank runs NDS_LAYER_FULL: the
   * working set of the layer rebuilt in its backward. */
  double full_working_set_bytes;
  /* in: offload. Host memory the rank's device may fill; the host link's
   * bytes/s per direction for this device (its share of a link the node's
   * devices share; 0 = no offload); the seconds of one micro-batch's forward
   * and of its backward on this rank that can hide the copies to host and
   * back (their compute times the share the trainer overlaps); the
   * micro-batches of a step. Copies a micro-batch's forward (backward)
   * cannot hide are exposed, every micro-batch. */
  double host_bytes_free;
  double host_link_bytes_per_s;
  double forward_s;
  double backward_s;
  uint32_t micro_batches;
  uint32_t group_count;           /* in */
  const nds_recompute_group* groups; /* in: `group_count` entries, `group_elem_size` apart */
  size_t group_elem_size;
  /* out: group_count × NDS_LAYER_OPTION_COUNT_V1 counts, [group · 4 + option],
   * zeroed by the host; each group's counts sum to its layers. */
  uint32_t* layers_per_option;
  double peak_bytes;    /* out: the rank's peak under the choice */
  double extra_s;       /* out: seconds per step the choice adds on this rank */
  nds_status_code code; /* out: NDS_OK, or NDS_INFEASIBLE when nothing fits (then the choice of the least peak) */
  uint32_t reserved;    /* zero */
  /* Add fields only at the end. */
} nds_recompute_rank;

/* One candidate of a batch. The host sets the inputs and zeroes the outputs. */
typedef struct nds_recompute_item {
  size_t struct_size;
  const nds_candidate* candidate; /* in: layer_option NULL */
  nds_recompute_rank* ranks;      /* in/out: pp entries, `rank_elem_size` apart */
  size_t rank_elem_size;
  uint32_t rank_count;
  uint32_t reserved; /* zero */
  /* in: for a strategy that follows the config: pp entries, the config's
   * recomputed layers per stage (of the mode candidate->strategy->recompute)
   * rescaled to this pp by the host's rescaler, or NULL when the config states
   * no counts for that mode. */
  const int64_t* stated_layers;
  nds_status_code code; /* out: NDS_OK, NDS_INFEASIBLE or NDS_INVALID_ARGUMENT */
  uint32_t reserved2;   /* zero */
  const char* reason;   /* out: static text when code is not NDS_OK, else NULL */
  /* Add fields only at the end. */
} nds_recompute_item;

typedef struct nds_recompute_compiled nds_recompute_compiled; /* the strategy's own */

/* nds_recompute_v1.flags, beside NDS_FLAG_*: the strategy follows each
 * candidate's own recompute key (candidate->strategy->recompute, and
 * stated_layers for the config's counts) instead of choosing under the
 * budget. The host then asks it for every candidate before pricing memory,
 * keeps recompute a dimension of the search, and measures no menu: the
 * groups come with zero costs and bytes_without_recompute 0. */
#define NDS_RECOMPUTE_FOLLOWS_CANDIDATE (UINT64_C(1) << 1)

/* ---- Interface "nds.recompute/1" -------------------------------------------------- */
typedef struct nds_recompute_v1 {
  size_t struct_size;
  const char* strategy; /* its name: "per-layer", "offload", ... (--recompute-strategy) */
  /* [serialized] As nds_memory_v1.compile. */
  nds_status* (*compile)(const nds_compile_input* input, nds_recompute_compiled** compiled);
  /* [hot] Fills `count` items, `item_stride` bytes apart. Pure function of its
   * inputs, reentrant, no allocation, no logging, never throws. */
  void (*evaluate)(const nds_recompute_compiled* compiled, nds_recompute_item* items, size_t count,
                   size_t item_stride);
  /* [serialized] NULL is allowed. */
  void (*release)(nds_recompute_compiled* compiled);
  uint64_t flags; /* NDS_FLAG_* of nds_candidate.h */
  /* Add fields only at the end. */
} nds_recompute_v1;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NDSEARCH_NDS_RECOMPUTE_H_INCLUDED */
