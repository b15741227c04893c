// libgraphprof_interpose.so: `graphprof profile --trace none --observe interpose` preloads it
// (LD_PRELOAD, after the CUPTI watch library). It defines the CUDA runtime and driver functions
// that --trace none's figures come from (launches, graph launches, captures, instantiations,
// uploads, exec updates, synchronising calls and the calls that break a capture), forwards each to
// the real one (looked up once) and, once the injection library started it, records the call in
// the injection's line format (interpose_records.hpp) instead of CUPTI: an application that calls
// the shared libcudart.so (PyTorch, its extensions, programs built with -cudart shared) or the
// driver's exported symbols resolves those calls here first. No CUPTI call is made: every CUPTI
// client pays for itself on each graph launch (docs/profile.md, "What CUPTI itself costs").
//
// It includes no CUDA header and links no CUDA library (every process of the application loads
// it, most never touch CUDA): the functions are declared with plain types of the same ABI. Where a
// signature changed between CUDA versions (cudaGraphInstantiate, cudaGraphExecUpdate), the
// definition takes the longer one and forwards every argument, which is correct for either.
//
// What it cannot see: a runtime linked statically into the program (its calls never leave the
// program; the injection then keeps CUPTI), and calls a library makes through driver functions it
// looked up itself (cuBLAS and cuDNN carry their own runtime, Triton dlsym()s cuLaunchKernelEx):
// the report says so (docs/profile.md).
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "inject_output.hpp"
#include "interpose_core.hpp"

#define GP_EXPORT extern "C" __attribute__((visibility("default")))

