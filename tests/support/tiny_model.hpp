// SPDX-License-Identifier: Apache-2.0
// tiny_model.hpp: tests/fixtures/configs/hf/tiny-4-layers.json read by the
// shipped Hugging Face parser at a sequence of 1024: 4 Llama layers, hidden
// 256, 4 heads of 64 (2 KV heads), SwiGLU 512, vocabulary 1024, untied, bf16.
// Small enough that a search or an evaluation of it takes milliseconds.
#pragma once

#include <cstdint>
#include <string>

#include "core/input/parse_config.hpp"
#include "tests/support/shipped.hpp"

namespace ndsearch::test {

inline Model tiny_model(int64_t global_batch) {
  ParseOptions options;
  options.overrides.seq_len = 1024;
  options.overrides.global_batch = global_batch;
  return parse_config(shipped_plugins(),
                      std::string(NDS_TEST_FIXTURES_SOURCE) + "/configs/hf/tiny-4-layers.json",
                      options);
}

}  // namespace ndsearch::test
