// SPDX-License-Identifier: Apache-2.0
#include "core/strategy/placement.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>
#include <ndsearch/sdk/stage_split.hpp>

#include <algorithm>
#include <array>
#include <numeric>

#include "core/model/towers.hpp"
#include "core/strategy/stage_rescale.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {

nds_candidate Placement::candidate() const {
  return {sizeof(nds_candidate),
          &strategy,
          chunk_layers.data(),
          chunk_first_layer.data(),
          chunk_recomputed_layers.data(),
          in_flight.data(),
          layer_option.empty() ? nullptr : layer_option.data()};
}

void default_split_into(uint32_t layers, uint32_t pp, uint32_t vpp, std::vector<uint32_t>& split,
                        std::vector<int64_t>& offset) {
  // offset[chunk·pp + stage] (row-major), as the reference's balancing adapter builds it.
  const uint32_t chunks = pp * vpp;
  offset.assign(chunks, 0);
  auto at = [&](int64_t row, int64_t col) -> int64_t& {
    return offset[static_cast<size_t>(row * pp + col)];
  };
  int64_t rest = layers % chunks;
  if (vpp > 1) {
    for (int64_t row = static_cast<int64_t>(vpp) - 2; row >= 0 && rest > 0; --row)
      for (int64_t col = static_cast<int64_t>(pp) - 2; col >= 0 && rest > 0; --col, --rest)
        at(row, col) = 1;
    if (at(0, 0) == 1) {
      at(0, 0) = 0;
      at(vpp - 1, pp - 1) += 1;
    }
  }
  // make_valid: bring the sum to L % (p·v), smallest entries first (largest
  // first when over), in row-major order.
  int64_t delta = static_cast<int64_t>(layers % chunks) -
                  std::accumulate(offset.begin(), offset.end(), int64_t{0});
  while (delta != 0) {
    auto it = delta > 0 ? std::min_element(offset.begin(), offset.end())
                        : std::max_element(offset.begin(), offset.end());
    *it += delta > 0 ? 1 : -1;
    delta += delta > 0 ? -1 : 1;
  }
  const uint32_t per = layers / chunks;
  split.resize(chunks);
  for (uint32_t i = 0; i < chunks; ++i) split[i] = per + static_cast<uint32_t>(offset[i]);
}

bool trainer_split_exists(const nds_training& t, int64_t layers, int64_t pp, int64_t per_rank) {
  switch (t.stage_split) {
    case NDS_SPLIT_FIRST_LAST: return sdk::first_last_split_exists(layers, pp, per_rank);
    case NDS_SPLIT_EDGES_WEIGHTED:
      return sdk::edges_weighted_split_exists(layers, pp * per_rank, t.stage_split_edge_layers) &&
             sdk::edges_weighted_stages_reachable(layers, pp, per_rank, t.stage_split_edge_layers);
    default: return true;
  }
}

void trainer_split_into(const nds_training& t, uint32_t layers, uint32_t pp, uint32_t per_rank,
                        std::vector<uint32_t>& split, std::vector<int64_t>& scratch) {
  bool made = true;
  switch (t.stage_split) {
    case NDS_SPLIT_FIRST_LAST: made = sdk::first_last_split(layers, pp, per_rank, scratch); break;
    case NDS_SPLIT_EDGES_WEIGHTED:
      made = sdk::edges_weighted_split(layers, int64_t{pp} * per_rank, t.stage_split_edge_layers,
                                       scratch);
      break;
    case NDS_SPLIT_PADDED: made = sdk::padded_split(layers, int64_t{pp} * per_rank, scratch); break;
    default: default_split_into(layers, pp, per_rank, split, scratch); return;
  }
  if (!made)
    throw UserError("E-PLACEMENT",
                    fmt::format("the trainer's split cannot place {} layers on pp = {} ranks of {} "
                                "chunks each",
                                layers, pp, per_rank));
  split.assign(scratch.begin(), scratch.end());
}

std::vector<uint32_t> default_split(uint32_t layers, uint32_t pp, uint32_t vpp) {
  std::vector<uint32_t> split;
  std::vector<int64_t> offset;
  default_split_into(layers, pp, vpp, split, offset);
  return split;
}

std::vector<uint32_t> micro_batches_in_flight(const nds_strategy& s) {
  std::vector<uint32_t> held;
  micro_batches_in_flight_into(s, held);
  return held;
}

