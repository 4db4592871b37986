/* SPDX-License-Identifier: Apache-2.0 */
/* nds_candidate.h: one strategy on the hot path, with what the core derives for
 * it, and the compile input every compile-once kind receives. */
#ifndef NDSEARCH_NDS_CANDIDATE_H_INCLUDED
#define NDSEARCH_NDS_CANDIDATE_H_INCLUDED

#include "nds_hardware.h"
#include "nds_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Candidate ------------------------------------------------------------------
 * Written by the core, read by plugins during one evaluate call (the pointers
 * are valid during that call only). Chunk arrays hold pp·vpp entries indexed
 * [rank·vpp + chunk]. Chunk c of rank r is virtual stage c·pp + r (Megatron's
 * interleaving); under zb-v (vpp 2) chunk 1 of rank r is virtual stage
 * 2·pp-1-r (the V shape). The chunk holding layer 0 holds the embedding, the
 * one holding the last layer the output head and the MTP layers. */
typedef struct nds_candidate {
  size_t struct_size;
  /* Every key resolved (none is NDS_UNKNOWN); pp and vpp size the arrays. */
  const nds_strategy* strategy;
  /* Layers of the language model (NDS_BLOCK_DECODER blocks, model order) in
   * each chunk, and the model-order index of each chunk's first layer. */
  const uint32_t* chunk_layers;
  const uint32_t* chunk_first_layer;
  /* How many of each chunk's layers are recomputed under strategy->recompute
   * (all of them unless a recompute strategy or the config says fewer). */
  const uint32_t* chunk_recomputed_layers;
  /* The micro-batches whose activations of each chunk its rank holds at the
   * rank's peak (DESIGN §8.6): 1F1B min(p - r, mbn); GPipe mbn; interleaved
   * Megatron's warm-up forward steps plus one, k = 0 .. (p-r-1)·2 + (v-1)·p,
   * step k running chunk (k / p) mod v, each chunk capped at mbn. */
  const uint32_t* in_flight;
  /* 1.3: NULL (every chunk's first chunk_recomputed_layers layers run
   * strategy->recompute, the rest keep their activations), or one
   * nds_layer_option per decoder layer in model order, chosen per layer by a
   * recompute strategy ("nds.recompute/1"). When set, strategy->recompute is
   * the strongest recompute option chosen and chunk_recomputed_layers counts
   * each chunk's recomputed layers, so that a pass built before 1.3 still
   * reads a close description (it prices every recomputed layer at that
   * option and no offload). */
  const int32_t* layer_option;
  /* Add fields only at the end. */
} nds_candidate;

/* 1.3: what one layer does with the activations its backward needs
 * (nds_candidate.layer_option). The recompute values equal nds_recompute_mode's. */
typedef int32_t nds_layer_option;
enum {
  NDS_LAYER_KEEP = 0,      /* kept on the device (NDS_RECOMPUTE_NONE) */
  NDS_LAYER_SELECTIVE = 1, /* selective recompute (NDS_RECOMPUTE_SELECTIVE, the config's op set) */
  NDS_LAYER_FULL = 2,      /* the layer's forward run again in its backward (NDS_RECOMPUTE_FULL) */
  /* kept, but copied to host memory after the layer's forward and back before
   * its backward: the device holds one micro-batch's copy at a time */
  NDS_LAYER_OFFLOAD = 3,
  NDS_LAYER_OPTION_COUNT_V1 = 4
};

/* Flags of a compile-once interface (nds_memory_v1.flags, ...). */
/* evaluate is not reentrant: the host never runs two evaluate calls at once. */
#define NDS_FLAG_NOT_REENTRANT (UINT64_C(1) << 0)

/* ---- Compile input --------------------------------------------------------------
 * What a compile-once plugin is compiled for. Valid during compile only: copy
 * what evaluate needs into the compiled object. */
typedef struct nds_compile_input {
  size_t struct_size;
  const nds_model* model;
  const nds_device* device;
  /* Since 1.10: the share of the dynamic memory (activations and
   * communication buffers) the runtime's allocator holds reserved beyond it
   * at the peak (fragmentation, rounding), for the trainer that runs the
   * model: the shipped fit for its runtime's allocator, or the user's
   * calibration (docs/validation.md). A fraction >= 0; an allocator pass
   * reads it when NDS_HAS_FIELD holds, else keeps its own figure. */
  double allocator_fraction;
  /* Add fields only at the end. */
} nds_compile_input;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NDSEARCH_NDS_CANDIDATE_H_INCLUDED */