namespace gp::interposer {

// The state interpose_core.hpp declares.
std::atomic<bool> g_active{false};
std::atomic<std::uint32_t> g_correlation{0};
std::atomic<bool> g_paused{false};
bool g_windows = false;
std::atomic<std::uint64_t> g_window_launches{0}, g_window_last_ns{0};
gp::interpose::Hooks g_hooks;

using gp::interpose::ApiCall;
using WriteFn = int (*)(const char* data, std::size_t size, int flush);

namespace {

// ---- the real functions ----

int find_cudart(dl_phdr_info* info, std::size_t, void* data) {
  const char* name = info->dlpi_name != nullptr ? info->dlpi_name : "";
  const char* base = std::strrchr(name, '/');
  base = base != nullptr ? base + 1 : name;
  if (std::strncmp(base, "libcudart.so", 12) != 0) return 0;
  *static_cast<std::string*>(data) = name;
  return 1;
}

// The shared runtime the process loaded, also where it sits in a local scope (a library opened
// with RTLD_LOCAL, as Python opens extension modules), where RTLD_NEXT does not find it.
void* cudart_handle() {
  std::string path;
  dl_iterate_phdr(find_cudart, &path);
  return path.empty() ? nullptr : dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
}

// ---- state ----

WriteFn g_write = nullptr;
std::string& g_dir = *new std::string;
bool g_dot = true;
std::uint32_t g_pid = 0;
std::atomic<std::uint32_t> g_next_exec{0};
std::uint32_t g_next_graph = 0;  // under g_mu

// Everything below is allocated once and never destroyed: the application's threads (and the
// writer) may still use it while exit handlers and static destructors run, and destroying a
// condition variable a thread waits on blocks the exit for ever.
std::mutex& g_mu = *new std::mutex;  // the book and the graph maps
gp::interpose::LaunchBook& g_book = *new gp::interpose::LaunchBook;
std::unordered_map<const void*, std::uint32_t>& g_exec_ids = *new std::unordered_map<const void*, std::uint32_t>;   // exec -> id
std::unordered_map<const void*, std::uint32_t>& g_graph_ids = *new std::unordered_map<const void*, std::uint32_t>;  // graph -> id
struct PendingEnd {
  std::uint32_t stream = 0, correlation = 0;
};
// Successful captures whose graph id is known only once the graph is dumped (at instantiation).
std::unordered_map<const void*, PendingEnd>& g_pending_ends = *new std::unordered_map<const void*, PendingEnd>;
// Captures begun and not yet ended, by stream: their capture_begin line is written when the capture
// ends, because the stream's id can be read only then (cudaStreamGetId on a capturing stream fails
// and invalidates the capture: the application's next captured call then fails).
struct PendingBegin {
  int mode = 0;
  std::uint32_t correlation = 0;
};
std::unordered_map<const void*, PendingBegin>& g_open_captures = *new std::unordered_map<const void*, PendingBegin>;

// Without a dump, the interposer's own graph numbering (above any id CUPTI gives, where dumps
// give those). Under g_mu.
std::uint32_t own_graph_id() { return (g_dot ? 0x40000000u : 0u) + ++g_next_graph; }

void write_now(const std::string& s, bool flush) {
  if (!s.empty() && g_write != nullptr) (void)g_write(s.data(), s.size(), flush ? 1 : 0);
}

// ---- API records: kept in binary, formatted and written by a writer thread in chunks ----

constexpr std::size_t kChunk = 16384;
std::mutex& g_rec_mu = *new std::mutex;
std::vector<ApiCall>& g_recs = *new std::vector<ApiCall>;
std::mutex& g_queue_mu = *new std::mutex;
std::condition_variable& g_queue_cv = *new std::condition_variable;
std::deque<std::vector<ApiCall>>& g_queue = *new std::deque<std::vector<ApiCall>>;
int g_writing = 0;  // chunks taken by the writer and not yet written (under g_queue_mu)

std::string format(const std::vector<ApiCall>& calls) {
  std::string s;
  s.reserve(calls.size() * 140);
  for (const ApiCall& c : calls) gp::interpose::append_api_line(s, c, g_pid);
  return s;
}

// How often what is pending reaches the disk: all a SIGKILL can take (docs/profile.md, "A program
// that dies").
constexpr auto kFlushEvery = std::chrono::milliseconds(100);

std::string pending_book_lines();  // below

void writer_main() {
  for (;;) {
    std::vector<ApiCall> chunk;
    bool tick = false;
    {
      std::unique_lock<std::mutex> lock(g_queue_mu);
      if (!g_queue_cv.wait_for(lock, kFlushEvery, [] { return !g_queue.empty(); })) {
        tick = true;
        ++g_writing;
      } else {
        chunk = std::move(g_queue.front());
        g_queue.pop_front();
        ++g_writing;
      }
    }
    if (tick) {
      // Every 100 ms: the records not yet in a full chunk and the launches not yet in an lx line,
      // and the file flushed (with the lines the injection wrote meanwhile).
      if (g_active.load()) {
        {
          std::lock_guard<std::mutex> lock(g_rec_mu);
          chunk.swap(g_recs);
          g_recs.reserve(kChunk);
        }
        const std::string lines = format(chunk) + pending_book_lines();
        if (g_write != nullptr) (void)g_write(lines.data(), lines.size(), 1);
      }
    } else {
      write_now(format(chunk), false);
    }
    std::lock_guard<std::mutex> lock(g_queue_mu);
    --g_writing;
    g_queue_cv.notify_all();
  }
}

// The stream's id (the runtime's and the driver's are the same number); the driver's where the
// process has no shared runtime (interposed at the driver).
std::uint32_t stream_id(Handle stream) {
  using Fn = Err (*)(Handle, unsigned long long*);
  static const Fn get = [] {
    const Fn runtime = real_fn<Fn>("cudaStreamGetId", false);
    return runtime != nullptr ? runtime : real_fn<Fn>("cuStreamGetId", true);
  }();
  unsigned long long id = 0;
  if (get == nullptr || get(stream, &id) != 0) return 0;
  return static_cast<std::uint32_t>(id);
}

std::uint32_t read_dot_graph_id(const std::string& path) {
  std::ifstream in(path);
  std::string head(4096, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return gp::interpose::dot_graph_id(head);
}

// Device allocations alive, by address: a free's size (CUPTI's release records carry it).
std::mutex& g_alloc_mu = *new std::mutex;
std::unordered_map<std::uint64_t, std::pair<std::uint64_t, int>>& g_allocations =
    *new std::unordered_map<std::uint64_t, std::pair<std::uint64_t, int>>;  // address -> bytes, memory kind

// The timed calls (OwnTime): correlation id and the interposer's own time, written as ic lines.
std::mutex& g_own_mu = *new std::mutex;
std::vector<std::pair<std::uint32_t, std::uint32_t>>& g_own_calls = *new std::vector<std::pair<std::uint32_t, std::uint32_t>>;

std::string own_lines(std::vector<std::pair<std::uint32_t, std::uint32_t>>& calls) {
  return gp::interpose::correlated_lines("ic", calls, 4096);
}

}  // namespace

void* resolve(const char* name, bool driver) {
  void* own = dlsym(RTLD_DEFAULT, "graphprof_interpose_ready");  // any symbol of this library
  Dl_info self{}, found{};
  const bool know_self = own != nullptr && dladdr(own, &self) != 0;
  void* p = dlsym(RTLD_NEXT, name);
  if (p == nullptr) {
    void* h = driver ? dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD) : cudart_handle();
    if (h != nullptr) p = dlsym(h, name);
  }
  // Never this library's own definition (a second copy of it loaded): that would recurse.
  if (p != nullptr && know_self && dladdr(p, &found) != 0 && found.dli_fbase == self.dli_fbase) p = nullptr;
  return p;
}

void record(Api api, std::uint64_t start, std::uint64_t end, std::uint32_t co, Err r) {
  ApiCall c;
  c.api = api;
  c.result = r;
  c.thread = static_cast<std::uint32_t>(pthread_self());
  c.correlation = co;
  c.start_ns = start;
  c.end_ns = end;
  std::vector<ApiCall> full;
  {
    std::lock_guard<std::mutex> lock(g_rec_mu);
    g_recs.push_back(c);
    if (g_recs.size() < kChunk) return;
    full.swap(g_recs);
    g_recs.reserve(kChunk);
  }
  std::lock_guard<std::mutex> lock(g_queue_mu);
  g_queue.push_back(std::move(full));
  g_queue_cv.notify_all();
}

// A timed call's own time; written in ic lines of 4096 (so a long run keeps no growing list), the
// rest at the end.
void timed_own(std::uint32_t co, std::uint64_t ns) {
  std::string full;
  {
    std::lock_guard<std::mutex> lock(g_own_mu);
    g_own_calls.emplace_back(co, static_cast<std::uint32_t>(std::min<std::uint64_t>(ns, UINT32_MAX)));
    if (g_own_calls.size() >= 4096) full = own_lines(g_own_calls);
  }
  write_now(full, false);
}

void allocated(std::uint64_t address, std::uint64_t bytes, std::uint32_t co, int memory_kind, bool is_async) {
  {
    std::lock_guard<std::mutex> lock(g_alloc_mu);
    g_allocations[address] = {bytes, memory_kind};
  }
  write_now(gp::interpose::memory_op_line(1, memory_kind, bytes, address, now_ns(), co, 0, is_async, 0, 0), false);
}

void freed(std::uint64_t address, std::uint32_t co, bool is_async) {
  std::pair<std::uint64_t, int> known{0, 0};
  {
    std::lock_guard<std::mutex> lock(g_alloc_mu);
    auto it = g_allocations.find(address);
    if (it == g_allocations.end()) return;  // not seen made (before recording began), or not device memory
    known = it->second;
    g_allocations.erase(it);
  }
  write_now(gp::interpose::memory_op_line(2, known.second, known.first, address, now_ns(), co, 0, is_async, 0, 0), false);
}

void write_text(const std::string& lines) { write_now(lines, false); }
void write_flushed(const std::string& lines) {
  if (g_write != nullptr) (void)g_write(lines.data(), lines.size(), 1);
}

void physical_allocation(std::uint64_t bytes, std::uint32_t co) { write_now(gp::interpose::vmm_line(co, now_ns(), bytes), false); }

void synchronised(std::uint64_t now) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_book.synchronised(now);
}

