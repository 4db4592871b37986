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

/* Designated initializers: a field a later ABI minor appends reads as zero
 * (its documented default) and -Wextra stays quiet when you rebuild. */
static const nds_dtype_peak peaks[] = {
    {.struct_size = sizeof(nds_dtype_peak),
     .dtype = "bf16",
     .peak_flops_per_s = 400.0e12,
     .matmul_efficiency = {.count = 3, .x = efficiency_flops, .y = efficiency_fraction}},
    {.struct_size = sizeof(nds_dtype_peak), .dtype = "fp32", .peak_flops_per_s = 100.0e12},
};

/* 8 devices on a switch in a node, then a network between nodes. */
static const nds_topology_level levels[] = {
    {.struct_size = sizeof(nds_topology_level),
     .group_devices = 8,
     .link_kind = NDS_LINK_SWITCH,
     .link_bandwidth_bytes_per_s = 100.0e9,
     .device_bandwidth_bytes_per_s = 400.0e9,
     .latency_s = 3.0e-6,
     .name = "node switch"},
    {.struct_size = sizeof(nds_topology_level),
     .group_devices = 0, /* unbounded: the network */
     .link_kind = NDS_LINK_SWITCH,
     .link_bandwidth_bytes_per_s = 50.0e9,
     .device_bandwidth_bytes_per_s = 50.0e9,
     .latency_s = 8.0e-6,
     .name = "400 Gb/s network"},
};

static const nds_device example_npu = {
    .struct_size = sizeof(nds_device),
    .id = "example-npu",
    .name = "Example NPU (template)",
    .vendor = "Example Vendor",
    .memory_bytes = (uint64_t)96 << 30, /* 96 GiB of HBM */
    .memory_bandwidth_bytes_per_s = 2.4e12,
    .reserved_bytes = (uint64_t)2 << 30, /* runtime context + allocator reserve */
    .host_link_bytes_per_s = 32.0e9,
    .peaks = peaks,
    .peak_count = sizeof peaks / sizeof peaks[0],
    .peak_elem_size = sizeof(nds_dtype_peak),
    .levels = levels,
    .level_count = sizeof levels / sizeof levels[0],
    .level_elem_size = sizeof(nds_topology_level),
    .assumes = "8 NPUs per node on one switch; one 400 Gb/s NIC per NPU between nodes",
};

static const nds_device* const devices[] = {&example_npu};

static nds_status* get_devices(const nds_device* const** out, size_t* count) {
  *out = devices;
  *count = sizeof devices / sizeof devices[0];
  return NULL;
}

static const nds_hardware_v1 hardware = {.struct_size = sizeof(nds_hardware_v1),
                                         .get_devices = get_devices};

static nds_status* init(const nds_host* host, const char* module_path) {
  (void)host;
  (void)module_path;
  return NULL;
}

static const void* get_interface(const char* interface_id) {
  return strcmp(interface_id, NDS_HARDWARE_INTERFACE_ID) == 0 ? &hardware : NULL;
}

NDS_EXPORT const nds_module* nds_get_module(void) {
  static const nds_module module = {.struct_size = sizeof(nds_module),
                                    .abi_major = NDS_ABI_MAJOR,
                                    .abi_minor = NDS_ABI_MINOR,
                                    .id = "example-npu",
                                    .version = "1.0.0",
                                    .init = init,
                                    .get_interface = get_interface,
                                    .description = "Template: one made-up NPU in plain C",
                                    /* It reads no options at all, so none at init: one
                                     * initialisation may serve runs with any options
                                     * (docs/plugin-guide.md, "Init, shutdown and options"). */
                                    .flags = NDS_MODULE_OPTIONS_PER_CALL};
  return &module;
}
