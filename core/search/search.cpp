// SPDX-License-Identifier: Apache-2.0
#include "core/search/search.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>
#include <ndsearch/sdk/units.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstring>
#include <limits>
#include <memory>
#include <thread>

#include "core/compile/compiled_model.hpp"
#include "core/compile/cp_model.hpp"
#include "core/compile/memory_passes.hpp"
#include "core/compile/recompute_strategy.hpp"
#include "core/hardware/device.hpp"
#include "core/model/model_limits.hpp"
#include "core/model/pricing_values.hpp"
#include "core/plugin_host/run_options.hpp"  // the workers work for the caller's run
#include "core/price/memory/memory_assumptions.hpp"
#include "core/price/memory/memory_evaluator.hpp"
#include "core/price/price_memory.hpp"
#include "core/search/balance_layers.hpp"
#include "core/strategy/checks.hpp"
#include "core/strategy/placement.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace {

// Refusal counts by id without building strings per candidate: the ids are
// the checks' string literals, compared by content (a handful of them).
struct RefusalTally {
  std::vector<std::pair<const char*, uint64_t>> counts;  // ids of static storage
  void add(const char* id) {
    for (auto& [name, n] : counts)
      if (name == id || std::strcmp(name, id) == 0) {
        ++n;
        return;
      }
    counts.emplace_back(id, 1);  // once per reason and triple
  }
};

// What one (tp, pp, cp) triple yields: the unit a thread works on, merged
// afterwards in triple order so that the threads do not change the result.
struct TripleResult {
  uint64_t tested = 0, priced = 0, fit = 0, dropped = 0, outpaced = 0;
  RefusalTally refused;
  std::vector<PricedCandidate> best, pareto, closest;
};

// Keeps the first `n` of `v` by `before` (all when n is 0), in order.
template <typename Before>
void keep_first(std::vector<PricedCandidate>& v, size_t n, Before before) {
  if (n != 0 && v.size() > n) {
    std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n), v.end(), before);
    v.resize(n);
  } else {
    std::sort(v.begin(), v.end(), before);
  }
}

bool closer_miss(const PricedCandidate& a, const PricedCandidate& b) {
  return a.peak_bytes != b.peak_bytes ? a.peak_bytes < b.peak_bytes : a.index < b.index;
}

// One thread's evaluators over the run's compiled model. Each worker compiles
// its own plugin states (the memory passes, the CP algorithm, the recompute
// strategy): a plugin may say its evaluate must not run on two threads at
// once (NDS_FLAG_NOT_REENTRANT, docs/plugin-guide.md), and no plugin is then
// called from two threads on one state.
struct Worker {
  std::unique_ptr<MemoryPasses> passes;
  std::unique_ptr<MemoryEvaluator> memory;
  std::unique_ptr<CpModel> cp;
  std::unique_ptr<TimeModel> time;
  TimeModel::LayerReuse layers;  // the time model's layer prices, candidate to candidate
  std::unique_ptr<RecomputeStrategy> strategy;
  std::unique_ptr<RecomputeChooser> recompute;  // when a strategy chooses per layer
  std::vector<RankMemory> ranks;
  MemoryPricing pricing;
  Placement placement;                  // reused: no allocation per candidate
  std::vector<ChunkTimes> chunk_times;  // --balance-layers' scratch
  std::vector<uint32_t> best_split;
  std::vector<PricedCandidate> fits, misses;
  std::vector<double> best_times;  // a max-heap of the triple's `keep` fastest step times
};

// The step time a candidate must beat to enter the triple's ranking (every
// one when all are kept): a bound that skips the recompute choice of
// candidates that cannot win, as recomputing only adds time, and the layer
// balancing of those that could not win even perfectly balanced.
double time_to_beat(const Worker& w, size_t keep) {
  return keep == 0 || w.best_times.size() < keep ? std::numeric_limits<double>::infinity()
                                                 : w.best_times.front();
}
void note_time(Worker& w, size_t keep, double step_s) {
  if (keep == 0) return;
  if (w.best_times.size() < keep) {
    w.best_times.push_back(step_s);
    std::push_heap(w.best_times.begin(), w.best_times.end());
  } else if (step_s < w.best_times.front()) {
    std::pop_heap(w.best_times.begin(), w.best_times.end());
    w.best_times.back() = step_s;
    std::push_heap(w.best_times.begin(), w.best_times.end());
  }
}

