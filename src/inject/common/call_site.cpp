// Call sites of the tracked CUDA calls (call_site.hpp).
//
// Per call: the native return addresses (native_stack.hpp) and, on a Python thread, the Python
// frames as (code object, line) pairs (python_frames.hpp: read with the GIL, taken for the read
// when the thread released it) are hashed together; a table
// maps each distinct hash to a site id. Only a site seen for the first time is named (modules,
// ELF symbols, Python file and function names) and written as a `site` line; every call appends
// its correlation id to its site's list, written as `sc` lines in batches. The analysis joins
// correlation ids to the API and GPU records (src/profile/call_sites.cpp).
#include "call_site.hpp"

#include <cupti_driver_cbid.h>

#include <pthread.h>

#include <time.h>

#include <algorithm>
#include <map>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unordered_map>

#include "alloc_python.hpp"
#include "call_site_ids.hpp"
#include "graphprof/core/site_sampling.hpp"
#include "inject_output.hpp"
#include "interpose_records.hpp"
#include "ledger_samples.hpp"
#include "native_stack.hpp"
#include "python_frames.hpp"
#include "record_lines.hpp"

namespace gp::inject {

namespace {

// How deep stacks are taken. With Python frames the native part only tells apart the library
// code paths of one Python line (which operator launched), so fewer native frames are kept.
constexpr std::size_t kNativeMax = 48;
constexpr std::size_t kNativeWithPython = 24;
constexpr std::size_t kPythonMax = 48;
constexpr std::size_t kFlushAt = 1u << 15;  // pending correlation ids before a batch is written

bool g_enabled = true;
const char* g_mode_name = "on";  // GRAPHPROF_PROFILE_SITES, for the `py` line
// Set in a child made by fork() (without exec): it inherits this state and the parent's open
// line file, and must write nothing into it (its CUDA calls fail anyway).
volatile bool g_forked_child = false;

// The site table: hash of the stack -> site id, and the correlation ids not yet written.
std::timed_mutex g_mu;
std::unordered_map<std::uint64_t, std::uint32_t> g_site_of;
std::vector<std::vector<std::uint32_t>> g_pending;  // by site id
// Sampled calls by the number of calls each stands for (a power of two, at least g_sampling.every),
// then by site id.
std::map<std::uint32_t, std::vector<std::vector<std::uint32_t>>> g_pending_sampled;
std::size_t g_pending_count = 0;

// Which eager calls have their stack taken (GRAPHPROF_PROFILE_SITE_SAMPLE, site_sampling.hpp): on
// each thread the first K, then each call with probability 1/M (a geometric gap of mean M after
// each taken call), where M is at least the rule's and grows where taking a stack would cost the
// thread more than SiteSampling::kBudget of its time: after each taken call M becomes the smallest power of
// two with (its cost) * (the thread's calls per ns since the previous taken call) / M <= the budget.
// M is decided before the call it applies to, so each taken call stands for the M it was drawn
// with (an unbiased estimate whatever the program does).
gp::SiteSampling g_sampling;
std::atomic<std::uint64_t> g_site_skipped{0};
std::atomic<std::uint32_t> g_every_max{0};  // the largest M used (the site_cost line)

struct ThreadSampling {
  std::uint32_t calls = 0;    // eager calls seen (the first K are all taken)
  std::uint32_t every = 0;    // this thread's M (0: the rule's)
  std::uint64_t state = 0, gap = 0;
  std::uint64_t since = 0;    // calls since the last taken one
  std::uint64_t last_ns = 0;  // when the last taken one ended
};
thread_local ThreadSampling t_sampling;

// 0: skip this call; 1: taken, stands for itself; M: taken, stands for M calls.
std::uint32_t eager_weight() {
  if (g_sampling.all || g_sampling.every <= 1) return 1;
  ThreadSampling& t = t_sampling;
  ++t.since;
  if (t.calls < g_sampling.first) {
    ++t.calls;
    return 1;
  }
  if (t.every == 0) t.every = g_sampling.every;
  if (t.gap > 0) {
    --t.gap;
    g_site_skipped.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  t.gap = gp::interpose::geometric_gap(t.state, reinterpret_cast<std::uintptr_t>(&t), t.every);
  return t.every;
}

// After a sampled call's stack was taken in `took` ns, ending at `now`: this thread's next M.
void adapt_every(std::uint64_t took, std::uint64_t now) {
  ThreadSampling& t = t_sampling;
  const std::uint64_t calls = t.since, since_ns = t.last_ns != 0 && now > t.last_ns ? now - t.last_ns : 0;
  t.since = 0;
  t.last_ns = now;
  const std::uint32_t every = g_sampling.every_for(static_cast<double>(took), calls, since_ns);
  t.every = every;
  std::uint32_t seen = g_every_max.load(std::memory_order_relaxed);
  while (every > seen && !g_every_max.compare_exchange_weak(seen, every, std::memory_order_relaxed)) {
  }
}

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0xff51afd7ed558ccdull;
}

std::string pending_lines_locked() {
  std::string out;
  auto lists = [&out](std::vector<std::vector<std::uint32_t>>& pending, std::uint32_t weight) {
    for (std::size_t s = 0; s < pending.size(); ++s) {
      std::vector<std::uint32_t>& co = pending[s];
      if (co.empty()) continue;
      records::write(out, records::SiteCallsLine{s, weight, co.data(), co.size()});
      co.clear();
    }
  };
  lists(g_pending, 1);
  for (auto& [weight, pending] : g_pending_sampled) lists(pending, weight);
  g_pending_count = 0;
  return out;
}

// A stack seen for the first time, waiting to be named. Its Python frames are named when it is
// taken (the GIL is held then, and reading two attributes of each code object is cheap); its native
// frames are named later, off the application's threads (below): naming them reads each module's
// ELF symbol table once (tens of milliseconds for PyTorch's libraries) and demangles each frame.
struct UnnamedSite {
  std::uint32_t id = 0;
  std::string api;
  std::vector<std::uintptr_t> pcs;
  bool python = false;
  std::vector<PyFrameInfo> py;
};

// The `site` line of a stack seen for the first time. `symbols`: false where nothing may be looked
// up (a signal handler at exit): each frame is then its bare address.
std::string site_line(const UnnamedSite& u, bool symbols) {
  records::SiteLine line;
  line.id = u.id;
  line.api = u.api;
  bool first = true;
  for (const std::uintptr_t pc : u.pcs) {
    NativeFrame f;
    f.offset = pc;
    if (symbols) f = describe_frame(pc);
    if (f.internal && first) {  // the way into this callback (CUPTI, the driver, this library)
      ++line.internal;
      continue;
    }
    first = false;
    line.native.push_back(records::SiteLine::Native{f.module, f.offset, f.function, f.function_offset});
    if (f.module.empty() || f.identity.size == 0) continue;
    const auto seen = [&f](const records::SiteLine::Module& m) { return m.path == f.module; };
    if (std::find_if(line.modules.begin(), line.modules.end(), seen) != line.modules.end()) continue;
    line.modules.push_back(records::SiteLine::Module{f.module, f.identity.build_id, static_cast<std::uint64_t>(f.identity.size),
                                                     static_cast<long long>(f.identity.mtime)});
  }
  line.python = u.python;
  for (const PyFrameInfo& p : u.py) line.py.push_back(records::SiteLine::Python{p.file, p.line, p.function});
  std::string text;
  records::write(text, line);
  return text;
}

// The namer: one thread of this library, started at the first new site, names the new sites and
// writes their `site` lines, so that an application thread that meets a new site pays for taking
// its stack only. flush_call_sites names what is still waiting. Never destroyed (exit handlers and
// the namer may still use them while static destructors run).
std::mutex& g_name_mu = *new std::mutex;
std::condition_variable& g_name_cv = *new std::condition_variable;
std::deque<UnnamedSite>& g_unnamed = *new std::deque<UnnamedSite>;
std::size_t g_naming = 0;     // sites the namer took off the queue and has not written yet (under g_name_mu)
bool g_namer_started = false;  // under g_name_mu
std::atomic<std::uint64_t> g_named{0}, g_named_ns{0};  // sites named, and the time spent naming them

std::uint64_t monotonic_ns();

void name_and_write(const UnnamedSite& u) {
  const std::uint64_t t0 = monotonic_ns();
  const std::string line = site_line(u, true);
  write_lines(line, false);
  g_named.fetch_add(1, std::memory_order_relaxed);
  g_named_ns.fetch_add(monotonic_ns() - t0, std::memory_order_relaxed);
}

void namer_main() {
  std::unique_lock<std::mutex> lock(g_name_mu);
  for (;;) {
    g_name_cv.wait(lock, [] { return !g_unnamed.empty(); });
    const UnnamedSite u = std::move(g_unnamed.front());
    g_unnamed.pop_front();
    ++g_naming;
    lock.unlock();
    if (!g_forked_child) name_and_write(u);
    lock.lock();
    --g_naming;
    g_name_cv.notify_all();
  }
}

// Queues a new site for the namer (started here the first time, start_quiet_thread). Where no
// thread can be started, the site is named on the calling thread.
void name_later(UnnamedSite&& u) {
  std::unique_lock<std::mutex> lock(g_name_mu);
  if (!g_namer_started) {
    g_namer_started = start_quiet_thread(namer_main);
    if (!g_namer_started) {
      lock.unlock();
      name_and_write(u);
      return;
    }
  }
  g_unnamed.push_back(std::move(u));
  g_name_cv.notify_one();
}

// At the end: the sites still waiting are named here (`may_wait`) after the namer finished the one
// it holds, or written with bare addresses (a signal handler: nothing is looked up, no lock waited for).
void name_the_rest(bool may_wait) {
  std::deque<UnnamedSite> rest;
  {
    std::unique_lock<std::mutex> lock(g_name_mu, std::defer_lock);
    if (may_wait) {
      lock.lock();
      g_name_cv.wait_for(lock, std::chrono::seconds(5), [] { return g_naming == 0; });
    } else if (!lock.try_lock()) {
      return;
    }
    rest.swap(g_unnamed);
  }
  std::string bare;
  for (const UnnamedSite& u : rest) {
    if (may_wait)
      name_and_write(u);
    else
      bare += site_line(u, false);
  }
  if (!bare.empty()) write_lines(bare, false, std::chrono::milliseconds(100));
}

// The `ap` line: this thread's allocations made inside the same call from Python as this call of
// site `id`, whose Python stack is theirs (alloc_python.hpp); "" when none.
std::string allocation_python_line(std::uint32_t id) {
  std::size_t shared = 0;
  const std::vector<std::uint32_t> co = allocations_of_this_python_call(&shared);
  std::string line;
  if (co.empty()) return line;
  records::write(line, records::AllocationPythonLine{id, shared, co.data(), co.size()});
  return line;
}

// What taking the sites cost the calling threads (the `site_cost` line). A new site is counted
// apart (its stack taken, its Python frames named, handed to the namer).
std::atomic<std::uint64_t> g_site_calls{0}, g_site_ns{0}, g_new_sites{0}, g_new_sites_ns{0};

std::uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

// `may_take_gil`: a Python thread that released the GIL has it taken for the read (not for
// synchronising calls and allocations, see kRuntimeSyncs and kRuntimeAllocs). `seed` tells the
// calls apart (CUPTI's domain and callback id, or the interposer's name); `weight`: how many calls
// this one stands for (eager_weight; 0: none, taken only for an allocation's Python stack). An
// allocation without Python frames is kept on its thread until a call with them (alloc_python.hpp).
void take_site(std::uint64_t seed, const char* api, std::uint32_t correlation, bool may_take_gil, std::uint32_t weight,
               bool allocation = false) {
  const std::uint64_t t0 = monotonic_ns();
  std::uint32_t id = 0;
  bool fresh = false, python = false;
  std::string batch;
  UnnamedSite unnamed;
  {
    // The GIL (when taken) is held to the end of this block: the Python keys, the table and the
    // naming of a new site; the table's lock is never held by a thread that waits for the GIL.
    const PythonScope scope(may_take_gil);
    PyFrameKey py[kPythonMax];
    const std::size_t npy = scope.readable() ? python_stack(py, kPythonMax) : 0;
    python = npy > 0;
    std::uintptr_t pcs[kNativeMax];
    const std::size_t n = cached_native_stack(pcs, python ? kNativeWithPython : kNativeMax);
    std::uint64_t h = seed;
    for (std::size_t i = 0; i < n; ++i) h = mix(h, pcs[i]);
    for (std::size_t i = 0; i < npy; ++i)
      h = mix(mix(h, reinterpret_cast<std::uintptr_t>(py[i].code)), static_cast<std::uint64_t>(static_cast<std::uint32_t>(py[i].at)));
    {
      std::lock_guard<std::timed_mutex> lock(g_mu);
      auto it = g_site_of.find(h);
      if (it == g_site_of.end()) {
        id = static_cast<std::uint32_t>(g_pending.size());
        g_site_of.emplace(h, id);
        g_pending.emplace_back();
        fresh = true;
      } else {
        id = it->second;
      }
      if (weight > 1) {
        std::vector<std::vector<std::uint32_t>>& by_site = g_pending_sampled[weight];
        if (by_site.size() <= id) by_site.resize(id + 1);
        by_site[id].push_back(correlation);
        if (++g_pending_count >= kFlushAt) batch = pending_lines_locked();
      } else if (weight == 1) {
        g_pending[id].push_back(correlation);
        if (++g_pending_count >= kFlushAt) batch = pending_lines_locked();
      }
    }
    if (fresh) {
      unnamed.id = id;
      unnamed.api = api != nullptr ? api : "";
      unnamed.pcs.assign(pcs, pcs + n);
      unnamed.python = python;
      if (python) unnamed.py = python_stack_named(kPythonMax);
    }
  }
  if (fresh) {
    if (!python) look_up_python();  // an interpreter loaded after CUDA started
    name_later(std::move(unnamed));
  }
  if (!batch.empty()) write_lines(batch, false);
  // Kept only on a thread the interpreter runs: on any other (PyTorch's autograd threads, a C++
  // worker) no later call has a Python stack, and every call there would take a stack to match it.
  if (allocation && !python && python_thread()) keep_allocation_without_python(correlation);
  if (python && allocations_kept())
    if (const std::string ap = allocation_python_line(id); !ap.empty()) write_lines(ap, false);
  const std::uint64_t took = monotonic_ns() - t0;
  if (fresh) {
    g_new_sites.fetch_add(1, std::memory_order_relaxed);
    g_new_sites_ns.fetch_add(took, std::memory_order_relaxed);
  } else {
    g_site_calls.fetch_add(1, std::memory_order_relaxed);
    g_site_ns.fetch_add(took, std::memory_order_relaxed);
    if (weight > 1) adapt_every(took, t0 + took);
  }
}

// The `site_cost` line: calls from a known site and the time spent taking them (from entering the
// site code to leaving it: the GIL, both stacks, the table); new sites and the time spent on them
// (also naming and writing them); how many native stacks were unwound fully.
std::string site_cost_line() {
  records::SiteCostLine c;
  c.calls = g_site_calls.load();
  c.ns = g_site_ns.load();
  c.new_sites = g_new_sites.load();
  c.new_ns = g_new_sites_ns.load();
  c.full_unwinds = full_unwinds();
  c.skipped = g_site_skipped.load();
  c.first = g_sampling.all ? 0u : g_sampling.first;
  c.every = g_sampling.all ? 1u : g_sampling.every;
  c.every_max = std::max(g_every_max.load(), c.every);
  c.named = g_named.load();
  c.named_ns = g_named_ns.load();
  std::string line;
  records::write(line, c);
  return line;
}

// The `py` line: how the Python stacks were read (python_frames.hpp).
std::string python_line() {
  if (!python_present()) return {};
  const PythonStats s = python_stats();
  std::string line;
  records::write(line, records::PythonFramesLine{g_mode_name, s.held, s.taken, s.wait_ns, s.slow, s.stopped, s.can_take});
  return line;
}

}  // namespace

void init_call_sites() {
  // "1" or "on": native and Python frames (the GIL taken when needed); "held": Python frames only
  // where the thread holds the GIL; "native": no Python frames; "0" or "off": no call sites.
  if (const char* v = std::getenv("GRAPHPROF_PROFILE_SITES")) {
    if (std::strcmp(v, "0") == 0 || std::strcmp(v, "off") == 0) {
      g_enabled = false;
      g_mode_name = "off";
    } else if (std::strcmp(v, "held") == 0) {
      g_mode_name = "held";
    } else if (std::strcmp(v, "native") == 0) {
      g_mode_name = "native";
    }
  }
  if (const char* v = std::getenv("GRAPHPROF_PROFILE_SITE_SAMPLE")) {
    gp::SiteSampling rule;
    if (gp::SiteSampling::parse(v, rule)) g_sampling = rule;
  }
  set_python_mode(std::strcmp(g_mode_name, "on") == 0     ? PythonMode::kTake
                  : std::strcmp(g_mode_name, "held") == 0 ? PythonMode::kHeld
                                                          : PythonMode::kOff);
  look_up_python();
  (void)pthread_atfork(nullptr, nullptr, [] { g_forked_child = true; });
}

bool call_sites_enabled() { return g_enabled; }


void on_api_event(const ApiEvent& e) {
  if (g_forked_child) return;
  const SiteCallKind k = kind_of(e.driver, e.cbid);
  if (k == SiteCallKind::kNone) return;
  if (e.driver && e.cbid == CUPTI_DRIVER_TRACE_CBID_cuMemCreate && !e.enter) {
    note_mem_create(e.correlation, e.params);
    return;
  }
  if (k == SiteCallKind::kSiteAndLedger || k == SiteCallKind::kLedger) take_sample(sample_of(e.enter, e.cbid), e.correlation);
  // A runtime launch calls the driver's: the driver callback inside it (the same launch, whose
  // kernel records carry the runtime call's correlation id) takes no second site; the same for a
  // runtime allocation and the driver allocation it makes.
  thread_local int t_runtime_sites = 0;  // runtime site calls this thread is inside
  if (!e.driver && (k == SiteCallKind::kSite || k == SiteCallKind::kAlloc)) {
    if (!e.enter) {
      if (t_runtime_sites > 0) --t_runtime_sites;
      return;
    }
    ++t_runtime_sites;
  }
  if (e.driver && t_runtime_sites > 0) return;
  if (!g_enabled || !e.enter) return;
  const std::uint64_t seed = mix(e.driver ? 1 : 2, e.cbid);
  if (k == SiteCallKind::kAlloc) {
    take_site(seed, e.function, e.correlation, false, 1, true);
  } else if (k == SiteCallKind::kSiteAndLedger) {
    take_site(seed, e.function, e.correlation, true, 1);
  } else if (k == SiteCallKind::kSite) {
    // A call not sampled is still taken (counted for nothing) while its thread keeps allocations
    // waiting for a Python stack.
    const std::uint32_t w = eager_weight();
    if (w != 0 || allocations_kept()) take_site(seed, e.function, e.correlation, e.driver || !is_runtime_sync(e.cbid), w);
  }
}

void on_interposed_call(const char* api, std::uint32_t correlation, int kind) {
  if (g_forked_child || !g_enabled || api == nullptr) return;
  // Most eager calls are not sampled: decided before anything else is done for them.
  const std::uint32_t weight = kind == kSiteEager || kind == kSiteSync ? eager_weight() : 1;
  if ((weight == 0 && !allocations_kept()) || kind < kSiteEager || kind > kSiteGraph) return;
  std::uint64_t seed = 3;
  for (const char* c = api; *c != '\0'; ++c) seed = mix(seed, static_cast<unsigned char>(*c));
  // The GIL may be taken for a launch's or a graph's site, never for a sync's or an allocation's.
  take_site(seed, api, correlation, kind == kSiteEager || kind == kSiteGraph, weight, kind == kSiteAlloc);
}

void flush_call_sites(bool may_wait) {
  if (g_forked_child) return;
  name_the_rest(may_wait);
  std::string batch;
  {
    std::unique_lock<std::timed_mutex> lock(g_mu, std::defer_lock);
    if (may_wait ? !lock.try_lock_for(std::chrono::seconds(2)) : !lock.try_lock()) return;
    batch = pending_lines_locked();
  }
  if (g_enabled) batch += site_cost_line() + python_line();
  if (!batch.empty()) write_lines(batch, true, std::chrono::seconds(2));
}

}  // namespace gp::inject
