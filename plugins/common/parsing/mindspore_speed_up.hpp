// SPDX-License-Identifier: Apache-2.0
// mindspore_speed_up.hpp: what a MindSpore parallel speed-up file
// (`context.ascend_config.parallel_speed_up_json_path` of a MindFormers
// YAML) turns on. MindSpore's defaults leave every switch of it off
// (context.py, _set_speedup_config_path); the file turns on overlaps that
// move the step time, so a parser that prices a config naming one must read
// it or say it could not.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ndsearch::plugins::mindspore {

// A key of the file and its line.
struct SpeedUpKey {
  std::string key;
  int64_t line = 0;
};

struct SpeedUp {
  std::string path;  // the file read
  // Non-empty: MindSpore refuses the file at start-up (not a JSON object,
  // a key not in its option table, a value not of the key's type or not
  // among its names), so the job runs none of it: what is wrong, and where.
  std::string refused;
  // The switches ndsearch prices, each with the key that turned it on.
  // matmul_grad_comm_overlap (grad_matmul_communication_overlap since 2.5):
  // "the backward's MatMul overlapped with communication": the input
  // gradient's TP exchange under the weight-gradient MatMul; as a list of
  // collectives, where it names one TP runs.
  std::optional<SpeedUpKey> tp_async;
  // enable_grad_comm_opt (grad_computation_allreduce_overlap): the
  // data-parallel gradient reduction overlapped with the dx computation.
  std::optional<SpeedUpKey> grad_reduce;
  // enable_opt_shard_comm_opt (computation_allgather_overlap): the parallel
  // optimizer's all-gathers overlapped with the forward.
  std::optional<SpeedUpKey> param_gather;
  // Keys turned on that change a cost ndsearch does not price (recompute or
  // FlashAttention-gradient overlaps, communication fusion, fused
  // matmul-communication kernels, MoE all-to-alls under the backward's
  // MatMul, ...).
  std::vector<SpeedUpKey> unpriced;
};

// Where a stated path names the file, if it is a regular file: an absolute
// path as it is; a relative one from the config's folder (the link's, for
// a config reached by a symbolic link) or a folder above it. MindFormers
// runs from its repository's root and its configs name the file from there
// ("./configs/qwen3/parallel_speed_up.json"): the walk stops at the first
// folder that holds the path's first part ("configs") or a .git, so what
// lies above a checkout does not change the answer.
std::optional<std::filesystem::path> find_speed_up_file(const std::string& config_path,
                                                        const std::string& stated);

// Reads the file. Throws sdk::Error where it cannot be read or its keys
// cannot be listed (a directory or FIFO, over the size limit, a key written
// twice, nesting past kMaxJsonDepth): the message names the file.
SpeedUp read_speed_up_file(const std::filesystem::path& path);

}  // namespace ndsearch::plugins::mindspore
