// SPDX-License-Identifier: Apache-2.0
// strategy_keys.hpp: the one table of the strategy's keys. Every reader and
// writer of a strategy walks it: the strategy string (--strategy), the
// search's dimensions and --only, the checks' ranges, the JSON documents,
// the CSV files, the ranking table, the search header and the measured-run
// reader. A key's name is also its JSON key, its CSV column and its table
// header: one spelling everywhere.
#pragma once

#include <ndsearch/nds_model.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ndsearch {

struct StrategyKey {
  std::string_view name;   // as typed, and the JSON key, CSV column and table header
  std::string_view alias;  // the reference's acronym read as this key (MP, MB), or empty
  // The values a user may give. Degrees: 1 to 2^24 (model_limits.hpp's
  // kMaxDevices: no degree exceeds the devices). The named keys (recompute,
  // schedule) take names; least and most are unused there.
  int64_t least;
  int64_t most;
  bool searched_by_default;  // in the search's default dimensions
  bool follows;              // dp and mbn follow from the others; --only restricts those
  // What the key means, and what it takes where nothing states it: the
  // rows of docs/cli.md's "Strategy keys" table (a test renders the table
  // from these and compares).
  std::string_view description;
  std::string_view default_words;
  int32_t nds_strategy::*field;  // the integer keys; nullptr for the named ones
};

inline constexpr int64_t kMostDegree = int64_t{1} << 24;

// In a strategy's order (dp tp pp cp ep etp vpp sp zero op mbs mbn recompute
// schedule): the order strategy texts, CSV columns and tables follow.
inline constexpr StrategyKey kStrategyKeys[] = {
    {"dp", "", 1, kMostDegree, true, true, "data-parallel degree (replicas × shards)",
     "devices / (tp·pp·cp)", &nds_strategy::dp},
    {"tp", "mp", 1, kMostDegree, true, false, "tensor-parallel degree", "1", &nds_strategy::tp},
    {"pp", "", 1, kMostDegree, true, false, "pipeline stages", "1", &nds_strategy::pp},
    {"cp", "", 1, kMostDegree, true, false, "context-parallel degree", "1", &nds_strategy::cp},
    {"ep", "", 1, kMostDegree, true, false,
     "expert-parallel degree (with etp, carved from dp·cp·tp)", "1", &nds_strategy::ep},
    {"etp", "", 1, kMostDegree, true, false, "tensor-parallel degree inside the experts", "tp",
     &nds_strategy::etp},
    {"vpp", "", 1, kMostDegree, true, false, "virtual stages (chunks) per pipeline rank",
     "1 (2 for zb-v, dualpipe, dualpipe-v)", &nds_strategy::vpp},
    {"sp", "", 0, 1, true, false, "sequence parallelism over the TP group (0/1)", "1 if tp > 1",
     &nds_strategy::sp},
    {"zero", "", 0, 3, true, false,
     "what the optimizer sharding shards: 0 nothing, 1 optimizer states, 2 and gradients, 3 and "
     "parameters (FSDP)",
     "1", &nds_strategy::zero},
    {"op", "", 1, kMostDegree, false, false,
     "the optimizer sharding group's size for zero ≥ 1 (HSDP when < dp·cp)", "dp·cp",
     &nds_strategy::op},
    {"mbs", "", 1, kMostDegree, true, false, "micro-batch size (sequences)", "1",
     &nds_strategy::mbs},
    {"mbn", "mb", 1, kMostDegree, true, true, "micro-batches per step", "global batch / (dp·mbs)",
     &nds_strategy::mbn},
    {"recompute", "", 0, 0, true, false,
     "activation recomputation: none (or off), selective or full", "the config's, else none",
     nullptr},
    {"schedule", "", 0, 0, false, false,
     "the pipeline schedule: 1f1b, interleaved, gpipe, zb-v, dualpipe or dualpipe-v",
     "the config's, else interleaved if vpp > 1, else 1f1b", nullptr},
};

// Whether `value` is in the key's range: the one rule the readers
// (read_key_value) and the checks apply. NDS_UNKNOWN (-1) is below every range.
constexpr bool in_range(const StrategyKey& key, int64_t value) {
  return value >= key.least && value <= key.most;
}

// The key `typed` names, case-insensitive and through its alias; nullptr if none.
const StrategyKey* strategy_key(std::string_view typed);

// Every key's name, in the table's order; upper case for the dimensions' messages.
std::vector<std::string> strategy_key_names(bool upper = false);

// "MP = tp, MB = mbn" (upper: "MP = TP, MB = MBN"): the reference's acronyms.
std::string strategy_key_aliases(bool upper = false);

// "dp tp pp ... schedule; MP = tp, MB = mbn": what a message lists.
std::string strategy_key_list(bool upper = false);

// A key's value in `s` (the named keys' enum as its int32 code) and its setter.
int32_t key_value(const nds_strategy& s, const StrategyKey& key);
void set_key_value(nds_strategy& s, const StrategyKey& key, int32_t value);

// The value as text: a number, a recompute mode's or a schedule's name, or
// nullopt when unknown.
std::optional<std::string> key_value_text(const StrategyKey& key, int32_t value);

// The one reader of a value a user typed for `key`: a whole number in the
// key's range, or a recompute mode's or schedule's name. On a bad value,
// nullopt and `why` says what is wrong ("out of range; sp takes 0 to 1").
std::optional<int32_t> read_key_value(const StrategyKey& key, std::string_view text,
                                      std::string& why);

}  // namespace ndsearch
