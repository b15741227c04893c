// The injection library's end of process (exit_path.hpp).
#include "exit_path.hpp"

#include <cuda.h>
#include <cupti.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

#include "activity_records.hpp"
#include "call_site.hpp"
#include "cupti_clients.hpp"
#include "inject_state.hpp"
#include "launch_watch.hpp"
#include "ledger_samples.hpp"
#include "nvtx_steps.hpp"
#include "record_lines.hpp"
#include "signal_end.hpp"

namespace gp::inject {

namespace {

// What became of graphprof's CUPTI session by the end of the process: the end line's "cupti".
enum class CuptiAtEnd { kOurs, kFinalizedElsewhere, kActivityTaken, kTeardownTimedOut, kUnused };

const char* cupti_at_end_id(CuptiAtEnd c) {
  switch (c) {
    case CuptiAtEnd::kOurs: return "graphprof";
    case CuptiAtEnd::kFinalizedElsewhere: return "finalized_elsewhere";
    case CuptiAtEnd::kActivityTaken: return "activity_taken";
    case CuptiAtEnd::kTeardownTimedOut: return "teardown_timeout";
    case CuptiAtEnd::kUnused: return "unused";  // interposed: no CUPTI call was made
  }
  return "graphprof";
}

}  // namespace

// A remark of graphprof's about this process: in the records (the report's "warnings") and on
// stderr, marked as graphprof's.
void warn(const std::string& what) {
  std::string line;
  records::write(line, records::MessageLine{false, what});
  write_lines(line, true, std::chrono::seconds(2));
  std::fprintf(stderr, "graphprof profile: process %d: %s\n", static_cast<int>(::getpid()), what.c_str());
}

namespace {

void warn_about(CuptiAtEnd c) {
  switch (c) {
    case CuptiAtEnd::kOurs:
    case CuptiAtEnd::kUnused:
    case CuptiAtEnd::kTeardownTimedOut:  // said where it happens
      return;
    case CuptiAtEnd::kFinalizedElsewhere:
      warn("the application used CUPTI itself: another CUPTI client in this process (its own profiler, or a tool "
           "that calls cuptiFinalize) ended graphprof's CUPTI session before the process exited. Graphs, API calls "
           "and GPU work after that moment were not recorded (the records CUPTI held then went to that client); "
           "the application itself ran normally");
      return;
    case CuptiAtEnd::kActivityTaken:
      warn("the application used CUPTI's activity API itself (its own profiler): from then on CUPTI delivered "
           "activity records to it (or, with the kinds it disabled, to no one), not to graphprof, so API calls and GPU "
           "work after that moment are missing (graph instantiations were still recorded, and what CUPTI still held "
           "at exit was taken back and is included); the application itself ran normally");
      return;
  }
}

// Whether graphprof's subscriber still receives callbacks. Another CUPTI client in the process
// (the application's own profiler) may have called cuptiFinalize, which ends every subscription
// and leaves graphprof's handle dangling. Then no CUPTI call at exit is graphprof's to make: a
// flush would re-initialise CUPTI during exit and hand buffers to that client's callbacks, an
// unsubscribe would use the dead handle (the old exit path, which did both, hung there on the
// H200). Calls no CUPTI function. Unproven probe: assumed alive, as before the probe existed.
bool subscription_alive() {
  if (!g_probe_enabled) return true;
  g_probe_fired = false;
  g_probe_record_seen = false;
  t_probing = true;
  int devices = 0;
  (void)cuDeviceGetCount(&devices);
  t_probing = false;
  return g_probe_fired.load() || !g_callback_proven.load();
}

// Delivers CUPTI's pending buffers to this library if the session is still graphprof's and, with
// `release`, lets CUPTI go. What became of the session is the result; `dropped` the records
// CUPTI dropped.
CuptiAtEnd flush_records(bool release, std::size_t& dropped) {
  dropped = 0;
  if (g_interposer_end != nullptr) return CuptiAtEnd::kUnused;  // interposed: CUPTI was never started
  if (g_subscriber == nullptr) return CuptiAtEnd::kOurs;  // released already
  if (!subscription_alive()) {
    g_subscriber = nullptr;  // dead: never pass it to CUPTI again
    return CuptiAtEnd::kFinalizedElsewhere;
  }
  // The buffer callbacks are process-wide: an application that registered its own (its profiler)
  // would get this flush, perhaps after the objects behind them are gone (a Python callback after
  // the interpreter finished, a C++ object an earlier exit handler destroyed). Take them back first.
  (void)cuptiActivityRegisterCallbacks(on_buffer_requested, on_buffer_completed);
  (void)cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
  (void)cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped);
  // The probe's own DRIVER record came back only if the application left the DRIVER kind enabled,
  // and no buffer of the application's came back only if it never registered callbacks of its own
  // (or they had delivered everything).
  const bool activity_ours = !foreign_buffer_seen() &&
                             (g_probe_record_seen.load() || !g_probe_fired.load() || !g_record_proven.load());
  if (release) {
    (void)cuptiUnsubscribe(g_subscriber);
    g_subscriber = nullptr;
    // CUDA 13.0 can crash while unloading CUPTI at exit unless it was finalized (shared reference
    // §3.3); the buffers are flushed by now. Also when the application's profiler took the
    // activity API: graphprof's subscription still held CUPTI, and the exit is under way.
    (void)cuptiFinalize();
  }
  return activity_ours ? CuptiAtEnd::kOurs : CuptiAtEnd::kActivityTaken;
}

// The last line of the records, written once. "probe" keeps what the ownership probe saw and
// "exit_ms" how long the final flush took, for diagnosis.
void write_end(const char* reason, CuptiAtEnd cupti, std::size_t dropped, double exit_ms) {
  bool expected = false;
  if (!g_end_written.compare_exchange_strong(expected, true)) return;
  const bool exiting = std::strcmp(reason, "exit") == 0;  // not in a signal handler: CUDA may be called
  flush_call_sites(exiting);
  if (g_interposer_end != nullptr) g_interposer_end(exiting ? 1 : 0);
  write_lines(gp::inject::clock_lines(exiting) + gp::inject::step_range_lines(exiting) + gp::inject::refused_subscribers_line(), true,
              std::chrono::seconds(2));
  if (exiting && cupti == CuptiAtEnd::kOurs) take_sample(Sample::kEnd, 0);
  records::EndLine end;
  end.reason = reason;
  end.ts = realtime_ns();
  end.dropped = dropped;
  end.lost_buffers = g_lost_buffers.load();
  end.cupti = cupti_at_end_id(cupti);
  end.diagnosis = true;
  end.exit_ms = exit_ms;
  end.probe_enabled = g_probe_enabled;
  end.callback_proven = g_callback_proven.load();
  end.fired = g_probe_fired.load();
  end.record_proven = g_record_proven.load();
  end.record_seen = g_probe_record_seen.load();
  end.foreign_buffer = foreign_buffer_seen();
  std::string line;
  records::write(line, end);
  write_lines(line, true, std::chrono::seconds(2));
}

// The exit work runs on a thread of its own, so that a CUPTI call that never returns (another
// client holding CUPTI, a lock of a thread that is gone) cannot hold the process: the exit handler
// waits while buffers keep arriving, gives up after kExitStallSeconds without progress (or
// kExitMaxSeconds in all) and then ends the process with the application's own exit status.
constexpr int kExitStallSeconds = 10;
constexpr int kExitMaxSeconds = 120;

struct Teardown {
  std::atomic<bool> done{false};
  CuptiAtEnd result = CuptiAtEnd::kOurs;
  std::size_t dropped = 0;
};
Teardown g_teardown;  // not on the handler's stack: the thread may outlive the handler

void* teardown_main(void*) {
  g_teardown.result = flush_records(true, g_teardown.dropped);
  g_teardown.done = true;
  return nullptr;
}

}  // namespace

