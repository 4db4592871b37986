// SPDX-License-Identifier: Apache-2.0
// test_model_builder.cpp: the host's model builder refuses what a parser must
// not do, with a message naming the key, the value and the provenance.
#include <catch2/catch.hpp>

#include "core/model/builder.hpp"
#include "core/model/finalize.hpp"
#include "core/plugins/status.hpp"
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
  const std::string m = message_of(b.builder.set("num_layers", ModelBuilder::Value(int64_t{4}), "f.yaml:3: x"));
  CHECK(b.builder.last_error_id() == "E-PARSE-KEY");
  CHECK_THAT(m, Catch::Contains("\"num_layers\""));
  CHECK_THAT(m, Catch::Contains("abi/model-vocabulary.md"));
}

TEST_CASE("Block keys need an open block and training keys need none") {
  Built b;
  message_of(b.builder.set("hidden_size", ModelBuilder::Value(int64_t{4096}), "f: h"));
  CHECK(b.builder.last_error_id() == "E-PARSE-ORDER");
  CHECK(b.builder.begin_block("decoder", 2, "f: layers") == nullptr);
  const std::string m = message_of(b.builder.set("seq_len", ModelBuilder::Value(int64_t{4096}), "f: s"));
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
  std::string m = message_of(b.builder.set("ffn", ModelBuilder::Value(std::string("relu")), "f.yaml:7: act"));
  CHECK(b.builder.last_error_id() == "E-PARSE-VALUE");
  CHECK_THAT(m, Catch::Contains("f.yaml:7: act: ffn = \"relu\" is not valid for `ffn`: expected one of \"gelu\", \"swiglu\""));
  m = message_of(b.builder.set("heads", ModelBuilder::Value(int64_t{-1}), "f: heads"));
  CHECK_THAT(m, Catch::Contains("a whole number >= 0"));
  m = message_of(b.builder.set("hidden_dropout", ModelBuilder::Value(1.5), "f: p"));
  CHECK_THAT(m, Catch::Contains("a number in [0, 1]"));
  m = message_of(b.builder.set("heads", ModelBuilder::Value(std::string("32")), "f: heads"));
  CHECK_THAT(m, Catch::Contains("set_int"));
  CHECK(b.builder.end_block() == nullptr);
  m = message_of(b.builder.set("recompute_ops", ModelBuilder::Value(std::string("core_attention,flux")), "f: ops"));
  CHECK_THAT(m, Catch::Contains("op \"flux\" is not one of"));
  CHECK(b.builder.set("recompute_ops", ModelBuilder::Value(std::string("core_attention,mlp")), "f: ops") == nullptr);
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
  CHECK_THAT(b.model.warnings[0], Catch::Contains("run.sh:9: --seq-length: seq_len cannot be known from the file (positional $3)"));
  CHECK_THAT(b.model.warnings[1], Catch::Contains("run.sh:12: --frobnicate: field not understood by test-parser"));
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
  CHECK(block.provenance.at("kv_heads") == "derived: kv_heads = heads (no grouped-query attention stated)");
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
