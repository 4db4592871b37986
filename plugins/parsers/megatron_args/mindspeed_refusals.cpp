// SPDX-License-Identifier: Apache-2.0
#include "plugins/parsers/megatron_args/mindspeed_refusals.hpp"

#include <string>

namespace ndsearch::plugins::megatron {
namespace {

using State = Found::State;

// Whether the script sets `flag` (a switch, or a flag with its value).
bool given(const Arguments& args, const char* flag) {
  return args.find({flag}).state == State::known;
}

std::string value_of(const Arguments& args, const char* flag) {
  const Found f = args.find({flag});
  if (f.state != State::known || f.occurrence->values.empty() || !f.occurrence->values[0].known())
    return {};
  return f.occurrence->values[0].text();
}

bool above_one(const Arguments& args, const char* flag) {
  const std::string v = value_of(args, flag);
  return !v.empty() && v != "1" && v.find_first_not_of("0123456789") == std::string::npos;
}

// One refusal: the flag it is reported at, when it applies, and what it says
// (MindSpeed-LLM's reason; what ndsearch prices instead).
struct Refusal {
  const char* at;
  bool (*applies)(const Arguments&);
  const char* says;
};

// modellink/arguments.py at v1.0.RC3.0 (the validation's release), each
// also in mindspeed_llm/training/arguments.py at v2.3.0.
constexpr Refusal kRefusals[] = {
    // _validate_position_embedding (L571-572).
    {"--sliding-window",
     [](const Arguments& a) { return value_of(a, "--position-embedding-type") == "alibi"; },
     "--sliding-window with ALiBi (MindSpeed-LLM refuses it); priced with the window"},
    // _validate_cp (L176-177): CP in Mcore models only.
    {"--context-parallel-size",
     [](const Arguments& a) {
       return above_one(a, "--context-parallel-size") && !given(a, "--use-mcore-models");
     },
     "--context-parallel-size above 1 without --use-mcore-models (MindSpeed-LLM runs CP in "
     "Mcore models only); priced as Mcore's CP"},
    // _validate_moe_args (L632-633): MoE in Mcore models only.
    {"--num-experts",
     [](const Arguments& a) {
       return above_one(a, "--num-experts") && !given(a, "--use-mcore-models");
     },
     "--num-experts without --use-mcore-models (MindSpeed-LLM runs MoE in Mcore models only); "
     "priced as Mcore's MoE"},
    // _validate_moe_args (L675-676).
    {"--moe-grouped-gemm",
     [](const Arguments& a) { return given(a, "--num-experts") && given(a, "--use-mc2"); },
     "--moe-grouped-gemm with --use-mc2 in a MoE model (MindSpeed-LLM refuses the pair); priced "
     "with both"},
    // _validate_recompute_args (L589-593).
    {"--recompute-activation-function",
     [](const Arguments& a) {
       return value_of(a, "--recompute-granularity") == "selective" ||
              value_of(a, "--recompute-method") == "uniform";
     },
     "--recompute-activation-function with selective recompute or --recompute-method uniform "
     "(MindSpeed-LLM refuses both); priced with both"},
    // _validate_optimizer (L765-766).
    {"--reuse-fp32-param", [](const Arguments& a) { return !given(a, "--bf16"); },
     "--reuse-fp32-param without --bf16 (MindSpeed-LLM supports it for bf16 only); priced as "
     "reused"},
};

}  // namespace

void report_mindspeed_refusals(const Arguments& args, sdk::Builder& b) {
  for (const Refusal& r : kRefusals) {
    const Found at = args.find({r.at});
    if (at.state != State::known || !r.applies(args)) continue;
    sdk::Where w = args.at(*at.occurrence);
    w.field = r.says;
    b.unknown_field(w);
  }
}

}  // namespace ndsearch::plugins::megatron
