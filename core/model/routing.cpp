// SPDX-License-Identifier: Apache-2.0
#include "core/model/routing.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>
#include <ndsearch/sdk/config_file.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <random>

#include "core/model/model.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

constexpr const char* kErrorId = "E-ROUTING";

// The placements a Zipf skew's expected hottest rank averages over, and
// their seed: enough that the mean moves less than 0.5 % between seeds for
// 8-256 experts at the largest exponent.
constexpr int kPlacements = 512;
constexpr uint64_t kPlacementSeed = 0x6e647365617263ULL;  // "ndsearc"

[[noreturn]] void fail(const std::string& message) {
  throw UserError(kErrorId, message);
}

double read_exponent(const std::string& spec, const std::string& text) {
  double s = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), s);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(s) || s < 0 ||
      s > kMaxZipfExponent)
    fail(
        fmt::format("{}: '{}' is not a Zipf exponent; give zipf:S with S a number from 0 "
                    "(balanced) to {} (e.g. zipf:1.2)",
                    Setting("routing").named(spec), text, kMaxZipfExponent));
  return s;
}

// Token counts per expert from a router's statistics, in expert order.
std::vector<double> read_histogram(const std::string& path) {
  std::string text;
  try {
    text = sdk::read_config_file(path, "routing histogram");
  } catch (const sdk::Error& e) {
    const auto [tag, message] = sdk::split_error_tag(e.what());
    fail(message);
  }
  std::vector<double> tokens;
  size_t line = 1;
  for (size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '\n') {
      ++line, ++i;
    } else if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
    } else if (c == ',' || c == ' ' || c == '\t' || c == '\r') {
      ++i;
    } else {
      size_t end = i;
      while (end < text.size() &&
             std::string_view(",# \t\r\n").find(text[end]) == std::string_view::npos)
        ++end;
      const std::string item = text.substr(i, end - i);
      double v = 0;
      const auto [stop, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
      if (ec != std::errc() || stop != item.data() + item.size() || !std::isfinite(v) || v < 0)
        fail(
            fmt::format("{}:{}: '{}' is not a token count; give each routed expert's tokens as "
                        "a number >= 0, one per expert in expert order",
                        path, line, item));
      tokens.push_back(v);
      i = end;
    }
  }
  if (tokens.empty() || std::all_of(tokens.begin(), tokens.end(), [](double v) { return v == 0; }))
    fail(
        fmt::format("{}: no expert got a token ({} counts, all 0); give the tokens each routed "
                    "expert got, one per expert",
                    path, tokens.size()));
  return tokens;
}

// Zipf's loads for `experts` experts, the hottest first: 1/k^s.
std::vector<double> zipf_loads(int64_t experts, double s) {
  std::vector<double> loads(static_cast<size_t>(experts));
  for (size_t k = 0; k < loads.size(); ++k) loads[k] = std::pow(static_cast<double>(k + 1), -s);
  return loads;
}

}  // namespace

Routing read_routing(const std::string& spec) {
  Routing r;
  r.source = spec;
  if (spec == "balanced") return r;
  if (spec.rfind("zipf:", 0) == 0) {
    r.kind = Routing::Kind::zipf;
    r.zipf_exponent = read_exponent(spec, spec.substr(5));
    return r;
  }
  if (spec.empty() || spec.rfind("zipf", 0) == 0)
    fail(
        fmt::format("{}: give balanced, zipf:S (0 <= S <= {}) or the path of a file of tokens "
                    "per routed expert",
                    Setting("routing").named(spec), kMaxZipfExponent));
  r.kind = Routing::Kind::histogram;
  r.tokens = read_histogram(spec);
  return r;
}

