// What libgraphprof_interpose.so does when the program dies (runtime_interpose.cpp records; docs/profile.md,
// "A program that dies"): fatal signals and _exit write what is pending first.
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "inject_output.hpp"
#include "interpose_core.hpp"
#include "signal_end.hpp"

#define GP_EXPORT extern "C" __attribute__((visibility("default")))

// SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL: the handler writes what is pending (locks only tried: the
// interrupted thread may hold one) and an end line naming the signal, then hands the signal on to
// the default action (installed only where the program left that). _exit and _Exit
// (os._exit, multiprocessing workers) do the same with a bounded wait. SIGKILL cannot be caught:
// the writer's flush every 100 ms bounds what it takes.
namespace gp::interposer {

namespace {

constexpr int kFatal[] = {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL};
struct sigaction g_before[sizeof kFatal / sizeof kFatal[0]];
std::atomic<bool> g_dying{false};
bool g_backtrace = false;  // GRAPHPROF_DEV_FATAL_BACKTRACE=1 (a developer switch): the native stack to stderr

void end_line(const char* reason) {
  gp::records::EndLine end;
  end.reason = reason;
  end.ts = now_ns();
  end.cupti = "unused";
  std::string line;
  gp::records::write(line, end);
  write_flushed(line);
}

const char* signal_name(int sig) {
  switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
  }
  return "signal";
}

void on_fatal(int sig) {
  if (g_backtrace) {
    void* frames[48];
    backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
  }
  if (!g_dying.exchange(true) && g_active.load()) {
    gp::inject::bound_dying_write(sig);
    end_recording(false);
    end_line(signal_name(sig));
    alarm(0);
  }
  for (std::size_t i = 0; i < sizeof kFatal / sizeof kFatal[0]; ++i)
    if (kFatal[i] == sig) sigaction(sig, &g_before[i], nullptr);
  // A fault returns to the faulting instruction, which faults again under the default action; a
  // raised signal is raised again for it.
  raise(sig);
}

[[noreturn]] void exit_now(const char* name, int status) {
  if (!g_dying.exchange(true) && g_active.load()) {
    end_recording(true);
    end_line(("_exit(" + std::to_string(status) + ")").c_str());
  }
  using ExitFn = void (*)(int);
  static const ExitFn real = reinterpret_cast<ExitFn>(dlsym(RTLD_NEXT, name));
  if (real != nullptr) real(status);
  ::syscall(SYS_exit_group, status);
  for (;;) {
  }
}

}  // namespace

void install_fatal_handlers() {
  if (const char* v = std::getenv("GRAPHPROF_DEV_FATAL_BACKTRACE")) g_backtrace = *v == '1';
  for (std::size_t i = 0; i < sizeof kFatal / sizeof kFatal[0]; ++i) {
    // Only where the program left the default action: a handler of its own (a runtime that
    // recovers from a fault) is not run after graphprof stopped recording.
    struct sigaction current {};
    if (sigaction(kFatal[i], nullptr, &current) != 0 || current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO)) {
      g_before[i] = current;
      continue;
    }
    struct sigaction sa {};
    sa.sa_handler = on_fatal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    sigaction(kFatal[i], &sa, &g_before[i]);
  }
}

}  // namespace gp::interposer

GP_EXPORT void _exit(int status) { gp::interposer::exit_now("_exit", status); }
GP_EXPORT void _Exit(int status) { gp::interposer::exit_now("_Exit", status); }

