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

}  // namespace gp::inject
