// SPDX-License-Identifier: Apache-2.0
#include "plugins/parsers/megatron_args/model.hpp"
#include "plugins/parsers/megatron_args/mindspeed_refusals.hpp"
#include "plugins/parsers/megatron_args/whole_number.hpp"

#include "plugins/common/parsing/read_limits.hpp"
#include "plugins/common/parsing/trainer_description.hpp"

#include <ndsearch/sdk/closest_name.hpp>
#include <ndsearch/sdk/model_math.hpp>

#include <algorithm>
#include <cctype>
#include <set>

namespace ndsearch::plugins::megatron {
namespace {

using sdk::Where;
using State = Found::State;

constexpr const char* kTrainer = "megatron";
using plugins::kMaxCountRead;  // layers and degrees: the tables below are sized by them

Where trainer_default(const std::string& file, const std::string& field) {
  Where w;
  w.file = file;
  w.field = field;
  w.default_of = kTrainer;
  return w;
}

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\n\r");
  size_t b = s.find_last_not_of(" \t\n\r");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// A value read from the arguments: known, unknown (with why) or absent.
template <class T>
struct Value {
  State state = State::absent;
  T value{};
  Where where;
  std::string why;
  bool known() const { return state == State::known; }
};

class Reader {
 public:
  Reader(const Arguments& args, sdk::Builder& b) : args_(args), b_(b) {}

  // NDS_OUT_OF_RANGE (E-PARSE-VALUE) for a number flag's bad number,
  // NDS_INVALID_ARGUMENT (E-PARSE-FIELD) otherwise.
  [[noreturn]] void bad(const Occurrence& o, size_t index, const std::string& expected,
                        nds_status_code code = NDS_INVALID_ARGUMENT) const {
    const Where w = args_.at(o);
    const std::string value = index < o.values.size() ? sdk::shown(o.values[index].text()) : "";
    std::string via;
    if (index < o.values.size() && !o.values[index].variable().empty())
      via = " (written in " + o.values[index].variable() + " on line " +
            std::to_string(o.values[index].line()) + ")";
    throw sdk::Error(
        code, args_.file() + ":" + (w.line > 0 ? std::to_string(w.line) : std::string("?")) + ": " +
                  o.flag + (o.values.empty() ? std::string(" has no value") : " '" + value + "'") +
                  via + ": expected " + expected + "; fix the value of " + o.flag);
  }

  // NDS_INVALID_ARGUMENT for a flag the script sets to what cannot be known
  // without running it (`why`), where a value is needed; `fix` says how.
  [[noreturn]] void unknowable(const char* flag, const Where& where, const std::string& why,
                               const std::string& fix = {}) const {
    throw sdk::Error(NDS_INVALID_ARGUMENT, args_.file() + ":" + std::to_string(where.line) + ": " +
                                               flag + " cannot be known (" + why + ")" +
                                               (fix.empty() ? std::string() : "; " + fix));
  }

  // The unknown value of `flag`: why it cannot be known.
  static std::string unknown_value_why(const Occurrence& o) {
    for (const Word& v : o.values)
      if (!v.known()) return o.flag + " is " + v.text() + ": " + v.unknown_why();
    return "";
  }

  Value<int64_t> integer(std::initializer_list<const char*> flags, int64_t minimum = 0,
                         int64_t maximum = INT64_MAX) const {
    Value<int64_t> r;
    const Found f = args_.find(flags);
    r.state = f.state;
    if (f.state == State::absent) return r;
    const Occurrence& o = *f.occurrence;
    r.where = args_.where(o);
    if (f.state == State::unknown) {
      r.why = f.why;
      return r;
    }
    if (o.values.empty()) bad(o, 0, "a whole number");
    if (!o.values[0].known()) {
      r.state = State::unknown;
      r.why = unknown_value_why(o);
      return r;
    }
    if (!whole_number(trim(o.values[0].text()), r.value) || r.value < minimum || r.value > maximum)
      bad(o, 0,
          "a whole number >= " + std::to_string(minimum) +
              (maximum == INT64_MAX
                   ? std::string(" that fits in 64 bits")
                   : " and <= " + std::to_string(maximum) + " (ndsearch reads no more)"),
          NDS_OUT_OF_RANGE);
    return r;
  }

  Value<double> real(std::initializer_list<const char*> flags) const {
    Value<double> r;
    const Found f = args_.find(flags);
    r.state = f.state;
    if (f.state == State::absent) return r;
    const Occurrence& o = *f.occurrence;
    r.where = args_.where(o);
    if (f.state == State::unknown || o.values.empty() || !o.values[0].known()) {
      if (o.values.empty() && f.state == State::known) bad(o, 0, "a number");
      r.state = State::unknown;
      r.why = f.state == State::unknown ? f.why : unknown_value_why(o);
      return r;
    }
    try {
      size_t used = 0;
      r.value = std::stod(o.values[0].text(), &used);
      if (used != o.values[0].text().size()) throw std::invalid_argument("trailing text");
    } catch (...) {
      bad(o, 0, "a number", NDS_OUT_OF_RANGE);
    }
    return r;
  }

  Value<std::string> text(std::initializer_list<const char*> flags) const {
    Value<std::string> r;
    const Found f = args_.find(flags);
    r.state = f.state;
    if (f.state == State::absent) return r;
    const Occurrence& o = *f.occurrence;
    r.where = args_.where(o);
    if (f.state == State::unknown) {
      r.why = f.why;
      return r;
    }
    if (o.values.empty()) bad(o, 0, "a value");
    for (size_t i = 0; i < o.values.size(); ++i) {
      if (!o.values[i].known()) {
        r.state = State::unknown;
        r.why = unknown_value_why(o);
        return r;
      }
      r.value += (i == 0 ? "" : " ") + o.values[i].text();
    }
    return r;
  }

  // A switch: present (1), absent (0), or present only in a branch that may
  // not run (unknown).
  Value<int64_t> flag(std::initializer_list<const char*> flags) const {
    Value<int64_t> r;
    const Found f = args_.find(flags);
    r.state = f.state;
    if (f.state == State::absent) return r;
    r.where = args_.at(*f.occurrence);
    r.why = f.why;
    r.value = 1;
    return r;
  }

  // Sets `key` from `v`, or records it as unknown; nothing when absent.
  template <class T>
  bool put(const char* key, const Value<T>& v) {
    if (v.state == State::unknown) {
      b_.set_unknown(key, v.why, v.where);
      return false;
    }
    if (v.state != State::known) return false;
    if constexpr (std::is_same_v<T, int64_t>) b_.set(key, v.value, v.where);
    if constexpr (std::is_same_v<T, double>) b_.set_real(key, v.value, v.where);
    if constexpr (std::is_same_v<T, std::string>) b_.set_string(key, v.value, v.where);
    return true;
  }

  const Arguments& args() const { return args_; }
  sdk::Builder& builder() { return b_; }

