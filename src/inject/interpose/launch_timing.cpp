// GPU time of graph launches at the light default, without CUPTI (interpose_core.hpp, LaunchTiming):
// a sample of the graph launches (each exec's launches 2 to 9 on a thread, then 1 in
// GRAPHPROF_GPU_TIME_EVERY, default kGpuTimeEvery, with geometric gaps so that no loop period lines
// up with it) is bracketed by a pair of CUDA events
// recorded on the launch's own stream, just before and just after the launch. The GPU stamps each
// event when the stream reaches it, so the pair's elapsed time is the graph's execution on the
// GPU, whatever the queue held before it. The pairs are read later without waiting (cuEventQuery,
// at the next timed launch and at the end) and written as gl lines: the launch's correlation id
// and its GPU nanoseconds (src/profile/profile_records.cpp reads them as the graphs' GPU time).
//
// Driver functions only (every CUDA process has libcuda loaded; the runtime may be static), found
// once; events are made in the launching thread's current context and reused from a free list per
// context. A launch is not timed when its stream is capturing (an event record would become a node
// of the application's graph), when this thread has a capture open, or when too many pairs are
// still in flight.
#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "inject_output.hpp"
#include "interpose_core.hpp"

namespace gp::interposer {

namespace {

using EventCreateFn = Err (*)(Handle*, unsigned);
using EventRecordFn = Err (*)(Handle, Handle);
using EventQueryFn = Err (*)(Handle);
using EventElapsedFn = Err (*)(float*, Handle, Handle);
using CtxGetCurrentFn = Err (*)(Handle*);
using IsCapturingFn = Err (*)(Handle, int*);

constexpr Err kNotReady = 600;          // CUDA_ERROR_NOT_READY
constexpr std::size_t kInFlight = 256;  // pairs waiting for the GPU at most
constexpr std::size_t kBatch = 1024;    // gl line length

struct Driver {
  EventCreateFn create = nullptr;
  EventRecordFn record = nullptr, record_ptsz = nullptr;
  EventQueryFn query = nullptr;
  EventElapsedFn elapsed = nullptr;
  CtxGetCurrentFn current = nullptr;
  IsCapturingFn capturing = nullptr, capturing_ptsz = nullptr;
  bool usable() const { return create && record && query && elapsed && current && capturing; }
};

const Driver& driver() {
  static const Driver d = [] {
    Driver x;
    x.create = real_fn<EventCreateFn>("cuEventCreate", true);
    x.record = real_fn<EventRecordFn>("cuEventRecord", true);
    x.record_ptsz = real_fn<EventRecordFn>("cuEventRecord_ptsz", true);
    x.query = real_fn<EventQueryFn>("cuEventQuery", true);
    x.elapsed = real_fn<EventElapsedFn>("cuEventElapsedTime_v2", true);
    if (x.elapsed == nullptr) x.elapsed = real_fn<EventElapsedFn>("cuEventElapsedTime", true);
    x.current = real_fn<CtxGetCurrentFn>("cuCtxGetCurrent", true);
    x.capturing = real_fn<IsCapturingFn>("cuStreamIsCapturing", true);
    x.capturing_ptsz = real_fn<IsCapturingFn>("cuStreamIsCapturing_ptsz", true);
    return x;
  }();
  return d;
}

struct Pair {
  Handle start = nullptr, end = nullptr, ctx = nullptr;
  std::uint32_t co = 0;
};

std::mutex& g_mu = *new std::mutex;
std::vector<Pair>& g_free = *new std::vector<Pair>;       // made, not in use (co 0)
std::vector<Pair>& g_flight = *new std::vector<Pair>;     // recorded, oldest first
std::vector<std::pair<std::uint32_t, std::uint64_t>>& g_done = *new std::vector<std::pair<std::uint32_t, std::uint64_t>>;

std::uint64_t every_from_env() {
  const char* v = std::getenv("GRAPHPROF_GPU_TIME_EVERY");
  if (v == nullptr || *v == '\0') return kGpuTimeEvery;
  char* end = nullptr;
  const unsigned long long n = std::strtoull(v, &end, 10);
  return end != nullptr && *end == '\0' ? n : kGpuTimeEvery;
}

std::uint64_t every() {
  static const std::uint64_t e = every_from_env();
  return e;
}

constexpr std::uint32_t kFirstTimed = 8;
constexpr std::size_t kExecSlots = 256;  // execs whose first launches a thread times (open addressing)

// Plain data only: a thread's launch may come while exit handlers run, after thread-local objects
// with destructors are gone.
struct Gap {
  std::uint64_t state = 0, gap = 0;
  bool drawn = false;
  // Launches of each exec on this thread, up to kFirstTimed + 1: every graph gets its first launches
  // timed however rarely it runs (a small bucket of a server), the very first excepted (it loads
  // the graph onto the device). A thread that launched more execs than the table holds keeps the
  // geometric rule alone for the others.
  Handle exec[kExecSlots];
  std::uint32_t seen[kExecSlots];
};
thread_local Gap t_gap;

// The count of `exec` on this thread, or nullptr when the table is full.
std::uint32_t* seen_of(Gap& g, Handle exec) {
  std::size_t i = (reinterpret_cast<std::uintptr_t>(exec) >> 4) % kExecSlots;
  for (std::size_t k = 0; k < kExecSlots; ++k, i = (i + 1) % kExecSlots) {
    if (g.exec[i] == exec) return &g.seen[i];
    if (g.exec[i] == nullptr) {
      g.exec[i] = exec;
      g.seen[i] = 0;
      return &g.seen[i];
    }
  }
  return nullptr;
}

// This launch of `exec` is in the sample: launches 2 to kFirstTimed + 1 of each exec, then geometric
// gaps of mean every().
bool sampled(Handle exec) {
  const std::uint64_t e = every();
  if (e == 0) return false;
  Gap& g = t_gap;
  if (std::uint32_t* n = exec != nullptr ? seen_of(g, exec) : nullptr; n != nullptr && *n <= kFirstTimed) return (*n)++ > 0;
  if (g.drawn && g.gap > 0) {
    --g.gap;
    return false;
  }
  g.drawn = true;
  g.gap = gp::interpose::geometric_gap(g.state, reinterpret_cast<std::uintptr_t>(&g) ^ 0x6a09e667f3bcc909ull, static_cast<double>(e));
  return true;
}

std::string lines_of(std::vector<std::pair<std::uint32_t, std::uint64_t>>& done) {
  return gp::interpose::correlated_lines("gl", done, kBatch);
}

// Moves the finished pairs (in order, up to the first still running) to g_done. Under g_mu.
void harvest_locked(const Driver& d) {
  std::size_t n = 0;
  for (; n < g_flight.size(); ++n) {
    Pair& p = g_flight[n];
    const Err q = d.query(p.end);
    if (q == kNotReady) break;
    float ms = 0;
    if (q == 0 && d.elapsed(&ms, p.start, p.end) == 0 && ms >= 0) g_done.emplace_back(p.co, static_cast<std::uint64_t>(ms * 1e6 + 0.5));
    p.co = 0;
    g_free.push_back(p);
  }
  g_flight.erase(g_flight.begin(), g_flight.begin() + static_cast<std::ptrdiff_t>(n));
}

}  // namespace

LaunchTiming gpu_time_begin(Api api, Handle exec, Handle stream) {
  LaunchTiming t;
  if (capturing_here() || !sampled(exec)) return t;
  const Driver& d = driver();
  if (!d.usable()) return t;
  const bool ptsz = api == Api::cudaGraphLaunch_ptsz || api == Api::cuGraphLaunch_ptsz;
  // A _ptsz launch on stream 0 runs on the thread's own default stream.
  if (ptsz && stream == nullptr) stream = reinterpret_cast<Handle>(0x2);  // CU_STREAM_PER_THREAD
  int status = 0;
  if ((ptsz && d.capturing_ptsz ? d.capturing_ptsz : d.capturing)(stream, &status) != 0 || status != 0) return t;
  Handle ctx = nullptr;
  if (d.current(&ctx) != 0 || ctx == nullptr) return t;
  Pair p;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    harvest_locked(d);
    if (g_flight.size() >= kInFlight) return t;
    for (std::size_t i = 0; i < g_free.size(); ++i)
      if (g_free[i].ctx == ctx) {
        p = g_free[i];
        g_free[i] = g_free.back();
        g_free.pop_back();
        break;
      }
  }
  if (p.start == nullptr) {
    p.ctx = ctx;
    if (d.create(&p.start, 0) != 0) return t;
    if (d.create(&p.end, 0) != 0) {
      std::lock_guard<std::mutex> lock(g_mu);
      g_free.push_back(Pair{p.start, nullptr, nullptr, 0});  // kept, never used again (ctx null)
      return t;
    }
  }
  const EventRecordFn record = ptsz && d.record_ptsz ? d.record_ptsz : d.record;
  if (record(p.start, stream) != 0) {
    std::lock_guard<std::mutex> lock(g_mu);
    g_free.push_back(p);
    return t;
  }
  t.start = p.start;
  t.end = p.end;
  t.ctx = p.ctx;
  t.stream = stream;
  t.ptsz = ptsz;
  return t;
}

void gpu_time_end(const LaunchTiming& t, std::uint32_t co, bool launched) {
  if (t.start == nullptr) return;
  const Driver& d = driver();
  const EventRecordFn record = t.ptsz && d.record_ptsz ? d.record_ptsz : d.record;
  const bool ok = launched && co != 0 && record(t.end, t.stream) == 0;
  std::string full;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (ok)
      g_flight.push_back(Pair{t.start, t.end, t.ctx, co});
    else
      g_free.push_back(Pair{t.start, t.end, t.ctx, 0});
    if (g_done.size() >= kBatch) full = lines_of(g_done);
  }
  write_text(full);
}

std::string gpu_time_lines(bool may_wait) {
  std::unique_lock<std::mutex> lock(g_mu, std::defer_lock);
  if (may_wait) lock.lock();
  else if (!lock.try_lock()) return {};
  // Pairs the GPU has finished; in a signal handler no driver call is made.
  if (may_wait && !g_flight.empty()) harvest_locked(driver());
  return lines_of(g_done);
}

void gpu_time_forget() {
  // A fork() child: its parent's events are not its own.
  g_flight.clear();
  g_free.clear();
  g_done.clear();
}

}  // namespace gp::interposer
