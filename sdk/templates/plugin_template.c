/* SPDX-License-Identifier: Apache-2.0 */
/* plugin_template.c: a hardware plugin in plain C, with no SDK: one made-up
 * accelerator described as static tables. Copy it, change the figures (cite a
 * source beside each), build it with nds_add_plugin(), then check it with
 * `ndsearch plugins check ./example_npu.so`. */
#include <ndsearch/nds_hardware.h>

#include <string.h> /* strcmp */

/* Fraction of the dense peak one GEMM reaches, by its FLOPs (2·m·n·k). */
static const double efficiency_flops[] = {1.0e9, 1.0e11, 1.0e13};
static const double efficiency_fraction[] = {0.30, 0.65, 0.80};

static const nds_dtype_peak peaks[] = {
    {sizeof(nds_dtype_peak), "bf16", 400.0e12, {3, efficiency_flops, efficiency_fraction}},
    {sizeof(nds_dtype_peak), "fp32", 100.0e12, {0, NULL, NULL}},
};

/* 8 devices on a switch in a node, then a network between nodes. */
static const nds_topology_level levels[] = {
    {sizeof(nds_topology_level), 8, NDS_LINK_SWITCH, 100.0e9, 400.0e9, 3.0e-6, "node switch"},
    {sizeof(nds_topology_level), 0, NDS_LINK_SWITCH, 50.0e9, 50.0e9, 8.0e-6, "400 Gb/s network"},
};

static const nds_device example_npu = {
    sizeof(nds_device),
    "example-npu",
    "Example NPU (template)",
    "Example Vendor",
    (uint64_t)96 << 30, /* 96 GiB of HBM */
    2.4e12,             /* HBM bytes/s */
    (uint64_t)2 << 30,  /* runtime context + allocator reserve */
    32.0e9,             /* host link bytes/s per direction */
    peaks,
    sizeof peaks / sizeof peaks[0],
    sizeof(nds_dtype_peak),
    levels,
    sizeof levels / sizeof levels[0],
    sizeof(nds_topology_level),
    "8 NPUs per node on one switch; one 400 Gb/s NIC per NPU between nodes",
};

static const nds_device* const devices[] = {&example_npu};

static nds_status* get_devices(const nds_device* const** out, size_t* count) {
  *out = devices;
  *count = sizeof devices / sizeof devices[0];
  return NULL;
}

static const nds_hardware_v1 hardware = {sizeof(nds_hardware_v1), get_devices, NULL};

static nds_status* init(const nds_host* host, const char* module_path) {
  (void)host;
  (void)module_path;
  return NULL;
}

static const void* get_interface(const char* interface_id) {
  return strcmp(interface_id, NDS_HARDWARE_INTERFACE_ID) == 0 ? &hardware : NULL;
}

NDS_EXPORT const nds_module* nds_get_module(void) {
  static const nds_module module = {sizeof(nds_module), NDS_ABI_MAJOR, NDS_ABI_MINOR,
                                    "example-npu",      "1.0.0",       init,
                                    NULL,               get_interface, "Template: one made-up NPU in plain C"};
  return &module;
}
