// SPDX-License-Identifier: Apache-2.0
// parser_plugin.cpp: one shipped parser plugin, driven the way `ndsearch
// model -f ID FILE` drives it: the input is written to a file, the plugin
// probes it, then the core's parse_config runs the parse through the model
// builder and finalizes the model; a model that reads is then written back
// with its own strategy as `ndsearch apply` does. Built once per parser (fuzz/CMakeLists.txt):
//   NDS_FUZZ_PLUGIN_ID      the plugin's id (and -f value)
//   NDS_FUZZ_PLUGIN_DIR     a folder holding that plugin only
//   NDS_FUZZ_INPUT_NAME     the file name the input is written under
//   NDS_FUZZ_BESIDE_SOURCE  optional: a fixture copied beside the input, as
//   NDS_FUZZ_BESIDE_NAME    this name (a model folder a config names)
#include <cstddef>
#include <cstdint>

#include <optional>

#include "core/export/write_config.hpp"
#include "core/input/parse_config.hpp"
#include "core/support/status.hpp"
#include "fuzz/support/expected_errors.hpp"
#include "fuzz/support/scratch_file.hpp"
#include "fuzz/support/shipped_plugin.hpp"

namespace {

const ndsearch::PluginRegistry* registry = nullptr;
const ndsearch::LoadedPlugin* parser = nullptr;

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  registry = &ndsearch::fuzz::shipped_plugin(NDS_FUZZ_PLUGIN_DIR, NDS_FUZZ_PLUGIN_ID);
  parser = &ndsearch::fuzz::plugin_in(*registry, NDS_FUZZ_PLUGIN_ID);
#ifdef NDS_FUZZ_BESIDE_SOURCE
  ndsearch::fuzz::place_beside(NDS_FUZZ_BESIDE_SOURCE, NDS_FUZZ_BESIDE_NAME);
#endif
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto path = ndsearch::fuzz::write_scratch_file(NDS_FUZZ_INPUT_NAME, data, size);
  double confidence = 0;
  // A probe that fails only means "not mine"; crashing or throwing past the ABI is the
  // finding, and so is an answer the core could not use: a failure without a message,
  // or a confidence outside [0, 1] (NaN included) with success.
  const ndsearch::StatusPtr probe_failure(
      parser->interfaces.parser->probe(path.c_str(), &confidence));
  if (probe_failure && probe_failure->message.empty())
    ndsearch::fuzz::report_finding("probe", "a failed probe gave no message");
  if (!probe_failure && !(confidence >= 0.0 && confidence <= 1.0))
    ndsearch::fuzz::report_finding("probe", "a confidence outside [0, 1]");
  if (probe_failure && ndsearch::fuzz::escaped_from_plugin(probe_failure->message))
    ndsearch::fuzz::report_finding("probe", probe_failure->message.c_str());
  ndsearch::ParseOptions options;
  options.framework = NDS_FUZZ_PLUGIN_ID;
  std::optional<ndsearch::Model> model;
  ndsearch::fuzz::expect_only_user_errors(
      [&] { model.emplace(ndsearch::parse_config(*registry, path, options)); });
  // A config that reads is written back with its own strategy on its own
  // devices (`ndsearch apply`): the writer's line edits see the same input.
  if (model)
    ndsearch::fuzz::expect_only_user_errors([&] {
      const nds_strategy s = ndsearch::strategy_to_apply(*model, "", 0);
      (void)ndsearch::write_config(*registry, *model, path, options, {s, {}, {}, {}});
    });
  return 0;
}