void micro_batches_in_flight_into(const nds_strategy& s, std::vector<uint32_t>& held) {
  const auto p = static_cast<uint32_t>(s.pp), v = static_cast<uint32_t>(s.vpp),
             m = static_cast<uint32_t>(s.mbn);
  held.assign(static_cast<size_t>(p) * v, 0);
  for (uint32_t r = 0; r < p; ++r) {
    uint32_t* rank = &held[static_cast<size_t>(r) * v];
    switch (s.schedule) {
      case NDS_SCHEDULE_GPIPE:
        for (uint32_t c = 0; c < v; ++c) rank[c] = m;  // every forward before any backward
        break;
      case NDS_SCHEDULE_INTERLEAVED: {
        // Megatron's interleaved warm-up runs (p - r - 1)·2 + (v - 1)·p forward
        // chunk steps, then one more at the peak; step k runs chunk (k / p) mod v.
        // Counted in closed form: each full cycle of p·v steps gives every
        // chunk p; the rest R gives chunk c min(p, R - c·p) when positive.
        // In 64 bits: mbn·vpp reaches 2^24·2^24 (the checks bound pp·vpp by
        // the layers, not mbn), and the warm-up is at most p·v + 2p.
        const auto steps = static_cast<uint32_t>(
            std::min<uint64_t>((p - r - 1) * 2 + (v - 1) * p + 1, static_cast<uint64_t>(m) * v));
        const uint32_t cycles = steps / (p * v), rest = steps % (p * v);
        for (uint32_t c = 0; c < v; ++c) {
          const uint32_t partial = rest > c * p ? std::min(p, rest - c * p) : 0;
          rank[c] = std::min(cycles * p + partial, m);
        }
        break;
      }
      case NDS_SCHEDULE_ZB_V:
        // ZB-V (Qi et al. 2024) as the reference prices it (§5.7): the first
        // chunk holds 2·min(p, m) - 1 - r micro-batches, the second r; at least one.
        rank[0] = std::max<uint32_t>(1, 2 * std::min(p, m) - 1 - r);
        rank[1] = std::max<uint32_t>(1, r);
        break;
      case NDS_SCHEDULE_DUALPIPE:
        // DualPipe (github.com/deepseek-ai/DualPipe, dualpipe.py): with h =
        // min(r, p-1-r), a rank runs 2·(p/2 - h - 1) + h + 1 forwards of the
        // direction it starts, h + 1 of the other, then one more of the first
        // before its first backward frees one: p - h and h + 1, PP + 1 in all
        // (the DeepSeek-V3 report's Table 2). Stage r (chunk 0) is the
        // starting direction's on the first half and the other's on the
        // second: p - r and r + 1 on every rank. Each direction has m / 2.
        rank[0] = std::max<uint32_t>(1, std::min(p - r, m / 2));
        rank[1] = std::max<uint32_t>(1, std::min(r + 1, m / 2));
        break;
      case NDS_SCHEDULE_DUALPIPE_V:
        // DualPipe-V (the same repository, dualpipev.py): 2·(p - r - 1) + r + 1
        // forwards of chunk 0 and r + 1 of chunk 1 before the first backward,
        // then one more of chunk 0: 2p - r and r + 1, 2p + 1 chunk-loads in all.
        rank[0] = std::max<uint32_t>(1, std::min(2 * p - r, m));
        rank[1] = std::max<uint32_t>(1, std::min(r + 1, m));
        break;
      default:  // 1F1B: stage r holds min(p - r, m) (DESIGN §8.6)
        for (uint32_t c = 0; c < v; ++c) rank[c] = std::min(p - r, m);
        break;
    }
  }
}

bool stated_counts_apply(const nds_strategy& s, const Model& model) {
  return s.recompute != NDS_RECOMPUTE_NONE && s.recompute == model.stated.recompute &&
         stated_counts_partial(model);
}

namespace {

// Spreads per-stage counts over a stage's chunks as the reference reads a 1-D
// offset under vpp (§5.1): count / v each, the remainder on the last chunk.
// `counts` has pp entries, or pp·vpp already per virtual stage.
void spread_over_chunks(const nds_strategy& s, const std::vector<int64_t>& counts,
                        std::vector<uint32_t>& split) {
  const auto p = static_cast<uint32_t>(s.pp);
  const auto v = static_cast<uint32_t>(s.vpp);
  split.assign(static_cast<size_t>(p) * v, 0);
  if (counts.size() == split.size()) {
    for (size_t i = 0; i < counts.size(); ++i) split[i] = static_cast<uint32_t>(counts[i]);
    return;
  }
  for (uint32_t r = 0; r < p; ++r) {
    const auto n = static_cast<uint32_t>(counts[r]);
    for (uint32_t c = 0; c < v; ++c)
      split[Placement::virtual_stage(s, r, c)] = n / v + (c + 1 == v ? n % v : 0);
  }
}

}  // namespace

bool states_own_split(const Model& model) {
  return !model.stage_layers.empty() ||
         std::any_of(model.stage_layer_offsets.begin(), model.stage_layer_offsets.end(),
                     [](int64_t o) { return o != 0; });
}

