// What `graphprof profile` says about where the application made its CUDA calls and what its
// graphs cost it: call sites (native and Python stacks recorded by the injection library,
// src/inject/common/call_site.cpp), eager work grouped by call site, the memory and start-up ledgers of
// each graph, re-captures and instability. The records part is filled by parse_process_records
// (profile.hpp); the analysis by analyze_process. Host-only; docs/profile.md defines the figures.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gp {

// ---------------------------------------------------------------------------------------------
// Records

// A source line of a native frame, from the module's debug information (read after the run).
struct SourceLocation {
  std::string function;  // demangled, as the debug information names it
  std::string file;      // as compiled (often an absolute path)
  int line = 0;
};

struct NativeFrameRecord {
  std::string module;             // path of the shared object or executable; "" for code no module maps (JIT)
  std::uint64_t offset = 0;       // in the module (pc - load bias), or the absolute pc without a module
  std::string function;           // demangled; "" when no symbol covers the address
  std::uint64_t function_offset = 0;
  // Filled by resolve_source_lines (source_lines.hpp): the call's source line, innermost first: the
  // functions inlined at the call, then the function the code is in. Empty: not known.
  std::vector<SourceLocation> source;
};

// Which build of a module ran (a site line's `mi`): compared with the file found after the run.
struct ModuleIdentityRecord {
  std::string build_id;     // GNU build ID, hex; "" when the module has none
  std::uint64_t size = 0;   // bytes
  std::int64_t mtime = 0;   // modification time, seconds
};

struct PythonFrameRecord {
  std::string file;
  int line = 0;
  std::string function;
};

// One distinct stack (`site` line): innermost frame first.
struct CallSiteRecord {
  std::uint32_t id = 0;
  std::string api;                        // the API called there, as CUPTI names it
  std::vector<NativeFrameRecord> native;  // after the frames that led into the callback
  std::size_t internal_frames = 0;        // those frames (CUPTI, the driver, graphprof's library)
  std::vector<PythonFrameRecord> python;  // empty: no interpreter, or this thread did not hold the GIL
};

// A `mem` line: free device memory and the graph-memory pool at one moment.
struct MemorySample {
  std::string at;  // capture_begin, capture_end, instantiate_begin, instantiate_end, upload_begin, upload_end, end
  std::uint32_t correlation_id = 0;
  std::uint64_t ts = 0, free = 0, total = 0;
  std::uint64_t graph_used = 0, graph_used_high = 0, graph_reserved = 0, graph_reserved_high = 0;
};

struct MemoryNodesRecord {  // `mem_nodes`: memory nodes of an instantiated graph
  std::uint32_t exec_id = 0, graph_id = 0;
  std::size_t allocs = 0, frees = 0;
  std::uint64_t bytes = 0;
};

struct MemoryOpRecord {  // `mem_op`: CUPTI's MEMORY2 record of an allocation (op 1) or free (op 2)
  int op = 0, memory_kind = 0, pool_type = 0;
  std::uint64_t bytes = 0, address = 0, ts = 0, pool_address = 0;
  std::uint32_t correlation_id = 0;
  bool async = false;
};

struct VmmCreateRecord {  // `vmm`: cuMemCreate of `bytes` physical memory
  std::uint32_t correlation_id = 0;
  std::uint64_t ts = 0, bytes = 0;
};

// A `py` line: how the injection library read the Python stacks (absent: no interpreter ran, call
// sites were off, or an older library).
struct PythonFramesRecord {
  std::string mode;         // "on" (the GIL taken when needed), "held", "native"
  std::uint64_t held = 0;   // calls whose stack was read on a thread that held the GIL
  std::uint64_t taken = 0;  // calls for which the GIL was taken (the thread had released it)
  std::uint64_t wait_ns = 0, slow = 0;  // time waiting for it in all; waits over 1 ms
  bool stopped = false;     // taking it stopped after 16 slow waits
  bool can_take = false;    // the interpreter exports what taking it needs
};