// ---- windows of recording and pause: `profile --overhead-windows` and a developer switch ----
// GRAPHPROF_PAUSE_WINDOWS=PERIOD_MS,START_MS (set by `graphprof profile --overhead-windows`): from
// START_MS after the first graph launch, recording is paused and resumed every PERIOD_MS, and each
// whole window is written as a pw line: whether it recorded, its start and end, and the program's
// graph launch calls in it (how many, and the time from the window's first to its last, counted
// from the last launch before it) on the records' clock. A program's steps in recording windows,
// held against those in the paused windows beside them, measure what recording costs it, free of
// the noise between processes (src/profile/overhead_windows.cpp). The window the process ends in
// is not whole and is not written.
// GRAPHPROF_DEV_PAUSE=PERIOD_MS,START_MS,FILE, a developer switch, does the same and also writes
// each switch's CLOCK_MONOTONIC time to FILE ("NS recording" / "NS paused"), so that a program
// that logs its own steps on that clock can be held against the windows (tools/pause-stats.py);
// GRAPHPROF_DEV_PAUSE_LOG=FILE adds that file to GRAPHPROF_PAUSE_WINDOWS' windows. A "%p" in FILE
// is the process id. Neither is for a profile a user reads: calls in paused windows are not recorded.
struct PauseSwitch {
  unsigned period_ms = 0, start_ms = 0;
  std::string file;
};
PauseSwitch& g_pause = *new PauseSwitch;
std::atomic<bool> g_pause_armed{false};