bool stated_split_applies(const nds_strategy& s, const Model& model) {
  if (!states_own_split(model)) return false;
  const int64_t stated_vpp = model.stated.vpp != NDS_UNKNOWN ? model.stated.vpp : 1;
  return s.pp > 1 && s.pp == model.stated.pp && s.vpp == stated_vpp;
}

void stated_split_into(const nds_strategy& s, const Model& model, std::vector<uint32_t>& split) {
  std::vector<int64_t> scratch;
  stated_split_into(s, model, split, scratch);
}

void stated_split_into(const nds_strategy& s, const Model& model, std::vector<uint32_t>& split,
                       std::vector<int64_t>& resolved) {
  if (s.schedule ==
      NDS_SCHEDULE_DUALPIPE) {  // pp stages, each on two ranks: read as one chunk per rank
    nds_strategy stages = s;
    stages.vpp = 1;
    stages.schedule = NDS_SCHEDULE_1F1B;
    stated_split_into(stages, model, split, resolved);
    return;
  }
  const auto p = static_cast<uint32_t>(s.pp), v = static_cast<uint32_t>(s.vpp);
  const auto layers = static_cast<uint32_t>(model.decoder_layers());
  const auto mtp = static_cast<uint32_t>(std::max<int64_t>(0, model.mtp_layers()));
  const bool counts = !model.stage_layers.empty();
  const std::vector<int64_t>& stated = counts ? model.stage_layers : model.stage_layer_offsets;
  const char* what = counts ? "per-stage layer counts" : "stage offsets";
  if (stated.size() != p && stated.size() != static_cast<size_t>(p) * v) {
    throw UserError(
        "E-PLACEMENT",
        fmt::format("{}: the config states {} {}, but this strategy has pp = {} stages "
                    "(pp·vpp = {} chunks); drop it or use the config's pp and vpp",
                    Setting("layers_from_config").named(), stated.size(), what, p, p * v));
  }
  // Offsets shift the even split of the layers, which may count the MTP
  // layers (the reference's is_mtp_in_offset; MindFormers' mtp_depth and
  // HyperParallel count them): whichever total the offsets place exactly.
  resolved.assign(stated.begin(), stated.end());
  if (!counts) {
    const int64_t shift = std::accumulate(stated.begin(), stated.end(), int64_t{0});
    const int64_t chunks_each = stated.size() == p ? v : 1;
    // Offsets over `total` layers place total / (p·v) per chunk plus their shift.
    auto places_exactly = [&](int64_t total) { return total / (p * v) * (p * v) + shift == total; };
    const int64_t total =
        mtp > 0 && !places_exactly(layers) && places_exactly(layers + mtp) ? layers + mtp : layers;
    const int64_t per = total / (p * v) * chunks_each;
    for (size_t i = 0; i < resolved.size(); ++i) {
      if (per + stated[i] < 0)
        throw UserError("E-PLACEMENT",
                        fmt::format("{}: a stage offset of {} leaves a stage fewer than 0 layers",
                                    Setting("layers_from_config").named(), stated[i]));
      resolved[i] = per + stated[i];
    }
  }
  spread_over_chunks(s, resolved, split);
  // Counts that place the MTP layers too (61 decoder layers + 1 MTP over 16
  // stages as 4 × 15 + 2) hold them at the end of the last non-empty chunk,
  // where the model puts them (after the last decoder layer): they leave it.
  const int64_t placed = std::accumulate(split.begin(), split.end(), int64_t{0});
  if (mtp > 0 && placed == static_cast<int64_t>(layers) + mtp) {
    uint32_t left = mtp;
    for (size_t i = split.size(); i-- > 0 && left > 0;) {
      const uint32_t take = std::min(split[i], left);
      split[i] -= take;
      left -= take;
    }
  }
}

