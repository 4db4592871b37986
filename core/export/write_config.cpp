// SPDX-License-Identifier: Apache-2.0
#include "core/export/write_config.hpp"

#include <fmt/format.h>
#include <ndsearch/nds_parser.h>
#include <ndsearch/core/settings.hpp>
#include <ndsearch/sdk/config_file.hpp>  // split_error_tag

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <random>
#include <sstream>

#include "core/compile/trainer_settings.hpp"  // overlap_in_force
#include "core/model/schedule_names.hpp"
#include "core/strategy/checks.hpp"
#include "core/strategy/degree_product.hpp"
#include "core/strategy/strategy.hpp"
#include "core/support/status.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {
namespace fs = std::filesystem;
namespace {

constexpr int32_t U = NDS_UNKNOWN;

// The parser's apply, or null for one built before ABI 1.5 or that writes nothing.
nds_apply_fn apply_of(const LoadedPlugin& p) {
  const nds_parser_v1* t = p.interfaces.parser;
  if (t == nullptr || t->struct_size < offsetof(nds_parser_v1, apply) + sizeof(nds_apply_fn))
    return nullptr;
  return t->apply;
}

const LoadedPlugin* parser_named(const PluginRegistry& registry, const std::string& id) {
  for (const auto& p : registry.plugins())
    if (p->interfaces.parser != nullptr && p->id == id) return p.get();
  return nullptr;
}

nds_status* append(void* context, const char* bytes, size_t size) {
  try {
    static_cast<std::string*>(context)->append(bytes, size);
    return nullptr;
  } catch (...) {
    return make_status(NDS_INTERNAL, "out of memory while receiving the written config");
  }
}

// Calls `apply` of `parser`; the text, or the refusal's status.
std::pair<std::string, StatusPtr> call_apply(const LoadedPlugin& parser, const char* path,
                                             const nds_applied_strategy& applied) {
  std::string text;
  nds_text_sink sink{sizeof(nds_text_sink), &text, &append};
  StatusPtr failure(apply_of(parser)(path, &applied, &sink));
  return {std::move(text), std::move(failure)};
}

// The written config in a file of its own, with the config's extension
// (parsers read it), in `folder`; removed when done.
class RereadFile {
 public:
  RereadFile(const fs::path& config, const std::string& text, const fs::path& folder) {
    std::random_device entropy;
    path_ = (folder.empty() ? fs::path(".") : folder) /
            fmt::format(".{}.ndsearch-apply-{:08x}{}", config.stem().string(), entropy(),
                        config.extension().string());
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.flush())
      throw UserError("E-OUTPUT",
                      fmt::format("{}: cannot be written to read the written config back; "
                                  "make the folder writable",
                                  path_.string()));
  }
  ~RereadFile() {
    std::error_code ignored;
    fs::remove(path_, ignored);
  }
  RereadFile(const RereadFile&) = delete;
  RereadFile& operator=(const RereadFile&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The written config read back by its parser: from the temporary folder,
// else (a config that names files relative to its own folder, which are not
// there) beside the config.
Model read_back(const PluginRegistry& registry, const fs::path& config, const std::string& text,
                const ParseOptions& options) {
  try {
    const RereadFile copy(config, text, fs::temp_directory_path());
    return parse_config(registry, copy.path(), options);
  } catch (const UserError& e) {
    if (e.id() != "E-PARSE-FILE") throw;
  }
  const RereadFile beside(config, text, config.parent_path());
  return parse_config(registry, beside.path(), options);
}

// dp·tp·pp·cp of a resolved strategy.
uint64_t devices_of(const nds_strategy& s) {
  return static_cast<uint64_t>(degree_product({s.dp, s.tp, s.pp, s.cp}));
}

// The config's own strategy on `devices`, normalised as the search enumerates it.
nds_strategy config_strategy_on(const Model& model, uint64_t devices) {
  return normalized_strategy(
      resolve_strategy(unset_strategy(), model, devices, model.training.global_batch), model);
}

// Every key the written config states must be the applied one; a key it does
// not state must resolve to it (the trainer's default).
void check_round_trip(const Model& written, const nds_strategy& want, int64_t global_batch,
                      const std::string& config, const std::string& parser) {
  const nds_strategy got = config_strategy_on(written, devices_of(want));
  const nds_strategy& stated = written.stated;
  if (stated.dp != U && stated.dp != want.dp)
    throw UserError(
        "E-APPLY",
        fmt::format("{}: the config runs dp = {} (its device count over tp·pp·cp) and the "
                    "strategy dp = {}: change the config's device count, or search with "
                    "the device count it runs",
                    config, stated.dp, want.dp));
  std::vector<std::string> wrong = strategy_changes(want, got);
  if (written.training.global_batch != global_batch)
    wrong.push_back(
        fmt::format("global batch {} -> {}", global_batch, written.training.global_batch));
  if (!wrong.empty())
    throw UserError(
        "E-APPLY-ROUNDTRIP",
        fmt::format(
            "{}: the config parser `{}` wrote does not state the strategy when read back ({}); "
            "this is a bug of the parser's apply: please report it with the config",
            config, parser, fmt::join(wrong, ", ")));
}

// Within rounding: the written config's parse and the ranked candidate's
// take the same path through the same pricing.
constexpr double kPriceTolerance = 1e-9;

bool same_price(double a, double b) {
  return std::abs(a - b) <= kPriceTolerance * std::max(std::abs(a), std::abs(b));
}

// "8,8,7" of a per-stage count.
std::string stage_text(const StrategyEvaluation& e, uint32_t StageMemory::*count) {
  std::vector<uint32_t> v;
  for (const StageMemory& s : e.stages) v.push_back(s.*count);
  return fmt::format("{}", fmt::join(v, ","));
}

// "4F,2F+1S" of the recomputed layers per stage (the mode's, or a plan's).
std::string recomputed_text(const StrategyEvaluation& e) {
  std::vector<std::string> v;
  for (const StageMemory& s : e.stages) {
    const bool chosen = s.recompute.chosen;
    const uint32_t full =
        chosen ? s.recompute.full_layers
               : (e.strategy.recompute == NDS_RECOMPUTE_FULL ? s.recomputed_layers : 0);
    const uint32_t selective =
        chosen ? s.recompute.selective_layers
               : (e.strategy.recompute == NDS_RECOMPUTE_SELECTIVE ? s.recomputed_layers : 0);
    v.push_back(fmt::format("{}F+{}S", full, selective));
  }
  return fmt::format("{}", fmt::join(v, ","));
}

// The written config, priced as `eval` of it prices it (its own strategy,
// recompute and stage split), must be the ranked job: the same step time and
// peak memory.
void check_price(const PluginRegistry& registry, const Model& written_model,
                 const PriceCheck& price, const std::string& config, const std::string& parser) {
  Model written = written_model;
  EvaluationRequest request = price.request;
  request.strategy.clear();
  request.stage_layers.clear();
  request.recompute = RecomputeSettings{};
  request.recompute.swap_optimizer = price.request.recompute.swap_optimizer;
  request.recompute.host_link_bytes_per_s = price.request.recompute.host_link_bytes_per_s;
  // As eval prices it: the written split (stated where uneven, at the
  // file's own pp and vpp) by the one placement rule.
  request.layers_from_config = false;
  const StrategyEvaluation e = evaluate_strategy(registry, written, *price.machine, request);
  const StrategyEvaluation& ranked = *price.ranked;
  std::vector<std::string> differs;
  if (!e.valid())
    differs.push_back(fmt::format("it is refused: [{}] {}", e.refusal->id, e.refusal->reason));
  else if (!e.time || !ranked.time)
    differs.push_back("it has no step time");
  else {
    if (!same_price(e.time->step_s, ranked.time->step_s))
      differs.push_back(
          fmt::format("step {:.6g} s, ranked {:.6g} s", e.time->step_s, ranked.time->step_s));
    if (!same_price(static_cast<double>(e.peak_bytes), static_cast<double>(ranked.peak_bytes)))
      differs.push_back(
          fmt::format("peak {} bytes, ranked {} bytes", e.peak_bytes, ranked.peak_bytes));
    // Name what the format did not carry: the layers and recomputed layers per stage.
    if (!differs.empty()) {
      const std::string layers = stage_text(e, &StageMemory::layers),
                        ranked_layers = stage_text(ranked, &StageMemory::layers);
      if (layers != ranked_layers)
        differs.push_back(fmt::format("layers per stage [{}], ranked [{}]", layers, ranked_layers));
      const std::string recomputed = recomputed_text(e),
                        ranked_recomputed = recomputed_text(ranked);
      if (recomputed != ranked_recomputed)
        differs.push_back(fmt::format("recomputed layers per stage [{}], ranked [{}]", recomputed,
                                      ranked_recomputed));
    }
  }
  if (differs.empty()) return;
  throw UserError(
      "E-APPLY-PRICE",
      fmt::format("{}: the config `{}` wrote is not the job that was ranked when priced again "
                  "({}); its format or the writer could not express part of it: rank another "
                  "strategy ({}), or write that part by hand",
                  config, parser, fmt::join(differs, "; "), Setting("emit_rank").named()));
}

}  // namespace

std::vector<DiffLine> line_diff(const std::string& before, const std::string& after) {
  const auto lines = [](const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    std::string l;
    while (std::getline(in, l)) out.push_back(l);
    return out;
  };
  const std::vector<std::string> a = lines(before), b = lines(after);
  // Common head and tail first: edits are few and close together.
  size_t head = 0;
  while (head < a.size() && head < b.size() && a[head] == b[head]) ++head;
  size_t tail = 0;
  while (tail + head < a.size() && tail + head < b.size() &&
         a[a.size() - 1 - tail] == b[b.size() - 1 - tail])
    ++tail;
  const size_t n = a.size() - head - tail, m = b.size() - head - tail;
  std::vector<DiffLine> out;
  if (n > 20000 || m > 20000 || n * m > 50'000'000) {
    for (size_t i = 0; i < n; ++i)
      out.push_back({'-', static_cast<int64_t>(head + i + 1), a[head + i]});
    for (size_t j = 0; j < m; ++j)
      out.push_back({'+', static_cast<int64_t>(head + j + 1), b[head + j]});
    return out;
  }
  // lcs[i][j]: the longest common subsequence of a[head+i..] and b[head+j..].
  std::vector<std::vector<uint32_t>> lcs(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      lcs[i][j] = a[head + i] == b[head + j] ? lcs[i + 1][j + 1] + 1
                                             : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[head + i] == b[head + j]) {
      ++i, ++j;
    } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
      out.push_back({'-', static_cast<int64_t>(head + i + 1), a[head + i]});
      ++i;
    } else {
      out.push_back({'+', static_cast<int64_t>(head + j + 1), b[head + j]});
      ++j;
    }
  }
  return out;
}

