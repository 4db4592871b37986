// SPDX-License-Identifier: Apache-2.0
#include "core/plugins/isolated_check.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/support/user_error.hpp"

extern char** environ;

namespace ndsearch {
namespace {

constexpr size_t kStderrKeptBytes = 8192;

const char* kind_name(CheckEvent::Kind kind) {
  switch (kind) {
    case CheckEvent::Kind::begin: return "begin";
    case CheckEvent::Kind::pass: return "pass";
    case CheckEvent::Kind::fail: return "fail";
  }
  return "fail";
}

bool parse_event(const std::string& line, CheckEvent& event) {
  nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("kind") || !j.contains("check")) return false;
  const std::string kind = j.value("kind", "");
  if (kind == "begin") event.kind = CheckEvent::Kind::begin;
  else if (kind == "pass") event.kind = CheckEvent::Kind::pass;
  else if (kind == "fail") event.kind = CheckEvent::Kind::fail;
  else return false;
  event.check = j.value("check", "");
  event.detail = j.value("detail", "");
  event.error_id = j.value("error_id", "");
  return true;
}

// Closes a descriptor once, whatever path leaves the scope.
struct Fd {
  int fd = -1;
  ~Fd() { if (fd >= 0) close(fd); }
};

struct Pipe {
  Fd read, write;
  Pipe() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
      throw UserError("E-PLUGIN-CHECK-START", fmt::format("cannot create a pipe: {}", std::strerror(errno)));
    read.fd = fds[0];
    write.fd = fds[1];
  }
};

}  // namespace

void write_check_event(std::FILE* out, const CheckEvent& event) {
  nlohmann::json j = {{"kind", kind_name(event.kind)}, {"check", event.check}};
  if (!event.detail.empty()) j["detail"] = event.detail;
  if (!event.error_id.empty()) j["error_id"] = event.error_id;
  std::fputs((j.dump() + "\n").c_str(), out);
  std::fflush(out);
}

std::string IsolatedCheckResult::unfinished_check() const {
  if (events.empty() || events.back().kind != CheckEvent::Kind::begin) return "";
  return events.back().check;
}

IsolatedCheckResult run_checks_isolated(const std::filesystem::path& program,
                                        const std::vector<std::string>& child_args,
                                        std::chrono::milliseconds timeout) {
  Pipe out, err;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, out.write.fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, err.write.fd, STDERR_FILENO);
  std::vector<std::string> argv_storage{program.string()};
  argv_storage.insert(argv_storage.end(), child_args.begin(), child_args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int spawn_error =
      posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawn_error != 0) {
    throw UserError("E-PLUGIN-CHECK-START",
                    fmt::format("cannot start {} to check the plugin in a child process: {}",
                                program.string(), std::strerror(spawn_error)));
  }
  close(out.write.fd);
  out.write.fd = -1;
  close(err.write.fd);
  err.write.fd = -1;

  IsolatedCheckResult result;
  std::string stdout_buffer;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool out_open = true, err_open = true, timed_out = false;
  while (out_open || err_open) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd fds[2] = {{out_open ? out.read.fd : -1, POLLIN, 0}, {err_open ? err.read.fd : -1, POLLIN, 0}};
    if (poll(fds, 2, static_cast<int>(left.count())) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    char buffer[4096];
    if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t n = read(out.read.fd, buffer, sizeof buffer);
      if (n <= 0) out_open = false;
      else stdout_buffer.append(buffer, static_cast<size_t>(n));
    }
    if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t n = read(err.read.fd, buffer, sizeof buffer);
      if (n <= 0) err_open = false;
      else {
        result.child_stderr.append(buffer, static_cast<size_t>(n));
        if (result.child_stderr.size() > 2 * kStderrKeptBytes)
          result.child_stderr.erase(0, result.child_stderr.size() - kStderrKeptBytes);
      }
    }
    for (size_t newline; (newline = stdout_buffer.find('\n')) != std::string::npos;) {
      CheckEvent event;
      if (parse_event(stdout_buffer.substr(0, newline), event)) result.events.push_back(event);
      stdout_buffer.erase(0, newline + 1);
    }
  }
  if (timed_out) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (result.child_stderr.size() > kStderrKeptBytes)
    result.child_stderr.erase(0, result.child_stderr.size() - kStderrKeptBytes);

  bool any_failed = false;
  for (const CheckEvent& e : result.events) any_failed = any_failed || e.kind == CheckEvent::Kind::fail;
  if (timed_out) {
    result.end = IsolatedCheckResult::End::timed_out;
    result.end_detail = fmt::format("did not finish within {} ms and was killed", timeout.count());
  } else if (WIFSIGNALED(status)) {
    result.end = IsolatedCheckResult::End::crashed;
    result.end_detail = fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  } else if (!result.unfinished_check().empty() ||
             (WIFEXITED(status) && WEXITSTATUS(status) != 0 && !any_failed)) {
    // A sanitizer or abort handler may turn a crash into a plain exit.
    result.end = IsolatedCheckResult::End::crashed;
    result.end_detail = fmt::format("exited with status {} in the middle of a check",
                                    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  result.passed = result.end == IsolatedCheckResult::End::completed && !any_failed &&
                  !result.events.empty();
  return result;
}

}  // namespace ndsearch