// A `site_cost` line: what taking the call sites cost inside the CUDA callbacks.
struct SiteCostRecord {
  std::uint64_t calls = 0;         // calls from a site already known
  std::uint64_t ns = 0;            // time spent taking their sites, in all
  std::uint64_t new_sites = 0;     // calls that met a new site (named once: ELF symbols read per module)
  std::uint64_t new_sites_ns = 0;  // time spent on those, in all
  std::uint64_t full_unwinds = 0;  // native stacks unwound fully (the rest read with learned frame sizes)
  // --site-sample: eager calls whose stack was not taken, and the rule (every == 1: all were taken;
  // older records: 0, 0, 1)
  std::uint64_t skipped = 0;
  std::uint32_t first = 0, every = 1;
  std::uint32_t every_max = 1;  // the largest M a thread used (M grows where stacks cost > 1 % of its time)
  // New sites named by the injection's own thread, off the application's threads, and the time
  // that took (ELF symbols read once per module, demangling); older records: 0 (named by the caller).
  std::uint64_t named = 0, named_ns = 0;
};

// `profile --step-range NAME`: the NVTX ranges named NAME (step_range, nvtx, nvtx_end lines).
struct StepRangeRecords {
  std::string name;  // NAME; empty: the records were made without --step-range
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  // [start, end] of each closed NAME range (CUPTI clock)
  bool ended = false;                 // the nvtx_end line was read (the process flushed at its end)
  std::uint64_t nvtx_inits = 0;       // how often NVTX initialised the library (0: no NVTX call reached it)
  std::uint64_t other_ranges = 0;     // ranges of other names
  std::uint64_t open_ranges = 0;      // NAME ranges started and never ended
};

// An `ap` line's allocation: made with the GIL released, inside the same call from Python as a
// later call of `site` (native frames in common where they enter the interpreter: `shared`), so
// that site's Python stack is the allocation's (src/inject/common/alloc_python.hpp).
struct AllocationPythonRecord {
  std::uint32_t site = 0;
  std::size_t shared = 0;
};

struct SiteRecords {
  std::vector<CallSiteRecord> sites;
  std::unordered_map<std::uint32_t, std::uint32_t> site_of_call;  // correlation id -> site id
  // --site-sample: calls whose site was taken at random, and how many calls each stands for
  // (absent: 1, the call itself)
  std::unordered_map<std::uint32_t, std::uint32_t> weight_of_call;
  std::unordered_map<std::uint32_t, AllocationPythonRecord> python_of_allocation;  // allocation correlation id -> `ap`
  std::vector<MemorySample> memory_samples;
  std::vector<MemoryNodesRecord> memory_nodes;
  std::vector<MemoryOpRecord> memory_ops;
  std::vector<VmmCreateRecord> vmm_creates;
  std::uint64_t process_start_ns = 0;             // 0: not recorded
  std::uint64_t process_start_resolution_ns = 0;  // one clock tick of /proc/self/stat
  std::optional<PythonFramesRecord> python_frames;
  std::optional<SiteCostRecord> site_cost;
  std::map<std::string, ModuleIdentityRecord> modules;  // identity of each module the sites name
  // SourceLineResolver::resolve (source_lines.hpp): per module of the sites, why its frames have no source line ("" when
  // they were resolved). Empty: it was not run (the records were only read).
  std::map<std::string, std::string> source_lines_missing;
  StepRangeRecords step_ranges;
};

// ---------------------------------------------------------------------------------------------
// Analysis

// A native frame of a site as the report lists it; a call inlined there is a frame of its own
// (inlined = true) before the frame of the function it was inlined into.
struct SiteFrame {
  std::string module;
  std::uint64_t offset = 0;
  std::string function;
  std::string file;  // from the debug information; "" when not known
  int line = 0;
  bool inlined = false;
};

