/* SPDX-License-Identifier: Apache-2.0 */
/* nds_hardware.h: "nds.hardware/1", accelerators described as plain-data tables.
 * The host copies every table once after init; nothing here is on the hot path. */
#ifndef NDSEARCH_NDS_HARDWARE_H_INCLUDED
#define NDSEARCH_NDS_HARDWARE_H_INCLUDED

#include "nds_abi.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NDS_HARDWARE_INTERFACE_ID "nds.hardware/1"

/* ---- Curves -------------------------------------------------------------------
 * Piecewise linear, `x` strictly ascending; below the first point the first `y`
 * holds, above the last point the last `y`. `count` 0 means "no curve" (the
 * reader's documented default applies). */
typedef struct nds_curve {
  size_t count;
  const double* x;
  const double* y;
} nds_curve;

/* ---- Compute peaks ------------------------------------------------------------
 * One entry per dtype the device computes matmuls in. */
typedef struct nds_dtype_peak {
  size_t struct_size;
  /* "fp32", "tf32", "bf16", "fp16" or "fp8"; other keys are kept but unused. */
  const char* dtype;
  double peak_flops_per_s; /* dense (not 2:4 sparse) peak of one device */
  /* Fraction of the peak (0, 1] a single GEMM reaches, over the FLOPs of that
   * one GEMM (2·m·n·k). No curve: the host uses a documented default. */
  nds_curve matmul_efficiency;
  /* 1.1: multiplier in (0, 1] of matmul_efficiency over the GEMM's smaller
   * output dimension min(m, n), for GEMMs too thin to fill the tiles (a short
   * k only lowers the arithmetic intensity, which the host's roofline
   * counts). No curve: 1 (no penalty). */
  nds_curve matmul_small_dim_efficiency;
  /* 1.1: fraction of this dtype's peak (0, 1] a fused (flash) causal attention
   * forward reaches, over the block's sequence length in tokens (queries =
   * keys), counting the causal FLOPs (half of 4·s²·d·heads). No curve: the
   * host's documented default. */
  nds_curve attention_forward_efficiency;
  /* 1.1: the same for the backward (2.5x the forward's FLOPs). */
  nds_curve attention_backward_efficiency;
  /* Add fields only at the end. */
} nds_dtype_peak;

/* ---- Topology -----------------------------------------------------------------
 * Levels are listed inside out (DESIGN §8.3). */
typedef int32_t nds_link_kind;
enum {
  NDS_LINK_SWITCH = 0, /* every device reaches the group at the per-device bandwidth */
  NDS_LINK_MESH = 1    /* direct links: a group of k devices uses k-1 links of a device */
};

typedef struct nds_topology_level {
  size_t struct_size;
  /* Cumulative number of devices this level joins (8 for an 8-device node);
   * 0 = unbounded (the last level). Must grow from one level to the next. */
  uint32_t group_devices;
  nds_link_kind link_kind;
  double link_bandwidth_bytes_per_s;   /* one link, one direction */
  double device_bandwidth_bytes_per_s; /* all of one device's links at this level, one direction */
  double latency_s;                    /* one message, end to end */
  const char* name;                    /* e.g. "NVLink 4 via NVSwitch"; NULL reads as "" */
  /* 1.1: fraction (0, 1] of device_bandwidth_bytes_per_s that large collectives
   * reach (nccl-tests bus bandwidth); 0 = the host's default, 0.8. */
  double bus_efficiency;
  /* 1.1: in-network reduction (NVLS, SHARP) at this level: all-reduce bus
   * bandwidth over the ring's; 0 or 1 = none, otherwise >= 1. */
  double all_reduce_speedup;
  /* 1.1: the message size (bytes of one collective's tensor) at which a
   * collective at this level reaches half its bus bandwidth beyond its latency:
   * NCCL moves a message in pipelined chunks, so mid-size messages stay below
   * the plateau (the host prices bandwidth x S / (S + half_bandwidth_bytes));
   * 0 = none (every size at the plateau). */
  double half_bandwidth_bytes;
  /* Add fields only at the end. */
} nds_topology_level;

