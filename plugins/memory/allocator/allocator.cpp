// SPDX-License-Identifier: Apache-2.0
// allocator.cpp: the `allocator` memory pass (phase 2, after the others): the
// share of each rank's dynamic memory (activations and communication buffers,
// which are allocated and freed every micro-batch; the static parameters and
// optimizer states do not fragment) that the runtime's allocator holds
// reserved beyond the tensors at the peak. The host gives the share of the
// model's trainer (nds_compile_input.allocator_fraction, ABI 1.10: the fit of
// its runtime's allocator on measured peaks, docs/validation.md); a host
// before 1.10 gives none, and the pass takes
// 10 %, its figure then. Option "allocator-fragmentation" (a fraction, e.g.
// 0.05) overrides both. The runtime's own reserve (context, communicators)
// is not counted here: the budget takes the device's reserved bytes
// (DESIGN §8.4).
#include <ndsearch/sdk/memory.hpp>

#include <cstdlib>
#include <memory>
#include <string>

namespace {

class Allocator {
 public:
  static std::unique_ptr<Allocator> compile(const nds_compile_input& input) {
    auto a = std::make_unique<Allocator>();
    if (NDS_HAS_FIELD(&input, nds_compile_input, allocator_fraction)) {
      if (!(input.allocator_fraction >= 0 && input.allocator_fraction < 1))
        throw ndsearch::sdk::Error(NDS_INVALID_ARGUMENT,
                                   "the host's allocator_fraction " +
                                       std::to_string(input.allocator_fraction) +
                                       " is not a fraction in [0, 1)");
      a->fraction_ = input.allocator_fraction;
    }
    if (auto option = ndsearch::sdk::host().option("allocator-fragmentation")) {
      char* end = nullptr;
      const double fraction = std::strtod(option->c_str(), &end);
      if (end == option->c_str() || *end != '\0' || !(fraction >= 0 && fraction < 1))
        throw ndsearch::sdk::Error(NDS_INVALID_ARGUMENT,
                                   "option allocator-fragmentation = " + *option +
                                       ": expected a fraction in [0, 1), e.g. 0.1");
      a->fraction_ = fraction;
    }
    return a;
  }

  void evaluate(ndsearch::sdk::MemoryOut& out) const noexcept {
    for (int32_t rank = 0; rank < out.ranks(); ++rank) {
      const double dynamic =
          out.prior(rank, NDS_MEMORY_ACTIVATIONS) + out.prior(rank, NDS_MEMORY_COMM_BUFFERS);
      out.add(rank, NDS_MEMORY_OTHER, fraction_ * dynamic);
    }
  }

 private:
  double fraction_ = 0.10;  // a host before 1.10: the pass's own figure then
};

class Plugin final : public ndsearch::sdk::MemoryPassPlugin<Allocator, /*Phase=*/2> {};

}  // namespace

NDS_SDK_MODULE(Plugin, "allocator", "1.1.0",
               "Memory: the allocator's reserve beyond the dynamic memory")
