// SPDX-License-Identifier: Apache-2.0
// test_sdk.cpp: the two SDK templates, loaded as a host loads them and used
// through the C ABI, give the numbers their code promises.
#include <catch2/catch.hpp>

#include <unistd.h>  // close
#include <fstream>
#include <vector>

#include <ndsearch/sdk/model_math.hpp>
#include <ndsearch/sdk/parser.hpp>

#include <cstddef>  // offsetof

#include "core/hardware/device.hpp"
#include "core/plugin_host/registry.hpp"
#include "core/plugin_host/sample_inputs.hpp"
#include "core/support/status.hpp"
#include "tests/fixtures_paths.hpp"

using namespace ndsearch;
using ndsearch::test::fixture;

namespace {
std::unique_ptr<LoadedPlugin> load_template(const std::string& name) {
  return load_plugin(std::filesystem::path(NDS_TEST_FIXTURES) / "templates" / (name + ".so"),
                     std::make_shared<const PluginOptions>());
}
}  // namespace

TEST_CASE("The C template describes its device through the plain tables") {
  auto plugin = load_template("example_npu");
  REQUIRE(plugin->interfaces.hardware != nullptr);
  CHECK(plugin->description == "Template: one made-up NPU in plain C");
  const nds_device* const* devices = nullptr;
  size_t count = 0;
  REQUIRE(plugin->interfaces.hardware->get_devices(&devices, &count) == nullptr);
  REQUIRE(count == 1);
  Device d = copy_device(*devices[0], plugin->id);
  CHECK(d.memory_bytes == 96ull * 1024 * 1024 * 1024);  // 96 GiB
  CHECK(d.peaks.at(0).matmul_efficiency.y == std::vector<double>{0.30, 0.65, 0.80});
  CHECK(device_problems(d).empty());
}

TEST_CASE("The C++ template memory pass gives 12 h^2 parameters per layer at 2 bytes over tp") {
  auto plugin = load_template("example_weights");
  REQUIRE(plugin->interfaces.memory != nullptr);
  const nds_memory_v1& pass = *plugin->interfaces.memory;
  CHECK(pass.phase == 0);
  SampleInputs sample;  // GPT-2 small (h 768, 12 layers), pp 2, tp 2, bf16
  nds_memory_compiled* compiled = nullptr;
  REQUIRE(pass.compile(&sample.compile_input(), &compiled) == nullptr);
  std::vector<double> bytes(2 * NDS_MEMORY_TERM_COUNT_V1, 0.0), prior(bytes.size(), 0.0);
  nds_memory_item item{};
  item.struct_size = sizeof(item);
  item.candidate = &sample.candidate();
  item.term_count = NDS_MEMORY_TERM_COUNT_V1;
  item.prior_bytes = prior.data();
  item.bytes = bytes.data();
  pass.evaluate(compiled, &item, 1, sizeof(item));
  pass.release(compiled);
  CHECK(item.code == NDS_OK);
  // A dense MHA layer with a 4h GeLU MLP has 4h² (attention) + 8h² (MLP) = 12h²
  // weights (biases and norms left out by the template): 12 · 768² = 7,077,888.
  // Six layers per rank, 2 bytes each (bf16), halved by tp = 2: 42,467,328 bytes.
  const double expected = 12.0 * 768 * 768 * 6 * 2 / 2;
  CHECK(expected == 42467328.0);
  for (int rank = 0; rank < 2; ++rank) {
    CHECK(bytes[rank * NDS_MEMORY_TERM_COUNT_V1 + NDS_MEMORY_PARAMS] == expected);
    CHECK(bytes[rank * NDS_MEMORY_TERM_COUNT_V1 + NDS_MEMORY_ACTIVATIONS] == 0.0);
  }
}