namespace {

// A fast-tuner setup only names the config: the strategy goes into that one.
void refuse_setup(const Model& model) {
  if (model.setup.file.empty()) return;
  throw UserError("E-APPLY-SETUP",
                  fmt::format("{} is a fast-tuner setup, not a training config: apply the "
                              "strategy to the config its `{}` names, {}",
                              model.setup.file, model.setup.config_key, model.file));
}

// The checks' first refusal, then a global batch other than the config's:
// either would write a different training than the one asked for.
void refuse_unrunnable(const nds_strategy& st, const Model& model, uint64_t devices,
                       int64_t global_batch) {
  if (auto refusal = first_refusal(st, model, devices, global_batch))
    throw UserError("E-STRATEGY-REFUSED",
                    fmt::format("{} breaks the check `{}`: {}", strategy_text(st), refusal->id,
                                refusal->message));
  if (model.training.global_batch != NDS_UNKNOWN && model.training.global_batch != global_batch)
    throw UserError(
        "E-APPLY",
        fmt::format("{} makes a global batch of dp·mbs·mbn = {} sequences; the config's is {}: "
                    "a strategy of the config's batch keeps the training the same",
                    strategy_text(st), global_batch, model.training.global_batch));
}

// What the parsers' apply receives; it points into `strategy` and `s`, which
// must outlive it.
nds_applied_strategy applied_of(const nds_strategy& strategy, const StrategyToWrite& s,
                                const Model& model, uint64_t devices, int64_t global_batch) {
  nds_applied_strategy applied{};
  applied.struct_size = sizeof(applied);
  applied.strategy = &strategy;
  applied.stage_layers = s.stage_layers.empty() ? nullptr : s.stage_layers.data();
  applied.stage_layer_count = s.stage_layers.size();
  applied.layers = model.decoder_layers();
  applied.devices = static_cast<int64_t>(devices);
  applied.global_batch = global_batch;
  applied.layer_options = s.layer_options.empty() ? nullptr : s.layer_options.data();
  applied.layer_option_count = s.layer_options.size();
  applied.overlap = overlap_in_force(model);
  return applied;
}

// A per-layer plan reaches writers from ABI 1.7 on: an older parser is never
// passed it, so it is refused rather than written without it.
void refuse_old_writer(const LoadedPlugin* parser, const StrategyToWrite& s) {
  if (parser != nullptr && parser->abi_minor < 7 && !s.layer_options.empty())
    throw UserError(
        "E-APPLY",
        fmt::format("{}: its layers do not all recompute alike ({}), and the parser `{}` was "
                    "built before ABI 1.7, which passes a per-layer plan to writers: rebuild it, "
                    "or rank without per-stage or per-layer recompute",
                    strategy_text(s.strategy), s.plan, parser->id));
}

// No trainer behind the format: the strategy as each trainer that writes it
// states it, into `fragments`; refused when none writes it.
void write_fragments(const PluginRegistry& registry, const nds_applied_strategy& applied,
                     const fs::path& config, const std::string& framework,
                     std::vector<ConfigFragment>& fragments) {
  bool written = false;
  for (const auto& p : registry.plugins()) {
    if (p->interfaces.parser == nullptr || apply_of(*p) == nullptr) continue;
    auto [text, failure] = call_apply(*p, nullptr, applied);
    const std::string format =
        p->interfaces.parser->format != nullptr ? p->interfaces.parser->format : "";
    if (!failure) {
      fragments.push_back({p->id, format, text, ""});
      written = true;
    } else if (failure->code == NDS_UNSUPPORTED) {
      // That trainer cannot run the strategy: say why. (A parser that
      // writes into files only answers NDS_FAILED_PRECONDITION: left out.)
      fragments.push_back({p->id, format, "", failure->message});
    }
  }
  if (!written)
    throw UserError("E-APPLY",
                    fmt::format("{}: its parser `{}` does not write configs, and no loaded parser "
                                "writes this strategy as flags or tables",
                                config.string(), framework));
}

// The written config parsed again; a parse failure is the parser's apply's bug.
Model read_written(const PluginRegistry& registry, const fs::path& config, const std::string& text,
                   const ParseOptions& parse, const std::string& framework) {
  // Read back with the same parser and the command line's settings, but for
  // its batch settings, which would hide the written ones.
  ParseOptions again = parse;
  again.framework = framework;
  again.overrides.micro_batch_size.reset();
  again.overrides.global_batch.reset();
  try {
    return read_back(registry, config, text, again);
  } catch (const UserError& e) {
    throw UserError("E-APPLY-ROUNDTRIP",
                    fmt::format("{}: the config parser `{}` wrote does not read back ({}); this "
                                "is a bug of the parser's apply: please report it with the "
                                "config",
                                config.string(), framework, e.what()));
  }
}

// The lines `text` changes in the config file as it is on disk.
std::vector<DiffLine> changes_to_file(const fs::path& config, const std::string& text) {
  std::ifstream in(config, std::ios::binary);
  std::ostringstream before;
  before << in.rdbuf();
  return line_diff(before.str(), text);
}

}  // namespace

