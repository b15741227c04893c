// A dying process's bounded last write (signal_end.hpp).
#include "signal_end.hpp"

#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace gp::inject {

namespace {
// The signal a handler is writing the records of a dying process for (each library its own copy:
// the static library is linked into each).
volatile sig_atomic_t g_ending_signal = 0;
}  // namespace

void end_by_signal(int sig) {
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

void bound_dying_write(int sig, unsigned seconds) {
  g_ending_signal = sig;
  struct sigaction stuck {};
  stuck.sa_handler = [](int) { end_by_signal(g_ending_signal); };
  sigemptyset(&stuck.sa_mask);
  sigaction(SIGALRM, &stuck, nullptr);
  alarm(seconds);
}

}  // namespace gp::inject
