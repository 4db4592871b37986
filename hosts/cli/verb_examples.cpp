// SPDX-License-Identifier: Apache-2.0
#include "hosts/cli/verb_examples.hpp"

#include <stdexcept>
#include <string>

namespace ndsearch::cli {
namespace {

// "plugins list": the verb's words from the program down.
std::string verb_path(const CLI::App& verb) {
  std::string path;
  for (const CLI::App* a = &verb; a->get_parent() != nullptr; a = a->get_parent())
    path = path.empty() ? a->get_name() : a->get_name() + " " + path;
  return path;
}

std::string footer_of(const VerbExamples& row) {
  std::string text = "Examples:\n";
  for (std::string_view e : row.examples) text.append("  ").append(e).append("\n");
  return text.append(
      "  (from the root of a source checkout, after a build: examples/ and validation/ hold "
      "the inputs)\n");
}

void add_to(CLI::App& app) {
  const std::string path = verb_path(app);
  const VerbExamples* row = nullptr;
  for (const VerbExamples& r : verb_examples())
    if (r.verb == path) row = &r;
  if (row == nullptr)
    throw std::logic_error("hosts/cli/verb_examples.cpp has no examples for `ndsearch " + path +
                           "`");
  app.footer(footer_of(*row));
  for (CLI::App* verb : app.get_subcommands({})) add_to(*verb);
}

}  // namespace

const std::vector<VerbExamples>& verb_examples() {
  // Shipped inputs only (examples/, validation/), each command quick.
  static const std::vector<VerbExamples> table = {
      {"",
       {"ndsearch search examples/llama3-8b-torchtitan/llama3_8b.toml "
        "-A nvidia-h100-sxm -d 64 -t 3",
        "ndsearch explain examples/llama3-8b-torchtitan/llama3_8b.toml -A nvidia-h100-sxm"}},
      {"eval",
       {"ndsearch eval examples/llama3-8b-torchtitan/llama3_8b.toml -A nvidia-h100-sxm -d 64",
        "ndsearch eval examples/llama-3.1-70b/config.json -A nvidia-h100-sxm -d 256 "
        "-b 512 --seq-len 8192 --strategy \"tp=8,pp=4,recompute=selective\""}},
      {"search",
       {"ndsearch search examples/llama3-8b-torchtitan/llama3_8b.toml "
        "-A nvidia-h100-sxm -d 64 -t 3",
        "ndsearch search examples/llama-3.1-70b/config.json -A nvidia-h100-sxm -d 256 "
        "-b 512 --seq-len 8192 -l \"TP PP MBS RECOMPUTE\" -t 5"}},
      {"explain",
       {"ndsearch explain examples/llama3-8b-torchtitan/llama3_8b.toml -A nvidia-h100-sxm",
        "ndsearch explain examples/llama3-8b-torchtitan/llama3_8b.toml -A nvidia-h100-sxm "
        "-d 64 --strategy \"tp=2,pp=2,mbs=1\""}},
      {"apply",
       {"ndsearch apply examples/llama3-8b-torchtitan/llama3_8b.toml --strategy \"tp=4,pp=2\"",
        "ndsearch apply examples/deepseek-v3-hyperparallel/deepseek_v3.yaml "
        "--strategy \"pp=8,ep=128\""}},
      {"compare",
       {"ndsearch compare --measured validation/megatron-lm-2021-a100.csv",
        "ndsearch compare --measured validation/megatron-core-h100.csv --format json"}},
      {"model",
       {"ndsearch model examples/deepseek-v3-hyperparallel/deepseek_v3.yaml",
        "ndsearch model examples/llama-3.1-70b/config.json --seq-len 8192 --format json"}},
      {"hardware",
       {"ndsearch hardware",
        "ndsearch hardware acme-x1 --device-file examples/devices/acme-x1.toml"}},
      {"plugins",
       {"ndsearch plugins list", "ndsearch plugins check build/lib/ndsearch/plugins/nvidia.so"}},
      {"plugins list", {"ndsearch plugins list", "ndsearch plugins list --format json"}},
      {"plugins check",
       {"ndsearch plugins check build/lib/ndsearch/plugins/nvidia.so",
        "ndsearch plugins check build/lib/ndsearch/plugins/torchtitan_toml.so "
        "--sample-config examples/llama3-8b-torchtitan/llama3_8b.toml"}},
  };
  return table;
}

void add_verb_examples(CLI::App& app) {
  add_to(app);
}

}  // namespace ndsearch::cli