nds_strategy strategy_to_apply(const Model& model, const std::string& text, uint64_t devices) {
  refuse_setup(model);
  return normalized_strategy(
      resolve_strategy(parse_strategy(text), model, devices != 0 ? devices : stated_devices(model),
                       model.training.global_batch),
      model);
}

std::vector<std::string> changes_from_config(const Model& model, const nds_strategy& written) {
  return strategy_changes(config_strategy_on(model, devices_of(written)),
                          normalized_strategy(written, model));
}

ConfigWrite write_config(const PluginRegistry& registry, const Model& model, const fs::path& config,
                         const ParseOptions& parse, const StrategyToWrite& s,
                         const PriceCheck* price) {
  refuse_setup(model);
  const nds_strategy& st = s.strategy;
  const uint64_t devices = devices_of(st);
  const int64_t global_batch = degree_product({st.dp, st.mbs, st.mbn});
  refuse_unrunnable(st, model, devices, global_batch);
  ConfigWrite out;
  out.parser = model.framework;
  out.strategy = st;
  const nds_applied_strategy applied = applied_of(out.strategy, s, model, devices, global_batch);

  const LoadedPlugin* parser = parser_named(registry, model.framework);
  refuse_old_writer(parser, s);
  if (parser == nullptr || apply_of(*parser) == nullptr) {
    write_fragments(registry, applied, config, model.framework, out.fragments);
    return out;
  }
  auto [text, failure] = call_apply(*parser, config.c_str(), applied);
  if (failure) {
    const auto [tag, message] = sdk::split_error_tag(failure->message);
    throw UserError(tag.empty() ? "E-APPLY" : tag, message);
  }
  out.text = std::move(text);
  const Model written = read_written(registry, config, out.text, parse, model.framework);
  check_round_trip(written, normalized_strategy(st, model), global_batch, config.string(),
                   model.framework);
  if (price != nullptr) check_price(registry, written, *price, config.string(), model.framework);
  out.changes = changes_to_file(config, out.text);
  return out;
}

}  // namespace ndsearch
