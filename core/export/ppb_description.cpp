// SPDX-License-Identifier: Apache-2.0
#include "core/export/ppb_description.hpp"

#include <fmt/format.h>

#include <memory>
#include <vector>

#include "core/compile/cp_model.hpp"
#include "core/price/memory/memory_evaluator.hpp"
#include "core/price/time/time_model.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

using json = nlohmann::json;

constexpr double kMiB = 1024.0 * 1024.0;  // the reference's MB (DESIGN §8.5: sizes in binary units)

// One decoder layer (with what its end of the model adds) under `option`.
struct Priced {
  std::array<double, NDS_MEMORY_TERM_COUNT_V1> bytes{};
  double forward_s = 0, backward_s = 0, extra_s = 0;
  double static_bytes() const {
    return bytes[NDS_MEMORY_PARAMS] + bytes[NDS_MEMORY_GRADS] + bytes[NDS_MEMORY_OPTIMIZER];
  }
};

class LayerPricer {
 public:
  LayerPricer(const PluginRegistry& registry, Model& model, const Device& device,
              const SearchOptions& options, const nds_strategy& s)
      : passes_(registry, model, device),
        memory_(passes_, 1),
        compiled_(model, device, {options.overheads, options.calibration, {}}) {
    if (s.cp > 1)
      cp_ = std::make_unique<CpModel>(registry, model, device,
                                      CpModel::choose_algorithm(options.cp_algorithm, model));
    time_ = std::make_unique<TimeModel>(compiled_, cp_.get());
    // One stage, one chunk, one micro-batch in flight; the strategy's degrees
    // and sharding otherwise.
    one_ = s;
    one_.pp = 1;
    one_.vpp = 1;
    one_.mbn = 1;
    one_.schedule = NDS_SCHEDULE_1F1B;
    options_.assign(static_cast<size_t>(model.decoder_layers()), NDS_LAYER_KEEP);
  }

  // Decoder layers [layer, layer + count) alone under `option` (with the
  // embedding when the first is the model's first, the head, the loss and MTP
  // when the last is its last).
  Priced price(uint32_t layer, uint32_t count, uint32_t block, nds_layer_option option) {
    nds_strategy s = one_;
    s.recompute = option == NDS_LAYER_FULL        ? NDS_RECOMPUTE_FULL
                  : option == NDS_LAYER_SELECTIVE ? NDS_RECOMPUTE_SELECTIVE
                                                  : NDS_RECOMPUTE_NONE;
    const uint32_t layers = count, first = layer,
                   recomputed = s.recompute != NDS_RECOMPUTE_NONE ? count : 0, in_flight = 1;
    for (uint32_t l = layer; l < layer + count; ++l) options_[l] = option;
    const nds_candidate c{sizeof(nds_candidate), &s,         &layers,        &first,
                          &recomputed,           &in_flight, options_.data()};
    std::vector<RankMemory> ranks;
    const std::string refusal = memory_.evaluate(c, ranks);
    for (uint32_t l = layer; l < layer + count; ++l) options_[l] = NDS_LAYER_KEEP;
    if (!refusal.empty())
      throw UserError("E-PPB", fmt::format("the layer description: a memory pass refused one layer "
                                           "alone: {}",
                                           refusal));
    Priced out;
    out.bytes = ranks.at(0).bytes;
    const TimeModel::RankCompute compute = time_->rank_compute(c, 0);
    out.forward_s = compute.forward_s;
    out.backward_s = compute.backward_s;
    out.extra_s = option == NDS_LAYER_KEEP ? 0 : time_->layer_extra_s(c, block, option);
    return out;
  }

 private:
  MemoryPasses passes_;
  MemoryEvaluator memory_;
  CompiledModel compiled_;
  std::unique_ptr<CpModel> cp_;
  std::unique_ptr<TimeModel> time_;
  nds_strategy one_{};
  std::vector<int32_t> options_;
};

double mib(double bytes) {
  return bytes / kMiB;
}

// What one more layer adds: two layers priced less one (what a rank holds
// once, its buffers and the working set a recomputed layer rebuilds, cancels).
Priced growth(const Priced& two, const Priced& one) {
  Priced out;
  for (size_t t = 0; t < out.bytes.size(); ++t) out.bytes[t] = two.bytes[t] - one.bytes[t];
  out.forward_s = two.forward_s - one.forward_s;
  out.backward_s = two.backward_s - one.backward_s;
  out.extra_s = one.extra_s;  // per layer already
  return out;
}

// A decoder block of the model, with the model-order index of its first layer.
struct Body {
  uint32_t block, first, count;
};

// The decoder blocks in model order.
std::vector<Body> bodies_of(const Model& model) {
  std::vector<Body> bodies;
  uint32_t next = 0;
  for (uint32_t b = 0; b < model.main.blocks.size(); ++b) {
    const nds_layer_block& c = model.main.blocks[b].c;
    if (c.kind != NDS_BLOCK_DECODER) continue;
    bodies.push_back({b, next, static_cast<uint32_t>(c.layers)});
    next += static_cast<uint32_t>(c.layers);
  }
  return bodies;
}

