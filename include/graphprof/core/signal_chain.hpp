// graphprof's SIGINT/SIGTERM handlers (temporary files removed, children stopped) put themselves in
// front of whatever disposition was there and hand the signal on to it: the process still ends as
// it would have without graphprof (killed by that signal), or the host program's handler runs.
#pragma once
#include <signal.h>

namespace gp {

// What SIGINT and SIGTERM did before a handler was put in front of them.
struct ChainedSignals {
  struct sigaction previous_int {}, previous_term {};
};

// Installs `handler` for SIGINT and SIGTERM, saving the previous dispositions in `saved`. A signal
// that is ignored stays ignored (a background job), and one with a siginfo handler (a host
// program's) is not wrapped. Call once per `saved`.
void chain_signal_handler(void (*handler)(int), ChainedSignals& saved);

// Hands `sig` on, from inside the handler: calls the previous plain handler, or restores the
// previous disposition and raises `sig` again (delivered when the handler returns).
// Async-signal-safe.
void pass_signal_on(int sig, const ChainedSignals& saved) noexcept;

}  // namespace gp
