/* SPDX-License-Identifier: Apache-2.0 */
/* nds_abi_probe.c: one exported function per public struct of the stable ABI,
 * so that abidw records each type and abidiff reports a change to any of them
 * against abi/baseline/ (one probe per type keeps suppressions per type).
 * Draft kinds are left out on purpose: they are not part of the baseline. */
#include <ndsearch/nds.h>

#define NDS_PROBE(T) \
  NDS_EXPORT size_t nds_abi_probe_##T(const T* value) { return value->struct_size; }

NDS_PROBE(nds_host)
NDS_PROBE(nds_module)
NDS_PROBE(nds_dtype_peak)
NDS_PROBE(nds_topology_level)
NDS_PROBE(nds_device)
NDS_PROBE(nds_gemm_query)
NDS_PROBE(nds_hardware_v1)
NDS_PROBE(nds_strategy)
NDS_PROBE(nds_layer_block)
NDS_PROBE(nds_training)
NDS_PROBE(nds_model)
NDS_PROBE(nds_candidate)
NDS_PROBE(nds_compile_input)
NDS_PROBE(nds_memory_item)
NDS_PROBE(nds_memory_v1)
NDS_PROBE(nds_cp_comm)
NDS_PROBE(nds_cp_item)
NDS_PROBE(nds_cp_attention_v1)
NDS_PROBE(nds_recompute_group)
NDS_PROBE(nds_recompute_rank)
NDS_PROBE(nds_recompute_item)
NDS_PROBE(nds_recompute_v1)
NDS_PROBE(nds_provenance)
NDS_PROBE(nds_builder_v1)
NDS_PROBE(nds_parser_v1)
NDS_PROBE(nds_applied_strategy)
NDS_PROBE(nds_text_sink)

/* The structs without struct_size (they never grow): probed by value. */
NDS_EXPORT size_t nds_abi_probe_nds_str(nds_str value) { return value.size; }
NDS_EXPORT size_t nds_abi_probe_nds_curve(nds_curve value) { return value.count; }
NDS_EXPORT double nds_abi_probe_nds_recompute_option_cost(nds_recompute_option_cost value) {
  return value.saved_bytes;
}
