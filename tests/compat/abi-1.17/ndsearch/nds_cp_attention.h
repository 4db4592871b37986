/* SPDX-License-Identifier: Apache-2.0 */
/* nds_cp_attention.h: "nds.cp_attention/1", the cost model of one context-
 * parallel attention algorithm (ring, Ulysses, ...): its validity checks, the
 * collectives it issues, the memory it adds and how much of it overlaps. */
#ifndef NDSEARCH_NDS_CP_ATTENTION_H_INCLUDED
#define NDSEARCH_NDS_CP_ATTENTION_H_INCLUDED

#include "nds_candidate.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NDS_CP_ATTENTION_INTERFACE_ID "nds.cp_attention/1"

typedef int32_t nds_collective;
enum {
  NDS_COLLECTIVE_SEND_RECV = 0, /* point-to-point steps around a ring */
  NDS_COLLECTIVE_ALL_TO_ALL = 1,
  NDS_COLLECTIVE_ALL_GATHER = 2,
  NDS_COLLECTIVE_REDUCE_SCATTER = 3,
  NDS_COLLECTIVE_ALL_REDUCE = 4
};

/* One collective of the algorithm, per layer of a block and per micro-batch. */
typedef struct nds_cp_comm {
  size_t struct_size;
  nds_collective collective;
  uint32_t group_size;   /* ranks in the group */
  uint32_t group_stride; /* rank distance between members (DESIGN §8.3) */
  double forward_bytes;  /* sent by one device in the forward pass */
  double backward_bytes; /* sent by one device in the backward pass */
  uint32_t forward_steps;  /* messages in sequence (latency terms) */
  uint32_t backward_steps;
  /* Share of this collective's time hidden behind attention compute, [0, 1]. */
  double overlap_fraction;
  /* Add fields only at the end. */
} nds_cp_comm;

/* One (candidate, block) of a batch. The host sets the inputs and zeroes the
 * outputs before the call. */
typedef struct nds_cp_item {
  size_t struct_size;
  const nds_candidate* candidate; /* in */
  uint32_t block_index;           /* in: which model block's attention */
  nds_cp_comm* comms;             /* in: room for `comm_capacity` entries ... */
  uint32_t comm_capacity;
  size_t comm_elem_size;          /* ... `comm_elem_size` apart */
  uint32_t comm_count;            /* out: entries written */
  nds_status_code code;           /* out: NDS_OK, or NDS_INFEASIBLE with `reason` */
  /* out: static text naming the degree and what it must divide, e.g. "KV heads
   * must be divisible by tp·cp (Ulysses splits heads)". */
  const char* reason;
  /* out: activation bytes per layer and micro-batch the algorithm adds on one
   * device (received KV blocks, all-to-all staging). */
  double extra_activation_bytes;
  /* Add fields only at the end. */
} nds_cp_item;

typedef struct nds_cp_compiled nds_cp_compiled; /* the model's own */

/* ---- Interface "nds.cp_attention/1" ---------------------------------------------- */
typedef struct nds_cp_attention_v1 {
  size_t struct_size;
  /* The name --cp-algo and configs use ("ring", "ulysses", "hybrid",
   * "allgather-kv"); static. */
  const char* algorithm;

  /* [serialized] As nds_memory_v1.compile. */
  nds_status* (*compile)(const nds_compile_input* input, nds_cp_compiled** compiled);

  /* [hot] As nds_memory_v1.evaluate: pure, reentrant, no allocation, no logging. */
  void (*evaluate)(const nds_cp_compiled* compiled, nds_cp_item* items, size_t count,
                   size_t item_stride);

  /* [serialized] Frees what compile made. NULL is allowed. */
  void (*release)(nds_cp_compiled* compiled);

  uint64_t flags; /* NDS_FLAG_* of nds_candidate.h */
  /* Add fields only at the end. */
} nds_cp_attention_v1;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NDSEARCH_NDS_CP_ATTENTION_H_INCLUDED */
