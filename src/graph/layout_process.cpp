// Rendering in a process of its own (layout_process.hpp).
#include "layout_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "graphprof/core/error.hpp"

namespace gp::detail {

namespace {

void put_u64(std::string& out, std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }

bool get_u64(const std::string& in, std::size_t& at, std::uint64_t& v) {
  if (in.size() - at < sizeof v) return false;
  std::memcpy(&v, in.data() + at, sizeof v);
  at += sizeof v;
  return true;
}

void put_text(std::string& out, const std::string& t) {
  put_u64(out, t.size());
  out += t;
}

bool get_text(const std::string& in, std::size_t& at, std::string& t) {
  std::uint64_t n = 0;
  if (!get_u64(in, at, n) || in.size() - at < n) return false;
  t.assign(in, at, static_cast<std::size_t>(n));
  at += static_cast<std::size_t>(n);
  return true;
}

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kAddressSanitizer = true;
#else
constexpr bool kAddressSanitizer = false;
#endif
#else
constexpr bool kAddressSanitizer = false;
#endif

// The layout process's memory limit: 4 GiB, or GRAPHPROF_LAYOUT_MEMORY_MB (tests, small machines).
std::uint64_t layout_memory_bytes() {
  std::uint64_t mb = 4096;
  if (const char* v = std::getenv("GRAPHPROF_LAYOUT_MEMORY_MB"); v != nullptr && *v != '\0') {
    char* end = nullptr;
    const unsigned long long x = std::strtoull(v, &end, 10);
    if (end != nullptr && *end == '\0' && x > 0 && x < (1ull << 40)) mb = x;
  }
  return mb << 20;
}
constexpr rlim_t kLayoutCpuSeconds = 300;

[[noreturn]] void layout_child(int fd, const GraphView& view, const std::string& format, bool core_only, RenderBytes render) {
  // Nothing of the parent's signal handling (its temporary-file cleanup) belongs to this process,
  // and it must not outlive the parent.
  ::signal(SIGINT, SIG_DFL);
  ::signal(SIGTERM, SIG_DFL);
  ::signal(SIGPIPE, SIG_DFL);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (!kAddressSanitizer) {  // ASan reserves terabytes of address space up front
    const rlimit mem{static_cast<rlim_t>(layout_memory_bytes()), static_cast<rlim_t>(layout_memory_bytes())};
    ::setrlimit(RLIMIT_AS, &mem);
  }
  const rlimit cpu{kLayoutCpuSeconds, kLayoutCpuSeconds};
  ::setrlimit(RLIMIT_CPU, &cpu);
  std::string frame;
  std::uint64_t code = 0;
  std::string message, bytes;
  std::vector<std::string> notes;
  try {
    bytes = render(view, format, core_only, notes);
  } catch (const Error& e) {
    code = static_cast<std::uint64_t>(e.code());
    message = e.what();
  } catch (const std::bad_alloc&) {
    code = static_cast<std::uint64_t>(ExitCode::kBadInput);
    message = "ran out of memory";
  } catch (const std::exception& e) {
    code = static_cast<std::uint64_t>(ExitCode::kInternal);
    message = e.what();
  }
  try {
    put_u64(frame, code);
    put_text(frame, message);
    put_u64(frame, notes.size());
    for (const auto& n : notes) put_text(frame, n);
    put_text(frame, bytes);
  } catch (...) {
    ::_exit(3);
  }
  const char* p = frame.data();
  std::size_t left = frame.size();
  while (left > 0) {
    const ssize_t w = ::write(fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) ::_exit(4);
    p += w;
    left -= static_cast<std::size_t>(w);
  }
  ::_exit(0);  // no exit handlers, no leak check: the parent owns everything
}

std::string how_it_ended(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const std::string what = sig == SIGSEGV   ? "SIGSEGV: a crash, such as a stack overflow"
                             : sig == SIGABRT ? "SIGABRT: it aborted, such as on a failed allocation"
                             : sig == SIGXCPU ? "SIGXCPU: more than " + std::to_string(kLayoutCpuSeconds) + " s of CPU time"
                             : sig == SIGKILL ? "SIGKILL"
                                              : "signal " + std::to_string(sig);
    return "the layout process was killed by " + what;
  }
  return "the layout process exited with status " + std::to_string(WEXITSTATUS(status)) +
         " (Graphviz exits so when an allocation fails)";
}

}  // namespace

std::string render_in_child(const GraphView& view, const std::string& format, bool core_only, RenderBytes render,
                            std::vector<std::string>& notes, bool& hit_limits) {
  hit_limits = false;
  const std::string source = view.source.empty() ? std::string("the graph") : view.source;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    throw environment_error(std::string("cannot start the layout process: pipe: ") + std::strerror(errno));
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int e = errno;
    ::close(fds[0]);
    ::close(fds[1]);
    throw environment_error(std::string("cannot start the layout process: fork: ") + std::strerror(e));
  }
  if (pid == 0) {
    ::close(fds[0]);
    layout_child(fds[1], view, format, core_only, render);
  }
  ::close(fds[1]);
  std::string frame;
  char buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    frame.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw internal_error(std::string("waitpid (layout process) failed: ") + std::strerror(errno));
  const std::string limits = " (limits: " + std::to_string(layout_memory_bytes() >> 20) + " MiB, " +
                             std::to_string(kLayoutCpuSeconds) + " s CPU); nothing was written";
  hit_limits = WIFSIGNALED(status) && (WTERMSIG(status) == SIGXCPU || WTERMSIG(status) == SIGKILL);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw input_error(source + ": the Graphviz layout failed: " + how_it_ended(status) + limits);
  std::size_t at = 0;
  std::uint64_t code = 0, count = 0;
  std::string message, bytes;
  if (!get_u64(frame, at, code) || !get_text(frame, at, message) || !get_u64(frame, at, count))
    throw internal_error("the layout process of " + source + " returned an incomplete result");
  std::vector<std::string> got;
  for (std::uint64_t k = 0; k < count; ++k) {
    std::string n;
    if (!get_text(frame, at, n)) throw internal_error("the layout process of " + source + " returned an incomplete result");
    got.push_back(std::move(n));
  }
  if (!get_text(frame, at, bytes)) throw internal_error("the layout process of " + source + " returned an incomplete result");
  if (code != 0) {
    hit_limits = message == "ran out of memory";
    if (hit_limits) throw input_error(source + ": the Graphviz layout ran out of memory" + limits);
    throw Error(static_cast<ExitCode>(code), message);
  }
  notes.insert(notes.end(), got.begin(), got.end());
  return bytes;
}

}  // namespace gp::detail
