// SPDX-License-Identifier: Apache-2.0
// test_model_builder.cpp: the host's model builder refuses what a parser must
// not do, with a message naming the key, the value and the provenance.
#include <catch2/catch.hpp>

#include <tuple>

#include "core/model/builder.hpp"
#include "core/model/finalize.hpp"
#include "core/support/status.hpp"
#include "core/support/user_error.hpp"

using namespace ndsearch;

namespace {
struct Built {
  Model model;
  ModelBuilder builder{model, "test-parser", false};
};
std::string message_of(nds_status* s) {
  StatusPtr owned(s);
  return owned ? owned->message : "";
}
}  // namespace

TEST_CASE("Provenance reads file line and field or a trainer default") {
  nds_provenance p{sizeof(nds_provenance), "/x/config.yaml", 12, "model.num_layers", nullptr};
  CHECK(provenance_text(&p) == "/x/config.yaml:12: model.num_layers");
  p.line = NDS_UNKNOWN;
  CHECK(provenance_text(&p) == "/x/config.yaml: model.num_layers");
  nds_provenance d{sizeof(nds_provenance), nullptr, NDS_UNKNOWN, "", "megatron"};
  CHECK(provenance_text(&d) == "default:megatron");
}

TEST_CASE("A key nobody defined is a parser bug named as such") {
  Built b;
  const std::string m =
      message_of(b.builder.set("num_layers", ModelBuilder::Value(int64_t{4}), "f.yaml:3: x"));
  CHECK(b.builder.last_error_id() == "E-PARSE-KEY");
  CHECK_THAT(m, Catch::Contains("\"num_layers\""));
  CHECK_THAT(m, Catch::Contains("abi/model-vocabulary.md"));
}

TEST_CASE("Block keys need an open block and training keys need none") {
  Built b;
  message_of(b.builder.set("hidden_size", ModelBuilder::Value(int64_t{4096}), "f: h"));
  CHECK(b.builder.last_error_id() == "E-PARSE-ORDER");
  CHECK(b.builder.begin_block("decoder", 2, "f: layers") == nullptr);
  const std::string m =
      message_of(b.builder.set("seq_len", ModelBuilder::Value(int64_t{4096}), "f: s"));
  CHECK(b.builder.last_error_id() == "E-PARSE-ORDER");
  CHECK_THAT(m, Catch::Contains("inside a block"));
  CHECK(b.builder.set("hidden_size", ModelBuilder::Value(int64_t{4096}), "f: h") == nullptr);
  CHECK(b.builder.end_block() == nullptr);
  CHECK(b.model.main.blocks.at(0).c.hidden_size == 4096);
  CHECK(b.model.main.blocks.at(0).provenance.at("hidden_size") == "f: h");
}

TEST_CASE("Values are checked by type and range and choices are listed") {
  Built b;
  REQUIRE(b.builder.begin_block("decoder", 2, "f: layers") == nullptr);
  std::string m =
      message_of(b.builder.set("ffn", ModelBuilder::Value(std::string("relu")), "f.yaml:7: act"));
  CHECK(b.builder.last_error_id() == "E-PARSE-VALUE");
  CHECK_THAT(m, Catch::Contains("f.yaml:7: act: ffn = \"relu\" is not valid for `ffn`: expected "
                                "one of \"gelu\", \"swiglu\""));
  m = message_of(b.builder.set("heads", ModelBuilder::Value(int64_t{-1}), "f: heads"));
  CHECK_THAT(m, Catch::Contains("a whole number >= 0"));
  m = message_of(b.builder.set("hidden_dropout", ModelBuilder::Value(1.5), "f: p"));
  CHECK_THAT(m, Catch::Contains("a number in [0, 1]"));
  m = message_of(b.builder.set("heads", ModelBuilder::Value(std::string("32")), "f: heads"));
  CHECK_THAT(m, Catch::Contains("set_int"));
  CHECK(b.builder.end_block() == nullptr);
  m = message_of(b.builder.set("recompute_ops",
                               ModelBuilder::Value(std::string("core_attention,flux")), "f: ops"));
  CHECK_THAT(m, Catch::Contains("op \"flux\" is not one of"));
  CHECK(b.builder.set("recompute_ops", ModelBuilder::Value(std::string("core_attention,mlp")),
                      "f: ops") == nullptr);
  CHECK(b.model.training.recompute_ops == (NDS_RECOMPUTE_OP_CORE_ATTENTION | NDS_RECOMPUTE_OP_MLP));
}