PauseSwitch pause_switch() {
  PauseSwitch p;
  unsigned period = 0, start = 0;
  int used = 0;
  if (const char* v = std::getenv("GRAPHPROF_DEV_PAUSE")) {
    if (std::sscanf(v, "%u,%u,%n", &period, &start, &used) == 2 && used > 0 && v[used] != '\0' && period != 0) {
      p.period_ms = period;
      p.start_ms = start;
      p.file = v + used;
      return p;
    }
  }
  if (const char* v = std::getenv("GRAPHPROF_PAUSE_WINDOWS")) {
    if (std::sscanf(v, "%u,%u%n", &period, &start, &used) == 2 && v[used] == '\0' && period != 0) {
      p.period_ms = period;
      p.start_ms = start;
      if (const char* log = std::getenv("GRAPHPROF_DEV_PAUSE_LOG")) p.file = log;
    }
  }
  return p;
}

std::string with_pid(std::string file) {
  if (const auto at = file.find("%p"); at != std::string::npos) file.replace(at, 2, std::to_string(::getpid()));
  return file;
}

void switch_mark(FILE* f, bool paused) {
  if (f == nullptr) return;
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  std::fprintf(f, "%llu %s\n", static_cast<unsigned long long>(ts.tv_sec) * 1000000000ull + static_cast<unsigned long long>(ts.tv_nsec),
               paused ? "paused" : "recording");
  std::fflush(f);
}

void pauser_main() {
  std::this_thread::sleep_for(std::chrono::milliseconds(g_pause.start_ms));
  FILE* f = g_pause.file.empty() ? nullptr : std::fopen(with_pid(g_pause.file).c_str(), "w");
  if (!g_pause.file.empty() && f == nullptr) return;
  bool paused = false;
  std::uint64_t from = now_ns(), launches = g_window_launches.load(), last = g_window_last_ns.load();
  switch_mark(f, paused);
  while (g_active.load()) {
    std::this_thread::sleep_for(std::chrono::milliseconds(g_pause.period_ms));
    const std::uint64_t to = now_ns(), n = g_window_launches.load(), at = g_window_last_ns.load();
    if (!g_active.load()) break;  // the window ends with the process: not whole
    paused = !paused;
    g_paused = paused;
    switch_mark(f, paused);
    std::string line;
    gp::records::write(line, gp::records::PauseWindowLine{paused, from, to, n - launches, at > last ? at - last : 0});
    write_now(line, false);
    from = to;
    launches = n;
    last = at;
  }
  g_paused = false;
  if (f != nullptr) std::fclose(f);
}

// A fork() child must not write into its parent's records; nor, should it begin recording of its
// own, inherit a paused window or the parent's switch (it would stay paused: the switch's thread
// is not copied).
void on_fork_child() {
  g_active = false;
  g_paused = false;
  g_pause_armed = false;
  gpu_time_forget();
}

namespace {
std::string pending_book_lines() {
  std::lock_guard<std::mutex> lock(g_mu);
  return g_book.pending_lines();
}
}  // namespace

void launched(Handle exec, std::uint32_t co, std::uint64_t start) {
  if (g_pause.period_ms != 0 && !g_pause_armed.exchange(true)) (void)gp::inject::start_quiet_thread(pauser_main);
  std::string lx;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    lx = g_book.launched(exec, co, start);
  }
  write_now(lx, false);
}

