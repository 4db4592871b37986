// SPDX-License-Identifier: Apache-2.0
#include "core/plugin_host/verdict_cache.hpp"

#include <fmt/format.h>
#include <openssl/evp.h>
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

namespace ndsearch {
namespace fs = std::filesystem;
namespace {

// A second in nanoseconds (st_mtim); no digit separator, which pmccabe (the
// function-length ratchet) reads as a character literal.
constexpr int64_t kNanosecondsPerSecond = 1000000000;

std::string hex(const unsigned char* bytes, size_t size) {
  std::string text;
  for (size_t i = 0; i < size; ++i) text += fmt::format("{:02x}", bytes[i]);
  return text;
}

struct DigestFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};

// SHA-256 of a stream or a string, with OpenSSL's EVP interface.
class Sha256 {
 public:
  Sha256() : context_(EVP_MD_CTX_new()) {
    if (!context_ || EVP_DigestInit_ex(context_.get(), EVP_sha256(), nullptr) != 1)
      context_.reset();
  }
  bool add(const void* data, size_t size) {
    return context_ && EVP_DigestUpdate(context_.get(), data, size) == 1;
  }
  std::optional<std::string> finish() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (!context_ || EVP_DigestFinal_ex(context_.get(), digest, &size) != 1) return std::nullopt;
    return hex(digest, size);
  }

 private:
  std::unique_ptr<EVP_MD_CTX, DigestFree> context_;
};

std::optional<std::string> sha256_of_file(const fs::path& path) {
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) return std::nullopt;
  Sha256 sha;
  char buffer[1 << 16];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof buffer, file.get())) > 0)
    if (!sha.add(buffer, n)) return std::nullopt;
  if (std::ferror(file.get())) return std::nullopt;
  return sha.finish();
}

}  // namespace

std::optional<FileIdentity> identify_file(const fs::path& path) {
  struct stat info {};
  if (stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) return std::nullopt;
  auto digest = sha256_of_file(path);
  if (!digest) return std::nullopt;
  FileIdentity identity;
  std::error_code ec;
  identity.path = fs::absolute(path, ec).lexically_normal().string();
  identity.size = static_cast<uint64_t>(info.st_size);
  identity.mtime_ns =
      static_cast<int64_t>(info.st_mtim.tv_sec) * kNanosecondsPerSecond + info.st_mtim.tv_nsec;
  identity.sha256 = *digest;
  return identity;
}

std::optional<fs::path> default_verdict_cache_dir() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && fs::path(xdg).is_absolute()) return fs::path(xdg) / "ndsearch";
  const char* home = std::getenv("HOME");
  if (home != nullptr && fs::path(home).is_absolute())
    return fs::path(home) / ".cache" / "ndsearch";
  return std::nullopt;
}

VerdictCache::VerdictCache(std::optional<fs::path> dir, std::string vetter)
    : dir_(std::move(dir)), vetter_(std::move(vetter)) {}

std::optional<fs::path> VerdictCache::entry_path(const FileIdentity& file) const {
  if (!dir_) return std::nullopt;
  Sha256 sha;
  sha.add(file.path.data(), file.path.size());
  auto name = sha.finish();
  if (!name) return std::nullopt;
  return *dir_ / "plugin-verdicts" / (name->substr(0, 32) + ".json");
}

std::optional<VetVerdict> VerdictCache::find(const FileIdentity& file) const {
  auto entry = entry_path(file);
  if (!entry) return std::nullopt;
  // A verdict someone else could have written is not trusted.
  struct stat info {};
  if (stat(entry->c_str(), &info) != 0 || info.st_uid != geteuid() ||
      (info.st_mode & (S_IWGRP | S_IWOTH)) != 0)
    return std::nullopt;
  std::ifstream in(*entry);
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return std::nullopt;
  try {
    FileIdentity stored{j.at("path").get<std::string>(), j.at("size").get<uint64_t>(),
                        j.at("mtime_ns").get<int64_t>(), j.at("sha256").get<std::string>()};
    if (!(stored == file) || j.at("vetter").get<std::string>() != vetter_) return std::nullopt;
    VetVerdict verdict;
    verdict.passed = j.at("passed").get<bool>();
    verdict.error_id = j.value("error_id", "");
    verdict.message = j.value("message", "");
    verdict.wrote_stdout = j.value("wrote_stdout", false);
    verdict.notes = j.value("notes", "");
    verdict.timeout_ms = j.value("timeout_ms", int64_t{0});
    return verdict;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;  // an old or damaged entry: vet again
  }
}

void VerdictCache::store(const FileIdentity& file, const VetVerdict& verdict) const {
  auto entry = entry_path(file);
  if (!entry) return;
  std::error_code ec;
  fs::create_directories(entry->parent_path(), ec);
  fs::permissions(*dir_, fs::perms::owner_all, fs::perm_options::replace, ec);
  fs::permissions(entry->parent_path(), fs::perms::owner_all, fs::perm_options::replace, ec);
  nlohmann::json j = {{"vetter", vetter_},
                      {"path", file.path},
                      {"size", file.size},
                      {"mtime_ns", file.mtime_ns},
                      {"sha256", file.sha256},
                      {"passed", verdict.passed},
                      {"error_id", verdict.error_id},
                      {"message", verdict.message},
                      {"wrote_stdout", verdict.wrote_stdout},
                      {"notes", verdict.notes},
                      {"timeout_ms", verdict.timeout_ms}};
  // Written beside, then renamed: a reader never sees half a verdict.
  const fs::path temporary = entry->string() + fmt::format(".{}.tmp", getpid());
  {
    std::ofstream out(temporary);
    out << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    if (!out) {
      spdlog::debug("cannot write the plugin verdict cache {}; the plugin will be vetted again",
                    temporary.string());
      fs::remove(temporary, ec);
      return;
    }
  }
  fs::rename(temporary, *entry, ec);
  if (ec) {
    spdlog::debug("cannot write the plugin verdict cache {}: {}", entry->string(), ec.message());
    fs::remove(temporary, ec);
  }
}

}  // namespace ndsearch