TEST_CASE("A memory pass writes nothing for a term the host does not know") {
  auto plugin = load_template("example_weights");
  const nds_memory_v1& pass = *plugin->interfaces.memory;
  SampleInputs sample;
  nds_memory_compiled* compiled = nullptr;
  REQUIRE(pass.compile(&sample.compile_input(), &compiled) == nullptr);
  // A host whose buffers hold no term at all (term_count 0): nothing written.
  double untouched[2] = {-1, -1};
  nds_memory_item item{};
  item.struct_size = sizeof(item);
  item.candidate = &sample.candidate();
  item.term_count = 0;
  item.prior_bytes = untouched;
  item.bytes = untouched;
  pass.evaluate(compiled, &item, 1, sizeof(item));
  pass.release(compiled);
  CHECK(untouched[0] == -1);
  CHECK(untouched[1] == -1);
}

namespace {
// A host-side builder that records set_int calls and refuses the key "bad"
// with a status of its own, as the core's builder will.
struct RecordingBuilder {
  std::vector<std::pair<std::string, int64_t>> values;
  std::vector<std::string> where;
  nds_status* refusal = nullptr;
};
nds_status* record_int(nds_model_builder* b, const char* key, int64_t value,
                       const nds_provenance* p) {
  auto& r = *reinterpret_cast<RecordingBuilder*>(b);
  if (std::string(key) == "bad")
    return r.refusal = make_status(NDS_INVALID_ARGUMENT, "bad is not a key");
  r.values.emplace_back(key, value);
  r.where.push_back(std::string(p->field) + "@" + std::to_string(p->line));
  return nullptr;
}
}  // namespace

TEST_CASE("One SDK module can offer a parser and a CP model together") {
  auto plugin = load_plugin(fixture("sdk_parser_cp"), std::make_shared<const PluginOptions>());
  CHECK(plugin->interfaces.ids() == std::vector<std::string>{"nds.parser/1", "nds.cp_attention/1"});
  CHECK(std::string(plugin->interfaces.parser->format) == "ndsearch test fixture model format");
  CHECK(std::string(plugin->interfaces.parser->aliases[0]) == "fixture");
  CHECK(std::string(plugin->interfaces.cp_attention->algorithm) == "fixture-ring");
}

TEST_CASE("An SDK parser returns the host's own status when a builder call refuses") {
  auto plugin = load_plugin(fixture("sdk_parser_cp"), std::make_shared<const PluginOptions>());
  const nds_parser_v1& parser = *plugin->interfaces.parser;
  double confidence = -1;
  CHECK(parser.probe("/tmp/x.fixture-model", &confidence) == nullptr);
  CHECK(confidence == 1.0);
  CHECK(parser.probe("/tmp/config.json", &confidence) == nullptr);
  CHECK(confidence == 0.0);

  std::string name =
      (std::filesystem::temp_directory_path() / "sdk-test-XXXXXX.fixture-model").string();
  const int fd = mkstemps(name.data(), static_cast<int>(std::string(".fixture-model").size()));
  REQUIRE(fd >= 0);
  close(fd);
  const std::filesystem::path file = name;
  std::ofstream(file) << "layers 4\nhidden_size 1024\nbad 1\n";
  RecordingBuilder recorder;
  nds_builder_v1 builder{};
  builder.struct_size = sizeof(builder);
  builder.builder = reinterpret_cast<nds_model_builder*>(&recorder);
  builder.set_int = &record_int;
  StatusPtr status(parser.parse(file.c_str(), &builder));
  std::filesystem::remove(file);
  REQUIRE(status != nullptr);
  CHECK(status.get() == recorder.refusal);  // the same status, passed onward
  CHECK(status->message == "bad is not a key");
  CHECK(recorder.values ==
        std::vector<std::pair<std::string, int64_t>>{{"layers", 4}, {"hidden_size", 1024}});
  CHECK(recorder.where == std::vector<std::string>{"layers@1", "hidden_size@2"});
}