// A call site as the report names it.
struct SiteSummary {
  std::uint32_t id = 0;
  // one line: "serve.py:57 in step", "app.cu:120 in eager_scale" (debug information), "eager_scale in app",
  // "libx.so+0x1a2b"
  std::string where;
  std::string from;                // "python", "native", "module+offset" or "unknown": what `where` could name
  std::string function_where;      // `where` without the source line of a native frame ("eager_scale in app")
  std::string module;              // the module of the native frame `where` names ("" for a Python frame)
  std::vector<std::string> stack;  // Python frames (innermost first), then native frames
  std::vector<SiteFrame> frames;   // the native frames, innermost first
  // What the site is, apart from its line number (compare matches sites across edits by it): the
  // file (base name) and function `where` names, and the text of that source line (trimmed; empty
  // when the file could not be read where the profile was analysed).
  std::string source_file, source_function, source_text;
};

struct KernelCount {
  std::string name;
  std::size_t count = 0;
};

// Work outside graphs from one call site: the stacks whose `where` (innermost application frame)
// and kind are the same are one site (two launches in one function or one Python line).
struct EagerSite {
  SiteSummary site;  // of the first of its stacks
  std::size_t stacks = 1;
  std::string kind;  // "kernel launch", "copy", "memset", "sync", "host function"
  std::string api;   // the API called there (first seen)
  std::size_t calls = 0;                 // with --site-sample: estimated (each taken call stands for M)
  std::size_t calls_in_steps = 0;        // between the first and the last step
  std::size_t taken = 0;                 // calls whose stack was taken (calls, when every call was)
  std::optional<double> per_step;        // calls_in_steps / steps
  double gpu_ns = 0;                     // its kernels', copies' or memsets' GPU time
  double host_ns = 0;                    // host time of its calls (what a sync waits)
  std::vector<KernelCount> kernels;      // short names, most launched first
  std::string hint;
};

// The step the per-step figures use.
struct StepDefinition {
  // "most-launched graph"; "graphs captured at one site" (the most-launched graph and the others
  // captured where it was: a server's buckets, one launched per step); "nvtx range" (--step-range
  // NAME: one occurrence of that NVTX range); "" (no step)
  std::string from;
  std::uint32_t exec_id = 0, graph_id = 0;  // the most-launched graph (0: none launched)
  std::size_t other_graphs = 0;             // the other graphs of its site
  std::size_t steps = 0;
  std::uint64_t first_ns = 0, last_ns = 0;  // start of the first step, end of the last
  // --step-range NAME: NAME (also when it never occurred and the graph rule was used instead), and
  // the ranges' union, sorted (a call is in a step when it starts inside one of them).
  std::string range_name;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> windows;
  std::string range_missing;  // why NAME gave no step ("" when it did or was not asked for)
  // A call that starts at `t` is in a step: inside an NVTX range, or from the first step to the last.
  bool contains(std::uint64_t t) const;
};

// The Python stack of an allocation's call: read at the allocation (the thread held the GIL), or
// that of a later call made inside the same call from Python (records' `ap` lines).
struct AllocationPython {
  std::string where;               // the innermost application frame, "file.py:LINE in function"
  std::string from;                // "held" or "same call"
  std::vector<std::string> stack;  // Python frames, innermost first
  // What `where` is apart from its line number, as SiteSummary's source_* (compare matches
  // allocation sites across edits by it): empty when the file could not be read.
  std::string source_file, source_function, source_text;
};

// Device memory allocated from one call site (the allocation calls' sites, merged by their
// Python `where` and the native `where`).
struct AllocationSite {
  SiteSummary site;  // native frames only: the frame that asked for the memory
  std::optional<AllocationPython> python;
  std::uint64_t bytes = 0;
  std::size_t allocations = 0;
};