// Two layers of `body` away from both ends of the model's `layers`: priced
// alone, they are body layers. The first of them.
uint32_t middle_of(const Body& body, uint32_t layers, const std::string& name) {
  for (uint32_t l = body.first; l + 1 < body.first + body.count; ++l)
    if (l != 0 && l + 2 != layers) return l;
  throw UserError("E-PPB",
                  fmt::format("the layer description needs two layers of each block away "
                              "from the embedding and the output head; {}'s block {} has {} "
                              "of its {} decoder layers",
                              name, body.block, body.count, layers));
}

// HEAD or TAIL: the end chunk `layer` of `body` less `inside`, a layer of the
// same block priced alone in the middle; times in units of `unit_s`.
json end_entry(LayerPricer& pricer, const std::string& name, double unit_s, const char* type,
               uint32_t layer, const Body& body, const Priced& inside) {
  const Priced with_end = pricer.price(layer, 1, body.block, NDS_LAYER_KEEP);
  double bytes = 0;
  for (size_t t = 0; t < with_end.bytes.size(); ++t) bytes += with_end.bytes[t] - inside.bytes[t];
  const double forward = (with_end.forward_s - inside.forward_s) / unit_s;
  const double backward = (with_end.backward_s - inside.backward_s) / unit_s;
  return json{{"model_name", name},
              {"name", type},
              {"type", type},
              {"memory_parameter", mib(bytes)},
              {"memory_activation", 0.0},
              {"memory_recompute", 0.0},
              {"forward_time", forward},
              {"backward_time", backward},
              {"recompute_time", backward},
              {"time", forward},
              {"nb_layer", 1}};
}

// BODY_<i>: what one more layer of `body` (from `at`) adds under each
// recompute option; times in units of `unit_s`.
json body_entry(LayerPricer& pricer, const std::string& name, double unit_s, size_t i,
                const Body& body, uint32_t at) {
  auto per_layer = [&](nds_layer_option option) {
    return growth(pricer.price(at, 2, body.block, option), pricer.price(at, 1, body.block, option));
  };
  const Priced keep = per_layer(NDS_LAYER_KEEP);
  const Priced selective = per_layer(NDS_LAYER_SELECTIVE);
  const Priced full = per_layer(NDS_LAYER_FULL);
  const double comm =
      std::max({keep.bytes[NDS_MEMORY_COMM_BUFFERS], selective.bytes[NDS_MEMORY_COMM_BUFFERS],
                full.bytes[NDS_MEMORY_COMM_BUFFERS]});
  json e = {{"model_name", name},
            {"name", fmt::format("BODY_{}", i)},
            {"type", "BODY"},
            {"memory_parameter", mib(keep.static_bytes() + comm)},
            {"memory_activation", mib(keep.bytes[NDS_MEMORY_ACTIVATIONS])},
            {"memory_recompute", mib(full.bytes[NDS_MEMORY_ACTIVATIONS])},
            {"forward_time", keep.forward_s / unit_s},
            {"backward_time", keep.backward_s / unit_s},
            {"recompute_time", (keep.backward_s + full.extra_s) / unit_s},
            {"time", keep.forward_s / unit_s},
            {"nb_layer", body.count}};
  // Selective recompute that keeps every activation is left out, as the reference does.
  if (selective.bytes[NDS_MEMORY_ACTIVATIONS] < keep.bytes[NDS_MEMORY_ACTIVATIONS]) {
    e["memory_select_rec"] = mib(selective.bytes[NDS_MEMORY_ACTIVATIONS]);
    e["select_rec_time"] = (keep.backward_s + selective.extra_s) / unit_s;
  }
  return e;
}

}  // namespace

json ppb_description(const PluginRegistry& registry, Model& model, const Device& device,
                     const SearchOptions& options, const nds_strategy& strategy) {
  const auto layers = static_cast<uint32_t>(model.decoder_layers());
  LayerPricer pricer(registry, model, device, options, strategy);
  const std::string name = model.display_name();
  const std::vector<Body> bodies = bodies_of(model);
  json entries = json::array();
  std::vector<Priced> kept;  // one body layer of each block, alone
  double unit_s = 0;         // the forward of a layer of the first body
  for (const Body& body : bodies) {
    kept.push_back(pricer.price(middle_of(body, layers, name), 1, body.block, NDS_LAYER_KEEP));
    if (unit_s == 0) unit_s = kept.back().forward_s;
  }
  if (!(unit_s > 0))
    throw UserError("E-PPB", "the layer description: a body layer takes no forward time");
  entries.push_back(end_entry(pricer, name, unit_s, "HEAD", 0, bodies.front(), kept.front()));
  for (size_t i = 0; i < bodies.size(); ++i)
    entries.push_back(
        body_entry(pricer, name, unit_s, i, bodies[i], middle_of(bodies[i], layers, name)));
  entries.push_back(
      end_entry(pricer, name, unit_s, "TAIL", layers - 1, bodies.back(), kept.back()));
  return {{"layers_description", entries}};
}

std::string ppb_file_stem(const std::string& config_stem, size_t rank) {
  return fmt::format("{}_nd_to_ppb_{}", config_stem, rank);
}

std::string ppb_command(const std::string& folder, const std::string& file_stem,
                        const nds_strategy& s, double budget_bytes) {
  return fmt::format("python run_pipeline_balance.py -lf {} -m {} -s {} -mb {} -i {} -mem {:.0f}",
                     folder, file_stem, s.pp, s.mbn, s.vpp, budget_bytes / kMiB);
}

}  // namespace ndsearch
