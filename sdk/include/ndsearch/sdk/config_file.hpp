// SPDX-License-Identifier: Apache-2.0
// config_file.hpp: reading a config file a parser was given, or one the config
// points at, safely: only a regular file (never a directory, FIFO, socket or
// device, and never blocking on open), no larger than a limit the user can
// raise; plus what every parser's messages need: values echoed short, UTF-8
// checked, and an error id more precise than the status code (E-PARSE-LIMIT,
// E-PARSE-DUPLICATE) carried as a "[ID] " tag at the start of the message.
#ifndef NDSEARCH_SDK_CONFIG_FILE_HPP_INCLUDED
#define NDSEARCH_SDK_CONFIG_FILE_HPP_INCLUDED

#include <fcntl.h>     // open, O_NONBLOCK
#include <sys/stat.h>  // stat, S_ISREG
#include <unistd.h>    // read, close

#include <cerrno>
#include <cstdint>
#include <cstdlib>  // std::getenv
#include <cstring>  // std::strerror
#include <optional>
#include <string>
#include <string_view>
#include <utility>  // std::pair

#include <ndsearch/sdk/plugin.hpp>  // sdk::Error
#include <ndsearch/sdk/units.hpp>   // memory_size_bytes

namespace ndsearch::sdk {

// The largest config read unless NDS_CONFIG_MAX_BYTES says otherwise: the
// largest framework config we know is under 100 KiB, so 16 MiB leaves room and
// still bounds what a parser's DOM costs (a few hundred MiB at most).
inline constexpr int64_t kDefaultConfigMaxBytes = int64_t{16} << 20;
inline constexpr const char* kConfigMaxBytesVariable = "NDS_CONFIG_MAX_BYTES";

// Error ids a parser may give in a message's "[ID] " tag; the host shows the
// id and the message without the tag (a host that does not know the rule
// shows the tag, which still reads).
inline constexpr const char* kFileErrorId = "E-PARSE-FILE";
inline constexpr const char* kLimitErrorId = "E-PARSE-LIMIT";
inline constexpr const char* kDuplicateErrorId = "E-PARSE-DUPLICATE";

inline std::string tagged(const char* id, const std::string& message) {
  return std::string("[") + id + "] " + message;
}

// The id of a tagged message and the message without it; {"", message} when
// it carries no known tag.
inline std::pair<std::string, std::string> split_error_tag(const std::string& message) {
  for (const char* id : {kFileErrorId, kLimitErrorId, kDuplicateErrorId}) {
    const std::string tag = std::string("[") + id + "] ";
    if (message.compare(0, tag.size(), tag) == 0) return {id, message.substr(tag.size())};
  }
  return {"", message};
}

// A limit of ours the input passed (size, nesting, expansion, memory).
class LimitError : public Error {
 public:
  explicit LimitError(const std::string& message)
      : Error(NDS_OUT_OF_RANGE, tagged(kLimitErrorId, message)) {}
};

// A file that is missing, unreadable or not a regular file (E-PARSE-FILE,
// whatever the code says).
class FileError : public Error {
 public:
  FileError(nds_status_code code, const std::string& message)
      : Error(code, tagged(kFileErrorId, message)) {}
};

// A key written twice where the second would silently replace the first.
class DuplicateKeyError : public Error {
 public:
  explicit DuplicateKeyError(const std::string& message)
      : Error(NDS_INVALID_ARGUMENT, tagged(kDuplicateErrorId, message)) {}
};

// A value as a message shows it: at most `max_chars` bytes (cut on a UTF-8
// boundary), with the full size said when it was cut. Never dump a rejected
// value whole: it may be megabytes, or nested thousands deep.
inline std::string shown(std::string_view value, size_t max_chars = 80) {
  if (value.size() <= max_chars) return std::string(value);
  size_t cut = max_chars;
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80) --cut;
  return std::string(value.substr(0, cut)) + "... (" + std::to_string(value.size()) + " bytes)";
}

// The offset of the first byte of `text` that is not well-formed UTF-8
// (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), or
// nullopt when all of it is.
inline std::optional<size_t> invalid_utf8_offset(std::string_view text) {
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[i]); };
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = byte(i);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t length = 0;
    unsigned char low = 0x80, high = 0xBF;  // the allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF)
      length = 2;
    else if (c == 0xE0)
      length = 3, low = 0xA0;
    else if (c >= 0xE1 && c <= 0xEC)
      length = 3;
    else if (c == 0xED)
      length = 3, high = 0x9F;
    else if (c >= 0xEE && c <= 0xEF)
      length = 3;
    else if (c == 0xF0)
      length = 4, low = 0x90;
    else if (c >= 0xF1 && c <= 0xF3)
      length = 4;
    else if (c == 0xF4)
      length = 4, high = 0x8F;
    else
      return i;
    if (i + length > text.size() || byte(i + 1) < low || byte(i + 1) > high) return i;
    for (size_t k = 2; k < length; ++k)
      if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return i;
    i += length;
  }
  return std::nullopt;
}