namespace {

// The trainer's own split of `layers` plus the towers' worth, the towers then
// taken off virtual stage 0, into out.default_split (kept while its key holds).
void trainer_split_with_towers(const nds_strategy& s, const Model& model, uint32_t layers,
                               uint32_t per_rank, Placement& out) {
  const auto p = static_cast<uint32_t>(s.pp);
  // The towers sit with the embedding on virtual stage 0 (rank 0's first
  // chunk) and count as the layers their work is worth there: split with
  // the rest, then taken off that stage, which keeps one layer of its own
  // (and so the towers), the rest off the fullest other stages.
  const uint32_t towers = tower_stage_layers(model, s.cp, layers);
  const auto rule = static_cast<uint32_t>(model.training.stage_split);
  if (out.split_key != std::array<uint32_t, 5>{layers, p, per_rank, towers, rule}) {
    std::vector<uint32_t>& d = out.default_split;
    trainer_split_into(model.training, layers + towers, p, per_rank, d, out.scratch_offset);
    const uint32_t taken = std::min(towers, d[0] > 0 ? d[0] - 1 : 0);
    d[0] -= taken;
    for (uint32_t left = towers - taken; left > 0 && d.size() > 1; --left) {
      auto fullest = std::max_element(d.begin() + 1, d.end());
      if (*fullest == 0) break;
      --*fullest;
    }
    out.split_key = {layers, p, per_rank, towers, rule};
  }
}

// Each chunk's layers, first layer and recomputed layers from `split` (by
// virtual stage), into `out`.
void lay_out_chunks(const nds_strategy& s, const Model& model, const std::vector<uint32_t>& split,
                    Placement& out) {
  const auto p = static_cast<uint32_t>(s.pp);
  const auto v = static_cast<uint32_t>(s.vpp);
  const size_t chunks = static_cast<size_t>(p) * v;
  out.chunk_layers.resize(chunks);
  out.chunk_first_layer.resize(chunks);
  out.chunk_recomputed_layers.resize(chunks);
  std::vector<uint32_t>& first_of_virtual = out.scratch_first;
  first_of_virtual.assign(split.size(), 0);
  for (size_t vs = 1; vs < split.size(); ++vs)
    first_of_virtual[vs] = first_of_virtual[vs - 1] + split[vs - 1];
  // Recomputed layers per stage as the config states them, for the mode it
  // states them for (else every layer of the mode): stated for another pp,
  // rescaled to this one as the reference does (§8.3, stage_rescale.hpp:
  // the recomputed layers in all are kept). Spread over a stage's chunks
  // f / v each, the first f % v chunks one more (§5.1); at most a chunk's layers.
  const bool stated_counts = stated_counts_apply(s, model);
  if (stated_counts) rescale_stages_into(model.recompute_layers, p, out.scratch_recompute);
  for (uint32_t r = 0; r < p; ++r) {
    for (uint32_t c = 0; c < v; ++c) {
      const size_t i = static_cast<size_t>(r) * v + c;
      const uint32_t vs = Placement::virtual_stage(s, r, c);
      out.chunk_layers[i] = split[vs];
      out.chunk_first_layer[i] = first_of_virtual[vs];
      uint32_t recomputed = s.recompute == NDS_RECOMPUTE_NONE ? 0 : split[vs];
      if (stated_counts) {
        const auto f = static_cast<uint32_t>(std::max<int64_t>(0, out.scratch_recompute[r]));
        recomputed = std::min(split[vs], f / v + (c < f % v ? 1u : 0u));
      }
      out.chunk_recomputed_layers[i] = recomputed;
    }
  }
}

}  // namespace

Placement place_layers(const nds_strategy& s, const Model& model, bool layers_from_config) {
  Placement out;
  place_layers_into(s, model, layers_from_config, out);
  return out;
}

void place_layers_into(const nds_strategy& s, const Model& model, bool layers_from_config,
                       Placement& out) {
  const auto p = static_cast<uint32_t>(s.pp), v = static_cast<uint32_t>(s.vpp);
  const auto layers = static_cast<uint32_t>(model.decoder_layers());
  std::vector<uint32_t>& split = out.scratch_split;  // [virtual stage]
  split.clear();
  if (!out.forced_split.empty()) {
    if (out.forced_split.size() !=
        (s.schedule == NDS_SCHEDULE_DUALPIPE ? p : static_cast<size_t>(p) * v))
      throw UserError("E-PLACEMENT", fmt::format("a split of {} stages for pp = {}, vpp = {}",
                                                 out.forced_split.size(), p, v));
    split = out.forced_split;
  } else if ((layers_from_config &&
              (!model.stage_layers.empty() || !model.stage_layer_offsets.empty())) ||
             stated_split_applies(s, model)) {
    stated_split_into(s, model, split, out.scratch_offset);
  } else {
    // The split depends on (layers, pp, stages per rank) alone: the search
    // keeps it while they stay. DualPipe's two chunks are two of pp stages.
    const uint32_t per_rank = s.schedule == NDS_SCHEDULE_DUALPIPE ? 1 : v;
    trainer_split_with_towers(s, model, layers, per_rank, out);
    split = out.default_split;
  }
  const uint32_t placed = std::accumulate(split.begin(), split.end(), 0u);
  if (placed != layers) {
    throw UserError(
        "E-PLACEMENT",
        fmt::format(
            "{}: the config's split places {} layers, but the "
            "model has {}{}; fix the config's stage layers or offsets",
            Setting("layers_from_config").named(), placed, layers,
            model.mtp_layers() > 0 ? fmt::format(" (and {} MTP)", model.mtp_layers()) : ""));
  }
  out.strategy = s;
  lay_out_chunks(s, model, split, out);
  micro_batches_in_flight_into(s, out.in_flight);
  out.layer_option.clear();
}

}  // namespace ndsearch
