// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/parsing/mindspore_speed_up.hpp"

#include <ndsearch/sdk/config_file.hpp>

#include <nlohmann/json.hpp>

#include <array>
#include <map>
#include <string_view>
#include <system_error>

#include "plugins/common/parsing/json_lines.hpp"

namespace ndsearch::plugins::mindspore {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// What ndsearch does with a switch of the file once it is on.
enum class Use { tp_async, grad_reduce, param_gather, no_cost, unpriced };
// The JSON types MindSpore takes for it (context.py, valid_option).
enum class Type { boolean, integer, text, boolean_or_text };

struct Option {
  std::string_view key;
  Type type;
  Use use;
};

// MindSpore's option table (mindspore/context.py, _set_speedup_config_path:
// valid_option, both spellings since 2.5's renames), with what each does as
// set_context's documentation describes it. dataset_broadcast_opt_level
// broadcasts the dataset's batches to the pipeline stages and TP ranks: data
// loading, which no priced step time includes.
constexpr std::array<Option, 27> kOptions{{
    {"matmul_grad_comm_overlap", Type::boolean_or_text, Use::tp_async},
    {"grad_matmul_communication_overlap", Type::boolean_or_text, Use::tp_async},
    {"enable_grad_comm_opt", Type::boolean, Use::grad_reduce},
    {"grad_computation_allreduce_overlap", Type::boolean, Use::grad_reduce},
    {"enable_opt_shard_comm_opt", Type::boolean, Use::param_gather},
    {"computation_allgather_overlap", Type::boolean, Use::param_gather},
    {"dataset_broadcast_opt_level", Type::integer, Use::no_cost},
    {"recompute_comm_overlap", Type::boolean_or_text, Use::unpriced},
    {"recomputation_communication_overlap", Type::boolean_or_text, Use::unpriced},
    {"enable_task_opt", Type::boolean, Use::unpriced},
    {"enable_communication_fusion", Type::boolean, Use::unpriced},
    {"recompute_allgather_overlap_fagrad", Type::boolean, Use::unpriced},
    {"grad_fa_allgather_overlap", Type::boolean, Use::unpriced},
    {"interleaved_matmul_comm", Type::boolean, Use::unpriced},
    {"interleaved_layernorm_comm", Type::boolean, Use::unpriced},
    {"bias_add_comm_swap", Type::boolean, Use::unpriced},
    {"allreduce_and_biasadd_swap", Type::boolean, Use::unpriced},
    {"enable_begin_end_inline_opt", Type::boolean, Use::unpriced},
    {"enable_concat_eliminate_opt", Type::boolean, Use::unpriced},
    {"enable_allreduce_slice_to_reducescatter", Type::boolean, Use::unpriced},
    {"enable_interleave_split_concat_branch", Type::boolean, Use::unpriced},
    {"enable_interleave_parallel_branch", Type::boolean, Use::unpriced},
    {"enable_offloading_packed_experts", Type::boolean, Use::unpriced},
    {"compute_communicate_fusion_level", Type::integer, Use::unpriced},
    {"computation_communication_fusion_level", Type::integer, Use::unpriced},
    {"enable_flash_attention_load_balance", Type::boolean, Use::unpriced},
    {"pp_1f1b_overlap", Type::text, Use::unpriced},
}};

const Option* option_of(std::string_view key) {
  for (const Option& o : kOptions)
    if (o.key == key) return &o;
  return nullptr;
}

bool of_type(const json& v, Type t) {
  switch (t) {
    case Type::boolean: return v.is_boolean();
    case Type::integer: return v.is_number_integer();
    case Type::text: return v.is_string();
    case Type::boolean_or_text: return v.is_boolean() || v.is_string();
  }
  return false;
}

// A switch is on when true, a non-zero level or a non-empty list of
// communication operators (the text form of the overlap switches).
bool is_on(const json& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer()) return v.get<int64_t>() != 0;
  if (v.is_string()) return !v.get<std::string>().empty();
  return false;
}

}  // namespace

std::optional<fs::path> find_speed_up_file(const std::string& config_path,
                                           const std::string& stated) {
  const fs::path named(stated);
  std::error_code ec;
  const auto is_file = [&](const fs::path& p) { return fs::is_regular_file(p, ec); };
  if (named.is_absolute()) return is_file(named) ? std::optional(named) : std::nullopt;
  fs::path folder = fs::absolute(fs::path(config_path), ec).parent_path();
  while (!folder.empty()) {
    const fs::path candidate = (folder / named).lexically_normal();
    if (is_file(candidate)) return candidate;
    if (folder == folder.root_path()) break;
    folder = folder.parent_path();
  }
  return std::nullopt;
}

SpeedUp read_speed_up_file(const fs::path& path) {
  SpeedUp out;
  out.path = path.string();
  const std::string text = sdk::read_config_file(out.path, "MindSpore parallel speed-up");
  const std::map<std::string, int64_t> lines = json_key_lines(text, out.path);
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    const auto [line, column] = line_and_column(text, e.byte > 0 ? e.byte - 1 : 0);
    out.not_read =
        "not valid JSON at line " + std::to_string(line) + ", column " + std::to_string(column);
    return out;
  } catch (const json::exception&) {  // a number beyond a double: 1e999
    out.not_read = "a number beyond the range of a double";
    return out;
  }
  if (!doc.is_object()) {
    out.not_read = "not a JSON object of switches";
    return out;
  }
  for (const auto& [key, value] : doc.items()) {
    const auto at = lines.find(key);
    const SpeedUpKey named{key, at == lines.end() ? 0 : at->second};
    const Option* option = option_of(key);
    if (option == nullptr || !of_type(value, option->type)) {
      out.refused.push_back(named);
      continue;
    }
    if (!is_on(value)) continue;
    switch (option->use) {
      case Use::tp_async: out.tp_async = named; break;
      case Use::grad_reduce: out.grad_reduce = named; break;
      case Use::param_gather: out.param_gather = named; break;
      case Use::no_cost: break;
      case Use::unpriced: out.unpriced.push_back(named); break;
    }
  }
  return out;
}

}  // namespace ndsearch::plugins::mindspore
