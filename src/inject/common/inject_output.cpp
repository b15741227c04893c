// The injection library's line file and text helpers (inject_output.hpp).
#include "inject_output.hpp"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <mutex>
#include <thread>

namespace gp::inject {

namespace {
std::timed_mutex g_mu;
FILE* g_out = nullptr;
pid_t g_pid = 0;
}  // namespace

bool open_output(const std::string& path) {
  std::lock_guard<std::timed_mutex> lock(g_mu);
  g_out = std::fopen(path.c_str(), "w");
  return g_out != nullptr;
}

bool write_lines(const std::string& lines, bool flush, std::chrono::milliseconds wait) {
  std::unique_lock<std::timed_mutex> lock(g_mu, std::defer_lock);
  if (!lock.try_lock_for(wait)) return false;
  if (g_out == nullptr) return false;
  std::fwrite(lines.data(), 1, lines.size(), g_out);
  if (flush) std::fflush(g_out);
  return true;
}

void appendf(std::string& s, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if (static_cast<std::size_t>(n) < sizeof buf) {
    s.append(buf, static_cast<std::size_t>(n));
    return;
  }
  std::string big(static_cast<std::size_t>(n) + 1, '\0');
  va_start(ap, fmt);
  std::vsnprintf(big.data(), big.size(), fmt, ap);
  va_end(ap);
  big.resize(static_cast<std::size_t>(n));
  s += big;
}

void append_json_string(std::string& s, const char* text) {
  s += '"';
  for (const char* p = text ? text : ""; *p; ++p) {
    const unsigned char c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\') {
      s += '\\';
      s += static_cast<char>(c);
    } else if (c < 0x20) {
      appendf(s, "\\u%04x", c);
    } else {
      s += static_cast<char>(c);
    }
  }
  s += '"';
}

void set_profiled_pid(pid_t pid) { g_pid = pid; }
pid_t profiled_pid() { return g_pid; }
bool in_profiled_process() { return g_pid != 0 && ::getpid() == g_pid; }

std::uint64_t realtime_ns() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

bool start_quiet_thread(void (*fn)()) {
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  bool started = false;
  try {
    std::thread(fn).detach();
    started = true;
  } catch (...) {
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  return started;
}

}  // namespace gp::inject