// A candidate's peak bytes (the largest rank's, with the CP algorithm's
// working set), or the refusal that stops it: a check's id, "memory-pass" or
// "cp-algorithm". Leaves the candidate in w.placement for the time model.
struct Peak {
  const char* refusal = nullptr;
  double bytes = 0;
  std::array<double, NDS_MEMORY_TERM_COUNT_V1> terms{};  // the peak rank's
};
Peak peak_of(Worker& w, const Model& model, const nds_strategy& s, uint64_t devices,
             int64_t batch) {
  if (const char* refusal = first_refusal_id(s, model, devices, batch)) return {refusal, 0};
  place_layers_into(s, model, false, w.placement);
  // A strategy that follows the candidate's recompute lays it out first.
  if (w.recompute != nullptr && w.recompute->follows_candidate()) w.recompute->follow(w.placement);
  price_memory(*w.memory, w.cp.get(), model, w.placement.candidate(), w.ranks, w.pricing);
  if (!w.pricing.pass_refusal.empty()) return {"memory-pass", 0};
  // A working set that is not a finite count >= 0 must not "fit" either.
  if (!w.pricing.cp.refusal.empty() || !w.pricing.cp_bytes_are_a_count())
    return {"cp-algorithm", 0};
  const HighestRank highest = highest_rank(w.ranks, w.pricing.cp.bytes);
  return {nullptr, highest.bytes, highest.terms};
}

void price_triple(const SearchOptions& o, const Model& model, Worker& w, const OuterTriple& triple,
                  uint64_t triple_index, TripleResult& out) {
  w.fits.clear();
  w.misses.clear();
  w.best_times.clear();
  const uint64_t devices = o.space.devices;
  uint64_t inner = 0;
  out.tested = enumerate_inner(o.space, model, triple, [&](const nds_strategy& s) {
    const uint64_t index = (triple_index << 32) | inner++;
    const Peak peak = peak_of(w, model, s, devices, o.space.global_batch);
    if (peak.refusal != nullptr) {
      out.refused.add(peak.refusal);
      return;
    }
    ++out.priced;
    PricedCandidate priced;
    priced.strategy = s;
    priced.peak_bytes = peak.bytes;
    priced.peak_terms = peak.terms;
    priced.index = index;
    const OffloadCopies* copies = nullptr;
    if (peak.bytes > o.budget.budget_bytes) {
      // A strategy may recompute (or offload) per layer to fit it, unless even
      // with every layer kept it is no faster than the triple's keep-th best.
      RecomputeOutcome chosen;
      if (w.recompute != nullptr && !w.recompute->follows_candidate()) {
        if (w.time->estimate(w.placement.candidate(), devices, nullptr, &w.layers).step_s >=
            time_to_beat(w, o.keep)) {
          ++out.outpaced;  // not a miss: it might fit, slower than what the triple keeps
          return;
        }
        chosen = w.recompute->choose(w.placement, *w.memory, *w.time, o.budget.budget_bytes,
                                     w.pricing.cp.bytes, w.ranks);
      }
      if (!chosen.fits) {
        ++out.dropped;
        w.misses.push_back(priced);
        return;
      }
      priced.strategy = w.placement.strategy;
      priced.recompute = chosen.summary;
      const HighestRank highest = highest_rank(w.ranks, w.pricing.cp.bytes);
      priced.peak_bytes = highest.bytes;
      priced.peak_terms = highest.terms;
      copies = w.recompute->copies();
    }
    ++out.fit;
    // Balancing starts from each chunk's seconds as this estimate prices them.
    priced.time = w.time->estimate(w.placement.candidate(), devices, copies, &w.layers,
                                   o.balance_layers ? &w.chunk_times : nullptr);
    if (o.balance_layers && copies == nullptr && !priced.recompute.chosen && balances(s)) {
      BalanceTools tools{*w.memory, w.cp.get(), *w.time,       w.layers,
                         w.ranks,   w.pricing,  w.chunk_times, w.best_split};
      balance_layers(model, devices, o.budget.budget_bytes, time_to_beat(w, o.keep), tools,
                     w.placement, priced);
    }
    if (w.recompute != nullptr || o.balance_layers)
      note_time(w, o.keep, priced.time.step_s);  // the bounds' only reader
    w.fits.push_back(priced);
  });
  out.pareto = pareto_front(w.fits);
  keep_first(w.fits, o.keep, ranks_before);
  out.best = w.fits;
  keep_first(w.misses, o.closest_misses, closer_miss);
  out.closest = w.misses;
}

