// SPDX-License-Identifier: Apache-2.0
// routing.hpp: the routing an estimate assumes (`routing`, --routing):
// balanced (every expert gets its share), a Zipf skew, or the tokens each
// routed expert got from a router's statistics; and what it means at each
// expert-parallel degree: the routed rows the most loaded EP rank receives
// over an even share (nds_training.expert_rank_load, ABI 1.13), which the
// time model and the memory passes price the slowest rank by
// (sdk::routed_rank_load).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ndsearch {

class Model;

struct Routing {
  enum class Kind { balanced, zipf, histogram };
  Kind kind = Kind::balanced;
  double zipf_exponent = 0;    // Kind::zipf: expert k of E (by load) gets 1/k^s of the tokens
  std::vector<double> tokens;  // Kind::histogram: per routed expert, in expert order
  std::string source;          // what it came from, for the assumptions: "zipf:1.2", a file
};

// The largest Zipf exponent accepted: at 3 the hottest expert of 256 takes
// 83 % of the tokens, beyond any router trained with load balancing.
inline constexpr double kMaxZipfExponent = 3;

// `spec`: "balanced", "zipf:S" with 0 <= S <= kMaxZipfExponent, or the path
// of a text file of non-negative token counts, one per routed expert in
// expert order, separated by commas, spaces or new lines ('#' starts a
// comment). Throws UserError E-ROUTING naming the setting or the file (and
// line), the value and what is expected: an unknown spec, an exponent out of
// range, a count that is not a finite number >= 0, an all-zero histogram.
Routing read_routing(const std::string& spec);

// The most loaded of `ranks` EP ranks (each holding a contiguous run of
// experts, as Megatron-Core, MindSpeed and MindFormers place them) over an
// even share: max over ranks of their experts' load / (total / ranks).
// `loads` must divide into `ranks` runs.
double hottest_rank_load(const std::vector<double>& loads, int64_t ranks);

// The same expected over random placements of the experts (a Zipf skew says
// how loaded the experts are, not which): the mean over 512 placements drawn
// with a fixed seed (the same on every platform).
double expected_hottest_rank_load(const std::vector<double>& loads, int64_t ranks);

// Fills the model's table of expert_rank_load for every ep dividing its
// routed experts, and the words the assumptions give. Throws UserError
// E-ROUTING when a histogram's length is not the routed experts (naming the
// file, its count and the model's), or when the model's MoE blocks have
// different expert counts and a histogram is given.
void apply_routing(Model& model, const Routing& routing);

}  // namespace ndsearch