// Registered with on_exit, which passes the status the application gave exit().
void at_exit(int status, void*) {
  if (!in_profiled_process()) return;  // a fork() child inherits the exit handler
  gp::inject::stop_sampling(true);
  pthread_attr_t attr;
  pthread_t thread;
  bool started = pthread_attr_init(&attr) == 0;
  if (started) {
    started = pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED) == 0 &&
              pthread_create(&thread, &attr, teardown_main, nullptr) == 0;
    pthread_attr_destroy(&attr);
  }
  using clock = std::chrono::steady_clock;
  const auto begin = clock::now();
  if (!started) {
    teardown_main(nullptr);
  } else {
    auto last_progress = begin;
    unsigned long long buffers = g_buffers_done.load();
    while (!g_teardown.done.load()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      const auto now = clock::now();
      if (g_buffers_done.load() != buffers) {
        buffers = g_buffers_done.load();
        last_progress = now;
      }
      if (now - last_progress > std::chrono::seconds(kExitStallSeconds) || now - begin > std::chrono::seconds(kExitMaxSeconds))
        break;
    }
  }
  if (!g_teardown.done.load()) {
    warn("CUPTI's final flush did not finish within " + std::to_string(kExitStallSeconds) +
         " s at exit (another CUPTI client in the process, such as the application's own profiler, may hold it): "
         "graphprof ended the process with the application's own exit status " + std::to_string(status) +
         "; records CUPTI still held are lost and the application's remaining exit handlers did not run");
    write_end("exit", CuptiAtEnd::kTeardownTimedOut, 0, std::chrono::duration<double, std::milli>(clock::now() - begin).count());
    std::fflush(nullptr);  // what the application printed still reaches its files
    _exit(status);
  }
  warn_about(g_teardown.result);
  write_end("exit", g_teardown.result, g_teardown.dropped, std::chrono::duration<double, std::milli>(clock::now() - begin).count());
}

namespace {

struct sigaction g_previous[2];

// Installed only for signals whose disposition was the default (an application that handles
// SIGINT itself, like Python, ends through its own path and our exit handler). Not strictly
// async-signal-safe; the timed locks and the alarm bound the damage to losing the last records.
void on_signal(int sig) {
  if (!in_profiled_process()) {  // a fork() child: its parent's records are not its to write
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  bound_dying_write(sig);
  gp::inject::stop_sampling(false);
  std::size_t dropped = 0;
  const CuptiAtEnd cupti = flush_records(false, dropped);
  warn_about(cupti);
  write_end(sig == SIGINT ? "SIGINT" : "SIGTERM", cupti, dropped, 0);
  alarm(0);
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void install_signal_handlers() {
  const int sigs[2] = {SIGINT, SIGTERM};
  for (int i = 0; i < 2; ++i) {
    struct sigaction current {};
    if (sigaction(sigs[i], nullptr, &current) != 0) continue;
    if (current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO)) continue;
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(sigs[i], &sa, &g_previous[i]);
  }
}

}  // namespace gp::inject