TEST_CASE("A block needs a kind and at least one layer") {
  Built b;
  std::string m = message_of(b.builder.begin_block("transformer", 2, "f: x"));
  CHECK_THAT(m, Catch::Contains("\"decoder\", \"mtp\", \"encoder\""));
  m = message_of(b.builder.begin_block("decoder", 0, "f.yaml:4: num_layers"));
  CHECK_THAT(m, Catch::Contains("f.yaml:4: num_layers: a block of 0 layers"));
}

TEST_CASE("Unknown values and fields become warnings and strict makes fields errors") {
  Built b;
  CHECK(b.builder.unknown("seq_len", "positional $3", "run.sh:9: --seq-length") == nullptr);
  CHECK(b.builder.unknown_field("run.sh:12: --frobnicate") == nullptr);
  REQUIRE(b.model.warnings.size() == 2);
  CHECK_THAT(b.model.warnings[0],
             Catch::Contains(
                 "run.sh:9: --seq-length: seq_len cannot be known from the file (positional $3)"));
  CHECK_THAT(b.model.warnings[1],
             Catch::Contains("run.sh:12: --frobnicate: field not understood by test-parser"));
  Model strict_model;
  ModelBuilder strict(strict_model, "test-parser", true);
  const std::string m = message_of(strict.unknown_field("run.sh:12: --frobnicate"));
  CHECK(strict.last_error_id() == "E-PARSE-UNKNOWN-FIELD");
  CHECK_THAT(m, Catch::Contains("run.sh:12: --frobnicate"));
}

TEST_CASE("Finalize derives head_dim and kv_heads and refuses a layerless file") {
  Built b;
  b.model.file = "f.json";
  REQUIRE(b.builder.begin_block("decoder", 4, "f: n") == nullptr);
  b.builder.set("hidden_size", ModelBuilder::Value(int64_t{1024}), "f: h");
  b.builder.set("heads", ModelBuilder::Value(int64_t{16}), "f: a");
  b.builder.end_block();
  finalize_model(b.model);
  const ModelBlock& block = b.model.main.blocks.at(0);
  CHECK(block.c.head_dim == 64);  // 1024 / 16
  CHECK(block.c.kv_heads == 16);
  CHECK(block.c.attention == NDS_ATTENTION_MHA);
  CHECK(block.provenance.at("kv_heads") ==
        "derived: kv_heads = heads (no grouped-query attention stated)");
  Model empty;
  empty.file = "tool.json";
  empty.framework = "test-parser";
  try {
    finalize_model(empty);
    FAIL("no error");
  } catch (const UserError& e) {
    CHECK(e.id() == "E-PARSE-NO-MODEL");
    CHECK_THAT(e.what(), Catch::Contains("tool.json: describes no model"));
  }
}

namespace {
// A one-block model with the given training keys set, finalized.
Model finalized(
    std::initializer_list<std::tuple<const char*, ModelBuilder::Value, const char*>> keys) {
  Built b;
  b.model.file = "f.sh";
  REQUIRE(b.builder.begin_block("decoder", 2, "f: n") == nullptr);
  REQUIRE(b.builder.set("hidden_size", ModelBuilder::Value(int64_t{256}), "f: h") == nullptr);
  REQUIRE(b.builder.set("heads", ModelBuilder::Value(int64_t{8}), "f: a") == nullptr);
  REQUIRE(b.builder.end_block() == nullptr);
  for (const auto& [key, value, source] : keys)
    REQUIRE(message_of(b.builder.set(key, value, source)) == "");
  finalize_model(b.model);
  return std::move(b.model);
}
ModelBuilder::Value text(const char* s) {
  return ModelBuilder::Value(std::string(s));
}
}  // namespace

TEST_CASE("The builder reads fp8 recipes with tensorwise as current and lists the choices") {
  Built b;
  CHECK(b.builder.set("fp8_recipe", text("tensorwise"), "f.sh:3: --fp8-recipe") == nullptr);
  CHECK(b.model.training.fp8_recipe == NDS_FP8_CURRENT);
  CHECK(b.builder.set("fp8_recipe", text("mxfp8"), "f.sh:3: --fp8-recipe") == nullptr);
  CHECK(b.model.training.fp8_recipe == NDS_FP8_MXFP8);
  const std::string m =
      message_of(b.builder.set("fp8_recipe", text("rowwise"), "f.sh:3: --fp8-recipe"));
  CHECK(b.builder.last_error_id() == "E-PARSE-VALUE");
  CHECK_THAT(m,
             Catch::Contains("\"delayed\", \"current\", \"tensorwise\", \"blockwise\", \"mxfp8\""));
  CHECK(b.builder.set("activation_dtype", text("bf16"), "f.sh:4: x") == nullptr);
  CHECK(b.model.training.activation_dtype == NDS_DTYPE_BF16);
  message_of(
      b.builder.set("activation_dtype", text("none"), "f.sh:4: x"));  // activations always exist
  CHECK(b.builder.last_error_id() == "E-PARSE-VALUE");
  CHECK(b.builder.set("overlap.cp", ModelBuilder::Value(int64_t{1}), "f.sh:5: cp") == nullptr);
  CHECK((b.model.training.overlap & NDS_OVERLAP_CP) != 0);
}

