// SPDX-License-Identifier: Apache-2.0
#include "core/compile/memory_passes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "core/compile/plugin_compile.hpp"
#include "core/support/user_error.hpp"

namespace ndsearch {

MemoryPasses::MemoryPasses(const PluginRegistry& registry, Model& model, const Device& device) {
  for (const auto& p : registry.plugins())
    if (p->interfaces.memory != nullptr)
      passes_.push_back({p.get(), p->interfaces.memory, nullptr});
  if (passes_.empty())
    throw UserError("E-MEMORY-NO-PASS",
                    "no memory pass is loaded (see `ndsearch plugins list`); the shipped ones "
                    "are weights-and-optimizer, activations, comm-buffers and allocator");
  std::stable_sort(passes_.begin(), passes_.end(), [](const Pass& a, const Pass& b) {
    return std::tie(a.table->phase, a.plugin->id) < std::tie(b.table->phase, b.plugin->id);
  });
  for (Pass& pass : passes_) {
    const StatusPtr failure = compile_plugin(
        *pass.plugin, *pass.table, &SerializedCalls::memory_compile, model, device, &pass.compiled);
    if (failure) {
      release();  // the destructor of an object whose constructor throws does not run
      throw UserError("E-MEMORY-COMPILE",
                      fmt::format("memory pass {} ({}) cannot price {}: {}", pass.plugin->id,
                                  pass.plugin->path.string(), model.file, failure->message));
    }
  }
}

MemoryPasses::~MemoryPasses() {
  release();
}

void MemoryPasses::release() {
  for (Pass& pass : passes_) {
    release_plugin(*pass.plugin, *pass.table, &SerializedCalls::memory_release, pass.compiled);
    pass.compiled = nullptr;
  }
}

std::vector<std::string> MemoryPasses::ids() const {
  std::vector<std::string> ids;
  for (const Pass& p : passes_) ids.push_back(p.plugin->id);
  return ids;
}

}  // namespace ndsearch