double hottest_rank_load(const std::vector<double>& loads, int64_t ranks) {
  const size_t per_rank = loads.size() / static_cast<size_t>(ranks);
  const double total = std::accumulate(loads.begin(), loads.end(), 0.0);
  double hottest = 0;
  for (size_t r = 0; r < static_cast<size_t>(ranks); ++r) {
    const auto first = loads.begin() + static_cast<std::ptrdiff_t>(r * per_rank);
    hottest = std::max(hottest,
                       std::accumulate(first, first + static_cast<std::ptrdiff_t>(per_rank), 0.0));
  }
  return total > 0 ? hottest / (total / static_cast<double>(ranks)) : 1;
}

double expected_hottest_rank_load(const std::vector<double>& loads, int64_t ranks) {
  // Fisher-Yates with std::mt19937_64, whose sequence the standard fixes
  // (std::shuffle's use of it is the library's own): the same placements on
  // every platform.
  std::mt19937_64 random(kPlacementSeed);
  std::vector<double> placed = loads;
  double sum = 0;
  for (int p = 0; p < kPlacements; ++p) {
    placed = loads;
    for (size_t i = placed.size(); i > 1; --i) std::swap(placed[i - 1], placed[random() % i]);
    sum += hottest_rank_load(placed, ranks);
  }
  return sum / kPlacements;
}

void apply_routing(Model& model, const Routing& routing) {
  model.expert_rank_load.clear();
  model.routing_words.clear();
  if (routing.kind == Routing::Kind::balanced || model.first_moe() == nullptr) return;
  const int64_t experts = model.first_moe()->experts;
  for (const ModelBlock& b : model.main.blocks)
    if (b.c.experts > 0 && b.c.experts != experts)
      fail(
          fmt::format("{}: the model's MoE layers have {} and {} routed experts; one routing "
                      "applies to layers of one expert count",
                      Setting("routing").named(routing.source), experts, b.c.experts));
  std::vector<double> loads;
  if (routing.kind == Routing::Kind::zipf) {
    loads = zipf_loads(experts, routing.zipf_exponent);
  } else {
    if (static_cast<int64_t>(routing.tokens.size()) != experts)
      fail(
          fmt::format("{}: {} token counts, but the model has {} routed experts; give one count "
                      "per routed expert, in expert order",
                      routing.source, routing.tokens.size(), experts));
    loads = routing.tokens;
  }
  // Entry ep for every ep that divides the experts (the checks refuse the rest).
  model.expert_rank_load.assign(static_cast<size_t>(experts) + 1, 0.0);
  for (int64_t ep = 1; ep <= experts; ++ep)
    if (experts % ep == 0)
      model.expert_rank_load[static_cast<size_t>(ep)] = routing.kind == Routing::Kind::zipf
                                                            ? expected_hottest_rank_load(loads, ep)
                                                            : hottest_rank_load(loads, ep);
  const std::string what =
      routing.kind == Routing::Kind::zipf
          ? fmt::format(
                "a Zipf skew of exponent {} over the {} routed experts (expert k of the "
                "loads gets 1/k^{} of the tokens), placed at random: the expected",
                routing.zipf_exponent, experts, routing.zipf_exponent)
          : fmt::format(
                "the tokens per routed expert of {} ({} experts, in expert order, each "
                "EP rank holding a contiguous run of them): the",
                routing.source, experts);
  std::string at;  // at ep 2, 4, 8, ... (those that divide the experts, to 64)
  for (size_t ep = 2; ep <= std::min<size_t>(64, static_cast<size_t>(experts)); ep *= 2)
    if (model.expert_rank_load[ep] > 0)
      at +=
          fmt::format("{}{:.2f}x at ep {}", at.empty() ? "" : ", ", model.expert_rank_load[ep], ep);
  model.routing_words = fmt::format(
      "{} most loaded EP rank sets the pace and the peak (its expert GEMMs, permutation, "
      "all-to-all and routed activations: {} an even share; at most the capacity where tokens "
      "beyond it are dropped)",
      what, at.empty() ? std::string("1.00x") : at);
}

}  // namespace ndsearch
