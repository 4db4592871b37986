// SPDX-License-Identifier: Apache-2.0
#include "core/plugin_host/isolated_check.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <algorithm>
#include <csignal>
#include <cstring>

#include "core/support/user_error.hpp"

extern char** environ;

namespace ndsearch {
namespace {

constexpr size_t kStderrKeptBytes = 8192;
// Between two looks at a child that closed its pipes; no digit separator, which
// pmccabe (the function-length ratchet) reads as a character literal.
constexpr useconds_t kReapPollMicroseconds = 10000;

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
  if (!j.is_object()) return false;
  auto text = [&](const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const std::string kind = text("kind");
  if (kind == "begin")
    event.kind = CheckEvent::Kind::begin;
  else if (kind == "pass")
    event.kind = CheckEvent::Kind::pass;
  else if (kind == "fail")
    event.kind = CheckEvent::Kind::fail;
  else
    return false;
  event.check = text("check");
  event.detail = text("detail");
  event.error_id = text("error_id");
  return !event.check.empty();
}

// Closes a descriptor once, whatever path leaves the scope.
struct Fd {
  int fd = -1;
  Fd() = default;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { close_now(); }
  void close_now() {
    if (fd >= 0) close(fd);
    fd = -1;
  }
};

struct Pipe {
  Fd read, write;
  Pipe() {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0)
      throw UserError("E-PLUGIN-CHECK-START",
                      fmt::format("cannot create a pipe: {}", std::strerror(errno)));
    read.fd = fds[0];
    write.fd = fds[1];
  }
};

// Kills the child's process group and reaps the child on every way out.
class Child {
 public:
  explicit Child(pid_t pid) : pid_(pid) {}
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid_ > 0 && !reaped_) {
      kill(-pid_, SIGKILL);
      while (waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
      }
    }
  }
  // Waits until the child exits or the deadline passes; false on the deadline.
  bool wait_until(std::chrono::steady_clock::time_point deadline) {
    while (!reaped_) {
      const pid_t done = waitpid(pid_, &status_, WNOHANG);
      if (done == pid_ || (done < 0 && errno != EINTR)) {
        reaped_ = true;
        break;
      }
      if (std::chrono::steady_clock::now() >= deadline) return false;
      usleep(kReapPollMicroseconds);
    }
    kill(-pid_, SIGKILL);  // anything the plugin left running in the group
    return true;
  }
  void kill_group() {
    kill(-pid_, SIGKILL);
    while (waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
    }
    reaped_ = true;
  }
  int status() const { return status_; }

 private:
  pid_t pid_;
  bool reaped_ = false;
  int status_ = 0;
};

}  // namespace

void write_check_event(std::FILE* out, const CheckEvent& event) {
  nlohmann::json j = {{"kind", kind_name(event.kind)}, {"check", event.check}};
  if (!event.detail.empty()) j["detail"] = event.detail;
  if (!event.error_id.empty()) j["error_id"] = event.error_id;
  std::fputs((j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n").c_str(),
             out);
  std::fflush(out);
}

std::string IsolatedCheckResult::unfinished_check() const {
  if (events.empty() || events.back().kind != CheckEvent::Kind::begin) return "";
  return events.back().check;
}

namespace {

// Starts `program child_args...` in a process group of its own, with the write
// ends of the pipes as its event descriptor, stdout and stderr; throws
// E-PLUGIN-CHECK-START when it cannot be started.
pid_t spawn_child(const std::filesystem::path& program, const std::vector<std::string>& child_args,
                  const Pipe& events, const Pipe& output, const Pipe& printed) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, events.write.fd, kCheckEventFd);
  posix_spawn_file_actions_adddup2(&actions, printed.write.fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, output.write.fd, STDERR_FILENO);
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attributes, 0);  // a group of its own, killed as one
  std::vector<std::string> argv_storage{program.string()};
  argv_storage.insert(argv_storage.end(), child_args.begin(), child_args.end());
  std::vector<char*> argv;
  for (std::string& a : argv_storage) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int spawn_error =
      posix_spawn(&pid, program.c_str(), &actions, &attributes, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (spawn_error != 0) {
    throw UserError("E-PLUGIN-CHECK-START",
                    fmt::format("cannot start {} to check the plugin in a child process: {}",
                                program.string(), std::strerror(spawn_error)));
  }
  return pid;
}

// One read from a readable pipe, appended to `into` (and returned); end of
// file or an error other than EINTR marks the pipe closed.
std::string drain(Fd& from, bool& open, std::string& into) {
  char buffer[4096];
  const ssize_t n = read(from.fd, buffer, sizeof buffer);
  if (n > 0)
    into.append(buffer, static_cast<size_t>(n));
  else if (n == 0 || errno != EINTR)
    open = false;
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : std::string();
}

// Bounds what is kept of a chatty child's output while it runs.
void keep_tail(std::string& text) {
  if (text.size() > 2 * kStderrKeptBytes) text.erase(0, text.size() - kStderrKeptBytes);
}

