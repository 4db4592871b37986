// SPDX-License-Identifier: Apache-2.0
// test_sdk.cpp: the two SDK templates, loaded as a host loads them and used
// through the C ABI, give the numbers their code promises.
#include <catch2/catch.hpp>

#include <vector>

#include "core/hardware/device.hpp"
#include "core/plugins/registry.hpp"
#include "core/plugins/sample_inputs.hpp"
#include "tests/fixtures_paths.hpp"

using namespace ndsearch;

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
