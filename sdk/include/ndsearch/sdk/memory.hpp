// SPDX-License-Identifier: Apache-2.0
// memory.hpp: write a "nds.memory/1" pass as a C++ class compiled once per
// (model, device) whose per-candidate method the SDK calls on the hot path,
// inlined, without allocation.
#ifndef NDSEARCH_SDK_MEMORY_HPP_INCLUDED
#define NDSEARCH_SDK_MEMORY_HPP_INCLUDED

#include <ndsearch/nds_memory.h>
#include <ndsearch/sdk/compiled.hpp>

namespace ndsearch::sdk {

// What one pass writes for one candidate: bytes per pipeline rank and term.
class MemoryOut {
 public:
  explicit MemoryOut(nds_memory_item& item) noexcept : item_(item) {}
  const nds_candidate& candidate() const noexcept { return *item_.candidate; }
  const nds_strategy& strategy() const noexcept { return *item_.candidate->strategy; }
  int32_t ranks() const noexcept { return item_.candidate->strategy->pp; }
  // Adds bytes of `term` to `rank`; a term this host does not know is dropped.
  void add(int32_t rank, nds_memory_term term, double bytes) noexcept {
    if (static_cast<uint32_t>(term) < item_.term_count)
      item_.bytes[static_cast<size_t>(rank) * item_.term_count + static_cast<uint32_t>(term)] +=
          bytes;
  }
  // What the passes of lower phases put in `rank` for `term`.
  double prior(int32_t rank, nds_memory_term term) const noexcept {
    if (static_cast<uint32_t>(term) >= item_.term_count) return 0;
    return item_
        .prior_bytes[static_cast<size_t>(rank) * item_.term_count + static_cast<uint32_t>(term)];
  }
  // Refuses the candidate with a static reason.
  void refuse(nds_status_code code, const char* static_reason) noexcept {
    item_.code = code;
    item_.reason = static_reason;
  }

 private:
  nds_memory_item& item_;
};

// `Compiled` needs:
//   static std::unique_ptr<Compiled> compile(const nds_compile_input&);  (may throw)
//   void evaluate(MemoryOut&) const noexcept;                           (hot)
//   `Phase`: passes run by ascending phase (a higher one reads prior_bytes);
//   `Flags`: NDS_FLAG_NOT_REENTRANT when evaluate must not run on two threads.
template <class Compiled, int32_t Phase = 0, uint64_t Flags = 0>
class MemoryPassPlugin : public virtual Plugin {
 protected:
  MemoryPassPlugin() { offer(NDS_MEMORY_INTERFACE_ID, &table_); }

 private:
  using Glue = detail::CompiledGlue<Compiled, nds_memory_compiled>;
  nds_memory_v1 table_ = {
      sizeof(nds_memory_v1), &Glue::compile, &Glue::template evaluate<MemoryOut, nds_memory_item>,
      &Glue::release,        Phase,          Flags};
};

}  // namespace ndsearch::sdk

#endif  // NDSEARCH_SDK_MEMORY_HPP_INCLUDED
