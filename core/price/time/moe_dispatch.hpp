// SPDX-License-Identifier: Apache-2.0
// moe_dispatch.hpp: what a DeepEP-style dispatch sends over the network:
// the other nodes a token's routed experts sit on.
#pragma once

#include <ndsearch/nds_model.h>

namespace ndsearch {

// The other nodes a token's routed experts sit on, expected over balanced
// routing, where the EP group spans `nodes` nodes, each node's experts as
// likely as any. A group-limited router whose groups fall on the nodes
// (router_groups a multiple of `nodes`: DeepSeek-V3's 8 groups on 8 nodes,
// at most 4 a token) draws router_group_topk of the groups, so a node is
// missed when all its groups are: C(groups - per node, picked) /
// C(groups, picked); otherwise the top-k experts fall anywhere, drawn
// independently: nodes x (1 - (1 - 1/nodes)^k). Of the nodes hit, the
// token's own is one in `nodes`.
double remote_nodes_per_token(const nds_layer_block& l, double nodes);

}  // namespace ndsearch
