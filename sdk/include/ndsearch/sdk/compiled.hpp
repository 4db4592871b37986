// SPDX-License-Identifier: Apache-2.0
// compiled.hpp: the glue every compile-once kind (memory pass, CP attention
// model) shares: owning the compiled object across the C ABI and walking a
// batch whose items are `item_stride` bytes apart.
#ifndef NDSEARCH_SDK_COMPILED_HPP_INCLUDED
#define NDSEARCH_SDK_COMPILED_HPP_INCLUDED

#include <ndsearch/nds_candidate.h>
#include <ndsearch/sdk/plugin.hpp>

#include <memory>  // std::unique_ptr

namespace ndsearch::sdk::detail {

// `Opaque` is the C handle type (nds_memory_compiled, ...): the handle is the
// address of the C++ object, owned by the host between compile and release.
template <class Compiled, class Opaque>
struct CompiledGlue {
  static nds_status* compile(const nds_compile_input* input, Opaque** out) noexcept {
    *out = nullptr;
    return guard([&] {
      std::unique_ptr<Compiled> compiled = Compiled::compile(*input);
      *out = reinterpret_cast<Opaque*>(compiled.release());
    });
  }
  static void release(Opaque* compiled) noexcept {
    delete reinterpret_cast<Compiled*>(compiled);
  }
  static const Compiled* unwrap(const Opaque* compiled) noexcept {
    return reinterpret_cast<const Compiled*>(compiled);
  }
};

// The i-th item of a batch written by a host that may know a longer item.
template <class Item>
Item& item_at(Item* items, size_t i, size_t item_stride) noexcept {
  return *reinterpret_cast<Item*>(reinterpret_cast<char*>(items) + i * item_stride);
}

}  // namespace ndsearch::sdk::detail

#endif  // NDSEARCH_SDK_COMPILED_HPP_INCLUDED
