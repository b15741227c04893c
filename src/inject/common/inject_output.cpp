// The injection library's line file and text helpers (inject_output.hpp).
#include "inject_output.hpp"

#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

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
