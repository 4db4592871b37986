// SPDX-License-Identifier: Apache-2.0
// written_config.hpp: a strategy written into the user's config (write_config)
// as every host gets it (results.hpp, WrittenConfig), and written to the
// output file when one is named: `apply`, and search's emitted config.
#pragma once

#include <ndsearch/core/results.hpp>

#include <filesystem>

#include "core/export/write_config.hpp"

namespace ndsearch {

// `w`, written from `config` (read as `model`), to `output` when not empty.
// `priced_as_ranked`: the writer checked that it prices as the ranked job.
WrittenConfig written_config(const ConfigWrite& w, const Model& model,
                             const std::filesystem::path& config,
                             const std::filesystem::path& output, bool priced_as_ranked);

}  // namespace ndsearch