// Reference §3.2 batch_reachable: some (tp, pp, cp) leaves a dp that divides
// the global batch with some micro-batch size, before anything is priced.
void require_reachable_batch(const SearchSpace& space, const Model& model,
                             const std::vector<OuterTriple>& triples) {
  // The micro-batch sizes the space allows: any (1 divides) when searched,
  // else --only's or the config's.
  std::vector<int64_t> mbss{1};
  if (space.only.count("mbs") != 0)
    mbss = space.only.at("mbs");
  else if (space.searched.count("mbs") == 0 && model.stated.mbs != NDS_UNKNOWN)
    mbss = {model.stated.mbs};
  std::vector<int64_t> dps;
  for (const OuterTriple& t : triples) {
    const int64_t dp =
        static_cast<int64_t>(space.devices) / (static_cast<int64_t>(t.tp) * t.pp * t.cp);
    for (int64_t mbs : mbss)
      if (space.global_batch % (dp * mbs) == 0) return;
    if (std::find(dps.begin(), dps.end(), dp) == dps.end()) dps.push_back(dp);
  }
  std::sort(dps.begin(), dps.end());
  const size_t shown = std::min<size_t>(dps.size(), 12);
  throw UserError(
      "E-SEARCH-BATCH",
      fmt::format(
          "no strategy can make the global batch {}: dp·mbs·mbn must equal it, and no data-"
          "parallel degree {} devices leave here ({}{}) times a micro-batch size allowed ({}) "
          "divides it; make {} a multiple of one, change {}, "
          "or allow other micro-batch sizes",
          space.global_batch, space.devices,
          fmt::join(dps.begin(), dps.begin() + static_cast<std::ptrdiff_t>(shown), ", "),
          shown < dps.size() ? ", ..." : "", fmt::join(mbss, ", "), Setting("global_batch").named(),
          Setting("devices").named()));
}

// What would make a dropped candidate fit, each change alone, re-checked and
// re-priced: full recompute, ZeRO-3 over dp·cp, a micro-batch of one, twice
// the devices (dp doubled, the global batch kept).
std::vector<std::string> fixes_for(Worker& w, const Model& model, const SearchOptions& o,
                                   const nds_strategy& miss) {
  struct Variant {
    std::string what;
    nds_strategy s;
    uint64_t devices;
  };
  std::vector<Variant> variants;
  if (miss.recompute != NDS_RECOMPUTE_FULL) {
    nds_strategy s = miss;
    s.recompute = NDS_RECOMPUTE_FULL;
    variants.push_back({"recompute=full", s, o.space.devices});
  }
  if (miss.zero < 3 && static_cast<int64_t>(miss.dp) * miss.cp > 1) {
    nds_strategy s = miss;
    s.zero = 3;
    s.op = miss.dp * miss.cp;
    variants.push_back({fmt::format("zero=3 (op={})", s.op), s, o.space.devices});
  }
  if (miss.mbs > 1) {
    nds_strategy s = miss;
    s.mbn = miss.mbn * miss.mbs;
    s.mbs = 1;
    variants.push_back({fmt::format("mbs=1 (mbn={})", s.mbn), s, o.space.devices});
  }
  if (miss.mbn % 2 == 0) {
    nds_strategy s = miss;
    s.dp = miss.dp * 2;
    s.mbn = miss.mbn / 2;
    if (s.op == miss.dp * miss.cp) s.op = s.dp * s.cp;
    variants.push_back(
        {fmt::format("{} devices (dp={})", 2 * o.space.devices, s.dp), s, 2 * o.space.devices});
  }
  std::vector<std::string> fixes;
  for (const Variant& v : variants) {
    const Peak peak = peak_of(w, model, v.s, v.devices, o.space.global_batch);
    if (peak.refusal == nullptr && peak.bytes <= o.budget.budget_bytes)
      fixes.push_back(fmt::format("{}: {:.2f} GiB", v.what, peak.bytes / sdk::kBytesPerGiB));
  }
  return fixes;
}

}  // namespace

bool ranks_before(const PricedCandidate& a, const PricedCandidate& b) {
  if (a.time.step_s != b.time.step_s) return a.time.step_s < b.time.step_s;
  return a.peak_bytes != b.peak_bytes ? a.peak_bytes < b.peak_bytes : a.index < b.index;
}

double candidates_per_s(const SearchResult& r) {
  return r.elapsed_s > 0 ? static_cast<double>(r.counts.tested) / r.elapsed_s : 0;
}

void keep_listed(SearchResult& result, size_t top, size_t misses) {
  const auto keep_first = [](std::vector<PricedCandidate>& v, size_t n) {
    if (v.size() > n) v.erase(v.begin() + static_cast<std::ptrdiff_t>(n), v.end());
  };
  keep_first(result.ranking, top);
  if (misses > 0) keep_first(result.closest, misses);
}