// Moves each complete line of `buffer` out of it, keeping the ones that are events.
void take_events(std::string& buffer, std::vector<CheckEvent>& events) {
  for (size_t newline; (newline = buffer.find('\n')) != std::string::npos;) {
    CheckEvent event;
    if (parse_event(buffer.substr(0, newline), event)) events.push_back(event);
    buffer.erase(0, newline + 1);
  }
}

// Reads the child's events, stderr and stdout into `result` until all three
// pipes close or poll fails (false), or the deadline passes (true).
bool read_child_output(Pipe& events, Pipe& output, Pipe& printed,
                       std::chrono::steady_clock::time_point deadline,
                       IsolatedCheckResult& result) {
  std::string event_buffer;
  bool events_open = true;
  bool output_open = true;
  bool printed_open = true;
  while (events_open || output_open || printed_open) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return true;
    pollfd fds[3] = {{events_open ? events.read.fd : -1, POLLIN, 0},
                     {output_open ? output.read.fd : -1, POLLIN, 0},
                     {printed_open ? printed.read.fd : -1, POLLIN, 0}};
    const int ready = poll(fds, 3, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const short readable = POLLIN | POLLHUP | POLLERR;
    if (events_open && (fds[0].revents & readable)) drain(events.read, events_open, event_buffer);
    if (output_open && (fds[1].revents & readable)) {
      drain(output.read, output_open, result.child_stderr);
      keep_tail(result.child_stderr);
    }
    if (printed_open && (fds[2].revents & readable)) {
      // What it printed on stdout also goes with its stderr, for the report.
      result.child_stderr += drain(printed.read, printed_open, result.child_stdout);
      keep_tail(result.child_stdout);
      keep_tail(result.child_stderr);
    }
    take_events(event_buffer, result.events);
  }
  return false;
}

// How the child ended (its wait status, or the time running out) and whether
// the run passed: every check reported and none failed.
void record_end(IsolatedCheckResult& result, int status, bool timed_out,
                std::chrono::milliseconds timeout) {
  bool any_failed = false;
  for (const CheckEvent& e : result.events)
    any_failed = any_failed || e.kind == CheckEvent::Kind::fail;
  if (timed_out) {
    result.end = IsolatedCheckResult::End::timed_out;
    result.end_detail = fmt::format("did not finish within {} ms and was killed", timeout.count());
  } else if (WIFSIGNALED(status)) {
    result.end = IsolatedCheckResult::End::crashed;
    result.end_detail =
        fmt::format("killed by signal {} ({})", WTERMSIG(status), strsignal(WTERMSIG(status)));
  } else if (!result.unfinished_check().empty() ||
             (WIFEXITED(status) && WEXITSTATUS(status) != 0 && !any_failed)) {
    // A sanitizer or abort handler may turn a crash into a plain exit.
    result.end = IsolatedCheckResult::End::crashed;
    result.end_detail = fmt::format("exited with status {} in the middle of a check",
                                    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  result.passed =
      result.end == IsolatedCheckResult::End::completed && !any_failed && !result.events.empty();
}

}  // namespace

IsolatedCheckResult run_checks_isolated(const std::filesystem::path& program,
                                        const std::vector<std::string>& child_args,
                                        std::chrono::milliseconds timeout) {
  Pipe events;
  Pipe output;
  Pipe printed;  // the child's stdout, kept apart to flag it
  Child child(spawn_child(program, child_args, events, output, printed));
  events.write.close_now();
  output.write.close_now();
  printed.write.close_now();

  IsolatedCheckResult result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  bool timed_out = read_child_output(events, output, printed, deadline, result);
  // All pipes closed (or the time ran out): wait for the exit within what is left.
  if (timed_out || !child.wait_until(deadline)) {
    timed_out = true;
    child.kill_group();
  }
  const int status = child.status();
  for (std::string* text : {&result.child_stderr, &result.child_stdout})
    if (text->size() > kStderrKeptBytes) text->erase(0, text->size() - kStderrKeptBytes);
  record_end(result, status, timed_out, timeout);
  return result;
}

std::pair<std::string, std::string> check_failure(const IsolatedCheckResult& r) {
  using End = IsolatedCheckResult::End;
  const std::string during = r.unfinished_check().empty() ? "" : " during " + r.unfinished_check();
  if (r.end == End::crashed)
    return {"E-PLUGIN-CRASH", fmt::format("the plugin crashed{}: {}", during, r.end_detail)};
  if (r.end == End::timed_out)
    return {"E-PLUGIN-HANG", fmt::format("the plugin hung{}: it {}", during, r.end_detail)};
  for (const CheckEvent& e : r.events)
    if (e.kind == CheckEvent::Kind::fail) return {e.error_id, e.detail};
  if (r.events.empty()) return {"E-PLUGIN-CRASH", "the checking process reported nothing"};
  return {};
}

}  // namespace ndsearch
