// SPDX-License-Identifier: Apache-2.0
#include "tests/support/run_command.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace ndsearch::test {

CommandResult run_command(const std::string& command_line) {
  char err_path[] = "/tmp/ndsearch-test-stderr-XXXXXX";
  const int fd = mkstemp(err_path);
  if (fd >= 0) close(fd);
  CommandResult result;
  FILE* pipe = popen((command_line + " 2>" + err_path).c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) result.out.append(buffer, n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream err(err_path);
  std::stringstream text;
  text << err.rdbuf();
  result.err = text.str();
  std::filesystem::remove(err_path);
  return result;
}

}  // namespace ndsearch::test
