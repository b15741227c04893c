// The graph-launch callbacks of the injection library (cudaGraphLaunch, and cuGraphLaunch for
// callers of the driver API): each exec's launches are counted and the first and last timed (the
// `clock` lines: the steady-state window of `profile --overhead`, the same in its plain runs, which
// run with this part alone, and its profiled runs), and at --trace node with node sampling
// (include/graphprof/core/node_sampling.hpp) GRAPH_TRACE is switched off while a reason holds: a launch
// the rule picks is in its call, or a sampling window is open. Seen on the H200: with GRAPH_TRACE
// on, a graph launch gets its one span and no kernel records even though CONCURRENT_KERNEL is on;
// with it off, the kernel records. CONCURRENT_KERNEL itself stays on (eager kernels are always
// recorded): switched off at the return of a launch call, the records of that launch's kernels
// came back with wrong times (every node ~1.19 ms for 3-11 us kernels) on the H200. GRAPH_TRACE
// is switched only by a thread that launches, in its launch callback: the window thread only says
// whether a window is open, and the next launch call's entry applies it (it used to switch the
// kind itself, from its own thread, whatever the application was doing: inside a capture, an
// instantiation or another thread's cudaGraphLaunch; a PyTorch serving loop crashed in
// cudaGraphLaunch on the H200 now and then at --trace node, and that switching is a suspect).
//
// The synchronising calls (device, stream, event synchronisation) are watched too: the return of
// the first one after an exec's last launch is when that launch's work was done as far as the
// application could tell (a GPU-bound loop's last launch call returns long before its work ends),
// the end of `--overhead`'s window.
//
// With `kernels=P%` (node_sampling.hpp) CONCURRENT_KERNEL is switched too, always from a launch
// call's entry: on (if off) when that launch holds a node reason and the duty budget allows a new
// sample (the time with the kind on since the first sample within P % of the time since then; a
// launch that the budget refuses is not traced), off at the entry of a launch without a reason
// once the GPU finished the work of the last traced launch: an event the library records on the
// traced launch's stream at its return, queried at later entries (never while the stream is
// capturing). Launches still in flight when the kind went off would come back with wrong times;
// the `ks` lines say when it was switched, and the analysis sets aside the records in flight then.
//
// Lines written (format at the top of src/profile/profile_records.cpp):
//   clock {exec, n, first, last, settled}   per exec: launches, first and last launch call's start,
//                                           the return of the first synchronising call after the last (CUPTI clock)
//   ks {on, ts, took, done, st}             CONCURRENT_KERNEL switched on (1) or off (0) at ts (CUPTI clock);
//                                           took: the switching call's ns; off: every call on stream st with a
//                                           correlation id below done had finished
//   ks_fail {call, r}                       a driver or CUPTI call of the switch failed (once per call; the kind stays on)
//   ks_stats {untraced, drains, queries, not_ready, offs, on, pending}   at exit: how the switch went
#pragma once
#include <cupti.h>

#include <string>

#include "graphprof/core/node_sampling.hpp"

namespace gp::inject {

// Enables the graph-launch and synchronisation callbacks on `sub`.
void enable_launch_callbacks(CUpti_SubscriberHandle sub);

// --trace none: which exec each launch ran is kept and written (lx lines), nothing else tells.
void keep_launch_correlations(bool keep);

// A synchronising call's return: every exec launched since the previous one is settled now.
// Returns false for any other callback.
bool on_sync_callback(bool driver, CUpti_CallbackId cbid, const CUpti_CallbackData* cd);

// A graph-launch callback; returns false for any other callback.
bool on_launch_callback(bool driver, CUpti_CallbackId cbid, const CUpti_CallbackData* cd);

// At --trace node with a rule other than "all", after GRAPH_TRACE and the node kinds were enabled:
// the first window opens (GRAPH_TRACE goes off at the first graph launch) and the window thread
// runs. False when the thread cannot start (then the window stays open: every launch is traced).
bool start_sampling(const NodeSampling& rule);

// Before the final flush: no more switching (CUPTI is about to be flushed and finalized). With
// `wait` (not in a signal handler) it also waits for a switch in progress.
void stop_sampling(bool wait);

// The clock lines (and ks_stats with kernels=P%); `may_wait`: false in a signal handler (the lock
// is only tried).
std::string clock_lines(bool may_wait);

}  // namespace gp::inject
