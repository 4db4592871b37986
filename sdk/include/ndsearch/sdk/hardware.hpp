// SPDX-License-Identifier: Apache-2.0
// hardware.hpp: write a "nds.hardware/1" plugin as C++ values; the SDK owns
// the C tables behind them until shutdown.
#ifndef NDSEARCH_SDK_HARDWARE_HPP_INCLUDED
#define NDSEARCH_SDK_HARDWARE_HPP_INCLUDED

#include <ndsearch/nds_hardware.h>
#include <ndsearch/sdk/device.hpp>
#include <ndsearch/sdk/plugin.hpp>

#include <deque>   // stable addresses of the owned devices
#include <vector>  // owned arrays

namespace ndsearch::sdk {

// Owns C views of Devices; the pointers it hands out live as long as it does.
class DeviceTable {
 public:
  void add(Device device) {
    for (const DtypePeak& p : device.peaks) {  // checked before anything is kept
      check_curve(device, p, "matmul_efficiency", p.matmul_efficiency);
      check_curve(device, p, "matmul_small_dim_efficiency", p.matmul_small_dim_efficiency);
      check_curve(device, p, "attention_forward_efficiency", p.attention_forward_efficiency);
      check_curve(device, p, "attention_backward_efficiency", p.attention_backward_efficiency);
    }
    Owned& owned = owned_.emplace_back();
    owned.source = std::move(device);
    const Device& d = owned.source;
    for (const DtypePeak& p : d.peaks) {
      nds_dtype_peak c{};
      c.struct_size = sizeof(nds_dtype_peak);
      c.dtype = p.dtype.c_str();
      c.peak_flops_per_s = p.peak_flops_per_s;
      c.matmul_efficiency = view(p.matmul_efficiency);
      c.matmul_small_dim_efficiency = view(p.matmul_small_dim_efficiency);
      c.attention_forward_efficiency = view(p.attention_forward_efficiency);
      c.attention_backward_efficiency = view(p.attention_backward_efficiency);
      owned.peaks.push_back(c);
    }
    for (const TopologyLevel& l : d.levels) {
      nds_topology_level c{};
      c.struct_size = sizeof(nds_topology_level);
      c.group_devices = l.group_devices;
      c.link_kind = l.link_kind;
      c.link_bandwidth_bytes_per_s = l.link_bandwidth_bytes_per_s;
      c.device_bandwidth_bytes_per_s = l.device_bandwidth_bytes_per_s;
      c.latency_s = l.latency_s;
      c.name = l.name.c_str();
      c.bus_efficiency = l.bus_efficiency;
      c.all_reduce_speedup = l.all_reduce_speedup;
      c.half_bandwidth_bytes = l.half_bandwidth_bytes;
      owned.levels.push_back(c);
    }
    nds_device& c = owned.device;
    c = nds_device{};
    c.struct_size = sizeof(nds_device);
    c.id = d.id.c_str();
    c.name = d.name.c_str();
    c.vendor = d.vendor.c_str();
    c.memory_bytes = d.memory_bytes;
    c.memory_bandwidth_bytes_per_s = d.memory_bandwidth_bytes_per_s;
    c.reserved_bytes = d.reserved_bytes;
    c.host_link_bytes_per_s = d.host_link_bytes_per_s;
    c.peaks = owned.peaks.data();
    c.peak_count = owned.peaks.size();
    c.peak_elem_size = sizeof(nds_dtype_peak);
    c.levels = owned.levels.data();
    c.level_count = owned.levels.size();
    c.level_elem_size = sizeof(nds_topology_level);
    c.assumes = d.assumes.c_str();
    c.source = d.source.c_str();
    c.memory_bandwidth_efficiency = d.memory_bandwidth_efficiency;
    c.figure_sources = d.figure_sources.c_str();
    c.overheads_of = d.overheads_of.c_str();
    pointers_.push_back(&c);
  }
  const nds_device* const* data() const noexcept { return pointers_.data(); }
  size_t size() const noexcept { return pointers_.size(); }

 private:
  static void check_curve(const Device& device, const DtypePeak& peak, const char* name,
                          const Curve& c) {
    if (c.x.size() != c.y.size())
      throw Error(NDS_INVALID_ARGUMENT, "device " + device.id + ": the " + peak.dtype + " " + name +
                                            " curve has " + std::to_string(c.x.size()) +
                                            " x values but " + std::to_string(c.y.size()) +
                                            " y values");
  }
  static nds_curve view(const Curve& c) noexcept { return {c.x.size(), c.x.data(), c.y.data()}; }

  struct Owned {
    Device source;
    std::vector<nds_dtype_peak> peaks;
    std::vector<nds_topology_level> levels;
    nds_device device;
  };
  std::deque<Owned> owned_;  // a deque never moves what it holds
  std::vector<const nds_device*> pointers_;
};

// Derive from it and return the devices. describe() runs at the first
// get_devices, and again whenever an option it read (through host().option)
// has another value at a later get_devices (another live run that shares the
// module, with another --device-file): each description is kept, with the
// options it read, until shutdown, so the tables handed out stay valid and a
// run whose options match an earlier description gets that one again. A
// throw there becomes the call's status (and the next call describes again).
class HardwarePlugin : public virtual Plugin {
 public:
  virtual std::vector<Device> describe() = 0;

 protected:
  HardwarePlugin() {
    self() = this;
    offer(NDS_HARDWARE_INTERFACE_ID, &table_);
  }
  ~HardwarePlugin() override { self() = nullptr; }

 private:
  struct Description {
    Host::OptionsRead options_read;  // by describe(), with the values it saw
    DeviceTable devices;
  };

  static HardwarePlugin*& self() noexcept {
    static HardwarePlugin* plugin = nullptr;
    return plugin;
  }
  static nds_status* get_devices(const nds_device* const** devices, size_t* count) noexcept {
    return guard([&] {
      const DeviceTable& table = self()->description_for_these_options().devices;
      *devices = table.data();
      *count = table.size();
    });
  }
  // get_devices is [serialized]: no two calls here at once.
  const Description& description_for_these_options() {
    for (const Description& d : descriptions_)
      if (host().still_reads(d.options_read)) return d;
    Description& d = descriptions_.emplace_back();
    try {
      std::vector<Device> described;
      {
        const Host::Recording recording(d.options_read);
        described = describe();
      }
      for (Device& device : described) d.devices.add(std::move(device));
    } catch (...) {
      descriptions_.pop_back();
      throw;
    }
    return d;
  }
  nds_hardware_v1 table_ = {sizeof(nds_hardware_v1), &get_devices, nullptr};
  std::deque<Description> descriptions_;  // a deque never moves what it holds
};

}  // namespace ndsearch::sdk

#endif  // NDSEARCH_SDK_HARDWARE_HPP_INCLUDED