// What one graph holds and what making it cost (per graph of ProcessProfile::graphs).
struct GraphLedger {
  std::optional<SiteSummary> capture_site;      // stream capture: where cudaStreamBeginCapture was called
  std::optional<SiteSummary> instantiate_site;  // where cudaGraphInstantiate* was called
  // Memory
  std::uint64_t capture_alloc_bytes = 0;  // device allocations (cudaMalloc*, pool growth) made during its capture
  std::size_t capture_allocs = 0;
  std::uint64_t capture_vmm_bytes = 0;    // cuMemCreate during its capture
  // Device memory allocated on the capturing thread before its capture: from the end of the
  // previous capture on that thread (the first capture: from the start) to its BeginCapture. What a
  // framework's warm-up run allocates for the graph (CUDA-graph trees), and whatever else the thread
  // allocated then; shown beside, never added to, what it allocated in capture.
  std::uint64_t before_capture_alloc_bytes = 0;
  std::size_t before_capture_allocs = 0;
  std::uint64_t before_capture_freed_bytes = 0;  // device memory freed on that thread in the same window
  bool before_capture_from_start = false;  // no earlier capture on its thread: the window began at the start
  // Where the allocations in its capture and before it were made, most bytes first (allocations
  // whose call has a site: none without call sites or in records of an older library).
  std::vector<AllocationSite> capture_alloc_sites, before_capture_alloc_sites;
  std::uint64_t memory_node_bytes = 0;    // its graph memory nodes (cudaMallocAsync inside the capture, AddMemAllocNode)
  std::size_t memory_nodes = 0;
  std::optional<double> capture_free_delta;      // free device memory before BeginCapture minus after EndCapture
  std::optional<double> instantiate_free_delta;  // the same around cudaGraphInstantiate*
  std::optional<double> upload_free_delta;       // around its cudaGraphUpload calls
  std::optional<std::uint64_t> graph_pool_reserved_after;  // graph-memory pool reserved after instantiate/upload
  bool reuses_memory = false;  // captured, kernels, no allocation of its own: it reuses memory (a shared pool)
  // Start-up
  std::optional<double> capture_ns;      // BeginCapture start -> EndCapture end
  std::optional<double> first_launch_ns; // host time of its first launch call
  std::uint64_t created_after_first_step_ns = 0;  // instantiated this long after the first step began (0: before)
  std::size_t kernel_shapes = 0;         // distinct (kernel, grid) combinations its kernels ran with
};

// Graphs captured from the same site.
struct Recapture {
  SiteSummary site;
  std::vector<std::uint32_t> graph_ids;  // in capture order
  std::vector<std::size_t> nodes;
  std::size_t shapes = 0;  // distinct kernel signatures (kernel names and grids) among those traced
  std::size_t traced = 0;  // how many of them have kernel records (node sampling may skip a graph)
};

struct UpdateCounts {
  std::size_t calls = 0, failures = 0;
};

struct SiteProfile {
  StepDefinition step;
  std::vector<EagerSite> eager_sites;  // by GPU time, then host time
  std::vector<GraphLedger> graphs;     // parallel to ProcessProfile::graphs
  std::vector<Recapture> recaptures;
  std::vector<std::uint32_t> late_graphs;  // graph ids instantiated after the first step began
  UpdateCounts exec_updates, set_params;
  // Process totals
  std::uint64_t capture_alloc_bytes = 0, memory_node_bytes = 0, capture_vmm_bytes = 0;
  std::optional<std::uint64_t> graph_pool_reserved_high;  // the driver's high-water mark of graph memory
  double graph_making_ns = 0;                // all captures + instantiations + uploads
  std::optional<double> wall_ns;             // process start (or CUDA start) to its last flush
  std::optional<double> start_to_first_replay_ns;  // process start -> first graph launch call
  std::optional<double> cuda_to_first_replay_ns;   // CUDA initialisation -> first graph launch call
  std::uint64_t process_start_resolution_ns = 0;
  bool sites_recorded = false;    // the records have call sites (the library took them)
  bool ledgers_recorded = false;  // ... and memory samples or the process start (a library that takes them)
  std::optional<PythonFramesRecord> python_frames;
  std::optional<SiteCostRecord> site_cost;
  // Per module naming a site whose frames have no source line: "no file:line for the sites in app:
  // no debug information (...)". Empty when every such module had lines, or lines were not looked up.
  std::vector<std::string> source_line_notes;
};

}  // namespace gp
