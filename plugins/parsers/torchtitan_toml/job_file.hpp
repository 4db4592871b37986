// SPDX-License-Identifier: Apache-2.0
// job_file.hpp: a parsed TorchTitan job TOML with typed reads by dotted field
// ("parallelism.tensor_parallel_degree"), each value's provenance (file, line,
// field), and errors that name the file, line, field, bad value and fix.
#pragma once

#include <ndsearch/sdk/parser.hpp>

#include <toml++/toml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ndsearch::plugins::torchtitan {

class JobFile {
 public:
  // Throws sdk::Error naming the file and line of a TOML syntax error.
  explicit JobFile(std::string path);

  const std::string& path() const { return path_; }
  const toml::table& root() const { return root_; }

  // nullptr when the file does not state `field`.
  const toml::node* find(std::string_view field) const;

  // Provenance of `field`: the file, its line (when stated) and the field.
  sdk::Where where(std::string_view field) const;
  // Provenance of a value derived from `field` (`what` says how).
  sdk::Where derived(std::string_view field, const std::string& what) const;

  // Typed reads; nullopt when not stated; sdk::Error when of the wrong type.
  std::optional<int64_t> integer(std::string_view field) const;
  std::optional<std::string> text(std::string_view field) const;
  std::optional<bool> flag(std::string_view field) const;
  // A list of strings, also written as one comma-separated string (TorchTitan
  // accepts both for list options).
  std::optional<std::vector<std::string>> texts(std::string_view field) const;

  // "file:line: field = value: what", for a message.
  std::string described(std::string_view field, const std::string& what) const;
  // The same as an sdk::Error (NDS_INVALID_ARGUMENT, or NDS_OUT_OF_RANGE for
  // a number field's bad number: E-PARSE-VALUE).
  [[noreturn]] void fail(std::string_view field, const std::string& what,
                         nds_status_code code = NDS_INVALID_ARGUMENT) const;

 private:
  std::string path_;
  toml::table root_;
};

// A TorchTitan default (JobConfig's documented value): default:torchtitan.
sdk::Where torchtitan_default();

// A node's value as the file writes it, for messages ("-1", "\"1F1B\"").
std::string shown(const toml::node& node);

}  // namespace ndsearch::plugins::torchtitan