// A new exec: its dump (whose graph id is CUPTI's), its node and edge counts, its exec line.
void instantiated(Handle exec, Handle graph, std::uint32_t co) {
  using DotFn = Err (*)(Handle, const char*, unsigned);
  using NodesFn = Err (*)(Handle, Handle*, std::size_t*);
  using Edges5Fn = Err (*)(Handle, Handle*, Handle*, void*, std::size_t*);
  using Edges4Fn = Err (*)(Handle, Handle*, Handle*, std::size_t*);
  static const DotFn dot_print = real_fn<DotFn>("cuGraphDebugDotPrint", true);
  static const NodesFn get_nodes = real_fn<NodesFn>("cuGraphGetNodes", true);
  static const Edges5Fn get_edges5 = real_fn<Edges5Fn>("cuGraphGetEdges_v2", true);
  static const Edges4Fn get_edges4 = get_edges5 != nullptr ? nullptr : real_fn<Edges4Fn>("cuGraphGetEdges", true);
  const std::uint32_t exec_id = ++g_next_exec;
  std::string dot, dotv;
  std::uint32_t graph_id = 0;
  if (g_dot && dot_print != nullptr) {
    const std::string stem = g_dir + "/p" + std::to_string(g_pid) + "-exec" + std::to_string(exec_id);
    if (dot_print(graph, (stem + ".dot").c_str(), 0) == 0) dot = stem + ".dot";
    if (dot_print(graph, (stem + "_verbose.dot").c_str(), 1) == 0) dotv = stem + "_verbose.dot";
    if (!dot.empty()) graph_id = read_dot_graph_id(dot);
  }
  std::size_t nodes = 0, edges = 0;
  if (get_nodes == nullptr || get_nodes(graph, nullptr, &nodes) != 0) nodes = 0;
  if (get_edges5 != nullptr ? get_edges5(graph, nullptr, nullptr, nullptr, &edges) != 0
                            : get_edges4 == nullptr || get_edges4(graph, nullptr, nullptr, &edges) != 0)
    edges = 0;
  std::string lines;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (graph_id == 0) {
      const auto known = g_graph_ids.find(graph);
      graph_id = known != g_graph_ids.end() ? known->second : own_graph_id();
    }
    g_graph_ids[graph] = graph_id;
    if (auto p = g_pending_ends.find(graph); p != g_pending_ends.end()) {
      lines += gp::interpose::capture_end_line(p->second.stream, graph_id, p->second.correlation, 0);
      g_pending_ends.erase(p);
    }
    g_exec_ids[exec] = exec_id;
    g_book.instantiated(exec, exec_id);
  }
  if (g_hooks.memory_nodes != nullptr) g_hooks.memory_nodes(graph, graph_id, exec_id);
  gp::records::write(lines, gp::records::ExecLine{exec_id, graph_id, nodes, edges, co, now_ns(), dot, dotv});
  write_now(lines, true);
}

void uploaded(Handle exec, std::uint32_t co) {
  std::uint32_t id = 0;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (auto it = g_exec_ids.find(exec); it != g_exec_ids.end()) id = it->second;
  }
  if (id != 0) write_now(gp::interpose::upload_line(id, co), false);
}

void exec_changed(Handle exec, bool set_params) {
  std::lock_guard<std::mutex> lock(g_mu);
  g_book.changed(exec, set_params);
}

// Nothing here calls CUDA while the stream captures: a failed begin did not start a capture, so
// its line is written at once; a capture's begin line waits for its end (g_open_captures).
void capture_begun(Handle stream, int mode, std::uint32_t co, Err r) {
  if (r != 0) {
    write_now(gp::interpose::capture_begin_line(stream_id(stream), mode, co, r), true);
    return;
  }
  std::lock_guard<std::mutex> lock(g_mu);
  g_open_captures[stream] = PendingBegin{mode, co};
}

void capture_ended(Handle stream, Handle graph, std::uint32_t co, Err r) {
  const std::uint32_t id = stream_id(stream);  // the capture is over, whatever its result
  std::string begin;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    if (auto b = g_open_captures.find(stream); b != g_open_captures.end()) {
      begin = gp::interpose::capture_begin_line(id, b->second.mode, b->second.correlation, 0);
      g_open_captures.erase(b);
    }
  }
  write_now(begin, false);
  if (r != 0 || graph == nullptr) {
    write_now(gp::interpose::capture_end_line(id, 0, co, r), true);
    return;
  }
  std::lock_guard<std::mutex> lock(g_mu);
  g_graph_ids.erase(graph);  // a new graph, whatever was at this address before
  if (auto old = g_pending_ends.find(graph); old != g_pending_ends.end())  // never instantiated, since destroyed
    write_now(gp::interpose::capture_end_line(old->second.stream, own_graph_id(), old->second.correlation, 0), true);
  g_pending_ends[graph] = PendingEnd{id, co};
}

}  // namespace gp::interposer

using namespace gp::interposer;

// ---- for the injection library (found with dlsym; no link between the two) ----