TEST_CASE("An SDK CP model prices a ring and refuses what it must") {
  auto plugin = load_plugin(fixture("sdk_parser_cp"), std::make_shared<const PluginOptions>());
  const nds_cp_attention_v1& cp = *plugin->interfaces.cp_attention;
  SampleInputs sample;  // seq 1024, 12 KV heads of 64, mbs 1
  nds_cp_compiled* compiled = nullptr;
  REQUIRE(cp.compile(&sample.compile_input(), &compiled) == nullptr);
  nds_strategy strategy = *sample.candidate().strategy;
  nds_candidate candidate = sample.candidate();
  candidate.strategy = &strategy;
  nds_cp_comm comms[2]{};
  nds_cp_item items[2]{};
  for (nds_cp_item& item : items) {
    item.struct_size = sizeof(item);
    item.candidate = &candidate;
    item.comm_capacity = 1;
    item.comm_elem_size = sizeof(nds_cp_comm);
  }
  items[0].comms = &comms[0];
  items[1].comms = &comms[1];
  strategy.cp = 2;
  cp.evaluate(compiled, &items[0], 1, sizeof(nds_cp_item));
  strategy.cp = 3;  // 1024 is not divisible by 6
  cp.evaluate(compiled, &items[1], 1, sizeof(nds_cp_item));
  cp.release(compiled);
  // cp = 2: one K and one V block of s/cp = 512 tokens × 768 KV width × 2 bytes
  // = 2 · 512 · 768 · 2 = 1,572,864 bytes, passed cp − 1 = 1 time.
  CHECK(items[0].code == NDS_OK);
  REQUIRE(items[0].comm_count == 1);
  CHECK(comms[0].forward_bytes == 1572864.0);
  CHECK(comms[0].backward_bytes == 2 * 1572864.0);
  CHECK(comms[0].group_size == 2);
  CHECK(comms[0].group_stride == 2);  // tp = 2: CP ranks are tp apart
  CHECK(items[0].extra_activation_bytes == 1572864.0);
  CHECK(items[1].code == NDS_INFEASIBLE);
  CHECK(std::string(items[1].reason) ==
        "sequence length must be divisible by 2·cp (zig-zag halves)");
  CHECK(items[1].comm_count == 0);
}

TEST_CASE("An SDK writer sees the priced overlaps only from a 1.11 host") {
  // nds_applied_strategy.overlap (1.11): a host before 1.11 passes a struct
  // that ends before it, and the writer must leave the config's overlap
  // settings as they are (nullopt), not read it as 'none overlapped'.
  nds_strategy s{};
  nds_applied_strategy a{};
  a.strategy = &s;
  a.overlap = NDS_OVERLAP_GRAD_REDUCE | NDS_OVERLAP_TP_COMM;
  a.struct_size = sizeof(a);
  const auto now = ndsearch::sdk::AppliedStrategy::of(a);
  REQUIRE(now.overlap.has_value());
  CHECK(*now.overlap == (NDS_OVERLAP_GRAD_REDUCE | NDS_OVERLAP_TP_COMM));
  a.struct_size = offsetof(nds_applied_strategy, overlap);  // a 1.10 host's struct
  CHECK_FALSE(ndsearch::sdk::AppliedStrategy::of(a).overlap.has_value());
}

TEST_CASE("Megatron's vocabulary padding is per tp: 128 x tp rows a multiple") {
  // megatron/training/tokenizer/tokenizer.py, _vocab_size_with_padding:
  // Qwen3's 151936 = 1187 x 128 stays at tp 1; at tp 8 the multiple is 1024
  // and ceil(151936 / 1024) = 149 gives 152576. No rule: the stated size.
  nds_training t{};
  t.vocab_multiple_per_tp = 128;
  CHECK(ndsearch::sdk::vocab_rows(151936, 151936, t, 1) == 151936);
  CHECK(ndsearch::sdk::vocab_rows(151936, 151936, t, 8) == 152576);
  t.vocab_multiple_per_tp = 0;
  CHECK(ndsearch::sdk::vocab_rows(151936, 152064, t, 8) == 152064);
}