TEST_CASE("fp8 compute with no recipe stated takes Megatron-LM's delayed and bf16 activations") {
  const Model m = finalized({{"params_dtype", text("bf16"), "f.sh:2: --bf16"},
                             {"compute_dtype", text("fp8"), "f.sh:3: --fp8-format"}});
  CHECK(m.training.fp8_recipe == NDS_FP8_DELAYED);
  CHECK(m.training_provenance.at("fp8_recipe") ==
        "default:megatron (delayed, Megatron-LM's default recipe; no fp8 recipe stated)");
  // Transformer Engine and torchao keep activations and collectives in bf16.
  CHECK(m.training.activation_dtype == NDS_DTYPE_BF16);
  CHECK_THAT(m.training_provenance.at("activation_dtype"), Catch::StartsWith("derived: bf16"));
  CHECK(m.training.params_dtype == NDS_DTYPE_BF16);
  // A stated recipe and activation dtype stay.
  const Model stated = finalized({{"compute_dtype", text("fp8"), "f.sh:3: --fp8-format"},
                                  {"fp8_recipe", text("blockwise"), "f.sh:4: --fp8-recipe"},
                                  {"activation_dtype", text("fp8"), "f.sh:5: x"}});
  CHECK(stated.training.fp8_recipe == NDS_FP8_BLOCKWISE);
  CHECK(stated.training_provenance.at("fp8_recipe") == "f.sh:4: --fp8-recipe");
  CHECK(stated.training.activation_dtype == NDS_DTYPE_FP8);
}

TEST_CASE("Without fp8 compute there is no recipe and activations are the compute dtype") {
  const Model m = finalized({{"compute_dtype", text("fp16"), "f.sh:2: --fp16"}});
  CHECK(m.training.fp8_recipe == NDS_FP8_NONE);
  CHECK(m.training_provenance.at("fp8_recipe") == "derived: none (compute_dtype is not fp8)");
  CHECK(m.training.activation_dtype == NDS_DTYPE_FP16);
  CHECK(m.training_provenance.at("activation_dtype") == "derived: compute_dtype");
  // A recipe stated without fp8 compute is not used (Megatron-LM reads
  // --fp8-recipe only under --fp8-format), and the provenance says so.
  const Model unused = finalized({{"compute_dtype", text("bf16"), "f.sh:2: --bf16"},
                                  {"fp8_recipe", text("delayed"), "f.sh:4: --fp8-recipe"}});
  CHECK(unused.training.fp8_recipe == NDS_FP8_NONE);
  CHECK_THAT(unused.training_provenance.at("fp8_recipe"),
             Catch::Contains("the recipe stated at f.sh:4: --fp8-recipe is not used"));
}

TEST_CASE("fp8 parameters are bf16 unless the config states fp8 primary weights") {
  // A config line (Megatron-LM's --fp8-param-gather) states fp8 primary weights...
  const Model primary = finalized({{"compute_dtype", text("fp8"), "f.sh:3: --fp8-format"},
                                   {"params_dtype", text("fp8"), "f.sh:4: --fp8-param-gather"}});
  CHECK(primary.training.params_dtype == NDS_DTYPE_FP8);
  // ...a default or a flag saying fp8 for everything does not: fp8 GEMMs cast bf16 weights.
  const Model flagged = finalized(
      {{"compute_dtype", text("fp8"), "--dtype"}, {"params_dtype", text("fp8"), "--dtype"}});
  CHECK(flagged.training.params_dtype == NDS_DTYPE_BF16);
  CHECK_THAT(flagged.training_provenance.at("params_dtype"), Catch::StartsWith("derived: bf16"));
  const Model defaulted = finalized(
      {{"compute_dtype", text("fp8"), "default:x"}, {"params_dtype", text("fp8"), "default:x"}});
  CHECK(defaulted.training.params_dtype == NDS_DTYPE_BF16);
}

TEST_CASE("overlap_stated tells a config that states an overlap switch from one that states none") {
  CHECK_FALSE(overlap_stated(finalized({})));  // an HF config.json: no trainer, no overlap key
  CHECK(overlap_stated(
      finalized({{"overlap.cp", ModelBuilder::Value(int64_t{0}), "default:megatron"}})));
  CHECK(overlap_stated(finalized({{"overlap.p2p", ModelBuilder::Value(int64_t{1}), "f.sh:9: x"}})));
}