 private:
  const Arguments& args_;
  sdk::Builder& b_;
};

template <class T>
Value<T> known_value(T value, Where where) {
  Value<T> v;
  v.state = State::known;
  v.value = std::move(value);
  v.where = std::move(where);
  return v;
}

// What every layer of the model shares.
struct LayerShape {
  Value<int64_t> hidden, heads, kv_heads, head_dim, ffn_hidden, qk_norm, linear_bias, qkv_bias,
      grouped_gemm;
  Value<std::string> ffn, norm, attention;
  Value<int64_t> q_lora, kv_lora, qk_nope, qk_rope, v_head;
  Value<double> hidden_dropout, attention_dropout;
  // MoE layers
  Value<int64_t> experts, topk, moe_ffn, shared_experts, shared_ffn;
  Value<double> capacity_factor;
  Value<int64_t> padded, router_groups, router_group_topk;  // ABI 1.13
};

void put_shape(Reader& r, const LayerShape& s, bool moe) {
  r.put("hidden_size", s.hidden);
  r.put("heads", s.heads);
  r.put("kv_heads", s.kv_heads);
  r.put("head_dim", s.head_dim);
  r.put("attention", s.attention);
  r.put("q_lora_rank", s.q_lora);
  r.put("kv_lora_rank", s.kv_lora);
  r.put("qk_nope_head_dim", s.qk_nope);
  r.put("qk_rope_head_dim", s.qk_rope);
  r.put("v_head_dim", s.v_head);
  r.put("qk_norm", s.qk_norm);
  r.put("ffn", s.ffn);
  r.put("norm", s.norm);
  r.put("linear_bias", s.linear_bias);
  r.put("qkv_bias", s.qkv_bias);
  r.put("grouped_gemm", s.grouped_gemm);
  r.put("hidden_dropout", s.hidden_dropout);
  r.put("attention_dropout", s.attention_dropout);
  if (!moe) {
    r.put("ffn_hidden_size", s.ffn_hidden);
    return;
  }
  r.put("experts", s.experts);
  r.put("experts_per_token", s.topk);
  r.put("moe_ffn_hidden_size", s.moe_ffn);
  r.put("shared_experts", s.shared_experts);
  r.put("shared_expert_ffn_hidden_size", s.shared_ffn);
  r.put("capacity_factor", s.capacity_factor);
  r.put("moe_padded", s.padded);
  r.put("router_groups", s.router_groups);
  r.put("router_group_topk", s.router_group_topk);
}

// --fp8-recipe, read when --fp8-format turns fp8 on (Megatron-LM reads it only
// then): delayed (its default, Transformer Engine's DelayedScaling),
// tensorwise (per-tensor scales from the current amax: "current"), blockwise,
// mxfp8.
void fp8_recipe(Reader& r) {
  const Value<std::string> recipe = r.text({"--fp8-recipe"});
  if (recipe.state == State::absent) {
    r.builder().set_string("fp8_recipe", "delayed",
                           trainer_default(r.args().file(), "--fp8-recipe (delayed)"));
    return;
  }
  if (recipe.known() && recipe.value != "delayed" && recipe.value != "tensorwise" &&
      recipe.value != "blockwise" && recipe.value != "mxfp8")
    r.bad(*r.args().find({"--fp8-recipe"}).occurrence, 0,
          "delayed, tensorwise, blockwise or mxfp8");
  Value<std::string> ours = recipe;
  if (ours.known() && ours.value == "tensorwise") ours.value = "current";
  r.put("fp8_recipe", ours);
}

// The bytes the loss moves per logit (ABI 1.15). Megatron-LM's default,
// unfused vocab-parallel cross entropy (megatron/core/tensor_parallel/
// cross_entropy.py, core_v0.6.0 to today) casts the bf16 logits to fp32
// (2 + 4), takes their max (4), subtracts it (4 + 4), exponentiates in place
// (4 + 4), sums (4) and divides in place (4 + 4): 38 forward; its backward
// scales the kept softmax in place (4 + 4) and autograd casts the gradient
// back to bf16 (4 + 2): 14. --cross-entropy-loss-fusion runs the same steps
// as three fused kernels (megatron/core/fusions/fused_cross_entropy.py) and
// one backward: the host's default, 22 and 6 (sdk::loss_traffic);
// --cross-entropy-fusion-impl te (Transformer Engine's kernel) is priced as
// that. MindSpeed-LLM's --output-logit-softcapping (Gemma 2) divides the bf16
// logits by the cap, takes tanh and multiplies back before the loss, three
// passes (2 + 2 each): 12 more forward; their backward 4 + 6 + 4: 14 more
// (modellink/core/models/gpt/gpt_model.py at v1.0.RC3.0).
void loss_traffic(Reader& r) {
  // A flag the script sets in a branch it cannot resolve: both unknown.
  auto unknown_traffic = [&](const Where& where, const std::string& why) {
    const Value<double> unknown{State::unknown, 0, where, why};
    r.put("loss_forward_bytes_per_logit", unknown);
    r.put("loss_backward_bytes_per_logit", unknown);
  };
  const Value<int64_t> fused = r.flag({"--cross-entropy-loss-fusion"});
  if (fused.state == State::unknown) return unknown_traffic(fused.where, fused.why);
  const Value<std::string> impl = r.text({"--cross-entropy-fusion-impl"});
  if (impl.known() && impl.value != "native" && impl.value != "te")
    r.bad(*r.args().find({"--cross-entropy-fusion-impl"}).occurrence, 0, "native or te");
  Where w =
      fused.known() ? fused.where : trainer_default(r.args().file(), "--cross-entropy-loss-fusion");
  w.field += fused.known() ? " (fused: 22 and 6 bytes a logit)" : " (off: 38 and 14 bytes a logit)";
  double forward = fused.known() ? sdk::kFusedLossTraffic.forward : 38;
  double backward = fused.known() ? sdk::kFusedLossTraffic.backward : 14;
  const Value<double> cap = r.real({"--output-logit-softcapping"});
  if (cap.state == State::unknown) return unknown_traffic(cap.where, cap.why);
  if (cap.known() && cap.value > 0) {
    forward += 12;
    backward += 14;
    const std::string base = w.field;
    w = cap.where;
    w.field += " (the soft-capped logits' three passes, 12 and 14 bytes a logit, on " + base + ")";
  }
  r.builder().set_real("loss_forward_bytes_per_logit", forward, w);
  r.builder().set_real("loss_backward_bytes_per_logit", backward, w);
}

// Comma- or space-separated whole numbers ("61,62,63", "17,20,22,21").
std::optional<std::vector<int64_t>> number_list(const std::string& text) {
  std::vector<int64_t> values;
  std::string item;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ',' || text[i] == ' ') {
      if (!item.empty()) {
        int64_t v = 0;
        if (!whole_number(item, v)) return std::nullopt;
        values.push_back(v);
      }
      item.clear();
    } else {
      item += text[i];
    }
  }
  return values;
}

}  // namespace

std::optional<std::vector<int64_t>> layer_pattern(const std::string& expression) {
  // A sum of terms, each a list literal optionally times a count.
  std::string s;
  for (char c : expression)
    if (!std::isspace(static_cast<unsigned char>(c))) s += c;
  std::vector<int64_t> pattern;
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] != '[') return std::nullopt;
    size_t close = s.find(']', i);
    if (close == std::string::npos) return std::nullopt;
    auto items = number_list(s.substr(i + 1, close - i - 1));
    if (!items) return std::nullopt;
    i = close + 1;
    int64_t times = 1;
    if (i < s.size() && s[i] == '*') {
      size_t start = ++i;
      while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
      if (start == i || !whole_number(s.substr(start, i - start), times)) return std::nullopt;
    }
    // A pattern has one entry per layer: longer than any layer count read is not one.
    if (times > kMaxCountRead || pattern.size() + items->size() * static_cast<size_t>(times) >
                                     static_cast<size_t>(kMaxCountRead))
      return std::nullopt;
    for (int64_t t = 0; t < times; ++t) pattern.insert(pattern.end(), items->begin(), items->end());
    if (i < s.size()) {
      if (s[i] != '+') return std::nullopt;
      ++i;
      if (i == s.size()) return std::nullopt;
    }
  }
  if (pattern.empty()) return std::nullopt;
  return pattern;
}

// Sliding-window attention: the keys each query of a windowed layer attends
// to (0: no layer is windowed) and, per layer, whether it is. MindSpeed-LLM's
// --sliding-window W sets FlashAttentionScore's pre_tokens to W
// (modellink/core/transformer/dot_product_attention.py at v1.0.RC3.0): the
// query and the W keys before it. Megatron-Core's --window-size L,R keeps the
// L keys before the query (R, after it, is cut by the causal mask) on every
// layer but those --window-attn-skip-freq keeps whole: every N-th (1-based
// layer number % N == 0) or, as a list, 0 for a whole layer and 1 for a
// windowed one (is_layer_window_attention, megatron/core/transformer/utils.py).
namespace {

struct Windows {
  Value<int64_t> keys;
  std::vector<int64_t> windowed;  // per layer, 0/1
};

Windows read_windows(Reader& r, const Arguments& args, int64_t layers) {
  const std::string& file = args.file();
  auto unknowable = [&](const char* flag, const auto& v) {
    r.unknowable(flag, v.where, v.why, "give it a value in the script");
  };
  Windows w;
  w.windowed.assign(static_cast<size_t>(layers), 0);
  // At most INT64_MAX - 1 keys before the query, so that the query's own
  // key can be added; the core's limit on a window refuses what is too long.
  const Value<int64_t> sliding = r.integer({"--sliding-window"}, 1, INT64_MAX - 1);
  const Value<std::string> size = r.text({"--window-size"});
  if (sliding.state == State::unknown) unknowable("--sliding-window", sliding);
  if (size.state == State::unknown) unknowable("--window-size", size);
  if (sliding.known() && size.known()) {
    throw sdk::Error(
        NDS_INVALID_ARGUMENT,
        file + ":" + std::to_string(size.where.line) +
            ": --window-size and --sliding-window both set the attention window; keep one");
  }
  if (sliding.known()) {
    w.keys = known_value<int64_t>(sliding.value + 1, sliding.where);
  } else if (size.known()) {
    std::string text;
    for (char c : size.value)
      if (c != '(' && c != ')' && c != '"' && c != '\'' &&
          !std::isspace(static_cast<unsigned char>(c)))
        text += c;
    const auto pair = number_list(text);
    const Occurrence& o = *args.find({"--window-size"}).occurrence;
    if (!pair || pair->size() != 2)
      r.bad(o, 0, "two whole numbers, left and right, such as 4096,0");
    if (pair->front() < 0) return w;  // -1: every key before the query
    if (pair->front() == INT64_MAX) r.bad(o, 0, "a left window below 2^63 - 1", NDS_OUT_OF_RANGE);
    w.keys = known_value<int64_t>(pair->front() + 1, size.where);
  } else {
    return w;
  }
  const Value<std::string> skip = r.text({"--window-attn-skip-freq"});
  if (skip.state == State::unknown) unknowable("--window-attn-skip-freq", skip);
  int64_t every = 0;  // 0: every layer windowed
  std::optional<std::vector<int64_t>> pattern;
  if (skip.known()) {
    const Occurrence& o = *args.find({"--window-attn-skip-freq"}).occurrence;
    if (!whole_number(trim(skip.value), every)) {
      pattern = layer_pattern(skip.value);
      if (!pattern) r.bad(o, 0, "an integer or a Python list expression such as [1,1,1,0]*8");
      if (static_cast<int64_t>(pattern->size()) != layers) {
        r.bad(o, 0,
              "a list of --num-layers = " + std::to_string(layers) + " entries (it has " +
                  std::to_string(pattern->size()) + ")");
      }
    } else if (every < 1) {
      r.bad(o, 0, "a layer frequency of at least 1");
    }
  }
  for (int64_t i = 0; i < layers; ++i) {
    const bool windowed =
        pattern ? (*pattern)[static_cast<size_t>(i)] != 0 : every == 0 || (i + 1) % every != 0;
    w.windowed[static_cast<size_t>(i)] = windowed ? 1 : 0;
  }
  return w;
}

}  // namespace

