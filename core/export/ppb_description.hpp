// SPDX-License-Identifier: Apache-2.0
// ppb_description.hpp: the reference's pipeline-balancer layer description
// (its `to_ppb`, format 1, `{"layers_description": [...]}`) of one strategy,
// what `search --ppb-rank K` writes for the K-th of its ranking.
//
// One entry per kind of layer: HEAD (the embedding), BODY_<i> (the decoder
// layers of model block i, `nb_layer` of them) and TAIL (the output head and
// the loss, with the MTP modules), priced on one device under the strategy's
// TP, CP, EP, sequence parallelism and optimizer sharding, with one
// micro-batch in flight (the reference's μ = 1). A BODY is what one more
// layer of its block adds (two layers alone less one: what a rank holds once
// cancels, its buffers and the working set a recomputed layer rebuilds):
//   memory_parameter   MiB: parameters, gradients and optimizer states; a
//                      BODY's with the most communication buffer a layer adds
//                      over the three options, HEAD's and TAIL's with their
//                      activations and buffers too;
//   memory_activation, memory_select_rec, memory_recompute   MiB: a BODY
//                      layer's activations kept, under selective recompute
//                      (omitted with select_rec_time when it keeps them all)
//                      and under full recompute; 0 for HEAD and TAIL;
//   forward_time, backward_time, recompute_time (the backward under full
//                      recompute), select_rec_time, time (= forward_time):
//                      compute seconds in units of the forward of a layer of
//                      the first body.
// A HEAD or TAIL is priced as its end chunk (the first or last decoder layer
// with it) less a layer of the same block priced alone in the middle of the model.
#pragma once

#include <nlohmann/json.hpp>

#include "core/hardware/device.hpp"
#include "core/model/model.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/search/search.hpp"

namespace ndsearch {

// Throws UserError E-PPB when a block has no two layers away from both ends
// (a model of fewer than four decoder layers), and as the pricing does.
nlohmann::json ppb_description(const PluginRegistry& registry, Model& model, const Device& device,
                               const SearchOptions& options, const nds_strategy& strategy);

// The name of the description of `rank` for the config `config_stem`:
// `<stem>_nd_to_ppb_<rank>` (the reference's -k output), without `.json`.
std::string ppb_file_stem(const std::string& config_stem, size_t rank);

// The balancer's command line for a description written to `folder` as
// `<file_stem>.json`: the balancer opens `<-lf>/<-m>.json`, so -m is that stem.
std::string ppb_command(const std::string& folder, const std::string& file_stem,
                        const nds_strategy& s, double budget_bytes);

}  // namespace ndsearch
