// How a dying process that graphprof's handler was flushing ends when the flush hangs (SIGALRM):
// by its own signal, as it would have without graphprof. Shared by the injection library's
// SIGINT/SIGTERM path (exit_path.hpp) and the interposer's fatal signals (interpose_exit.cpp).
#pragma once
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace gp::inject {

[[noreturn]] inline void end_by_signal(int sig) {
  signal(sig, SIG_DFL);
  sigset_t mask;
  sigemptyset(&mask);
  sigaddset(&mask, sig);
  sigprocmask(SIG_UNBLOCK, &mask, nullptr);
  raise(sig);
  ::syscall(SYS_exit_group, 128 + sig);
  for (;;) {
  }
}

// The signal a handler is writing the records of a dying process for (each library its own copy).
inline volatile sig_atomic_t g_ending_signal = 0;

// Before a dying process's handler writes (not async-signal-safe: it may hang on a lock the
// interrupted thread holds, or inside malloc): an alarm that ends the process by `sig` after
// `seconds`. alarm(0) when the write is done.
inline void bound_dying_write(int sig, unsigned seconds = 3) {
  g_ending_signal = sig;
  struct sigaction stuck {};
  stuck.sa_handler = [](int) { end_by_signal(g_ending_signal); };
  sigemptyset(&stuck.sa_mask);
  sigaction(SIGALRM, &stuck, nullptr);
  alarm(seconds);
}

}  // namespace gp::inject
