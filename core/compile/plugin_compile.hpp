// SPDX-License-Identifier: Apache-2.0
// plugin_compile.hpp: the host's side of a compile-once plugin's compile
// and release (nds.memory/1, nds.cp_attention/1, nds.recompute/1): the
// compile input of (model, device), and each call under its module's lock
// of that function (the ABI's [serialized] tag, serialized_calls.hpp).
#pragma once

#include <ndsearch/sdk/hardware.hpp>  // DeviceTable: the device as the ABI's table

#include <mutex>

#include "core/compile/allocator_share.hpp"
#include "core/hardware/device.hpp"
#include "core/model/model.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/support/status.hpp"

namespace ndsearch {

// `table`'s compile of `model` on `device` into `*compiled`; the status it
// returned (null: compiled).
template <class Table, class Compiled>
StatusPtr compile_plugin(const LoadedPlugin& plugin, const Table& table,
                         std::mutex SerializedCalls::*lock, Model& model, const Device& device,
                         Compiled** compiled) {
  sdk::DeviceTable devices;
  devices.add(device);
  const nds_compile_input input = compile_input(model, devices.data()[0]);
  const SerializedCall call = serialized_call(plugin, lock);
  return StatusPtr(table.compile(&input, compiled));
}

// `table`'s release of what its compile made (nothing when it made nothing
// or has no release).
template <class Table, class Compiled>
void release_plugin(const LoadedPlugin& plugin, const Table& table,
                    std::mutex SerializedCalls::*lock, Compiled* compiled) {
  if (compiled == nullptr || table.release == nullptr) return;
  const SerializedCall call = serialized_call(plugin, lock);
  table.release(compiled);
}

}  // namespace ndsearch