/* ---- Device -------------------------------------------------------------------
 * A device is what holds one rank: a GPU, or one die of a multi-die NPU. */
typedef struct nds_device {
  size_t struct_size;
  const char* id;     /* stable, lower-case, e.g. "nvidia-h100-sxm" */
  const char* name;   /* display name, e.g. "NVIDIA H100 SXM5 80GB" */
  const char* vendor; /* e.g. "NVIDIA" */
  uint64_t memory_bytes;              /* HBM capacity (an "80 GB" HBM is 80 GiB) */
  double memory_bandwidth_bytes_per_s;
  uint64_t reserved_bytes;            /* runtime context + allocator, off the budget (§8.4) */
  double host_link_bytes_per_s;       /* device <-> host, one direction; 0 = unknown */
  const nds_dtype_peak* peaks;        /* `peak_count` entries, `peak_elem_size` apart */
  size_t peak_count;
  size_t peak_elem_size;
  const nds_topology_level* levels;   /* `level_count` entries, `level_elem_size` apart */
  size_t level_count;
  size_t level_elem_size;
  /* The node and network this description assumes, in words; NULL reads as "". */
  const char* assumes;
  /* Where the description came from when it is not the plugin's own code (a
   * device file, say); NULL or "" reads as the plugin's id. */
  const char* source;
  /* 1.1: achieved fraction (0, 1] of memory_bandwidth_bytes_per_s (STREAM
   * triad); 0 = the host's default, 0.85. */
  double memory_bandwidth_efficiency;
  /* 1.14: where each figure comes from, one line per figure or group of
   * figures ("peak bf16: cores x clock x ... (source)"), for `ndsearch
   * hardware ID`; NULL or "" = not stated (a writer before 1.14). */
  const char* figure_sources;
  /* 1.15: the id of the device whose fitted trainer overheads this one
   * shares: a variant that runs the same software on the same kind of cores
   * and differs in figures the model prices apart (the Atlas 900 A2 PoDc's
   * 24-core 910B shares the Atlas 800T A2's fits); NULL or "" = its own id
   * (a writer before 1.15). */
  const char* overheads_of;
  /* Add fields only at the end. */
} nds_device;

/* ---- GEMM refinement ----------------------------------------------------------
 * For what a table cannot say: a vendor's own model of one GEMM's time. */
typedef struct nds_gemm_query {
  size_t struct_size;
  const nds_device* device; /* one of this module's devices */
  const char* dtype;        /* a dtype key of nds_dtype_peak */
  uint64_t m;               /* C[m,n] = A[m,k] · B[k,n], `batch` times */
  uint64_t n;
  uint64_t k;
  uint64_t batch;
  /* Add fields only at the end. */
} nds_gemm_query;

/* [hot] Seconds of each of `count` queries, `query_stride` bytes apart, into
 * `seconds[i]`, with `codes[i]` NDS_OK or NDS_UNSUPPORTED (then the host's curve
 * is used). Pure, reentrant, no allocation, no logging. */
typedef void (*nds_estimate_gemm_fn)(const nds_gemm_query* queries, size_t count,
                                     size_t query_stride, double* seconds,
                                     nds_status_code* codes);

/* ---- Interface "nds.hardware/1" -------------------------------------------- */
typedef struct nds_hardware_v1 {
  size_t struct_size;

  /* [serialized] The devices this module describes. On success *devices points
   * to `*count` device pointers; the array and everything it reaches stay valid
   * and unchanged until shutdown. A status means none could be described (a bad
   * device file, say) and names the file, key and fix. */
  nds_status* (*get_devices)(const nds_device* const** devices, size_t* count);

  /* [hot] Optional (NULL: the host prices a GEMM as peak × efficiency curve). */
  nds_estimate_gemm_fn estimate_gemm;
  /* Add fields only at the end. */
} nds_hardware_v1;

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* NDSEARCH_NDS_HARDWARE_H_INCLUDED */
