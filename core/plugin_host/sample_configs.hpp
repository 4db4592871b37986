// SPDX-License-Identifier: Apache-2.0
// sample_configs.hpp: small model configs of the formats ndsearch's parsers
// read, written to a temporary folder so that `plugins check` (and vetting)
// can call a parser plugin's parse on a file it claims.
#pragma once

#include <filesystem>
#include <vector>

namespace ndsearch {

class SampleConfigs {
 public:
  // Writes the samples under a new folder in the temporary directory; an
  // empty list when it cannot.
  SampleConfigs();
  SampleConfigs(const SampleConfigs&) = delete;
  SampleConfigs& operator=(const SampleConfigs&) = delete;
  ~SampleConfigs();  // removes the folder

  // An HF config.json, a Megatron-LM launch script, a torchtitan TOML, a
  // MindFormers YAML and an empty file, in that order.
  const std::vector<std::filesystem::path>& files() const noexcept { return files_; }

 private:
  std::filesystem::path folder_;
  std::vector<std::filesystem::path> files_;
};

}  // namespace ndsearch
