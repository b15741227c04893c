// How a dying process that graphprof's handler was flushing ends when the flush hangs (SIGALRM):
// by its own signal, as it would have without graphprof. Shared by the injection library's
// SIGINT/SIGTERM path (exit_path.cpp) and the interposer's fatal signals (interpose_exit.cpp).
#pragma once

namespace gp::inject {

// Ends the process by `sig` (its default action), or exits with 128 + sig where that returns.
[[noreturn]] void end_by_signal(int sig);

// Before a dying process's handler writes (not async-signal-safe: it may hang on a lock the
// interrupted thread holds, or inside malloc): an alarm that ends the process by `sig` after
// `seconds`. alarm(0) when the write is done.
void bound_dying_write(int sig, unsigned seconds = 3);

}  // namespace gp::inject
