// SPDX-License-Identifier: Apache-2.0
#include "plugins/common/parsing/mindspore_speed_up.hpp"

#include <ndsearch/sdk/config_file.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
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
    case Type::integer: return v.is_number_integer() || v.is_boolean();  // Python: bool is an int
    case Type::text: return v.is_string();
    case Type::boolean_or_text: return v.is_boolean() || v.is_string();
  }
  return false;
}

// The collectives a text-valued overlap switch may list, comma-separated
// (context.py, _check_speedup_config_str_value; "" among them); a true
// switch stands for all but the Morph ones. Those TP runs: the rest are
// MoE's all-to-alls.
constexpr std::array<std::string_view, 7> kCollectives{
    "AlltoAll",  "AlltoAllV",     "MorphAllGather",    "AllReduce",
    "AllGather", "ReduceScatter", "MorphReduceScatter"};
bool is_tp_collective(std::string_view c) {
  return c != "AlltoAll" && c != "AlltoAllV";
}

struct Switch {
  bool valid = true;
  bool on = false;
  bool tp = false;  // a collective list naming one TP runs (or true)
};

Switch read_switch(const json& v) {
  Switch s;
  if (v.is_boolean()) s.on = s.tp = v.get<bool>();
  if (v.is_number_integer()) s.on = s.tp = v.get<int64_t>() != 0;
  if (!v.is_string()) return s;
  const std::string text = v.get<std::string>();
  size_t begin = 0;
  for (;;) {
    const size_t end = std::min(text.find(',', begin), text.size());
    const std::string_view name = std::string_view(text).substr(begin, end - begin);
    if (!name.empty()) {
      if (std::find(kCollectives.begin(), kCollectives.end(), name) == kCollectives.end())
        s.valid = false;
      s.on = true;
      s.tp = s.tp || is_tp_collective(name);
    }
    if (end == text.size()) break;
    begin = end + 1;
  }
  return s;
}

// What MindSpore takes for a key of type `t`, in words.
std::string expected(Type t) {
  if (t == Type::boolean) return "true or false";
  if (t == Type::integer) return "an integer";
  std::string names;
  for (std::string_view c : kCollectives) names.append(names.empty() ? "" : ", ").append(c);
  return (t == Type::text ? "a list of collectives, from "
                          : "true, false or a list of collectives, from ") +
         names;
}

std::string where_in(const std::string& key, int64_t line) {
  return "`" + sdk::shown(key) + "`" + (line > 0 ? " (line " + std::to_string(line) + ")" : "");
}

}  // namespace

std::optional<fs::path> find_speed_up_file(const std::string& config_path,
                                           const std::string& stated) {
  const fs::path named = fs::path(stated).lexically_normal();
  std::error_code ec;
  const auto is_file = [&](const fs::path& p) { return fs::is_regular_file(p, ec); };
  if (named.is_absolute()) return is_file(named) ? std::optional(named) : std::nullopt;
  const fs::path home = fs::absolute(fs::path(config_path), ec).parent_path();
  if (named.empty() || *named.begin() == "..") {  // "..": from the config's folder only
    const fs::path candidate = (home / named).lexically_normal();
    return is_file(candidate) ? std::optional(candidate) : std::nullopt;
  }
  const fs::path first = *named.begin();
  for (fs::path folder = home; !folder.empty(); folder = folder.parent_path()) {
    const fs::path candidate = (folder / named).lexically_normal();
    if (is_file(candidate)) return candidate;
    if (fs::exists(folder / first, ec) || fs::exists(folder / ".git", ec) ||
        folder == folder.root_path())
      break;
  }
  return std::nullopt;
}

SpeedUp read_speed_up_file(const fs::path& path) {
  SpeedUp out;
  out.path = path.string();
  const std::string text = sdk::read_config_file(out.path, "MindSpore parallel speed-up file");
  const std::map<std::string, int64_t> lines = json_key_lines(text, out.path);
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    const auto [line, column] = line_and_column(text, e.byte > 0 ? e.byte - 1 : 0);
    out.refused =
        "is not valid JSON at line " + std::to_string(line) + ", column " + std::to_string(column);
    return out;
  } catch (const json::exception&) {  // a number beyond a double: 1e999
    out.refused = "holds a number beyond the range of a double";
    return out;
  }
  if (!doc.is_object()) {
    out.refused = "is not a JSON object of switches";
    return out;
  }
  for (const auto& [key, value] : doc.items()) {
    const auto at = lines.find(key);
    const SpeedUpKey named{key, at == lines.end() ? 0 : at->second};
    const Option* option = option_of(key);
    if (option == nullptr) {
      out.refused = "names " + where_in(key, named.line) +
                    ", not an option of MindSpore's (context.py, _set_speedup_config_path)";
      return out;
    }
    const Switch s = read_switch(value);
    if (!of_type(value, option->type) || !s.valid) {
      out.refused = "gives " + where_in(key, named.line) + " a value MindSpore does not take (" +
                    expected(option->type) + ")";
      return out;
    }
    if (!s.on) continue;
    switch (option->use) {
      case Use::tp_async:
        if (s.tp)
          out.tp_async = named;
        else
          out.unpriced.push_back(named);  // MoE's all-to-alls only
        break;
      case Use::grad_reduce: out.grad_reduce = named; break;
      case Use::param_gather: out.param_gather = named; break;
      case Use::no_cost: break;
      case Use::unpriced: out.unpriced.push_back(named); break;
    }
  }
  return out;
}

}  // namespace ndsearch::plugins::mindspore