// 1 when the real runtime is there and the process's runtime calls resolve to this library.
GP_EXPORT int graphprof_interpose_ready(void) {
  void* seen = dlsym(RTLD_DEFAULT, "cudaGraphLaunch");
  void* own = dlsym(RTLD_DEFAULT, "graphprof_interpose_ready");
  Dl_info a{}, b{};
  if (seen == nullptr || own == nullptr || dladdr(seen, &a) == 0 || dladdr(own, &b) == 0 || a.dli_fbase != b.dli_fbase) return 0;
  for (const char* name : {"cudaGraphLaunch", "cudaLaunchKernel", "cudaStreamBeginCapture", "cudaStreamEndCapture",
                           "cudaGraphInstantiateWithFlags", "cudaStreamSynchronize"})
    if (resolve(name, false) == nullptr) return 0;
  return 1;
}

// Starts recording: lines go to `write` (the injection's line file), dumps into `dir`; `hooks`
// (may be null) take the call sites and the ledger samples. 0 when it cannot (no writer thread).
GP_EXPORT int graphprof_interpose_begin(WriteFn write, const char* dir, int dump_dot, const gp::interpose::Hooks* hooks) {
  if (hooks != nullptr) g_hooks = *hooks;
  g_write = write;
  g_dir = dir != nullptr ? dir : ".";
  g_dot = dump_dot != 0;
  g_pid = static_cast<std::uint32_t>(::getpid());
  g_pause = pause_switch();
  g_windows = g_pause.period_ms != 0;
  g_recs.reserve(kChunk);
  if (!gp::inject::start_quiet_thread(writer_main)) return 0;
  pthread_atfork(nullptr, nullptr, on_fork_child);
  if (std::getenv("GRAPHPROF_NO_FATAL_HANDLERS") == nullptr) install_fatal_handlers();
  g_active = true;
  return 1;
}

// Stops recording and writes what is pending: the API records, the lx and clock lines, captures
// whose graph was never instantiated, and a warning for launches of execs it did not see made.
// `may_wait`: false in a signal handler (locks are only tried, the writer is not waited for).
GP_EXPORT void graphprof_interpose_end(int may_wait) { gp::interposer::end_recording(may_wait != 0); }

void gp::interposer::end_recording(bool may_wait) {
  if (!g_active.exchange(false)) return;
  std::vector<ApiCall> rest;
  {
    std::unique_lock<std::mutex> lock(g_rec_mu, std::defer_lock);
    if (may_wait) lock.lock();
    else if (!lock.try_lock()) return;
    rest.swap(g_recs);
  }
  {
    std::unique_lock<std::mutex> lock(g_queue_mu, std::defer_lock);
    if (may_wait) lock.lock();
    else if (!lock.try_lock()) return;
    // What the writer holds is written by it (bounded: the exit must not hang on it).
    if (may_wait) g_queue_cv.wait_for(lock, std::chrono::seconds(5), [] { return g_writing == 0; });
    for (auto& q : g_queue) rest.insert(rest.end(), q.begin(), q.end());
    g_queue.clear();
  }
  std::string lines = format(rest) + gpu_time_lines(may_wait);
  {
    std::unique_lock<std::mutex> lock(g_mu, std::defer_lock);
    if (may_wait) lock.lock();
    else if (!lock.try_lock()) return;
    lines += g_book.final_lines();
    for (const auto& [graph, p] : g_pending_ends)
      lines += gp::interpose::capture_end_line(p.stream, own_graph_id(), p.correlation, 0);
    g_pending_ends.clear();
    // Captures still open at the end (the process exits or is killed inside one): their stream
    // cannot be asked for its id now.
    for (const auto& [stream, b] : g_open_captures) lines += gp::interpose::capture_begin_line(0, b.mode, b.correlation, 0);
    g_open_captures.clear();
    {
      std::unique_lock<std::mutex> own(g_own_mu, std::defer_lock);
      if (may_wait) own.lock();
      if (own.owns_lock()) lines += own_lines(g_own_calls);
    }
    // How many calls the timed ones (the ic lines) were drawn from (interpose_api.cpp, OwnTime).
    gp::records::write(lines, gp::records::InterposeCostLine{g_correlation.load(), kOwnEvery});
    if (const std::uint64_t unseen = g_book.unseen_launches(); unseen > 0) {
      gp::records::write(lines, gp::records::MessageLine{
                                    false, std::to_string(unseen) + (unseen == 1 ? " graph launch ran an exec" : " graph launches ran execs") +
                                               " whose instantiation interposition did not see (made through a call it does not "
                                               "define): counted as graph launches, in no graph row"});
    }
  }
  write_now(lines, true);
}
