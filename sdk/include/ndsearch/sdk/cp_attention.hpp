// SPDX-License-Identifier: Apache-2.0
// cp_attention.hpp: write a "nds.cp_attention/1" model as a C++ class compiled
// once per (model, device), evaluated per (candidate, block) on the hot path.
#ifndef NDSEARCH_SDK_CP_ATTENTION_HPP_INCLUDED
#define NDSEARCH_SDK_CP_ATTENTION_HPP_INCLUDED

#include <ndsearch/nds_cp_attention.h>
#include <ndsearch/sdk/compiled.hpp>

#include <algorithm>  // std::min
#include <cstring>    // std::memcpy

namespace ndsearch::sdk {

// What one CP model writes for one (candidate, block).
class CpOut {
 public:
  explicit CpOut(nds_cp_item& item) noexcept : item_(item) {}
  const nds_candidate& candidate() const noexcept { return *item_.candidate; }
  const nds_strategy& strategy() const noexcept { return *item_.candidate->strategy; }
  uint32_t block_index() const noexcept { return item_.block_index; }
  // Appends one collective; false when the host gave no room for it. Writes
  // no more than the host's element size (an older host knows fewer fields).
  bool add(const nds_cp_comm& comm) noexcept {
    if (item_.comm_count >= item_.comm_capacity) return false;
    const size_t size = std::min(item_.comm_elem_size, sizeof(nds_cp_comm));
    nds_cp_comm stamped = comm;
    stamped.struct_size = size;
    std::memcpy(&detail::item_at(item_.comms, item_.comm_count, item_.comm_elem_size), &stamped,
                size);
    ++item_.comm_count;
    return true;
  }
  void add_activation_bytes(double bytes) noexcept { item_.extra_activation_bytes += bytes; }
  void refuse(const char* static_reason) noexcept {
    item_.code = NDS_INFEASIBLE;
    item_.reason = static_reason;
  }

 private:
  nds_cp_item& item_;
};

// `Compiled` needs:
//   static std::unique_ptr<Compiled> compile(const nds_compile_input&);  (may throw)
//   void evaluate(CpOut&) const noexcept;                               (hot)
//   `flags`: NDS_FLAG_NOT_REENTRANT when evaluate must not run on two threads.
template <class Compiled>
class CpAttentionPlugin : public virtual Plugin {
 protected:
  explicit CpAttentionPlugin(const char* algorithm, uint64_t flags = 0) {
    table_.algorithm = algorithm;
    table_.flags = flags;
    offer(NDS_CP_ATTENTION_INTERFACE_ID, &table_);
  }

 private:
  using Glue = detail::CompiledGlue<Compiled, nds_cp_compiled>;
  nds_cp_attention_v1 table_ = {sizeof(nds_cp_attention_v1),
                                nullptr,
                                &Glue::compile,
                                &Glue::template evaluate<CpOut, nds_cp_item>,
                                &Glue::release,
                                0};
};

}  // namespace ndsearch::sdk

#endif  // NDSEARCH_SDK_CP_ATTENTION_HPP_INCLUDED
