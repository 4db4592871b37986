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
 * are valid during that call only). Every strategy key is resolved. Chunk arrays
 * hold pp·vpp entries indexed [rank·vpp + chunk]; chunk c of rank r is virtual
 * stage c·pp + r (Megatron's interleaving), so rank 0 chunk 0 holds the
 * embedding and rank pp-1 chunk vpp-1 the output head and the MTP layers. */
typedef struct nds_candidate {
  size_t struct_size;
  int32_t dp;
  int32_t tp;
  int32_t pp;
  int32_t cp;
  int32_t ep;
  int32_t etp;
  int32_t vpp;
  int32_t sp;
  int32_t zero;
  int32_t op;
  int32_t mbs;
  int32_t mbn;
  nds_recompute_mode recompute;
  nds_schedule schedule;
  /* Layers of the language model (NDS_BLOCK_DECODER blocks, model order) in
   * each chunk, and the model-order index of each chunk's first layer. */
  const uint32_t* chunk_layers;
  const uint32_t* chunk_first_layer;
  /* How many of each chunk's layers are recomputed under `recompute` (all of
   * them unless a recompute strategy or the config says fewer). */
  const uint32_t* chunk_recomputed_layers;
  /* pp entries: the micro-batches whose activations rank r holds at its peak
   * (DESIGN §8.6); for the interleaved schedule counted in chunk activations. */
  const uint32_t* in_flight;
  /* Add fields only at the end. */
} nds_candidate;

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
  /* Add fields only at the end. */
} nds_compile_input;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NDSEARCH_NDS_CANDIDATE_H_INCLUDED */