// The decoder (and MTP) blocks of `layers` layers, as the arguments shape
// them; returns the layer count, with MindSpeed's --noop-layers in `noop`.
int64_t build_layer_blocks(Reader& r, const Arguments& args, const Value<int64_t>& layers,
                           std::set<int64_t>& noop, sdk::Builder& b) {
  const std::string& file = args.file();
  auto fallback = [&](const char* field) { return trainer_default(file, field); };
  LayerShape s;
  s.hidden = r.integer({"--hidden-size"}, 1);
  s.heads = r.integer({"--num-attention-heads"}, 1);
  const bool mla = r.flag({"--multi-latent-attention", "--multi-head-latent-attention"}).known();
  if (r.flag({"--group-query-attention"}).known() && !mla)
    s.kv_heads = r.integer({"--num-query-groups"}, 1);
  if (mla) {
    s.attention = known_value<std::string>(
        "mla", r.flag({"--multi-latent-attention", "--multi-head-latent-attention"}).where);
    // Megatron-LM's MLA defaults (MLATransformerConfig): q_lora_rank None
    // (queries not compressed), kv_lora_rank 32, qk_head_dim 128,
    // qk_pos_emb_head_dim 64, v_head_dim 128.
    auto with_default = [&](std::initializer_list<const char*> flags, int64_t value,
                            const char* field) {
      Value<int64_t> v = r.integer(flags);
      return v.state == State::absent ? known_value(value, fallback(field)) : v;
    };
    s.q_lora = with_default({"--q-lora-rank"}, 0, "--q-lora-rank");
    s.kv_lora = with_default({"--kv-lora-rank"}, 32, "--kv-lora-rank");
    s.qk_nope = with_default({"--qk-head-dim", "--qk-nope-head-dim"}, 128, "--qk-head-dim");
    s.qk_rope =
        with_default({"--qk-pos-emb-head-dim", "--qk-rope-head-dim"}, 64, "--qk-pos-emb-head-dim");
    s.v_head = with_default({"--v-head-dim"}, 128, "--v-head-dim");
  } else {
    s.head_dim = r.integer({"--kv-channels"}, 1);
  }
  const Value<int64_t> qk_layernorm = r.flag({"--qk-layernorm"});
  if (mla && qk_layernorm.known()) {
    // With MLA the flag normalises the compressed q and kv, which the MLA
    // parameter count already holds; there is no per-head q/k norm.
    Where w = qk_layernorm.where;
    w.field = "--qk-layernorm (MLA: norms of the compressed q and kv)";
    s.qk_norm = known_value<int64_t>(0, w);
  } else {
    s.qk_norm = qk_layernorm.state == State::absent
                    ? known_value<int64_t>(0, fallback("--qk-layernorm"))
                    : qk_layernorm;
  }
  // Gated MLPs: SwiGLU, and MindSpeed-LLM's --geglu and --gelu-tanh, which
  // set gated_linear_unit with a GELU (modellink/core/transformer/mlp.py at
  // v1.0.RC3.0): the same three matrices, priced as one gated kind.
  const Value<int64_t> swiglu = r.flag({"--swiglu", "--geglu", "--gelu-tanh"});
  s.ffn = swiglu.state == State::absent
              ? known_value<std::string>("gelu", fallback("--swiglu"))
              : Value<std::string>{swiglu.state, "swiglu", swiglu.where, swiglu.why};
  s.ffn_hidden = r.integer({"--ffn-hidden-size"}, 1);
  if (s.ffn_hidden.state == State::absent && s.hidden.known()) {
    // Megatron-LM (arguments.py): 4h, or for SwiGLU int(4h·2/3 / 64)·64.
    const int64_t h = s.hidden.value;
    const bool gated = swiglu.known();
    s.ffn_hidden = known_value<int64_t>(
        gated ? (4 * h * 2 / 3) / 64 * 64 : 4 * h,
        fallback(gated ? "--ffn-hidden-size (SwiGLU: 4h*2/3 rounded down to 64)"
                       : "--ffn-hidden-size (4h)"));
  }
  const Value<std::string> normalization = r.text({"--normalization"});
  if (normalization.known()) {
    std::string n = normalization.value;
    std::transform(n.begin(), n.end(), n.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (n != "layernorm" && n != "rmsnorm") {
      const Found f = args.find({"--normalization"});
      r.bad(*f.occurrence, 0, "LayerNorm or RMSNorm");
    }
    s.norm = known_value<std::string>(n, normalization.where);
  } else {
    s.norm = normalization.state == State::absent
                 ? known_value<std::string>("layernorm", fallback("--normalization"))
                 : normalization;
  }
  const Value<int64_t> no_bias = r.flag({"--disable-bias-linear"});
  if (no_bias.state == State::unknown) {
    s.linear_bias = no_bias;
  } else {
    s.linear_bias = no_bias.known() ? known_value<int64_t>(0, no_bias.where)
                                    : known_value<int64_t>(1, fallback("--disable-bias-linear"));
  }
  const Value<int64_t> qkv_bias = r.flag({"--add-qkv-bias"});
  if (qkv_bias.state != State::absent) {
    s.qkv_bias = qkv_bias;
  } else if (s.linear_bias.known()) {
    // Q, K and V carry biases exactly when the linear layers do.
    s.qkv_bias = known_value<int64_t>(s.linear_bias.value, s.linear_bias.where);
  }
  auto dropout = [&](const char* flag) {
    Value<double> v = r.real({flag});
    return v.state == State::absent ? known_value(0.1, fallback(flag)) : v;
  };
  s.hidden_dropout = dropout("--hidden-dropout");
  s.attention_dropout = dropout("--attention-dropout");
  const Value<int64_t> grouped = r.flag({"--moe-grouped-gemm"});
  s.grouped_gemm = grouped.state == State::absent
                       ? known_value<int64_t>(0, fallback("--moe-grouped-gemm"))
                       : grouped;

  // MoE
  s.experts = r.integer({"--num-experts"});
  const bool has_moe =
      s.experts.state == State::unknown || (s.experts.known() && s.experts.value > 0);
  if (has_moe) {
    s.topk = r.integer({"--moe-router-topk"}, 1);
    if (s.topk.state == State::absent)
      s.topk = known_value<int64_t>(2, fallback("--moe-router-topk"));
    s.moe_ffn = r.integer({"--moe-ffn-hidden-size", "--moe-intermediate-size"}, 1);
    if (s.moe_ffn.state == State::absent) {
      s.moe_ffn = s.ffn_hidden;  // Megatron-LM: moe_ffn_hidden_size defaults to ffn_hidden_size
      s.moe_ffn.where.field = "--moe-ffn-hidden-size (= --ffn-hidden-size)";
      if (s.moe_ffn.where.default_of.empty() && s.moe_ffn.known())
        s.moe_ffn.where.default_of = kTrainer;
    }
    const Value<int64_t> shared = r.integer({"--moe-shared-expert-intermediate-size"}, 1);
    const Value<int64_t> n_shared = r.integer({"--n-shared-experts"});
    if (shared.state != State::absent) {
      // Megatron-LM holds the shared experts as one MLP of this width.
      s.shared_experts = known_value<int64_t>(1, shared.where);
      s.shared_ffn = shared;
    } else if (n_shared.state != State::absent) {
      // Older MindSpeed: n shared experts, each as wide as a routed one.
      s.shared_experts = n_shared;
      s.shared_ffn = s.moe_ffn;
    } else {
      s.shared_experts = known_value<int64_t>(0, fallback("--moe-shared-expert-intermediate-size"));
    }
    s.capacity_factor = r.real({"--moe-expert-capacity-factor"});
    if (s.capacity_factor.state == State::absent)
      s.capacity_factor = known_value(0.0, fallback("--moe-expert-capacity-factor (dropless)"));
    // Each expert's input padded to its capacity: static shapes (Megatron-Core
    // pads only with a capacity factor; MoE README, "token drop").
    s.padded = r.flag({"--moe-pad-expert-input-to-capacity"});
    if (s.padded.state == State::absent)
      s.padded = known_value<int64_t>(0, fallback("--moe-pad-expert-input-to-capacity"));
    // A group-limited router (DeepSeek-V3's node-limited routing): Megatron-
    // Core's --moe-router-num-groups / --moe-router-group-topk, MindSpeed's
    // --n-group / --topk-group.
    s.router_groups = r.integer({"--moe-router-num-groups", "--n-group"}, 1);
    if (s.router_groups.state == State::absent)
      s.router_groups = known_value<int64_t>(0, fallback("--moe-router-num-groups"));
    s.router_group_topk = r.integer({"--moe-router-group-topk", "--topk-group"}, 1);
    if (s.router_group_topk.state == State::absent)
      s.router_group_topk = known_value<int64_t>(0, fallback("--moe-router-group-topk"));
  }

  // Which layers are MoE: Megatron-LM's --moe-layer-freq (every N-th layer,
  // or a list expression), MindSpeed's --first-k-dense-replace (dense layers
  // first, then MoE where layer % freq == 0, as its spec reads them).
  const int64_t n = layers.value;
  std::vector<int64_t> moe_layer(static_cast<size_t>(n), has_moe ? 1 : 0);
  if (has_moe) {
    const Value<int64_t> first_dense = r.integer({"--first-k-dense-replace"}, -1);
    const Found freq_found = args.find({"--moe-layer-freq"});
    int64_t freq = 1;
    std::optional<std::vector<int64_t>> pattern;
    if (freq_found.state == State::known) {
      const Occurrence& o = *freq_found.occurrence;
      if (o.values.empty())
        r.bad(o, 0, "a layer frequency (an integer or a list such as [0]*3+[1]*58)");
      const std::string text = o.values[0].text();
      if (!o.values[0].known()) {
        throw sdk::Error(NDS_INVALID_ARGUMENT, file + ":" + std::to_string(args.where(o).line) +
                                                   ": " + Reader::unknown_value_why(o) +
                                                   "; give --moe-layer-freq a value in the script");
      }
      if (!whole_number(text, freq)) {
        pattern = layer_pattern(text);
        if (!pattern) r.bad(o, 0, "an integer or a Python list expression such as [0]*3+[1]*58");
        if (static_cast<int64_t>(pattern->size()) != n) {
          r.bad(o, 0,
                "a list of --num-layers = " + std::to_string(n) + " entries (it has " +
                    std::to_string(pattern->size()) + ")");
        }
      } else if (freq == 0) {
        r.bad(o, 0, "a non-zero layer frequency");
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      bool moe = pattern ? (*pattern)[static_cast<size_t>(i)] != 0 : i % freq == 0;
      if (first_dense.known()) moe = i >= first_dense.value && i % freq == 0;
      moe_layer[static_cast<size_t>(i)] = moe ? 1 : 0;
    }
  }
  // MindSpeed's --noop-layers: identity layers that only fill pipeline stages.
  const Value<std::string> noop_text = r.text({"--noop-layers"});
  if (noop_text.state == State::unknown)
    r.unknowable("--noop-layers", noop_text.where, noop_text.why);
  if (noop_text.known()) {
    auto list = number_list(noop_text.value);
    const Occurrence& o = *args.find({"--noop-layers"}).occurrence;
    if (!list) r.bad(o, 0, "layer indices such as 61,62,63");
    for (int64_t i : *list) {
      if (i < 0 || i >= n) r.bad(o, 0, "layer indices below --num-layers = " + std::to_string(n));
      noop.insert(i);
    }
  }
  // Blocks: runs of dense or MoE layers, noop layers left out.
  Where layers_where = layers.where;
  if (!noop.empty()) layers_where.field = "--num-layers minus --noop-layers";
  const Windows windows = read_windows(r, args, n);
  struct Run {
    int64_t moe, windowed, count;
  };
  std::vector<Run> runs;
  for (int64_t i = 0; i < n; ++i) {
    if (noop.count(i) != 0) continue;
    const int64_t moe = moe_layer[static_cast<size_t>(i)],
                  windowed = windows.windowed[static_cast<size_t>(i)];
    if (runs.empty() || runs.back().moe != moe || runs.back().windowed != windowed)
      runs.push_back({moe, windowed, 0});
    ++runs.back().count;
  }
  if (runs.empty())
    throw sdk::Error(NDS_INVALID_ARGUMENT,
                     file + ": every layer is in --noop-layers; no layer remains");
  for (const Run& run : runs) {
    b.begin_block("decoder", run.count, layers_where);
    put_shape(r, s, run.moe == 1);
    if (run.windowed == 1) r.put("attention_window", windows.keys);
    b.end_block();
  }
  const Value<int64_t> mtp = r.integer({"--mtp-num-layers"});
  if (mtp.state == State::unknown)
    r.unknowable("--mtp-num-layers", mtp.where, mtp.why, "give it a number in the script");
  if (mtp.known() && mtp.value > 0) {
    b.begin_block("mtp", mtp.value, mtp.where);
    put_shape(r, s, has_moe);
    b.end_block();
  }
  return n;
}

void build_model(const Arguments& args, const Arguments& launcher, sdk::Builder& b) {
  Reader r(args, b);
  const std::string& file = args.file();
  auto fallback = [&](const char* field) { return trainer_default(file, field); };

  // ---- Layers ------------------------------------------------------------------
  const Value<int64_t> layers = r.integer({"--num-layers"}, 1, kMaxCountRead);
  if (layers.state == State::unknown)
    r.unknowable("--num-layers", layers.where, layers.why,
                 "give --num-layers a number in the script");
  // Without --num-layers the arguments state no model (the core says so, or
  // takes the shape from a model config): the training settings still read.
  std::set<int64_t> noop;
  const int64_t n = layers.known() ? build_layer_blocks(r, args, layers, noop, b) : 0;
  // ---- Vocabulary and embeddings --------------------------------------------------
  const Value<int64_t> tp = r.integer({"--tensor-model-parallel-size"}, 1);
  const Value<std::string> tokenizer = r.text({"--tokenizer-type"});
  Value<int64_t> vocab = r.integer({"--vocab-size"}, 1);
  if (vocab.known() && tokenizer.known() && tokenizer.value == "NullTokenizer") {
    // Megatron-LM's NullTokenizer adds an end-of-document token to --vocab-size.
    vocab.value += 1;
    vocab.where.field += " + 1 (NullTokenizer's end-of-document token)";
  }
  if (vocab.state == State::absent) {
    const Value<std::string> source =
        r.text({"--tokenizer-model", "--tokenizer-name-or-path", "--vocab-file"});
    Where w = source.state != State::absent ? source.where : tokenizer.where;
    if (w.file.empty()) {
      w.file = file;
      w.field = "--vocab-size";
    }
    std::string named = source.known()                   ? " '" + source.value + "'"
                        : source.state == State::unknown ? " (" + source.why + ")"
                                                         : "";
    b.set_unknown("vocab_size",
                  "the vocabulary comes from the tokenizer" +
                      (tokenizer.known() ? " (" + tokenizer.value + ")" : std::string()) + named +
                      ", which ndsearch does not read; give --vocab-size",
                  w);
  } else {
    r.put("vocab_size", vocab);
  }
  const Value<int64_t> padded = r.integer({"--padded-vocab-size"}, 1);
  if (padded.state != State::absent) {
    r.put("padded_vocab_size", padded);
  } else if (vocab.known() && (tp.known() || tp.state == State::absent)) {
    Value<int64_t> divisible = r.integer({"--make-vocab-size-divisible-by"}, 1);
    if (divisible.state == State::absent)
      divisible = known_value<int64_t>(128, fallback("--make-vocab-size-divisible-by"));
    if (divisible.known()) {
      // Megatron-LM pads to a multiple of make-vocab-size-divisible-by × tp.
      const int64_t multiple = divisible.value * (tp.known() ? tp.value : 1);
      Where w = vocab.where;
      w.field = "--vocab-size padded to a multiple of " + std::to_string(divisible.value) +
                " x tp " + std::to_string(tp.known() ? tp.value : 1);
      b.set("padded_vocab_size", (vocab.value + multiple - 1) / multiple * multiple, w);
      // A candidate at another tp pads anew (ABI 1.11).
      Where rule = divisible.where;
      rule.field =
          "--make-vocab-size-divisible-by (Megatron-LM pads the vocabulary to a multiple "
          "of it x tp)";
      b.set("vocab_multiple_per_tp", divisible.value, rule);
    }
  }
  const Value<int64_t> untie = r.flag({"--untie-embeddings-and-output-weights"});
  if (untie.state == State::unknown) {
    r.put("tied_embeddings", untie);
  } else {
    b.set("tied_embeddings", untie.known() ? 0 : 1,
          untie.known() ? untie.where : fallback("--untie-embeddings-and-output-weights"));
  }
  // A MindSpeed script is known by flags Megatron-LM does not have
  // (MindSpeed's and MindSpeed-LLM's arguments).
  const bool mindspeed =
      args.find({"--context-parallel-algo", "--use-fused-ring-attention-update", "--use-mc2",
                 "--use-ascend-mc2", "--use-fused-rmsnorm", "--use-fused-swiglu",
                 "--use-fused-rotary-pos-emb", "--use-ascend-coc", "--reuse-fp32-param",
                 "--moe-tp-extend-ep", "--num-layer-list", "--embed-layernorm", "--geglu",
                 "--gelu-tanh", "--post-norm", "--swap-attention", "--use-cp-send-recv-overlap",
                 "--recompute-activation-function", "--noop-layers"})
          .state != State::absent;
  const Value<std::string> position = r.text({"--position-embedding-type"});
  const Value<int64_t> rotary = r.flag({"--use-rotary-position-embeddings"});
  const Value<int64_t> no_position = r.flag({"--no-position-embedding"});
  if (position.known()) {
    const std::string& p = position.value;
    std::string kind;
    if (p == "learned_absolute") kind = "learned";
    if (p == "rope" || p == "yarn" || p == "mrope") kind = "rope";
    // MindSpeed's ALiBi adds a per-head bias to the scores inside the
    // attention kernel: no parameters, no work beyond the attention's.
    if (p == "none" || p == "relative" || p == "alibi") kind = "none";
    if (kind.empty())
      r.bad(*args.find({"--position-embedding-type"}).occurrence, 0,
            "learned_absolute, rope, yarn, mrope, relative, alibi or none");
    b.set_string("position_embedding", kind, position.where);
  } else if (position.state == State::unknown) {
    r.put("position_embedding", position);
  } else if (rotary.known()) {
    b.set_string("position_embedding", "rope", rotary.where);
  } else if (no_position.known()) {
    b.set_string("position_embedding", "none", no_position.where);
  } else {
    b.set_string("position_embedding", "learned",
                 fallback("--position-embedding-type (learned_absolute)"));
  }
  r.put("max_position_embeddings", r.integer({"--max-position-embeddings"}, 1));
  const Value<int64_t> flash = r.flag({"--use-flash-attn"});
  const Value<std::string> backend = r.text({"--attention-backend"});
  if (flash.known()) {
    b.set("flash_attention", 1, flash.where);
  } else if (backend.known()) {
    // auto picks flash or fused (cuDNN) attention; both avoid the s² scores.
    const bool fused =
        backend.value == "flash" || backend.value == "fused" || backend.value == "auto";
    b.set("flash_attention", fused ? 1 : 0, backend.where);
  } else if (mindspeed) {
    // MindSpeed runs FlashAttentionScore only under --use-flash-attn
    // (mindspeed/docs/features/flash-attention.md); without it, Megatron's
    // unfused core attention.
    b.set("flash_attention", 0, fallback("--use-flash-attn (MindSpeed: off)"));
  } else {
    b.set("flash_attention", 1, fallback("--attention-backend (auto)"));
  }

  // ---- Training ------------------------------------------------------------------
  r.put("seq_len", r.integer({"--seq-length"}, 1));
  r.put("global_batch", r.integer({"--global-batch-size"}, 1));
  r.put("stated.mbs", r.integer({"--micro-batch-size"}, 1));

  const Value<int64_t> bf16 = r.flag({"--bf16"});
  const Value<int64_t> fp16 = r.flag({"--fp16"});
  Value<std::string> params_dtype;
  if (bf16.known()) {
    params_dtype = known_value<std::string>("bf16", bf16.where);
  } else if (fp16.known()) {
    params_dtype = known_value<std::string>("fp16", fp16.where);
  } else if (bf16.state == State::unknown || fp16.state == State::unknown) {
    params_dtype = bf16.state == State::unknown
                       ? Value<std::string>{State::unknown, "", bf16.where, bf16.why}
                       : Value<std::string>{State::unknown, "", fp16.where, fp16.why};
  } else {
    params_dtype = known_value<std::string>("fp32", fallback("--bf16/--fp16 (fp32)"));
  }
  const Value<std::string> fp8 = r.text({"--fp8-format"});
  // --fp8-param-gather keeps the parameters as fp8 primary copies (Transformer
  // Engine Float8Tensors) instead of bf16 cast per GEMM; it needs fp8 on.
  const Value<int64_t> fp8_params = r.flag({"--fp8-param-gather"});
  if (fp8.known() && fp8_params.known())
    r.put("params_dtype", known_value<std::string>("fp8", fp8_params.where));
  else
    r.put("params_dtype", params_dtype);
  loss_traffic(r);
  if (fp8.known()) {
    b.set_string("compute_dtype", "fp8", fp8.where);
    fp8_recipe(r);
  } else {
    r.put("compute_dtype", fp8.state == State::unknown
                               ? Value<std::string>{State::unknown, "", fp8.where, fp8.why}
                               : params_dtype);
  }
  const bool mixed = params_dtype.known() && params_dtype.value != "fp32";
  // Megatron-LM keeps fp32 main gradients for bf16 unless told otherwise
  // (bf16 forces --accumulate-allreduce-grads-in-fp32); fp16 gradients are
  // accumulated and reduced in fp16 unless that flag is given.
  const Value<int64_t> grad_bf16 = r.flag({"--grad-reduce-in-bf16"});
  const Value<int64_t> grad_fp32 = r.flag({"--accumulate-allreduce-grads-in-fp32"});
  const Value<std::string> fsdp_grads =
      r.text({"--megatron-fsdp-main-grads-dtype", "--main-grads-dtype"});
  if (fsdp_grads.known() &&
      (fsdp_grads.value == "bf16" || fsdp_grads.value == "fp32" || fsdp_grads.value == "fp16")) {
    b.set_string("grads_dtype", fsdp_grads.value, fsdp_grads.where);
  } else if (grad_bf16.known()) {
    b.set_string("grads_dtype", "bf16", grad_bf16.where);
  } else if (grad_fp32.known()) {
    b.set_string("grads_dtype", "fp32", grad_fp32.where);
  } else if (params_dtype.known() && params_dtype.value == "fp16") {
    b.set_string("grads_dtype", "fp16",
                 fallback("--accumulate-allreduce-grads-in-fp32 (off: fp16 gradients)"));
  } else {
    b.set_string("grads_dtype", "fp32", fallback("--grad-reduce-in-bf16 (fp32 main gradients)"));
  }
  const Value<int64_t> precision_aware = r.flag({"--use-precision-aware-optimizer"});
  const Value<std::string> exp_avg = r.text({"--exp-avg-dtype"});
  if (precision_aware.known() && exp_avg.known() &&
      (exp_avg.value == "bf16" || exp_avg.value == "fp16" || exp_avg.value == "fp8")) {
    b.set_string("optimizer_dtype", exp_avg.value, exp_avg.where);
  } else {
    b.set_string("optimizer_dtype", "fp32", fallback("--exp-avg-dtype (fp32)"));
  }
  if (params_dtype.known()) {
    b.set_string(
        "master_dtype", mixed ? "fp32" : "none",
        fallback(mixed ? "fp32 main parameters for bf16/fp16" : "no master copy in fp32 training"));
  }
  // MindSpeed's memory settings (ABI 1.9), read from its source
  // (Ascend/MindSpeed master 028de58c):
  // --reuse-fp32-param keeps each fp32 main parameter as the bf16 parameter
  // plus a 16-bit residual in one buffer (mindspeed/core/memory/reuse_param/
  // adaptor.py): the master costs 2 bytes, not 4.
  // A setting that moves memory and is not priced: a warning naming it and
  // how it is priced instead.
  auto unpriced = [&](const Where& at, const std::string& what) {
    Where w = at;
    w.field = what;
    b.unknown_field(w);
  };
  const Value<int64_t> reuse = r.flag({"--reuse-fp32-param"});
  if (reuse.known()) b.set("master_reuses_params", 1, reuse.where);
  // --swap-optimizer keeps the main parameters and Adam's states in pinned
  // host memory and copies them in and out in --swap-optimizer-times (16)
  // windows at the step (mindspeed/core/optimizer/swap_optimizer).
  const Value<int64_t> swap_optimizer = r.flag({"--swap-optimizer"});
  if (swap_optimizer.known()) b.set("swap_optimizer", 1, swap_optimizer.where);
  // --swap-attention moves what autograd saves inside each layer's
  // self_attention to the host after its forward and prefetches it when the
  // layer's backward starts (mindspeed/core/memory/swap_attention/). With
  // --recompute-num-layers it replaces full recompute: below, with the
  // recompute.
  const Value<int64_t> swap_attention = r.flag({"--swap-attention"});

  // More settings that move cost and nothing prices yet: MindSpeed's 2-D
  // TP shards activations over tp-x and tp-y, its memory-efficient MTP
  // logits keep less than the MTP's full loss, MindSpeed-LLM's tanh GELU
  // runs as eight elementwise ops (modellink/core/transformer/mlp.py,
  // gelu_tanh_approximation), not one kernel.
  for (const auto& [flag, priced_as] :
       {std::pair{"--tp-2d", "priced as 1-D tensor parallelism over the same devices"},
        std::pair{"--gelu-tanh",
                  "priced as one fused gated activation; MindSpeed-LLM 1.0.RC3 writes it as eight "
                  "elementwise ops (mlp.py)"},
        std::pair{"--mtp-mem-efficient-logits", "priced as the MTP layers' full logits"}}) {
    const Value<int64_t> v = r.flag({flag});
    if (v.known()) unpriced(v.where, std::string(flag) + " (" + priced_as + ")");
  }

  const Value<std::string> optimizer = r.text({"--optimizer"});
  const std::string opt = optimizer.known() ? optimizer.value : "adam";
  if (opt != "adam" && opt != "sgd" && opt != "muon") {
    r.bad(*args.find({"--optimizer"}).occurrence, 0, "adam, sgd or muon");
  }
  const Where opt_where = optimizer.known() ? optimizer.where : fallback("--optimizer (adam)");
  b.set_string("optimizer", opt, opt_where);
  b.set("optimizer_states", opt == "adam" ? 2 : 1, opt_where);

  // ---- Stated strategy --------------------------------------------------------------
  auto degree = [&](const char* key, std::initializer_list<const char*> flags, const char* field) {
    Value<int64_t> v = r.integer(flags, 1, kMaxCountRead);
    if (v.state == State::absent) v = known_value<int64_t>(1, fallback(field));
    r.put(key, v);
    return v;
  };
  degree("stated.tp", {"--tensor-model-parallel-size"}, "--tensor-model-parallel-size");
  const Value<int64_t> pp =
      degree("stated.pp", {"--pipeline-model-parallel-size"}, "--pipeline-model-parallel-size");
  const Value<int64_t> cp =
      degree("stated.cp", {"--context-parallel-size"}, "--context-parallel-size");
  const Value<int64_t> ep =
      degree("stated.ep", {"--expert-model-parallel-size"}, "--expert-model-parallel-size");
  Value<int64_t> etp = r.integer({"--expert-tensor-parallel-size"}, 1);
  const Value<int64_t> tp_extend_ep = r.flag({"--moe-tp-extend-ep"});
  if (etp.state == State::absent && tp_extend_ep.known()) {
    Where w = tp_extend_ep.where;
    w.field = "--moe-tp-extend-ep (experts not split by tp)";
    etp = known_value<int64_t>(1, w);
  }
  r.put("stated.etp", etp);

  // Virtual stages: Megatron counts them per pipeline rank.
  Value<int64_t> vpp = r.integer({"--num-virtual-stages-per-pipeline-rank"}, 1);
  const Value<int64_t> per_virtual = r.integer({"--num-layers-per-virtual-pipeline-stage"}, 1);
  if (vpp.state == State::absent && per_virtual.state != State::absent) {
    if (per_virtual.known() && pp.known() && n > 0) {
      if (n % (pp.value * per_virtual.value) != 0) {
        r.bad(*args.find({"--num-layers-per-virtual-pipeline-stage"}).occurrence, 0,
              "a divisor of --num-layers / pp = " + std::to_string(n) + " / " +
                  std::to_string(pp.value));
      }
      vpp = known_value<int64_t>(n / (pp.value * per_virtual.value), per_virtual.where);
      vpp.where.field += " (vpp = num-layers / (pp x layers per virtual stage))";
    } else {
      vpp = per_virtual;
      if (vpp.state == State::known) vpp.state = State::unknown;
      if (vpp.why.empty())
        vpp.why = n == 0 ? "--num-layers is not in the arguments" : "the pipeline size is unknown";
    }
  }
  // MindSpeed's DualPipe-V runs two chunks per rank in a V whatever the
  // virtual-stage flags say (they are absent in its scripts).
  const Value<std::string> schedules_method = r.text({"--schedules-method"});
  if (vpp.state == State::absent && schedules_method.known() &&
      schedules_method.value == "dualpipev") {
    vpp = known_value<int64_t>(2, schedules_method.where);
    vpp.where.field += " (DualPipe-V: two chunks per rank)";
  }
  if (vpp.state == State::absent)
    vpp = known_value<int64_t>(1, fallback("--num-virtual-stages-per-pipeline-rank"));
  r.put("stated.vpp", vpp);

  const Value<int64_t> sp = r.flag({"--sequence-parallel"});
  if (sp.state == State::unknown) {
    r.put("stated.sp", sp);
  } else {
    b.set("stated.sp", sp.known() ? 1 : 0, sp.known() ? sp.where : fallback("--sequence-parallel"));
  }

  // ZeRO: Megatron's distributed optimizer shards optimizer states (1);
  // Megatron-FSDP shards as its strategy says; torch FSDP2 shards everything.
  const Value<int64_t> megatron_fsdp = r.flag({"--use-megatron-fsdp"});
  const Value<int64_t> torch_fsdp = r.flag({"--use-torch-fsdp2"});
  const Value<int64_t> dist_opt = r.flag({"--use-distributed-optimizer"});
  if (megatron_fsdp.known()) {
    const Value<std::string> strategy = r.text({"--data-parallel-sharding-strategy"});
    int64_t zero = 3;  // optim_grads_params, Megatron-FSDP's default
    Where w = strategy.known() ? strategy.where
                               : fallback("--data-parallel-sharding-strategy (optim_grads_params)");
    if (strategy.known()) {
      const std::string& st = strategy.value;
      if (st == "no_shard")
        zero = 0;
      else if (st == "optim")
        zero = 1;
      else if (st == "optim_grads")
        zero = 2;
      else if (st != "optim_grads_params")
        r.bad(*args.find({"--data-parallel-sharding-strategy"}).occurrence, 0,
              "no_shard, optim, optim_grads or optim_grads_params");
    }
    b.set("stated.zero", zero, w);
    b.set("capabilities.zero3", 1, megatron_fsdp.where);
  } else if (megatron_fsdp.state == State::unknown) {
    r.put("stated.zero", megatron_fsdp);
  } else if (torch_fsdp.known()) {
    b.set("stated.zero", 3, torch_fsdp.where);
    b.set("capabilities.zero3", 1, torch_fsdp.where);
  } else if (dist_opt.state == State::unknown) {
    r.put("stated.zero", dist_opt);
  } else {
    b.set("stated.zero", dist_opt.known() ? 1 : 0,
          dist_opt.known() ? dist_opt.where : fallback("--use-distributed-optimizer"));
  }

  // Recompute.
  const Value<std::string> granularity = r.text({"--recompute-granularity"});
  const Value<int64_t> activations = r.flag({"--recompute-activations"});
  std::string recompute = "none";
  Where recompute_where = fallback("--recompute-granularity");
  if (granularity.known()) {
    if (granularity.value != "full" && granularity.value != "selective")
      r.bad(*args.find({"--recompute-granularity"}).occurrence, 0, "full or selective");
    recompute = granularity.value;
    recompute_where = granularity.where;
  } else if (activations.known()) {
    recompute = "selective";  // Megatron-LM: --recompute-activations is selective recompute
    recompute_where = activations.where;
  }
  // MindSpeed's activation-function and norm recompute (Ascend/MindSpeed
  // 028de58c, mindspeed/core/memory/recompute/): the activation function's
  // output of the dense MLP, the shared and the routed experts is dropped
  // after the second GEMM and rebuilt from the first GEMM's kept output
  // (activation/activation_recompute_forward.py, core/transformer/
  // transformer.py); --recompute-norm drops both norms' outputs, rebuilt
  // from the kept residual (norm/norm_recompute_forward.py). Each applies to
  // the first M layers of each model chunk after those fully recomputed
  // (recompute_common.py, should_recompute; M = --recompute-*-num-layers,
  // unset: every layer left).
  const Value<int64_t> act_function = r.flag({"--recompute-activation-function"});
  const Value<int64_t> norm_recompute = r.flag({"--recompute-norm"});
  std::string mindspeed_ops;
  Where mindspeed_where;
  if (act_function.known()) {
    mindspeed_ops = "activation,mlp_activation";
    mindspeed_where = act_function.where;
  }
  if (norm_recompute.known()) {
    mindspeed_ops += std::string(mindspeed_ops.empty() ? "" : ",") + "norm";
    if (!act_function.known()) mindspeed_where = norm_recompute.where;
  }
  // --swap-attention with --recompute-num-layers N checkpoints the whole
  // MLP (its input kept; under MoE the router, dispatch, experts and
  // combine) of the first N layers of each chunk, and no layer in full
  // (swap_attention/adaptor.py, solve_prefetch_policy; the block's
  // _checkpointed_forward is replaced: features_manager/memory/
  // swap_attention.py): selective recompute of mlp and moe. Its attention
  // goes to the host on every layer, but under --recompute-method block on
  // those N alone.
  const Value<int64_t> swap_count = r.integer({"--recompute-num-layers"}, 0);
  const bool swap_checkpoints =
      swap_attention.known() && swap_count.known() && recompute != "selective";
  if (swap_checkpoints) {
    recompute = "selective";
    recompute_where = swap_count.where;
  }
  if (!mindspeed_ops.empty() && recompute == "none") {
    recompute = "selective";
    recompute_where = mindspeed_where;
  } else if (!mindspeed_ops.empty() && recompute == "full") {
    // Full recompute of the first N layers and these ops on the next: one
    // mode a layer set here, so the layers after the full ones keep them.
    unpriced(mindspeed_where, mindspeed_where.field +
                                  " after the fully recomputed layers (priced as kept there: one "
                                  "recompute mode per stage)");
  }
  if (granularity.state == State::unknown) {
    r.put("stated.recompute", granularity);
  } else {
    b.set_string("stated.recompute", recompute, recompute_where);
  }
  if (swap_checkpoints) {
    std::string ops = "mlp,moe";
    if (!mindspeed_ops.empty()) ops += "," + mindspeed_ops;
    b.set_string("recompute_ops", ops, swap_count.where);
  } else if (recompute == "selective" && !mindspeed_ops.empty() && !granularity.known() &&
             !activations.known()) {
    // MindSpeed's ops alone: Megatron's selective modules are not on.
    b.set_string("recompute_ops", mindspeed_ops, mindspeed_where);
  } else if (recompute == "selective") {
    const Found modules = args.find({"--recompute-modules"});
    std::string ops;
    Where ops_where = fallback("--recompute-modules (core_attn)");
    std::vector<std::string> names = {"core_attn"};
    if (modules.state == State::known) {
      names.clear();
      // Megatron-Core's module names (TransformerConfig.__post_init__'s
      // allowed set, core_v0.19.0 and main): another is a typo its own
      // validation would refuse.
      static const std::vector<std::string> kModules = {
          "core_attn",      "moe_act",      "layernorm",   "mla_up_proj", "mlp", "moe",
          "shared_experts", "gdn_norm_out", "gdp_in_proj", "gdp_qkv",     "mhc"};
      const Occurrence& o = *modules.occurrence;
      for (size_t i = 0; i < o.values.size(); ++i) {
        const std::string name = o.values[i].text();
        if (o.values[i].known() &&
            std::find(kModules.begin(), kModules.end(), name) == kModules.end())
          r.bad(
              o, i,
              "one of Megatron-Core's recompute modules (core_attn, mlp, moe, moe_act, layernorm, "
              "mla_up_proj, shared_experts, ...)" +
                  sdk::did_you_mean(name, kModules));
        names.push_back(name);
      }
      ops_where = args.where(o);
    }
    if (r.flag({"--moe-layer-recompute"}).known()) names.push_back("moe");
    for (const std::string& m : names) {
      std::string op;
      if (m == "core_attn") op = "core_attention";
      if (m == "mlp") op = "mlp";
      if (m == "moe") op = "moe";
      if (m == "layernorm") op = "norm";
      if (m == "moe_act") op = "activation";
      if (op.empty()) {
        Where w = ops_where;
        w.field = "--recompute-modules " + m;
        b.unknown_field(w);
        continue;
      }
      if (ops.find(op) == std::string::npos) ops += (ops.empty() ? "" : ",") + op;
    }
    // With Megatron's selective modules MindSpeed's ops are on every layer
    // (Megatron refuses --recompute-num-layers with selective).
    for (const std::string_view op : {"activation", "mlp_activation", "norm"})
      if (mindspeed_ops.find(op) != std::string::npos && ops.find(op) == std::string::npos)
        ops += (ops.empty() ? "" : ",") + std::string(op);
    if (!ops.empty()) b.set_string("recompute_ops", ops, ops_where);
  } else if (r.flag({"--moe-layer-recompute"}).known()) {
    b.set_string("recompute_ops", "moe", r.flag({"--moe-layer-recompute"}).where);
  }

  // Layers per pipeline stage, where the arguments fix them.
  std::vector<int64_t> stage_layers;
  Where stage_where;
  const Value<std::string> layer_list = r.text({"--num-layer-list"});
  const Value<int64_t> first_stage = r.integer({"--decoder-first-pipeline-num-layers"});
  const Value<int64_t> last_stage = r.integer({"--decoder-last-pipeline-num-layers"});
  if (layer_list.known()) {
    auto list = number_list(layer_list.value);
    const Occurrence& o = *args.find({"--num-layer-list"}).occurrence;
    int64_t sum = 0;
    for (int64_t v : list ? *list : std::vector<int64_t>{}) sum += v;
    // Without --num-layers the sum is checked against the model config's layers (the core).
    if (!list || (n > 0 && sum != n) ||
        (pp.known() && static_cast<int64_t>(list->size()) != pp.value))
      r.bad(o, 0, "pp comma-separated layer counts summing to --num-layers = " + std::to_string(n));
    stage_layers = *list;
    stage_where = layer_list.where;
  } else if ((first_stage.known() || last_stage.known()) && pp.known() && pp.value > 1 && n > 0) {
    const int64_t first = first_stage.known() ? first_stage.value : -1;
    const int64_t last = last_stage.known() ? last_stage.value : -1;
    const int64_t middle_stages = pp.value - (first >= 0 ? 1 : 0) - (last >= 0 ? 1 : 0);
    const int64_t rest = n - std::max<int64_t>(first, 0) - std::max<int64_t>(last, 0);
    if (middle_stages > 0 && rest % middle_stages == 0 && rest >= 0) {
      for (int64_t k = 0; k < pp.value; ++k) {
        if (k == 0 && first >= 0)
          stage_layers.push_back(first);
        else if (k == pp.value - 1 && last >= 0)
          stage_layers.push_back(last);
        else
          stage_layers.push_back(rest / middle_stages);
      }
      stage_where = first_stage.known() ? first_stage.where : last_stage.where;
    }
  } else if (const Value<int64_t> embedding = r.flag({"--account-for-embedding-in-pipeline-split"}),
             loss = r.flag({"--account-for-loss-in-pipeline-split"});
             (embedding.known() || loss.known()) && pp.known() && vpp.known() && n > 0) {
    // The embedding and the loss each take a layer's place in the split:
    // (layers + 1 + 1) / (pp·vpp) a virtual stage, the first one less on
    // the first virtual stage, the last on the last (Megatron-Core,
    // transformer_block.py get_num_layers_to_build; transformer_config.py
    // refuses counts that do not divide).
    const int64_t slots = n + (embedding.known() ? 1 : 0) + (loss.known() ? 1 : 0);
    const int64_t chunks = pp.value * vpp.value;
    const Value<int64_t>& flag = embedding.known() ? embedding : loss;
    const char* spelled = embedding.known() ? "--account-for-embedding-in-pipeline-split"
                                            : "--account-for-loss-in-pipeline-split";
    if (slots % chunks != 0) {
      const Where w = args.where(*args.find({spelled}).occurrence);
      throw sdk::Error(
          NDS_INVALID_ARGUMENT,
          w.file + ":" + std::to_string(w.line) + ": " + spelled + ": --num-layers " +
              std::to_string(n) + " with the embedding and loss accounted is " +
              std::to_string(slots) + " slots, which pp·vpp = " + std::to_string(chunks) +
              " virtual stages do not divide (Megatron-Core refuses it); fix --num-layers, "
              "the pipeline degrees or the flags");
    }
    stage_layers.assign(static_cast<size_t>(chunks),
                        slots / chunks);  // by virtual stage: chunk·pp + rank
    if (embedding.known()) --stage_layers.front();
    if (loss.known()) --stage_layers.back();
    stage_where = flag.where;
    stage_where.field = std::string(spelled) + " (layers of each virtual stage)";
  }
  if (!stage_layers.empty() && !noop.empty()) {
    // the noop layers are counted in the stated split; they hold nothing
    int64_t start = 0;
    for (int64_t& count : stage_layers) {
      int64_t real = 0;
      for (int64_t i = start; i < start + count; ++i) real += noop.count(i) == 0 ? 1 : 0;
      start += count;
      count = real;
    }
  }
  if (stage_layers.empty() && !noop.empty() && pp.known() && vpp.known() &&
      n % (pp.value * vpp.value) == 0) {
    // MindSpeed places the layers evenly, noop layers included, chunk by
    // chunk in model order: the layers left per virtual stage (pp·vpp
    // entries under vpp, which keeps where DualPipe-V's V puts the last
    // chunk: on rank 0), per stage without.
    const int64_t chunk = n / (pp.value * vpp.value);
    stage_layers.assign(static_cast<size_t>(pp.value * vpp.value), 0);
    for (int64_t i = 0; i < n; ++i)
      if (noop.count(i) == 0) ++stage_layers[static_cast<size_t>(i / chunk)];
    stage_where = args.where(*args.find({"--noop-layers"}).occurrence);
    stage_where.field = "--noop-layers (layers left on each pipeline stage)";
  }
  if (!stage_layers.empty()) b.set_list("stage_layers", stage_layers, stage_where);
  // The layers of each pipeline rank: the stated split folded over its
  // virtual stages (chunk·pp + rank), else the even split.
  std::vector<int64_t> rank_layers;
  if (pp.known() && pp.value > 0 && (n > 0 || !stage_layers.empty())) {
    rank_layers.assign(static_cast<size_t>(pp.value), 0);
    for (int64_t k = 0; k < pp.value; ++k)
      rank_layers[static_cast<size_t>(k)] = n / pp.value + (k < n % pp.value ? 1 : 0);
    if (!stage_layers.empty() && stage_layers.size() % static_cast<size_t>(pp.value) == 0) {
      std::fill(rank_layers.begin(), rank_layers.end(), 0);
      for (size_t i = 0; i < stage_layers.size(); ++i)
        rank_layers[i % static_cast<size_t>(pp.value)] += stage_layers[i];
    }
  }

  // Full recompute of how many layers per stage: block N recomputes the first
  // N layers of each (virtual) stage; uniform recomputes every layer.
  const Value<std::string> method = r.text({"--recompute-method"});
  const Value<int64_t> recompute_count = r.integer({"--recompute-num-layers"}, 0);
  if (recompute == "full" && method.known() && pp.known() && vpp.known() &&
      (n > 0 || !stage_layers.empty())) {
    const std::vector<int64_t>& per_stage = rank_layers;
    if (method.value == "block" && recompute_count.known()) {
      std::vector<int64_t> recomputed;
      for (int64_t count : per_stage) {
        // the count is per model chunk: N layers in each of the rank's vpp chunks
        recomputed.push_back(std::min(recompute_count.value * vpp.value, count));
      }
      b.set_list("recompute_layers", recomputed, recompute_count.where);
    } else if (method.value == "uniform") {
      b.set_list("recompute_layers", per_stage, method.where);
    } else if (method.value != "block") {
      r.bad(*args.find({"--recompute-method"}).occurrence, 0, "uniform or block");
    }
  }
  // Swap checkpointing's N layers of each chunk; the attention swapped on
  // every layer, or on those N alone (block), which one list cannot say
  // unless they are every layer: then nothing is priced as swapped (an
  // upper bound, said).
  if (swap_attention.known() && !swap_checkpoints) {
    b.set_string("swapped_ops", "attention", swap_attention.where);
  } else if (swap_checkpoints && pp.known() && vpp.known() && (n > 0 || !stage_layers.empty())) {
    const bool uniform = method.known() && method.value == "uniform";
    bool every_layer = true;
    std::vector<int64_t> recomputed;
    for (int64_t k = 0; k < pp.value; ++k) {
      const int64_t count = rank_layers[static_cast<size_t>(k)];
      recomputed.push_back(uniform ? count : std::min(swap_count.value * vpp.value, count));
      every_layer = every_layer && recomputed.back() == count;
    }
    if (!every_layer) b.set_list("recompute_layers", recomputed, swap_count.where);
    const bool block = method.known() && method.value == "block" && granularity.known();
    if (every_layer || !block) {
      b.set_string("swapped_ops", "attention", swap_attention.where);
    } else {
      unpriced(swap_attention.where,
               "--swap-attention with --recompute-method block (the attention of the first "
               "--recompute-num-layers layers of each chunk on the host: priced on the device, an "
               "upper bound)");
    }
  }
  // MindSpeed's ops alone on the first M layers of each chunk.
  if (recompute == "selective" && !mindspeed_ops.empty() && !granularity.known() &&
      !swap_checkpoints && pp.known() && vpp.known() && (n > 0 || !stage_layers.empty())) {
    const Value<int64_t> act_layers = r.integer({"--recompute-activation-function-num-layers"}, 0);
    const Value<int64_t> norm_layers = r.integer({"--recompute-norm-num-layers"}, 0);
    // A layer count for an op that is off says nothing; unset is every layer.
    const auto count_of = [](const Value<int64_t>& on, const Value<int64_t>& m) {
      return !on.known() ? int64_t{-1} : m.known() ? m.value : int64_t{1} << 40;
    };
    const int64_t act_m = count_of(act_function, act_layers),
                  norm_m = count_of(norm_recompute, norm_layers);
    const int64_t m = std::max(act_m, norm_m);
    if (act_m >= 0 && norm_m >= 0 && act_m != norm_m)
      unpriced(act_layers.known() ? act_layers.where : norm_layers.where,
               "--recompute-activation-function-num-layers and --recompute-norm-num-layers differ "
               "(both ops priced on the first " +
                   std::to_string(std::min(m, n)) + " layers of each chunk)");
    if (m < (int64_t{1} << 40)) {
      std::vector<int64_t> recomputed;
      for (int64_t k = 0; k < pp.value; ++k) {
        const int64_t count = rank_layers[static_cast<size_t>(k)];
        recomputed.push_back(std::min(m * vpp.value, count));  // M in each of the rank's vpp chunks
      }
      b.set_list("recompute_layers", recomputed,
                 act_layers.known() ? act_layers.where : norm_layers.where);
    }
  }

  // Schedule.
  const Value<std::string> schedules = r.text({"--schedules-method"});
  if (schedules.known() && schedules.value == "dualpipev") {
    b.set_string("stated.schedule", "dualpipe-v", schedules.where);  // DeepSeek's DualPipe-V
  } else if (vpp.known()) {
    b.set_string("stated.schedule", vpp.value > 1 ? "interleaved" : "1f1b",
                 vpp.value > 1 ? vpp.where : fallback("1f1b (no virtual pipeline stages)"));
  }

  // Context-parallel algorithm.
  const Value<std::string> cp_comm = r.text({"--cp-comm-type"});
  const Value<std::string> cp_algo = r.text({"--context-parallel-algo"});
  std::string cp_name = "ring";
  Where cp_where = fallback("--cp-comm-type (p2p)");
  if (cp_algo.known()) {
    const std::string& a = cp_algo.value;
    cp_name = a == "megatron_cp_algo"  ? "ring"
              : a == "ulysses_cp_algo" ? "ulysses"
              : a == "hybrid_cp_algo"  ? "hybrid"
                                       : a;
    cp_where = cp_algo.where;
  } else if (cp_comm.known()) {
    const std::string& a = cp_comm.value;
    cp_name = a == "p2p"         ? "ring"
              : a == "a2a"       ? "ulysses"
              : a == "allgather" ? "allgather-kv"
              : a == "a2a+p2p"   ? "hybrid"
                                 : a;
    cp_where = cp_comm.where;
  }
  b.set_string("cp_algorithm", cp_name, cp_where);
  // MindSpeed's hybrid CP (ABI 1.16): the Ulysses degree inside its rings,
  // and K and V repeated to the query heads before the all-to-all, which
  // MindSpeed-LLM does under Ulysses and hybrid CP alone
  // (modellink/core/transformer/dot_product_attention.py at 1.0.RC3,
  // should_kv_repeat_before_uly) and which lets Ulysses split 8 ways over
  // ChatGLM3's 2 KV heads.
  r.put("cp_ulysses_degree", r.integer({"--ulysses-degree-in-cp"}, 1, INT32_MAX));
  r.put("cp_kv_heads_repeated", r.flag({"--kv-head-repeat-before-uly-alltoall"}));

  // Overlaps.
  auto overlap = [&](const char* key, std::initializer_list<const char*> flags, const char* field) {
    const Value<int64_t> v = r.flag(flags);
    if (v.state == State::unknown) {
      r.put(key, v);
    } else {
      b.set(key, v.known() ? 1 : 0, v.known() ? v.where : fallback(field));
    }
  };
  overlap("overlap.grad_reduce", {"--overlap-grad-reduce"}, "--overlap-grad-reduce");
  overlap("overlap.param_gather", {"--overlap-param-gather"}, "--overlap-param-gather");
  // MindSpeed overlaps the TP collectives by MC2 (--use-mc2; --use-ascend-mc2
  // in later releases): each sequence-parallel linear's all-gather or
  // reduce-scatter runs inside its GEMM (time_model's TP overlap prices it as
  // the trainer runs it). MindSpeed refuses it without sequence parallelism
  // (mindspeed features_manager/tensor_parallel/mc2.py, validate_args); at
  // tp 1 there is nothing to fuse.
  overlap("overlap.tp_comm", {"--tp-comm-overlap", "--use-mc2", "--use-ascend-mc2"},
          "--tp-comm-overlap");
  // The backward's column-parallel TP exchange, issued async under its own
  // GEMMs (LinearWithGradAccumulationAndAsyncCommunication): Megatron-LM's
  // default since 2021-09 (3f65246911), kept by Megatron-Core and MindSpeed.
  // --no-async-tensor-model-parallel-allreduce turns off the all-reduce's;
  // with SP the exchange is async whatever it says (core_r0.6.0 layers.py,
  // arguments.py). The bit is the script's: a script that says the flag and
  // no SP is priced with the backward waiting at every candidate, those the
  // search gives SP too (the assumption line says "off: tp-async").
  const Value<int64_t> sync_tp = r.flag({"--no-async-tensor-model-parallel-allreduce"});
  if (sp.known())
    b.set("overlap.tp_async", 1, sp.where);
  else if (sync_tp.state == State::unknown)
    r.put("overlap.tp_async", sync_tp);
  else if (sync_tp.known() && sp.state == State::unknown)
    r.put("overlap.tp_async", sp);  // the flag holds only without SP, which is not known
  else
    b.set("overlap.tp_async", sync_tp.known() ? 0 : 1,
          sync_tp.known() ? sync_tp.where
                          : fallback("--async-tensor-model-parallel-allreduce (Megatron: on)"));
  const Value<int64_t> mc2 = r.flag({"--use-mc2", "--use-ascend-mc2"});
  if (mc2.known() && tp.known() && tp.value > 1 && !sp.known())
    unpriced(mc2.where,
             "--use-mc2 without --sequence-parallel (MindSpeed refuses it); priced without MC2");
  overlap("overlap.moe_a2a",
          {"--moe-alltoall-overlap-comm", "--moe-fb-overlap", "--overlap-moe-expert-parallel-comm"},
          "--overlap-moe-expert-parallel-comm");
  // The shared experts beside the same micro-batch's exchange only (ABI 1.13).
  overlap("overlap.moe_shared", {"--moe-shared-expert-overlap"}, "--moe-shared-expert-overlap");
  // How tokens reach their experts (ABI 1.13): Megatron-Core's alltoall (its
  // default; MindSpeed's alltoall_seq is the same exchange) and allgather
  // dispatchers, and the flex dispatcher, which runs DeepEP or HybridEP
  // (--moe-enable-deepep before Megatron-Core 0.15, --moe-flex-dispatcher-backend since).
  const Value<std::string> dispatcher = r.text({"--moe-token-dispatcher-type"});
  const Value<int64_t> deepep = r.flag({"--moe-enable-deepep"});
  const Value<std::string> flex_backend = r.text({"--moe-flex-dispatcher-backend"});
  if (deepep.known() || flex_backend.known() ||
      (dispatcher.known() && dispatcher.value == "flex")) {
    const sdk::Where& where = deepep.known()         ? deepep.where
                              : flex_backend.known() ? flex_backend.where
                                                     : dispatcher.where;
    b.set_string("moe_dispatcher", "node_dedup", where);
  } else if (dispatcher.known() && dispatcher.value == "allgather") {
    b.set_string("moe_dispatcher", "allgather", dispatcher.where);
  } else if (dispatcher.known() &&
             (dispatcher.value == "alltoall" || dispatcher.value == "alltoall_seq")) {
    b.set_string("moe_dispatcher", "alltoall", dispatcher.where);
  } else if (dispatcher.known()) {
    r.bad(*args.find({"--moe-token-dispatcher-type"}).occurrence, 0,
          "one of alltoall, alltoall_seq, allgather or flex");
  }
  const Value<int64_t> no_p2p = r.flag({"--no-overlap-p2p-communication"});
  b.set("overlap.p2p", no_p2p.known() ? 0 : 1,
        no_p2p.known() ? no_p2p.where : fallback("--overlap-p2p-communication"));
  // The CP exchange. Megatron-LM runs CP through Transformer Engine, whose
  // ring attention always sends the next KV block while it computes on this
  // one (no flag turns it off). MindSpeed runs its own ring, which overlaps
  // only with --use-cp-send-recv-overlap (off by default); a MindSpeed script
  // is known by flags Megatron-LM does not have.
  const Value<int64_t> cp_overlap = r.flag({"--use-cp-send-recv-overlap"});
  if (cp_overlap.state == State::unknown) {
    r.put("overlap.cp", cp_overlap);
  } else if (cp_overlap.known()) {
    b.set("overlap.cp", 1, cp_overlap.where);
  } else if (mindspeed) {
    b.set("overlap.cp", 0, fallback("--use-cp-send-recv-overlap (MindSpeed: off)"));
  } else {
    b.set("overlap.cp", 1,
          fallback("Transformer Engine's ring attention overlaps the KV exchange"));
  }

  // What Megatron-LM and MindSpeed can do (trainer_description.hpp); zero 3
  // where the script runs Megatron-FSDP or torch FSDP2, stated above.
  const bool fsdp = megatron_fsdp.known() || torch_fsdp.known();
  plugins::state_trainer(mindspeed ? plugins::kMindSpeed : plugins::kMegatronLM, b,
                         (fsdp ? NDS_CAN_ZERO3 : 0) | (mindspeed ? 0 : NDS_NO_CP_WITH_WINDOW));
  // Megatron-LM runs CP through Transformer Engine, which takes a sliding
  // window only over its a2a or all_gather exchanges (context_parallel.py,
  // attn_forward_func_with_cp: "Context parallelism does not support sliding
  // window attention with cp_comm_type"): with p2p (the ring) or a2a+p2p it
  // cannot run one.
  if (!mindspeed) {
    Where w = cp_where;
    w.field += " (Transformer Engine: no sliding window over a ring)";
    b.set("capabilities.no_cp_with_window", cp_name == "ring" || cp_name == "hybrid" ? 1 : 0, w);
  }
  if (mindspeed) report_mindspeed_refusals(args, b);
  const Where caps = fallback("Megatron-LM / MindSpeed");
  // Layers that do not divide over the stages: Megatron-LM's equal middle
  // stages, the first and last the rest (--decoder-first/last-pipeline-num-
  // layers; megatron/core/transformer/transformer_block.py,
  // get_num_layers_to_build); MindSpeed pads them with --noop-layers.
  const bool pads = mindspeed || args.find({"--noop-layers"}).state != State::absent;
  b.set_string("stage_split", pads ? "padded" : "first_last",
               pads ? fallback("MindSpeed: --noop-layers pad the layers") : caps);

  // Data-parallel degree: Megatron derives dp = world / (tp·pp·cp); the world
  // is what the launch command starts (processes per node × nodes).
  const Arguments& world_args = launcher.all().empty() ? args : launcher;
  Reader lr(world_args, b);
  const Value<int64_t> per_node = lr.integer({"--nproc_per_node", "--nproc-per-node"}, 1);
  const Value<int64_t> nodes = lr.integer({"--nnodes"}, 1);
  if (per_node.known() && nodes.known() && tp.state != State::unknown && pp.known() && cp.known()) {
    const int64_t world = per_node.value * nodes.value;
    const int64_t model_parallel = (tp.known() ? tp.value : 1) * pp.value * cp.value;
    const std::string named = per_node.where.field + " x " + nodes.where.field;
    Where w = nodes.where;
    w.field = "dp = " + named + " / (tp x pp x cp)";
    if (world % model_parallel != 0) {
      b.set_unknown("stated.dp",
                    "the launch starts " + std::to_string(world) + " processes (" + named +
                        "), not a multiple of tp x pp x cp = " + std::to_string(model_parallel) +
                        "; the script's node count looks like a placeholder",
                    w);
    } else {
      const int64_t dp = world / model_parallel;
      const int64_t expert_group =
          (ep.known() ? ep.value : 1) * (etp.known() ? etp.value : (tp.known() ? tp.value : 1));
      if (ep.known() && (dp * cp.value * (tp.known() ? tp.value : 1)) % expert_group != 0) {
        b.set_unknown("stated.dp",
                      "the launch starts " + std::to_string(world) + " processes (" + named +
                          "), giving dp = " + std::to_string(dp) +
                          ", too few for ep x etp = " + std::to_string(expert_group) +
                          "; the script's node count looks like a placeholder",
                      w);
      } else {
        b.set("stated.dp", dp, w);
      }
    }
  } else if (per_node.state == State::unknown || nodes.state == State::unknown) {
    b.set_unknown("stated.dp", per_node.state == State::unknown ? per_node.why : nodes.why,
                  per_node.state == State::unknown ? per_node.where : nodes.where);
  }
}

}  // namespace ndsearch::plugins::megatron
