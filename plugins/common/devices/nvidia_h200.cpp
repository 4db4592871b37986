// SPDX-License-Identifier: Apache-2.0
// h200.cpp: NVIDIA H200 SXM 141GB in a DGX/HGX H200: the H100's GH100 compute
// and NVLink with more and faster memory.
// Source: NVIDIA H200 Tensor Core GPU data sheet.
#include "plugins/common/devices/nvidia.hpp"

namespace ndsearch::plugins::nvidia {

sdk::Device h200() {
  sdk::Device d;
  d.id = "nvidia-h200";
  d.name = "NVIDIA H200 SXM 141GB";
  d.vendor = "NVIDIA";
  d.memory_bytes = uint64_t{141} << 30;  // "141GB HBM3e", read as GiB (DESIGN §8.5)
  d.memory_bandwidth_bytes_per_s = 4.8e12;  // 4.8 TB/s
  d.reserved_bytes = kCudaReservedBytes;
  d.host_link_bytes_per_s = 64.0e9;  // PCIe Gen5 x16, per direction
  d.peaks = gh100_peaks();           // 989.4 TFLOP/s dense bf16, as H100 SXM
  d.levels = dgx_h100_levels();
  d.assumes =
      "DGX H200 node: 8 GPUs on NVSwitch (NVLink 4, 450 GB/s per direction per GPU); one "
      "400 Gb/s NDR InfiniBand NIC per GPU between nodes";
  return d;
}

}  // namespace ndsearch::plugins::nvidia
