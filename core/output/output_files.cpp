// SPDX-License-Identifier: Apache-2.0
#include "core/output/output_files.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <system_error>

#include <ndsearch/core/settings.hpp>

#include "core/support/user_error.hpp"

namespace ndsearch {

void create_output_dir(const std::filesystem::path& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (!error && !std::filesystem::is_directory(dir, error))
    error = std::make_error_code(std::errc::not_a_directory);
  if (error)
    throw UserError("E-OUTPUT",
                    fmt::format("{}: cannot create the directory: {}; give a "
                                "directory you can write",
                                Setting("output_dir").named(dir.string()), error.message()));
}

void write_output_file(const std::filesystem::path& path,
                       const std::function<void(std::ostream&)>& write) {
  errno = 0;
  std::ofstream out(path);
  if (out) write(out);
  if (out) out.flush();
  if (!out) {
    // ofstream leaves errno as open(2) or write(2) set it, the best reason we have.
    const std::string why = errno != 0 ? std::strerror(errno) : "write failed";
    throw UserError("E-OUTPUT", fmt::format("cannot write {}: {}; check that the directory exists "
                                            "and is writable",
                                            path.string(), why));
  }
}

}  // namespace ndsearch
