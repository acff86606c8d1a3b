#include "profile/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string_view>

extern char** environ;

namespace warpfold::profile {
namespace {

using Clock = std::chrono::steady_clock;

// A file descriptor closed when it goes out of scope.
class Fd {
 public:
  Fd() = default;
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read, write;
};

bool make_pipe(Pipe& p) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  p.read.reset(fds[0]);
  p.write.reset(fds[1]);
  return true;
}

// The child's environment: ours, with `overrides` replacing or adding variables.
std::vector<std::string> child_environment(const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    bool replaced = false;
    for (const auto& [name, value] : overrides) {
      if (entry.size() > name.size() && entry.substr(0, name.size()) == name && entry[name.size()] == '=') replaced = true;
    }
    if (!replaced) env.emplace_back(entry);
  }
  for (const auto& [name, value] : overrides) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Between fork and exec only async-signal-safe calls: everything is prepared before the fork.
[[noreturn]] void exec_child(const char* path, char* const* argv, char* const* envp, int out_fd, int err_fd,
                             int status_fd) {
  ::setpgid(0, 0);
  const int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(err_fd, STDERR_FILENO);
  ::execve(path, argv, envp);
  const int e = errno;
  [[maybe_unused]] const ssize_t n = ::write(status_fd, &e, sizeof e);
  ::_exit(127);
}

// Reads what is ready on `fd` into `sink` (up to `limit` bytes kept); false at end of file.
bool drain(int fd, std::string& sink, size_t limit, bool& truncated) {
  char buf[65536];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  if (n == 0) return false;
  const size_t room = sink.size() < limit ? limit - sink.size() : 0;
  sink.append(buf, std::min(room, size_t(n)));
  if (size_t(n) > room) truncated = true;
  return true;
}

// The child runs in its own process group, so a Ctrl-C at the terminal reaches only warpfold:
// while a child runs, SIGINT and SIGTERM are caught, the child's group is killed, and the signal is
// raised again once the child is gone.
volatile sig_atomic_t g_signal = 0;

void note_signal(int sig) { g_signal = sig; }

class ForwardInterrupts {
 public:
  ForwardInterrupts() {
    g_signal = 0;
    struct sigaction sa{};
    sa.sa_handler = note_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: poll() returns EINTR and the loop sees the signal
    ::sigaction(SIGINT, &sa, &old_int_);
    ::sigaction(SIGTERM, &sa, &old_term_);
  }
  ForwardInterrupts(const ForwardInterrupts&) = delete;
  ForwardInterrupts& operator=(const ForwardInterrupts&) = delete;
  ~ForwardInterrupts() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
    if (g_signal) ::raise(g_signal);  // as if it had arrived now: the caller's own handling applies
  }
  static bool interrupted() { return g_signal != 0; }

 private:
  struct sigaction old_int_{}, old_term_{};
};

int wait_for(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

std::string ProcessResult::describe(double timeout_seconds) const {
  if (!started) return "could not start: " + start_error;
  if (timed_out) {
    return timeout_seconds > 0 ? "timed out after " + std::to_string(int(std::lround(timeout_seconds))) + " s and was killed"
                               : "timed out and was killed";
  }
  if (exited) return "exit code " + std::to_string(exit_code);
  return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  ProcessResult r;
  if (argv.empty() || argv[0].find('/') == std::string::npos) {
    r.start_error = "'" + (argv.empty() ? std::string() : argv[0]) + "' is not a path to a program";
    return r;
  }
  std::vector<std::string> args = argv;
  std::vector<std::string> env = child_environment(options.environment);
  std::vector<char*> argp = pointers(args), envp = pointers(env);
  Pipe out, err, status;
  if (!make_pipe(out) || !make_pipe(err) || !make_pipe(status)) {
    r.start_error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  const ForwardInterrupts forward;
  const pid_t pid = ::fork();
  if (pid < 0) {
    r.start_error = std::string("fork: ") + std::strerror(errno);
    return r;
  }
  if (pid == 0) exec_child(args[0].c_str(), argp.data(), envp.data(), out.write.get(), err.write.get(), status.write.get());
  ::setpgid(pid, pid);  // also here: whichever of parent and child runs first, the group exists
  out.write.reset();
  err.write.reset();
  status.write.reset();

  // The status pipe closes on a successful exec (O_CLOEXEC) or carries exec's errno.
  int exec_errno = 0;
  ssize_t got = 0;
  while ((got = ::read(status.read.get(), &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  if (got == sizeof exec_errno) {
    wait_for(pid);
    r.start_error = args[0] + ": " + std::strerror(exec_errno);
    return r;
  }
  r.started = true;

  const bool limited = options.timeout_seconds > 0;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(limited ? options.timeout_seconds : 0));
  bool out_open = true, err_open = true;
  while ((out_open || err_open) && !ForwardInterrupts::interrupted()) {
    // Short waits: a signal handled on another thread interrupts no poll() here, so the flag is
    // looked at every quarter second.
    int wait_ms = 250;
    if (limited) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        r.timed_out = true;
        break;
      }
      wait_ms = int(std::min<long long>(left, wait_ms));
    }
    pollfd fds[2] = {{out_open ? out.read.get() : -1, POLLIN, 0}, {err_open ? err.read.get() : -1, POLLIN, 0}};
    const int ready = ::poll(fds, 2, wait_ms);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      out_open = drain(out.read.get(), r.out, options.max_output_bytes, r.truncated);
    }
    if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
      err_open = drain(err.read.get(), r.err, options.max_output_bytes, r.truncated);
    }
  }
  if (r.timed_out || out_open || err_open || ForwardInterrupts::interrupted()) {
    ::kill(-pid, SIGKILL);  // the whole group: ncu and the program it runs
    ::kill(pid, SIGKILL);
  }
  const int st = wait_for(pid);
  if (WIFEXITED(st)) {
    r.exited = true;
    r.exit_code = WEXITSTATUS(st);
  } else if (WIFSIGNALED(st)) {
    r.signal = WTERMSIG(st);
  }
  return r;
}

}  // namespace warpfold::profile
