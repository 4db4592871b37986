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

// The i-th item of a batch written by a host that may know a longer item.
template <class Item>
Item& item_at(Item* items, size_t i, size_t item_stride) noexcept {
  return *reinterpret_cast<Item*>(reinterpret_cast<char*>(items) + i * item_stride);
}

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
  static void release(Opaque* compiled) noexcept { delete reinterpret_cast<Compiled*>(compiled); }
  // The evaluate of the C table: one `Out` view per item, `Compiled::evaluate`
  // inlined into the loop.
  template <class Out, class Item>
  static void evaluate(const Opaque* compiled, Item* items, size_t count,
                       size_t item_stride) noexcept {
    const Compiled& c = *reinterpret_cast<const Compiled*>(compiled);
    for (size_t i = 0; i < count; ++i) {
      Out out(item_at(items, i, item_stride));
      static_assert(noexcept(c.evaluate(out)),
                    "Compiled::evaluate runs on the hot path: declare it noexcept");
      c.evaluate(out);
    }
  }
};

}  // namespace ndsearch::sdk::detail

#endif  // NDSEARCH_SDK_COMPILED_HPP_INCLUDED