std::vector<PricedCandidate> pareto_front(std::vector<PricedCandidate> candidates) {
  // By time, then memory: among equally fast ones the smallest comes first.
  std::sort(candidates.begin(), candidates.end(), ranks_before);
  std::vector<PricedCandidate> front;
  // Fastest first: one belongs when it needs less memory than every faster one.
  for (const PricedCandidate& c : candidates)
    if (front.empty() || c.peak_bytes < front.back().peak_bytes) front.push_back(c);
  return front;
}

namespace {

// The options as the search runs them, checked before any enumeration: a
// per-layer recompute strategy takes the recompute dimension over, and every
// value pricing needs is there and within ndsearch's limits.
SearchOptions checked_options(const PluginRegistry& registry, const Model& model,
                              const SearchOptions& requested) {
  SearchOptions options = requested;
  // A strategy that chooses under the budget starts from every layer kept
  // and recomputes where a rank needs it: the uniform modes are its special
  // cases, not a dimension. One that follows the candidates keeps them.
  if (options.recompute.per_layer() &&
      !RecomputeStrategy::follows_candidate(registry, options.recompute.strategy)) {
    if (options.space.only.count("recompute") != 0)
      throw UserError(
          "E-USAGE",
          fmt::format("{} chooses each layer's recompute; it takes no restriction of the "
                      "recompute modes ({}): drop one of them",
                      Setting("recompute_strategy").named(options.recompute.strategy),
                      Setting("only").named("recompute=...")));
    options.space.only["recompute"] = {NDS_RECOMPUTE_NONE};
  }
  // Every value pricing needs, in one error, before any enumeration.
  require_pricing_values(model, {.devices_missing = false,
                                 .global_batch_missing = options.space.global_batch == NDS_UNKNOWN,
                                 .why = {}});
  if (options.space.global_batch == NDS_UNKNOWN || options.space.global_batch < 1)
    throw UserError("E-USAGE",
                    fmt::format("{} states no global batch, which the search needs; set {}",
                                model.file.empty() ? std::string("the config") : model.file,
                                Setting("global_batch").named()));
  // Degrees and micro-batch counts are int32 in the ABI's nds_strategy; the
  // limits keep every product of them within 64 bits.
  check_device_count(options.space.devices,
                     Setting("devices").named(std::to_string(options.space.devices)));
  if (options.space.global_batch > kMaxBatch.most)
    throw UserError(
        "E-MODEL-LIMIT",
        fmt::format("{}: above ndsearch's limit of {} sequences per step ({})",
                    Setting("global_batch").named(std::to_string(options.space.global_batch)),
                    kMaxBatch.most, kMaxBatch.why));
  return options;
}

// The (tp, pp, cp) triples the space holds, each a unit of work.
std::vector<OuterTriple> searched_triples(const SearchOptions& options, Model& model) {
  std::vector<OuterTriple> triples = outer_triples(options.space, model);
  if (triples.empty())
    throw UserError(
        "E-SEARCH-EMPTY",
        fmt::format("no (tp, pp, cp) divides {} devices within the bounds and {}; widen them or "
                    "change {}",
                    options.space.devices, Setting("only").named(), Setting("devices").named()));
  require_reachable_batch(options.space, model, triples);
  return triples;
}

// One worker per thread over the run's compiled model, each with its plugin
// states (Worker), built one after another: compiling a plugin reads (and
// caches views of) the model.
std::vector<Worker> compile_workers(const PluginRegistry& registry, Model& model,
                                    const CompiledModel& compiled, const SearchOptions& options,
                                    const std::vector<OuterTriple>& triples,
                                    const std::string& cp_algorithm) {
  uint32_t max_pp = 1;
  bool any_cp = false;
  for (const OuterTriple& t : triples) {
    max_pp = std::max<uint32_t>(max_pp, static_cast<uint32_t>(t.pp));
    any_cp = any_cp || t.cp > 1;
  }
  const unsigned threads =
      std::clamp<unsigned>(options.threads, 1, static_cast<unsigned>(triples.size()));
  std::vector<Worker> workers(threads);
  for (Worker& w : workers) {
    w.passes = std::make_unique<MemoryPasses>(registry, model, compiled.device);
    w.memory = std::make_unique<MemoryEvaluator>(*w.passes, max_pp);
    if (any_cp) w.cp = std::make_unique<CpModel>(registry, model, compiled.device, cp_algorithm);
    w.time = std::make_unique<TimeModel>(compiled, w.cp.get());
    if (!options.recompute.per_layer()) continue;
    w.strategy = std::make_unique<RecomputeStrategy>(registry, model, compiled.device,
                                                     options.recompute.strategy);
    w.recompute =
        std::make_unique<RecomputeChooser>(compiled, options.recompute, w.strategy.get(), max_pp);
  }
  return workers;
}

// Every triple priced by the workers in parallel, each into its own result
// (so the merge is the same whatever the thread count).
std::vector<TripleResult> price_triples(const SearchOptions& options, Model& model,
                                        std::vector<Worker>& workers,
                                        const std::vector<OuterTriple>& triples) {
  std::vector<TripleResult> results(triples.size());
  std::atomic<size_t> next{0};
  std::vector<std::exception_ptr> failures(workers.size());
  if (options.progress != nullptr) options.progress->units_total = triples.size();
  auto work = [&](unsigned id) {
    try {
      for (size_t i = next++; i < triples.size(); i = next++) {
        price_triple(options, model, workers[id], triples[i], i, results[i]);
        if (options.progress != nullptr) {
          options.progress->tested += results[i].tested;
          ++options.progress->units_done;
        }
      }
    } catch (...) {
      failures[id] = std::current_exception();
      next = triples.size();  // the others stop at their next triple
    }
  };
  std::vector<std::thread> pool;
  // The workers work for this thread's run (run_options.hpp); set once per thread.
  for (unsigned id = 1; id < workers.size(); ++id) pool.emplace_back(in_this_run(work), id);
  work(0);
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
  return results;
}

// The triples' results in triple order: the counts, every kept row, the
// Pareto candidates (into `fronts`) and the closest misses.
SearchResult merge(const std::vector<TripleResult>& results, const std::string& cp_algorithm,
                   std::vector<PricedCandidate>& fronts) {
  SearchResult result;
  for (const TripleResult& r : results) {
    result.counts.tested += r.tested;
    result.counts.priced += r.priced;
    result.counts.fit += r.fit;
    result.counts.dropped += r.dropped;
    result.counts.outpaced += r.outpaced;
    for (const auto& [id, n] : r.refused.counts)
      result.counts
          .refused[std::strcmp(id, "cp-algorithm") == 0 ? "cp-" + cp_algorithm : std::string(id)] +=
          n;
    result.ranking.insert(result.ranking.end(), r.best.begin(), r.best.end());
    fronts.insert(fronts.end(), r.pareto.begin(), r.pareto.end());
    result.closest.insert(result.closest.end(), r.closest.begin(), r.closest.end());
  }
  if (result.counts.tested == 0)
    throw UserError(
        "E-SEARCH-EMPTY",
        fmt::format(
            "the space holds no candidate: {} or the config's fixed values leave no value of some "
            "dimension within its bounds (docs/cli.md); widen them or {}",
            Setting("only").named(), Setting("dimensions").named()));
  return result;
}

// The ranking kept, the Pareto set, the closest misses with their fixes, and
// what every row assumes.
void rank(SearchResult& result, std::vector<PricedCandidate> fronts, Worker& worker, Model& model,
          const SearchOptions& options) {
  keep_first(result.ranking, options.keep, ranks_before);
  result.pareto = pareto_front(std::move(fronts));
  keep_first(result.closest, options.closest_misses, closer_miss);
  for (size_t i = 0; i < result.closest.size() && i < kListedMisses; ++i)
    result.closest_fixes.push_back(fixes_for(worker, model, options, result.closest[i].strategy));
  result.assumptions = worker.time->assumptions();
  for (std::string& line : memory_assumptions(model)) result.assumptions.push_back(std::move(line));
  if (worker.recompute) result.assumptions.push_back(worker.recompute->assumption());
  result.bounds = space_bounds(options.space, model);
}

}  // namespace

// Compile, price, merge, rank.
SearchResult run_search(const PluginRegistry& registry, Model& model, const Device& device,
                        const SearchOptions& requested) {
  const auto start = std::chrono::steady_clock::now();
  const SearchOptions options = checked_options(registry, model, requested);
  const std::vector<OuterTriple> triples = searched_triples(options, model);
  const std::string cp_algorithm = CpModel::choose_algorithm(options.cp_algorithm, model);
  const CompiledModel compiled(model, device,
                               {options.overheads, options.calibration,
                                optimizer_swap_of(options.recompute, device, model.training)});
  std::vector<Worker> workers =
      compile_workers(registry, model, compiled, options, triples, cp_algorithm);
  std::vector<PricedCandidate> fronts;
  SearchResult result =
      merge(price_triples(options, model, workers, triples), cp_algorithm, fronts);
  rank(result, std::move(fronts), workers[0], model, options);
  result.elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

}  // namespace ndsearch
