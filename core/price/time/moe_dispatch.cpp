// SPDX-License-Identifier: Apache-2.0
#include "core/price/time/moe_dispatch.hpp"

#include <algorithm>
#include <cmath>

namespace ndsearch {
namespace {

double log_choose(double n, double k) {
  return std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1);
}

}  // namespace

double remote_nodes_per_token(const nds_layer_block& l, double nodes) {
  if (nodes <= 1) return 0;
  const double k = static_cast<double>(l.experts_per_token);
  double hit = nodes * (1 - std::pow(1 - 1 / nodes, k));
  const double groups = static_cast<double>(l.router_groups);
  const double picked = static_cast<double>(l.router_group_topk);
  if (groups >= nodes && picked > 0 && picked < groups && std::fmod(groups, nodes) == 0) {
    const double per_node = groups / nodes;
    const double missed =
        groups - per_node >= picked
            ? std::exp(log_choose(groups - per_node, picked) - log_choose(groups, picked))
            : 0;
    hit = std::min(hit, nodes * (1 - missed));
  }
  return hit * (nodes - 1) / nodes;
}

}  // namespace ndsearch
