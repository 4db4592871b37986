// SPDX-License-Identifier: Apache-2.0
// verdict_cache.hpp: the verdicts of plugin vetting, one small JSON file per
// plugin file under $XDG_CACHE_HOME/ndsearch/plugin-verdicts/ (default
// ~/.cache), valid while the file keeps its path, size, mtime and SHA-256 and
// the vetting program keeps its version. So a plugin is vetted once per
// version of its file, not once per run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

namespace ndsearch {

// What a file is now; a verdict is only valid for the same identity.
struct FileIdentity {
  std::string path;  // absolute
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  std::string sha256;  // hex
  bool operator==(const FileIdentity&) const = default;
};

struct VetVerdict {
  bool passed = false;
  std::string error_id;       // when not passed: "E-PLUGIN-CRASH", ...
  std::string message;        // when not passed: what happened, naming the check
  bool wrote_stdout = false;  // the plugin printed on stdout while vetted
  std::string notes;          // conformance problems that do not stop loading
  int64_t timeout_ms = 0;     // the time limit it was vetted under: a hang
                              // under a shorter limit than today's is vetted again
};

// The identity of `path`, or nullopt when it cannot be read.
std::optional<FileIdentity> identify_file(const std::filesystem::path& path);

// $XDG_CACHE_HOME/ndsearch (when absolute), else $HOME/.cache/ndsearch; nullopt
// without either (verdicts are then not kept).
std::optional<std::filesystem::path> default_verdict_cache_dir();

class VerdictCache {
 public:
  // `dir`: where verdict files live (created 0700 on the first store);
  // nullopt: a cache that keeps nothing. `vetter`: the vetting program's version.
  VerdictCache(std::optional<std::filesystem::path> dir, std::string vetter);

  std::optional<VetVerdict> find(const FileIdentity& file) const;
  // Best effort: a cache that cannot be written is a debug line, not an error.
  void store(const FileIdentity& file, const VetVerdict& verdict) const;
  // The verdict file for `file` (for messages: "remove it to vet again").
  std::optional<std::filesystem::path> entry_path(const FileIdentity& file) const;

 private:
  std::optional<std::filesystem::path> dir_;
  std::string vetter_;
};

}  // namespace ndsearch
