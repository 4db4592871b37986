// SPDX-License-Identifier: Apache-2.0
#include "fuzz/support/scratch_file.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace ndsearch::fuzz {
namespace fs = std::filesystem;

namespace {

fs::path make_private_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string pattern =
      std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/nds-fuzz-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("nds fuzz: mkdtemp");
    std::abort();
  }
  return pattern;
}

void remove_private_dir() {
  std::error_code ec;
  fs::remove_all(scratch_dir(), ec);
}

}  // namespace

const fs::path& scratch_dir() {
  static const fs::path dir = [] {
    fs::path made = make_private_dir();
    std::atexit(remove_private_dir);
    return made;
  }();
  return dir;
}

fs::path write_scratch_file(const std::string& name, const uint8_t* data, size_t size) {
  const fs::path path = scratch_dir() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) {
    std::fprintf(stderr, "nds fuzz: cannot write %s\n", path.c_str());
    std::abort();  // the harness, not the code under test, is broken
  }
  return path;
}

void place_beside(const fs::path& source, const std::string& name) {
  const fs::path target = scratch_dir() / name;
  fs::create_directories(target.parent_path());
  fs::copy_file(source, target, fs::copy_options::overwrite_existing);
}

}  // namespace ndsearch::fuzz
