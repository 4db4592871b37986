// SPDX-License-Identifier: Apache-2.0
// test_time_validation.cpp: the time model against the published runs of
// validation/ (Megatron-LM 2021 Table 1 on A100, Megatron-Core's H100 table,
// NeMo 24.07's FP8 table on H100, Megatron-Bridge 25.11's MoE rows on H100
// and B200): every row's step time within +-10 % of the
// one its published figure implies (RowResult::error, the step time's error),
// each source's mean |error| within 6 %, every published strategy
// fitting in memory, the search ranking each published strategy within 1.10x
// of its best and claiming at most 1.20x the published throughput; and
// docs/validation.md holding exactly the tables a fresh run prints, the
// shipped trainer overheads exactly what the fitter finds.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "core/fit/validation_report.hpp"
#include "core/support/user_error.hpp"
#include "tests/support/shipped.hpp"

using namespace ndsearch;

namespace {

const std::filesystem::path kValidation = std::filesystem::path(NDS_TEST_SOURCE_DIR) / "validation";

const ValidationReport& fresh_report() {
  static const ValidationReport report = [] {
    ValidationOptions options;
    options.fit = true;
    options.search = true;
    return run_validation(test::shipped_plugins(), test::shipped_devices(), kValidation, options);
  }();
  return report;
}

// The rows that miss a criterion of the time-model issue today, each named
// with what misses (docs/validation.md, "Known gaps"): held to a looser
// bound so that they cannot get worse unseen, and printed. Every other row
// is held to the bounds.
struct KnownGap {
  const char* source;
  const char* row;
  bool error;                  // misses its source's band (or +-15 % with its source left out)
  bool search;                 // the search ranks the published strategy beyond 1.10x of its best
  double search_bound = 1.30;  // how far beyond, at most
  double error_bound = 0.20;   // |error| at most, where `error`
};
constexpr KnownGap kKnownGaps[] = {
    // DP-bound: 4 micro-batches hide little of the 8 GB reduce-scatter and
    // all-gather over one NIC per rank; Megatron measured 46 % MFU.
    {"megatron-core-h100", "GPT 32B", true, true},
    {"megatron-core-h100", "GPT 70B", false, true},
    // GPT 16B: the model prefers tp 2 to the published 4 by 1.100x, at the
    // band's edge since the refit of issue 33 (Megatron's own layer split).
    {"megatron-core-h100", "GPT 16B", false, true},
    // GPT 462B: 112 layers on pp 16 interleave, as Megatron splits layers,
    // only with 7 layers a rank over vpp 7, past the rule's bound of 4 (vpp 4
    // would need 7 layers on the first and last rank's chunks and 1 on the
    // rest): priced without interleaving, 1.10x off the best.
    {"megatron-core-h100", "GPT 462B", false, true},
    // Megatron-LM 2021 Table 1 fixes t = 8 from 18B up (a scaling study);
    // the model prefers less TP and more pipeline there.
    {"megatron-lm-2021-a100", "GPT 7.5B", false, true},
    {"megatron-lm-2021-a100", "GPT 18.4B", false, true},
    {"megatron-lm-2021-a100", "GPT 39.1B", false, true},
    {"megatron-lm-2021-a100", "GPT 145.6B", false, true},
    // The MoE rows ran one or two sequences per micro-batch; the fitted host
    // cost per local expert is paid per micro-batch, so the search prefers
    // 4-16 (with full recompute where memory needs it). Megatron-Bridge ran
    // Qwen3-30B-A3B on 8 GB200 at MBS 4 at 2.6x its 8-B200 MBS 1 figure
    // (25.11 summary: 23766 against 9299 tokens/s/GPU), as the model says,
    // but no run measures the larger micro-batch on the same device.
    {"megatron-bridge-2511-moe", "Qwen3-30B-A3B (H100)", false, true, 2.5},
    {"megatron-bridge-2511-moe", "Qwen3-235B-A22B (H100)", false, true, 2.5},
    {"megatron-bridge-2511-moe", "DeepSeek-V3 with MTP (B200)", false, true, 2.5},
    {"megatron-bridge-2511-moe", "Qwen3-30B-A3B (B200)", false, true, 2.5},
    {"megatron-bridge-2511-moe", "Qwen3-235B-A22B (B200)", false, true, 2.5},
    // torchtitan's tables show its features at chosen layouts, not each
    // model's fastest: at 8K the search prefers no recompute at micro-batch 1
    // with the parameters kept gathered (fsdp_reshard_after_forward =
    // "never") to the published per-op checkpointing at 2, 1.12x, which no
    // run measures; at 32K context parallelism over 4 without recompute,
    // whose ring the model prices too cheap at cp 4-8 (the 128K and 256K
    // rows kept for checking come out 22-25 % fast).
    {"torchtitan-2412-h100", "Llama 3.1 8B FSDP 8", false, true},
    {"torchtitan-2412-h100", "Llama 3.1 8B FSDP 128", false, true},
    {"torchtitan-2412-h100", "Llama 3.1 8B FSDP 8, 32K", false, true},
    {"torchtitan-2412-h100", "Llama 3.1 8B FSDP 4, CP 2, 64K", false, true},
    // 70B: the search prefers tp 2, pp 4 interleaved, cp 2 without recompute
    // to the published FSDP 32 x TP 8 with full checkpointing, 1.51x; the
    // same too-cheap CP ring, which next to nobody runs at 8K, carries it.
    {"torchtitan-2412-h100", "Llama 3.1 70B FSDP 32, TP 8", false, true, 1.55},
    // Ascend (issue 36; docs/validation.md, "Known gaps"): what each row
    // runs that the model does not price, or, where nothing is known, the
    // same compute published 25 % apart.
    // Sliding-window attention (--sliding-window 4096 at 32K): priced as the
    // band FlashAttentionScore computes, a quarter of the causal scores, it
    // comes out 19 % fast; priced as full causal attention it was 21 % slow.
    {"mindspeed-llm-rc3-a2", "Mistral 7B 32K (Mcore)", true, false, 1.30, 0.20},
    // Gemma 2's post-norms and the unfused tanh GELU not priced.
    {"mindspeed-llm-rc3-a2", "Gemma2 9B 8K (Mcore)", true, false, 1.30, 0.25},
    // The same compute and layout as Qwen1.5 7B 8K (-7 %), published 19-23 %
    // slower (an earlier release of the table's rows).
    {"mindspeed-llm-rc3-a2", "LLaMA3 8B 8K (Mcore)", true, false, 1.30, 0.25},
    {"mindspeed-llm-rc3-a2", "LLaMA3.1 8B 8K (Mcore)", true, false, 1.30, 0.30},
    // MindSpeed's ring CP at 128K (without --use-cp-send-recv-overlap) and
    // long sequences at tp 4: not understood yet.
    {"mindspeed-llm-rc3-a2", "LLaMA3.1 8B 128K (Mcore)", true, false, 1.30, 0.40},
    {"mindspeed-llm-rc3-a2", "Qwen2 7B 32K (Mcore)", true, false, 1.30, 0.25},
    // The refit that priced attention at head dim 64 (Qwen2 0.5B 32K -30 ->
    // -14 %) lowered the per-layer cost (2.40 -> 2.25 ms), which GPT-3's 96
    // layers over 16 stages pay: -14.6 -> -15.0 %.
    {"mindspeed-llm-rc3-a2", "GPT3 175B 2K (Legacy)", true, false, 1.30, 0.20},
    // Small models at tp 1: not understood yet.
    {"mindspeed-llm-rc3-a2", "LLaMA2 7B 4K (Mcore)", true, false, 1.30, 0.25},
    {"mindspeed-llm-rc3-a2", "Qwen2 1.5B 4K (Mcore)", true, false, 1.30, 0.25},
    // MoE on Ascend: the allgather dispatcher, MLA and many small experts;
    // the MoE host cost is fitted on these rows with the dense ones.
    {"mindspeed-llm-rc3-a2", "DeepSeek-V2 60B 8K (Mcore)", true, false, 1.30, 0.30},
    // MiniCPM 8x2B runs no TP: the refit that priced the backward's async TP
    // exchange raised the per-layer cost it pays (29.9 -> 30.4 %).
    {"mindspeed-llm-rc3-a2", "MiniCPM 8x2B 4K (Mcore)", true, false, 1.30, 0.32},
    {"mindspeed-llm-rc3-a2", "Mixtral 8x22B 32K (Mcore)", true, false, 1.30, 0.20},
    // MindFormers' 7B fine-tune YAML: one micro-batch a step, fp32 weights:
    // the parallel optimizer's exchanges at the step priced too slow.
    {"mindformers-v1.3.0-a2", "Llama 2 7B finetune YAML (800T A2)", true, false, 1.30, 0.25},
};

// Issue 36's bands for the Ascend sources: +-15 % a row, 10 % a source's
// mean. Their rows are the example scripts and YAMLs a README or model card
// measured, not each model's tuned layout (MindSpeed-LLM runs 7B models at
// tp 8 and tp 1 alike; tp 1 measured up to 1.6x faster): the search
// criterion there is the TP8+MC2 ranking of the test below, not 1.10x.
struct SourceBand {
  const char* source;
  double row, mean;
  bool searched_as_tuned;
};
constexpr SourceBand kAscendBands[] = {
    {"mindspeed-llm-rc3-a2", 0.15, 0.10, false},
    {"mindformers-v1.3.0-a2", 0.15, 0.10, false},
};
const SourceBand* ascend_band(const std::string& source) {
  for (const SourceBand& b : kAscendBands)
    if (source == b.source) return &b;
  return nullptr;
}

// The sources whose mean |error| misses the 6 % today (docs/validation.md,
// "Known gaps"), held to a looser bound; every other source to 6 %.
struct KnownSourceGap {
  const char* source;
  double mean_bound;
};
constexpr KnownSourceGap kKnownSourceGaps[] = {
    // GPT 32B's +17.1 % step-time error (the known gap above) lifts the mean
    // of the other eight rows, 5.0 %, to 6.4 % (5.8 % when the error was the
    // MFU's, -16.9 % for GPT 32B: the step time's error is the larger where
    // the model is slow).
    {"megatron-core-h100", 0.07},
};

// How far a run kept for checking may be from its published figure (the
// step time's error): the 25.09 MoE rows' largest is 29.1 %.
constexpr double kCheckBound = 0.30;

double mean_bound(const std::string& source) {
  for (const KnownSourceGap& g : kKnownSourceGaps)
    if (source == g.source) return g.mean_bound;
  const SourceBand* ascend = ascend_band(source);
  return ascend != nullptr ? ascend->mean : 0.06;
}

double row_bound(const std::string& source) {
  const SourceBand* ascend = ascend_band(source);
  return ascend != nullptr ? ascend->row : 0.10;
}

const KnownGap* known_gap(const ValidationRow& row) {
  for (const KnownGap& g : kKnownGaps)
    if (row.source == g.source && row.name == g.row) return &g;
  return nullptr;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE(
    "Every published run's step time within 10 percent, each source's mean within 6 percent, each "
    "fitting") {
  const ValidationReport& report = fresh_report();
  WARN(validation_markdown(report));
  // 10 Megatron-LM 2021 + 9 Megatron-Core H100 + 7 NeMo FP8 + 5 Megatron-Bridge 25.11 MoE
  // + 64 MindSpeed-LLM 1.0.RC3 + 8 MindFormers 1.3.0 on Ascend A2 + 9 torchtitan (2024-12,
  // Grand Teton H100), and 5 Megatron-Bridge 25.09 MoE and 10 torchtitan runs kept for
  // checking.
  REQUIRE(report.rows.size() == 127);
  std::map<std::string, std::pair<double, int>> by_source;
  for (size_t i = 0; i < report.rows.size(); ++i) {
    const RowResult& r = report.reports[i].result;
    INFO(report.rows[i].source << " " << report.rows[i].name << ": " << 100 * r.error << " %");
    CHECK(r.fits);
    if (report.rows[i].kept_for_checking()) {
      // Never fitted on: another version of the trainer (Megatron-Bridge
      // 25.09: Megatron-Core 0.14, TE 2.7), token dropping padded to
      // capacity, the router's own routing. They come out 13-29 % fast
      // (docs/validation.md, "Known gaps"); held there so that they cannot
      // get worse unseen.
      CHECK(std::abs(r.error) <= kCheckBound);
      continue;
    }
    const KnownGap* gap = known_gap(report.rows[i]);
    const bool loose = gap != nullptr && gap->error;  // the gap's own bound
    if (loose) WARN("known gap: " << report.rows[i].name << " " << 100 * r.error << " %");
    CHECK(std::abs(r.error) <= (loose ? gap->error_bound : row_bound(report.rows[i].source)));
    // With its source left out of the fit (where its group has another).
    if (!std::isnan(report.reports[i].leave_source_out))
      // The known gaps' 0.30: GPT 32B's +25.5 % (the step time's error; its
      // MFU's was -19.9 % under the 0.25 bound that error had).
      CHECK(std::abs(report.reports[i].leave_source_out) <= (loose ? 0.30 : 0.15));
    by_source[report.rows[i].source].first += std::abs(r.error);
    by_source[report.rows[i].source].second += 1;
  }
  for (const auto& [source, sum] : by_source) {
    INFO(source << ": mean |error| " << 100 * sum.first / sum.second << " %");
    if (mean_bound(source) > (ascend_band(source) ? ascend_band(source)->mean : 0.06))
      WARN("known gap: " << source << " mean over its band");
    CHECK(sum.first / sum.second <= mean_bound(source));
  }
}

TEST_CASE(
    "The search ranks each published strategy near its best and claims no more than experts "
    "measured") {
  const ValidationReport& report = fresh_report();
  for (size_t i = 0; i < report.rows.size(); ++i) {
    const RowReport& r = report.reports[i];
    INFO(report.rows[i].source << " " << report.rows[i].name << ": best " << r.best_strategy);
    if (report.rows[i].kept_for_checking()) continue;  // priced, not searched
    REQUIRE(r.searched);
    const SourceBand* ascend = ascend_band(report.rows[i].source);
    if (ascend != nullptr && !ascend->searched_as_tuned) continue;
    const KnownGap* gap = known_gap(report.rows[i]);
    const bool loose = gap != nullptr && gap->search;
    if (loose)
      WARN("known gap: " << report.rows[i].name << " published / best " << r.published_over_best
                         << ", best " << r.best_strategy);
    CHECK(r.published_over_best <= (loose ? gap->search_bound : 1.10));
    CHECK(r.best_over_published <= (loose ? gap->search_bound : 1.20));
  }
}

TEST_CASE(
    "At most four fitted factors per device and trainer, and the shipped ones are what the fitter "
    "finds") {
  const ValidationReport& report = fresh_report();
  for (const GroupFit& fit : report.fits) {
    INFO(fit.device << " / " << fit.trainer);
    if (fit.sources.empty()) continue;  // runs kept for checking alone: nothing fitted
    const FittedOverheads* shipped = nullptr;
    for (const FittedOverheads& f : fitted_overheads())
      if (fit.device == f.device && fit.trainer == f.trainer) shipped = &f;
    REQUIRE(shipped != nullptr);
    // Four numbers, by the struct's shape; each as the fitter writes it (9 digits).
    CHECK(shipped->factors.layer_s == Approx(fit.factors.layer_s).epsilon(1e-6).margin(1e-12));
    CHECK(shipped->factors.step_s == Approx(fit.factors.step_s).epsilon(1e-6).margin(1e-12));
    CHECK(shipped->factors.kernel_slowdown ==
          Approx(fit.factors.kernel_slowdown).epsilon(1e-6).margin(1e-12));
    CHECK(shipped->factors.moe_expert_s ==
          Approx(fit.factors.moe_expert_s).epsilon(1e-6).margin(1e-12));
  }
  STATIC_REQUIRE(sizeof(TrainerOverheads) == 4 * sizeof(double));
}

TEST_CASE("docs/validation.md holds the tables a fresh run prints") {
  const std::string doc =
      read_file(std::filesystem::path(NDS_TEST_SOURCE_DIR) / "docs" / "validation.md");
  const std::string table = validation_markdown(fresh_report());
  INFO(
      "regenerate with: build/bin/ndsearch-validate validation --fit --search --write-doc "
      "docs/validation.md");
  CHECK(doc.find(table) != std::string::npos);
}

TEST_CASE("A validation CSV that does not read is an error naming the file, line and column") {
  const std::filesystem::path folder =
      std::filesystem::temp_directory_path() / "nds_validation_bad_csv";
  std::filesystem::create_directories(folder);
  const std::string header =
      "name,config,device,devices,global_batch,seq_len,strategy,metric,published,search_only\n";
  auto rows_of = [&](const std::string& text) {
    std::ofstream(folder / "runs.csv") << header << text;
    return read_validation_rows(folder);
  };
  auto message = [&](const std::string& text) {
    try {
      rows_of(text);
    } catch (const UserError& e) {
      CHECK(e.id() == "E-VALIDATION-CSV");
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string inf = message("r,c.sh,nvidia-h100-sxm,inf,64,4096,\"tp=1\",mfu,0.4,\n");
  CHECK_THAT(inf, Catch::Contains("runs.csv:2"));
  CHECK_THAT(inf, Catch::Contains("column devices: 'inf' is not a whole number"));
  const std::string metric = message("r,c.sh,nvidia-h100-sxm,8,64,4096,\"tp=1\",speed,0.4,\n");
  CHECK_THAT(metric, Catch::Contains("metric 'speed' is not one of mfu"));
  CHECK_THAT(message("r,c.sh,nvidia-h100-sxm,8\n"), Catch::Contains("4 columns instead of 10"));
  const std::vector<ValidationRow> good =
      rows_of("r,c.sh,nvidia-h100-sxm,8,64,4096,\"tp=1,pp=1\",mfu,0.4,\n");
  REQUIRE(good.size() == 1);
  CHECK(good[0].strategy == "tp=1,pp=1");
  CHECK(good[0].devices == 8);
  CHECK_THAT(message("r,c.sh,d,8,64,4096,x,mfu,0,\n"),
             Catch::Contains("column published: '0' is not a positive number"));
  // A folder without a CSV, and no folder at all.
  std::filesystem::remove(folder / "runs.csv");
  try {
    read_validation_rows(folder);
    FAIL("an empty folder reads");
  } catch (const UserError& e) {
    CHECK_THAT(e.what(), Catch::Contains("no .csv file"));
  }
  std::filesystem::remove_all(folder);
  CHECK_THROWS_WITH(read_validation_rows(folder),
                    Catch::Contains("not a folder of validation CSVs"));
}