// The size limit in force: NDS_CONFIG_MAX_BYTES (bytes, or a size such as
// "64MiB"), else `default_bytes` (a reader slower than ours may default
// lower). A value that does not read is an error naming the variable (never
// silently the default).
inline int64_t config_max_bytes(int64_t default_bytes = kDefaultConfigMaxBytes) {
  const char* text = std::getenv(kConfigMaxBytesVariable);
  if (text == nullptr || *text == '\0') return default_bytes;
  const std::string_view s(text);
  std::optional<int64_t> bytes;
  if (s.find_first_not_of("0123456789") == std::string_view::npos && s.size() <= 18)
    bytes = std::stoll(std::string(s));
  else
    bytes = memory_size_bytes(s);
  if (!bytes || *bytes <= 0)
    throw Error(NDS_INVALID_ARGUMENT,
                std::string(kConfigMaxBytesVariable) + "=" + shown(s) +
                    ": expected a size in bytes (e.g. 67108864) or with a unit (e.g. 64MiB)");
  return *bytes;
}

// What a path is, in words, for a message ("a directory", "a FIFO (named pipe)").
inline const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISREG(mode)) return "a regular file";
  return "not a regular file";
}

// Why `path` cannot be read as a config, or nullopt when it can (it is a
// regular file, after links, within the limit). `what` names it in the
// message ("config", "Hugging Face config.json"). The error is an
// sdk::Error: a FileError (NDS_NOT_FOUND for a missing or unreadable file,
// NDS_INVALID_ARGUMENT for one that is not a regular file), a LimitError for
// one too large.
inline std::optional<Error> config_file_problem(const std::string& path,
                                                const char* what = "config",
                                                int64_t default_bytes = kDefaultConfigMaxBytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    const int error = errno;
    if (error == ENOENT || error == ENOTDIR)
      return FileError(NDS_NOT_FOUND, path + ": no such file; give the path of a " + what);
    return FileError(NDS_NOT_FOUND, path + ": cannot be read (" + std::strerror(error) +
                                        "); check the path and its permissions");
  }
  if (!S_ISREG(st.st_mode))
    return FileError(NDS_INVALID_ARGUMENT, path + ": is " + file_kind(st.st_mode) +
                                               ", not a regular file; give the path of a " + what +
                                               " file");
  const int64_t limit = config_max_bytes(default_bytes);
  if (static_cast<int64_t>(st.st_size) > limit)
    return LimitError(path + ": " + std::to_string(static_cast<int64_t>(st.st_size)) +
                      " bytes, more than the " + std::to_string(limit) + "-byte limit on a " +
                      what + "; if the file is right, raise the limit with " +
                      kConfigMaxBytesVariable + "=<bytes> (e.g. " + kConfigMaxBytesVariable +
                      "=64MiB)");
  return std::nullopt;
}

// The whole text of `path`, checked by config_file_problem first; opened
// without blocking (a FIFO swapped in after the check cannot hang the read)
// and never read past the limit (a file that grows cannot either). Throws
// the sdk::Error config_file_problem describes.
inline std::string read_config_file(const std::string& path, const char* what = "config",
                                    int64_t default_bytes = kDefaultConfigMaxBytes) {
  if (auto problem = config_file_problem(path, what, default_bytes)) throw *problem;
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    throw FileError(NDS_NOT_FOUND, path + ": cannot be opened (" + std::strerror(errno) +
                                       "); check its permissions");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    throw FileError(NDS_INVALID_ARGUMENT, path + ": is " + file_kind(st.st_mode) +
                                              ", not a regular file; give the path of a " + what +
                                              " file");
  const int64_t limit = config_max_bytes(default_bytes);
  std::string text;
  text.reserve(static_cast<size_t>(st.st_size));
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      throw FileError(NDS_NOT_FOUND, path + ": cannot be read (" + std::strerror(errno) + ")");
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (static_cast<int64_t>(text.size()) > limit)
      throw LimitError(path + ": grew past the " + std::to_string(limit) + "-byte limit on a " +
                       what + " while being read; raise the limit with " + kConfigMaxBytesVariable +
                       "=<bytes>");
  }
  return text;
}

// For probe: the text, or nullopt when read_config_file would throw.
inline std::optional<std::string> try_read_config_file(
    const std::string& path, int64_t default_bytes = kDefaultConfigMaxBytes) noexcept {
  try {
    return read_config_file(path, "config", default_bytes);
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace ndsearch::sdk

#endif  // NDSEARCH_SDK_CONFIG_FILE_HPP_INCLUDED
