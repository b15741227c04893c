// See signal_chain.hpp.
#include "graphprof/core/signal_chain.hpp"

#include <initializer_list>

namespace gp {

void chain_signal_handler(void (*handler)(int), ChainedSignals& saved) {
  for (int sig : {SIGINT, SIGTERM}) {
    struct sigaction& prev = sig == SIGINT ? saved.previous_int : saved.previous_term;
    if (::sigaction(sig, nullptr, &prev) != 0) continue;
    if (prev.sa_handler == SIG_IGN || (prev.sa_flags & SA_SIGINFO) != 0) continue;
    struct sigaction sa {};
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    ::sigaction(sig, &sa, nullptr);
  }
}

void pass_signal_on(int sig, const ChainedSignals& saved) noexcept {
  const struct sigaction& prev = sig == SIGINT ? saved.previous_int : saved.previous_term;
  if ((prev.sa_flags & SA_SIGINFO) == 0 && prev.sa_handler != SIG_DFL && prev.sa_handler != SIG_IGN) {
    prev.sa_handler(sig);
    return;
  }
  ::sigaction(sig, &prev, nullptr);
  ::raise(sig);
}

}  // namespace gp
