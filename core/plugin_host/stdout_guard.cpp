// SPDX-License-Identifier: Apache-2.0
#include <ndsearch/core/stdout_guard.hpp>

#include <fcntl.h>
#include <unistd.h>
#include <ext/stdio_filebuf.h>  // libstdc++: a streambuf on a descriptor

#include <atomic>
#include <cstdio>
#include <iostream>
#include <mutex>

namespace ndsearch {
namespace {
std::atomic<int> real_stdout{STDOUT_FILENO};
}  // namespace

int host_stdout_fd() noexcept {
  return real_stdout.load();
}

bool keep_stdout_from_plugins() {
  static std::once_flag once;
  static bool guarded = false;
  std::call_once(once, [] {
    std::cout.flush();
    std::fflush(stdout);
    const int host_stdout = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (host_stdout < 0) return;
    if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
      close(host_stdout);
      return;
    }
    // Never freed: std::cout flushes it when the program ends.
    static auto* buffer = new __gnu_cxx::stdio_filebuf<char>(host_stdout, std::ios::out);
    std::cout.rdbuf(buffer);
    real_stdout.store(host_stdout);
    guarded = true;
  });
  return guarded;
}

}  // namespace ndsearch
