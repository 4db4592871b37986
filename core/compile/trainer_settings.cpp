// SPDX-License-Identifier: Apache-2.0
#include "core/compile/trainer_settings.hpp"

#include <fmt/format.h>
#include <ndsearch/core/settings.hpp>

#include <ndsearch/sdk/model_math.hpp>

#include "core/model/model_json.hpp"

namespace ndsearch {
namespace {

// What a well-tuned Megatron-Core run overlaps (the NeMo and Megatron-Core
// performance recipes turn every one on: TP userbuffers, bucketed gradient
// reduce-scatter and parameter all-gather with the distributed optimizer,
// interleaved-pipeline p2p, the CP ring, the MoE all-to-all; the backward's
// async TP exchange is Megatron's default).
constexpr uint64_t kWellTunedOverlap = NDS_OVERLAP_TP_COMM | NDS_OVERLAP_GRAD_REDUCE |
                                       NDS_OVERLAP_PARAM_GATHER | NDS_OVERLAP_MOE_A2A |
                                       NDS_OVERLAP_P2P | NDS_OVERLAP_CP | NDS_OVERLAP_TP_ASYNC;

std::string overlap_words(uint64_t bits) {
  static const std::pair<uint64_t, const char*> kNames[] = {{NDS_OVERLAP_TP_COMM, "tp"},
                                                            {NDS_OVERLAP_GRAD_REDUCE, "dp"},
                                                            {NDS_OVERLAP_PARAM_GATHER, "param"},
                                                            {NDS_OVERLAP_MOE_A2A, "ep"},
                                                            {NDS_OVERLAP_P2P, "pp"},
                                                            {NDS_OVERLAP_CP, "cp"},
                                                            {NDS_OVERLAP_TP_ASYNC, "tp-async"}};
  std::string on, off;
  for (const auto& [bit, name] : kNames) {
    std::string& list = (bits & bit) != 0 ? on : off;
    list += list.empty() ? name : std::string(",") + name;
  }
  return fmt::format("on: {}; off: {}", on.empty() ? "none" : on, off.empty() ? "none" : off);
}

const char* recipe_name(int32_t recipe) {
  switch (recipe) {
    case NDS_FP8_DELAYED: return "delayed scaling";
    case NDS_FP8_CURRENT: return "current (tensorwise) scaling";
    case NDS_FP8_BLOCKWISE: return "blockwise scaling";
    case NDS_FP8_MXFP8: return "MXFP8";
    default: return "none";
  }
}

}  // namespace

uint64_t overlap_in_force(const Model& model) {
  return overlap_stated(model) ? model.training.overlap : kWellTunedOverlap;
}

namespace {

// trainer_settings' steps, each filling its part of `t` and pushing its
// assumption in the order the outputs list them.

// Overlap in force and where it comes from; MindSpeed's MC2 fusing TP overlap.
void set_overlap(TrainerSettings& t, const Model& model) {
  // Overlap: as the config (or the overlap setting) states; a format with no trainer
  // states nothing and is taken as a well-tuned Megatron-Core run.
  t.overlap_assumed = !overlap_stated(model);
  t.overlap = overlap_in_force(model);
  const std::string overlap_setting =
      Setting("overlap").named();  // the provenance parse_config writes
  bool from_setting = false, from_default = false;
  for (const auto& [key, where] : model.training_provenance) {
    if (key.rfind("overlap.", 0) != 0) continue;
    if (where.rfind(overlap_setting, 0) == 0) from_setting = true;
    if (where.rfind("default:", 0) == 0) from_default = true;
  }
  t.assumptions.push_back(fmt::format(
      "overlap {}{}", overlap_words(t.overlap),
      t.overlap_assumed ? " (the config states no overlap setting: "
                          "assumed a well-tuned Megatron-Core run)"
      : from_setting    ? " (as " + overlap_setting + " state)"
      : from_default    ? " (as the config states, its trainer's defaults where it states none)"
                        : " (as the config states)"));
  // MindSpeed overlaps the TP collectives by MC2, fused into the GEMMs
  // (layer_work.cpp prices it), where Megatron uses TE's userbuffers.
  t.tp_overlap_fused =
      (t.overlap & NDS_OVERLAP_TP_COMM) != 0 && trainer_family(model) == "mindspeed";
  if (t.tp_overlap_fused)
    t.assumptions.emplace_back(
        "TP overlap: MindSpeed's MC2 runs each sequence-parallel all-gather and reduce-scatter "
        "inside its GEMM, tile by tile (forward: the reduce-scatter's last step exposed; "
        "backward: hidden behind the GEMMs); MindSpeed-LLM 1.0.RC3 to 2.3.0 turn --use-mc2 off "
        "in validate_args unless that line is removed, as their README says for its measurements: "
        "priced as on");
}

// The GEMM and activation dtypes and the fp8 recipe.
void set_precision(TrainerSettings& t, const nds_training& training) {
  // Precision: an fp8 recipe runs the linear layers' GEMMs in fp8 and keeps
  // attention, the output head, the router, the activations and every
  // collective in bf16 (Transformer Engine; DeepSeek-V3 report §3.3.1).
  const nds_dtype compute =
      training.compute_dtype == NDS_DTYPE_UNKNOWN ? NDS_DTYPE_BF16 : training.compute_dtype;
  if (compute == NDS_DTYPE_FP8) {
    t.fp8_recipe = training.fp8_recipe != NDS_FP8_NONE ? training.fp8_recipe : NDS_FP8_DELAYED;
    t.linear_dtype = "fp8";
    t.high_dtype = training.params_dtype == NDS_DTYPE_FP16 ? "fp16" : "bf16";
  } else {
    t.fp8_recipe = NDS_FP8_NONE;
    t.linear_dtype = t.high_dtype = dtype_name(compute);
  }
  nds_dtype activation = training.activation_dtype;
  if (activation == NDS_DTYPE_UNKNOWN || activation == NDS_DTYPE_NONE)
    activation = compute == NDS_DTYPE_FP8 ? NDS_DTYPE_BF16 : compute;
  t.activation_bytes = sdk::dtype_bytes(activation);
  t.assumptions.push_back(
      compute == NDS_DTYPE_FP8
          ? fmt::format("precision: fp8 linear-layer GEMMs ({}), their inputs cast to fp8 with a "
                        "transposed copy; attention, output head, router, activations ({}) and "
                        "collectives stay in higher precision",
                        recipe_name(t.fp8_recipe), dtype_name(activation))
          : fmt::format("precision: {} GEMMs and activations", dtype_name(compute)));
}

// The loss's traffic per logit and where it comes from.
void set_loss(TrainerSettings& t, const Model& model) {
  // The loss's passes over the logits (sdk::loss_traffic): where they come from.
  t.loss = sdk::loss_traffic(model.training);
  const auto loss_from = model.training_provenance.find("loss_forward_bytes_per_logit");
  t.assumptions.push_back(fmt::format(
      "loss: the cross entropy moves {:g} bytes a logit forward and {:g} backward ({})",
      t.loss.forward, t.loss.backward,
      loss_from != model.training_provenance.end()
          ? loss_from->second
          : std::string("a fused cross entropy's, Megatron-Core's: the config states none")));
}

// How the layers' memory-bound work runs (ABI 1.18) and where that comes from.
void set_kernels(TrainerSettings& t, const Model& model) {
  const auto from = model.training_provenance.find("elementwise_kernels");
  const std::string where = from != model.training_provenance.end()
                                ? from->second
                                : std::string("the config states none: fused, as Megatron-Core");
  t.assumptions.push_back(
      model.training.elementwise_kernels == NDS_ELEMENTWISE_EAGER
          ? fmt::format("elementwise kernels: PyTorch eager ops (RMSNorm and RoPE in fp32 with "
                        "casts each way, the activation and its product apart, grouped-query K "
                        "and V copied to every head: up to 9 times a fused kernel's traffic) ({})",
                        where)
          : fmt::format("elementwise kernels: fused (each norm, RoPE, activation and residual "
                        "addition one pass over its tensors) ({})",
                        where));
}

// The trainer overheads: given, else the best shipped fit, and their words.
void set_overheads(TrainerSettings& t, const Model& model, const Device& device,
                   const std::optional<TrainerOverheads>& overheads) {
  // Trainer overheads: the fit for this device and trainer, else the
  // reference device's for the same trainer, else Megatron's on it.
  if (overheads) {
    t.overheads = *overheads;
    t.overheads_source = "given";
  } else {
    const std::string family = trainer_family(model);
    const FittedOverheads* chosen = nullptr;
    for (const std::string& dev :
         {overheads_device(device), std::string(kReferenceOverheadsDevice)})
      for (const std::string& fam : {family, std::string("megatron")})
        for (const FittedOverheads& f : fitted_overheads())
          if (chosen == nullptr && dev == f.device && fam == f.trainer) chosen = &f;
    if (chosen != nullptr) {
      t.overheads = chosen->factors;
      t.overheads_source = fmt::format(
          "fitted for {} on {} ({}){}", chosen->trainer, chosen->device, chosen->fitted_on,
          chosen->device == overheads_device(device) && chosen->trainer == family
              ? ""
              : "; no fit of this device and trainer of its own");
    } else {
      t.overheads_source = "none fitted";
    }
  }
  t.assumptions.push_back(
      fmt::format("trainer overheads {:.1f} us per layer and micro-batch{}, {:.1f} ms per step, "
                  "kernels {:.1f} % slower "
                  "than their micro-benchmarks: {}",
                  1e6 * t.overheads.layer_s,
                  model.first_moe() != nullptr
                      ? fmt::format(" and {:.1f} us more per routed expert a device holds in "
                                    "each MoE layer whose shapes follow its routing (the host "
                                    "splits, quantizes and launches per expert after waiting for "
                                    "their token counts)",
                                    1e6 * t.overheads.moe_expert_s)
                      : std::string(),
                  1e3 * t.overheads.step_s, 100 * t.overheads.kernel_slowdown, t.overheads_source));
}

}  // namespace

TrainerSettings trainer_settings(const Model& model, const Device& device,
                                 const std::optional<TrainerOverheads>& overheads) {
  TrainerSettings t;
  set_overlap(t, model);
  set_precision(t, model.training);
  set_loss(t, model);
  set_kernels(t, model);
  set_overheads(t, model, device, overheads);
  return t;
}

}  // namespace ndsearch
