// Reading the line files of the injection library. One JSON object per line; "t" names the kind
// (the codec that writes and reads them: src/records/record_lines.hpp):
//   process  {v, pid, ppid, ts, cupti, level, sample, observed, observe_note, cmdline}  first line of every
//            file; v: the format's version (records::kFormatVersion; a file without it is version 1); sample: the node sampling rule at level 2 ("all" or "W,K,M",
//            include/graphprof/core/node_sampling.hpp); observed: "cupti" or "interpose" (the interposer
//            wrote the API lines, no CUPTI: src/inject/interpose/runtime_interpose.cpp; older records lack it);
//            observe_note: why interposition was asked for and not used
//   error    {what}                                      profiling could not start
//   k        kernel  {n, s, e, d, c, st, co, g, gn, gr, bl, sh, rg}
//   mc       memcpy  {k (HtoD...), b, s, e, d, c, st, co, g, gn}
//   ms       memset  {v, b, s, e, d, c, st, co, g, gn}
//   a        API call {n, cb, dr (1: driver API), s, e, p, th, co, r (return value)}
//   gt       graph launch span {co, g, s, e, d, c, st}          (--trace graph)
//   nm       node clone {x: exec node id, o: original node id}
//   exec     graph instantiated {exec, graph, nodes, edges, co, ts, dot, dot_verbose}
//   capture_begin {stream, mode, co, r} / capture_end {stream, graph, co, r}
//   upload   {exec, co}; launch {exec, co} (--trace none only; older records)
//   ux       {exec, sp, up}                              interposed: the exec's SetParams calls and exec updates
//            so far (cumulative; the largest counts)
//   lx       {exec, co: [...]}                           correlation ids of launches of exec (--trace none),
//            written in batches
//   clock    {exec, n, first, last, settled}              per exec at exit: launches, first and last
//            launch call's start, the return of the first synchronising call after the last launch
//            (0: none; older records lack it) (every level, and GRAPHPROF_PROFILE_LEVEL=clock:
//            --overhead's plain runs)
//   ks       {on, ts, took, done, st}                    CONCURRENT_KERNEL switched on (1) or off (0) at ts
//            (node sampling with kernels=P%, src/inject/cupti_inject/launch_watch.hpp); took: the switching call's ns;
//            off: every call on stream st with a correlation id below done had finished
//   ks_fail  {call, r}                                   a driver or CUPTI call of that switch failed (the kind stayed
//                                                        on; a warning of the process)
//   ks_stats {untraced, drains, queries, ...}             at exit: how that switch went (diagnosis; not read)
//   dropped  {n}
//   rank     {host, host_from, env: {NAME: value}}          the launcher's rank variables (graphprof/core/rank_env.hpp)
//   device   {ord, pci, uuid}                            a GPU the process created a context on
//   warning  {what}                                      graphprof's remark (the application used CUPTI itself)
//   cupti_notice {kind, r, m}                            CUPTI's own error/warning to the subscriber
//   cupti_refused {n, r, caller}                         the application's cuptiSubscribe calls CUPTI refused
//            (its own profiler could not attach; seen by the preloaded libgraphprof_cupti_watch.so)
//   end      {reason, ts, dropped, lost_buffers, cupti}         last line when the process flushed; cupti:
//            "graphprof" (its session to the end), "finalized_elsewhere" (another client finalized CUPTI),
//            "activity_taken" (activity records went to another client), "teardown_timeout"; also
//            exit_ms (the final flush) and probe {enabled, callback_proven, fired, record_proven,
//            record_seen, foreign_buffer} (what the ownership check saw), for diagnosis only
//   site     {s, api, n: [[module, offset "0x..", function, function offset]...], ni, mi, py: [[file, line, function]...]}
//            a distinct call stack (innermost first; ni frames that led into the callback left out);
//            mi: [[module, GNU build id hex, file size, mtime s]...] of its modules (older records lack it)
//   sc       {s, co: [...]}                              correlation ids of calls made from site s
//   ap       {s, k, co: [...]}                           allocations (correlation ids) whose site has no Python
//            frames, made inside the same call from Python as a later call of site s (k native frames in
//            common there): site s's Python stack is theirs (src/inject/common/alloc_python.hpp; older records lack it)
//   site_cost {calls, ns, new, new_ns, full_unwinds, skipped, first, every, every_max, named, named_ns}
//            what taking the call sites cost the calling threads (calls from known sites; calls that met
//            a new site, handed to the namer), the sample's rule, and the sites the injection's own
//            thread named off the application's threads and the time it took (older records: named then)
//   py       {mode, held, taken, wait_ns, slow, stopped, can_take}   how the Python stacks were read
//            (src/inject/common/python_frames.hpp), before the end line of a process that ran CPython
//   mem      {at, co, ts, free, total, gu, guh, gr, grh}  free device memory and graph-memory pool
//            (used/reserved, current/high) at capture_begin, capture_end, instantiate_begin/_end,
//            upload_begin/_end (co: that call) and end
//   mem_nodes {exec, graph, allocs, bytes, frees}        memory nodes of an instantiated graph
//   mem_op   {op (1 alloc, 2 free), mk, b, a, ts, co, st, async, pt, pa}   CUPTI MEMORY2 record
//   vmm      {co, ts, b}                                 cuMemCreate of b bytes
//   ip_cost  {calls, every}                              interposed, at the end: calls made through the interposer,
//            of which 1 in `every` was timed at random (src/inject/interpose/interpose_core.hpp)
//   ic       {co: [...], ns: [...]}                      interposed: each timed call's correlation id and its time in the
//            interposer less the real call's
//   gl       {co: [...], ns: [...]}                      interposed: a sample of the graph launches timed on the GPU by a
//            pair of CUDA events around each (src/inject/interpose/launch_timing.cpp): launch correlation id, GPU ns
//   pw       {rec, from, to, n, span}                    --overhead-windows (or the developer switch GRAPHPROF_DEV_PAUSE):
//            a whole window of recording (rec 1) or pause (rec 0), its bounds, the graph launch calls in it
//            and the time from the last launch before it to its last one (graphprof/profile/overhead_windows.hpp)
//   proc_start {ts, resolution_ns}                       when the process started (one clock tick)
//   step_range {name}                                    --step-range NAME was given (src/inject/common/nvtx_steps.hpp)
//   nvtx     {r: [[start, end], ...]}                    NVTX ranges named NAME, in batches
//   nvtx_end {inits, others, open}                       at exit: NVTX initialisations of the library, ranges of
//                                                        other names, NAME ranges never ended
// Field names are short because a busy application writes millions of lines.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include "graphprof/core/error.hpp"
#include "graphprof/profile/profile.hpp"
#include "graphprof/profile/overhead_windows.hpp"
#include "record_fields.hpp"
#include "site_records.hpp"

namespace gp {

using nlohmann::json;

namespace {

using records::field;
using records::EndsBeforeStart;

// The GPU fields of a codec line into a trace record.
void copy_span(const records::GpuSpan& s, GpuSpan& r) {
  r.start_ns = s.start;
  r.end_ns = s.end;
  r.device_id = s.device;
  r.context_id = s.context;
  r.stream_id = s.stream;
  r.correlation_id = s.correlation;
  r.graph_id = s.graph;
}

void copy_activity(const records::GpuSpan& s, GpuActivity& r) {
  copy_span(s, r);
  r.graph_node_id = s.graph_node;
}

// The GPU work and API lines (records/record_lines.hpp); false for another kind.
bool read_trace_line(const std::string& t, const json& j, ProcessRecords& p) {
  TraceData& d = p.trace;
  if (t == "k") {
    records::KernelLine line;
    records::read(j, line, p.begin_ns);
    KernelRecord k;
    k.name = std::move(line.name);
    copy_activity(line.span, k);
    k.grid = line.grid;
    k.block = line.block;
    k.shared_bytes = line.shared_bytes;
    k.registers_per_thread = line.registers;
    d.kernels.push_back(std::move(k));
  } else if (t == "a") {
    records::ApiRead line;
    records::read(j, line, p.begin_ns);
    ApiRecord a;
    a.name = std::move(line.name);
    a.cbid = line.line.cbid;
    a.start_ns = line.line.start;
    a.end_ns = line.line.end;
    a.process_id = line.line.process;
    a.thread_id = line.line.thread;
    a.correlation_id = line.line.correlation;
    a.return_value = line.line.result;
    d.api.push_back(std::move(a));
  } else if (t == "mc") {
    records::MemcpyLine line;
    records::read(j, line, p.begin_ns);
    MemcpyRecord m;
    m.copy_kind = std::move(line.copy_kind);
    m.bytes = line.bytes;
    copy_activity(line.span, m);
    d.memcpys.push_back(std::move(m));
  } else if (t == "ms") {
    records::MemsetLine line;
    records::read(j, line, p.begin_ns);
    MemsetRecord m;
    m.value = line.value;
    m.bytes = line.bytes;
    copy_activity(line.span, m);
    d.memsets.push_back(m);
  } else if (t == "gt") {
    records::GraphTraceLine line;
    records::read(j, line, p.begin_ns);
    GraphTraceRecord g;
    copy_span(line.span, g);
    d.graph_traces.push_back(g);
  } else if (t == "nm") {
    records::NodeCloneLine line;
    records::read(j, line);
    d.node_mappings.push_back(NodeMapping{line.exec_node, line.original_node});
  } else if (t == "dropped") {
    records::DroppedLine line;
    records::read(j, line);
    d.dropped_records += line.n;
  } else {
    return false;
  }
  return true;
}

// The lines of graphs, captures and launches; false for another kind.
bool read_graph_line(const std::string& t, const json& j, ProcessRecords& p) {
  if (t == "exec") {
    records::ExecLine line;
    records::read(j, line, p.begin_ns);
    ProfiledExec e;
    e.exec_id = line.exec;
    e.graph_id = line.graph;
    e.nodes = line.nodes;
    e.edges = line.edges;
    e.correlation_id = line.correlation;
    e.created_ns = line.ts;
    e.dot = std::move(line.dot);
    e.dot_verbose = std::move(line.dot_verbose);
    p.trace.exec_mappings.push_back(ExecMapping{e.exec_id, e.graph_id});
    p.execs.push_back(std::move(e));
  } else if (t == "capture_begin" || t == "capture_end") {
    records::CaptureLine line;
    records::read(j, line);
    CaptureCall c;
    c.begin = t == "capture_begin";
    c.stream_id = line.stream;
    c.graph_id = line.graph;
    c.correlation_id = line.correlation;
    c.return_value = line.result;
    c.mode = line.mode;
    p.captures.push_back(c);
  } else if (t == "upload" || t == "launch") {
    records::ExecCallLine line;
    records::read(j, line);
    (t == "upload" ? p.uploads : p.launches).push_back(ExecCall{line.exec, line.correlation});
  } else if (t == "ks") {
    records::KernelSwitchLine line;
    records::read(j, line, p.begin_ns);
    p.kernel_switches.push_back(KernelSwitch{line.ts, line.on, line.done_before, line.done_stream});
  } else if (t == "ks_fail") {  // the kind stayed on from there: said, as a warning of the process
    records::SwitchFailLine line;
    records::read(j, line);
    p.warnings.push_back("kernels=P%: " + line.call + " failed (result " + std::to_string(line.result) +
                         "): CONCURRENT_KERNEL stayed on from there, so untraced launches kept its cost");
  } else if (t == "ux") {  // cumulative counts: the largest is the last
    records::ExecChangesLine line;
    records::read(j, line);
    auto& c = p.exec_changes[line.exec];
    c.first = std::max(c.first, line.set_params);
    c.second = std::max(c.second, line.updates);
  } else if (t == "lx") {
    records::ExecLaunchesRead line;
    records::read(j, line);
    for (std::uint32_t c : line.correlations) p.launches.push_back(ExecCall{line.exec, c});
  } else {
    return false;
  }
  return true;
}

// The lines about the process itself; false for another kind.
bool read_process_line(const std::string& t, const json& j, ProcessRecords& p) {
  if (t == "process") {
    records::ProcessLine line;
    records::read(j, line);
    p.pid = line.pid;
    p.ppid = line.ppid;
    p.begin_ns = line.ts;
    p.trace_level = line.level == 0 ? TraceLevel::kNone : line.level == 1 ? TraceLevel::kGraph : TraceLevel::kNode;
    p.node_sampling = std::move(line.sample);
    p.command_line = std::move(line.cmdline);
    p.observed_by = observer_or_cupti(line.observed);
    p.observe_note = std::move(line.observe_note);
    p.observed_at = std::move(line.observed_at);
    p.observed_at_why = std::move(line.observed_at_why);
    p.trace.begin_ns = p.begin_ns;
  } else if (t == "error" || t == "warning") {
    records::MessageLine line;
    records::read(j, line);
    (t == "error" ? p.errors : p.warnings).push_back(std::move(line.what));
  } else if (t == "cupti_notice") {
    records::CuptiNoticeLine line;
    records::read(j, line);
    p.cupti_notices.push_back(line.kind + " " + line.result + (line.message.empty() ? "" : ": " + line.message));
  } else if (t == "rank") {
    // All fields read before any is kept: an unreadable line changes nothing.
    auto env = field<std::map<std::string, std::string>>(j, "env");
    auto host = field<std::string>(j, "host");
    p.host_from = field<std::string>(j, "host_from");
    p.host = std::move(host);
    p.rank_env = std::move(env);
  } else if (t == "device") {
    records::DeviceLine line;
    records::read(j, line);
    p.gpus.push_back(GpuIdentity{line.ordinal, std::move(line.pci), std::move(line.uuid)});
  } else if (t == "cupti_refused") {
    records::CuptiRefusedLine line;
    records::read(j, line);
    p.refused_subscribes += line.n;
    p.refused_result = std::move(line.result);
    p.refused_caller = std::move(line.caller);
  } else if (t == "end") {
    records::EndLine line;
    records::read(j, line, p.begin_ns);
    p.end_reason = std::move(line.reason);
    p.end_ns = line.ts;
    p.trace.end_ns = p.end_ns;
    p.trace.dropped_records += line.dropped;
    p.lost_buffers = line.lost_buffers;
    p.cupti_at_end = std::move(line.cupti);
  } else {
    return false;
  }
  return true;
}

// The interposer's own figures; false for another kind.
bool read_interposer_line(const std::string& t, const json& j, ProcessRecords& p) {
  if (t == "ip_cost") {
    records::InterposeCostLine line;
    records::read(j, line);
    if (!p.interpose_cost) p.interpose_cost.emplace();
    p.interpose_cost->calls = line.calls;
  } else if (t == records::kInterposeCostKind) {
    const auto timed = records::read_correlated(j, "ic", UINT32_MAX);
    if (!p.interpose_cost) p.interpose_cost.emplace();
    for (const auto& [c, n] : timed) p.interpose_cost->timed.emplace_back(c, static_cast<std::uint32_t>(n));
  } else if (t == records::kLaunchGpuKind) {
    // A graph launch longer than an hour on the GPU is no reading.
    const auto timed = records::read_correlated(j, "gl", 3600ull * 1000000000ull);
    p.launch_gpu_ns.insert(p.launch_gpu_ns.end(), timed.begin(), timed.end());
  } else if (t == "pw") {
    // A window of --overhead-windows (read by read_pause_windows): nothing for the profile.
  } else {
    return false;
  }
  return true;
}

void read_line(const json& j, ProcessRecords& p) {
  const std::string t = field<std::string>(j, "t");
  if (read_trace_line(t, j, p) || read_graph_line(t, j, p) || read_process_line(t, j, p) || read_interposer_line(t, j, p)) return;
  if (!read_site_line(t, j, p.sites, p.begin_ns)) ++p.trace.other_records;
}

}  // namespace

ProcessRecords parse_process_records(std::istream& in, const std::string& source) {
  ProcessRecords p;
  p.source = source;
  std::string line;
  std::size_t reversed = 0;
  // Lines are read in chunks and kept up to kMaxRecordLineBytes: a longer one is an unreadable line,
  // skipped without being held or parsed (a 2 GB line would cost ten times that parsed).
  char chunk[1 << 16];
  for (;;) {
    line.clear();
    bool read_any = false, too_long = false;
    for (;;) {
      in.getline(chunk, sizeof chunk);
      const auto got = static_cast<std::size_t>(in.gcount());
      if (in.bad()) break;
      const bool chunk_full = in.fail() && got == sizeof chunk - 1;  // the line goes on
      if (in.fail() && !chunk_full) break;                            // nothing left
      read_any = true;
      const std::size_t n = chunk_full || in.eof() ? got : got - 1;    // without the '\n' getline took
      if (!too_long && line.size() + n > records::kMaxRecordLineBytes) {
        too_long = true;
        line = std::string();  // its memory given back
      }
      if (!too_long) line.append(chunk, n);
      if (!chunk_full) break;
      in.clear();
    }
    if (!read_any) break;
    const bool at_end = in.eof() || in.bad();
    if (too_long) ++p.malformed_lines;
    if (too_long || line.empty()) {
      if (at_end) break;
      continue;
    }
    try {
      const json j = json::parse(line);
      if (!j.is_object()) {
        ++p.malformed_lines;
        continue;
      }
      read_line(j, p);
    } catch (const json::exception&) {
      ++p.malformed_lines;
    } catch (const EndsBeforeStart&) {
      ++p.malformed_lines;
      ++reversed;
    } catch (const std::out_of_range&) {
      ++p.malformed_lines;
    }
    if (at_end) break;
  }
  if (reversed > 0)
    p.warnings.push_back(std::to_string(reversed) +
                         (reversed == 1 ? " record ends before it starts" : " records end before they start") +
                         " (counted as unreadable lines)");
  p.trace.level = p.trace_level;
  return p;
}

namespace {

// A record file opened without blocking and only as a regular file: the application may have
// replaced it with a FIFO (which would wait for a writer forever) or a device. The stream reads
// the descriptor checked, not whatever the path names by then.
std::ifstream open_records(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) throw input_error(path + ": cannot open the profile records: " + std::strerror(errno));
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (!regular) {
    ::close(fd);
    throw input_error(path + ": the profile records are not a regular file");
  }
  std::ifstream in("/proc/self/fd/" + std::to_string(fd));
  ::close(fd);
  if (!in) throw input_error(path + ": cannot open the profile records");
  return in;
}

// A kind of line to read from the record files: the lines that contain `marker` are parsed and
// handed to `on_line` (only those: a node-level file is large).
struct LineKind {
  const char* marker;
  std::function<void(const json&)> on_line;
};

// The lines of `kinds` of every record file in `dir` (proc-*.jsonl; an unreadable one is skipped,
// the profile itself lists that process with the error), in one pass; `file_done` after each file.
void scan_record_lines(const std::string& dir, const std::vector<LineKind>& kinds, const std::function<void()>& file_done) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("proc-", 0) != 0 || entry.path().extension() != ".jsonl") continue;
    std::ifstream in;
    try {
      in = open_records(entry.path().string());
    } catch (const Error&) {
      continue;
    }
    std::string line;
    while (std::getline(in, line)) {
      for (const LineKind& k : kinds) {
        if (line.find(k.marker) == std::string::npos) continue;
        try {
          k.on_line(json::parse(line));
        } catch (const json::exception&) {
        } catch (const std::out_of_range&) {
        }
        break;
      }
    }
    file_done();
  }
}

}  // namespace

RunWindows read_run_windows(const std::string& dir, bool ranges) {
  RunWindows out;
  Observer observed = Observer::kCupti;  // the current file's process line's
  RangeWindow w;                   // the current file's ranges
  std::vector<LineKind> kinds = {
      {"{\"t\":\"process\"", [&](const json& j) { observed = observer_or_cupti(j.value("observed", std::string())); }},
      {"\"t\":\"clock\"",
       [&](const json& j) {
         records::ClockLine line;
         records::read(j, line);
         SteadyWindow s{line.exec, line.launches, line.first, line.last, line.settled, observed};
         if (s.last_ns < s.first_ns) return;
         if (s.settled_ns < s.last_ns) s.settled_ns = 0;  // not after the last launch: no end
         if (!out.steady || s.launches > out.steady->launches) out.steady = s;
       }}};
  if (ranges)
    kinds.push_back({"\"t\":\"nvtx\"", [&](const json& j) {
                       for (const auto& r : j.at("r")) {
                         const auto start = r.at(0).get<std::uint64_t>(), end = r.at(1).get<std::uint64_t>();
                         if (end < start) continue;
                         w.first_ns = w.ranges == 0 ? start : std::min(w.first_ns, start);
                         w.last_ns = std::max(w.last_ns, end);
                         ++w.ranges;
                       }
                     }});
  scan_record_lines(dir, kinds, [&] {
    if (w.ranges > 0 && (!out.range || w.ranges > out.range->ranges)) out.range = w;
    w = RangeWindow{};
    observed = Observer::kCupti;
  });
  return out;
}

std::vector<std::vector<PauseWindow>> read_pause_windows(const std::string& dir) {
  std::vector<std::vector<PauseWindow>> out;
  std::vector<PauseWindow> file;
  scan_record_lines(dir,
                    {{"\"t\":\"pw\"",
                      [&](const json& j) {
                        records::PauseWindowLine line;
                        records::read(j, line);
                        PauseWindow w;
                        w.recording = line.recording;
                        w.from_ns = line.from;
                        w.to_ns = line.to;
                        w.launches = line.launches;
                        w.span_ns = line.span;
                        if (w.to_ns <= w.from_ns) return;  // not a window: unreadable
                        file.push_back(w);
                      }}},
                    [&] {
                      if (!file.empty()) out.push_back(std::move(file));
                      file.clear();
                    });
  return out;
}

std::size_t count_cupti_processes(const std::string& dir) {
  std::size_t n = 0;
  scan_record_lines(dir, {{"{\"t\":\"process\"", [&](const json& j) { n += observer_or_cupti(j.value("observed", std::string())) == Observer::kCupti; }}},
                    [] {});
  return n;
}

std::optional<SteadyWindow> read_steady_window(const std::string& dir) { return read_run_windows(dir, false).steady; }

std::optional<RangeWindow> read_range_window(const std::string& dir) { return read_run_windows(dir, true).range; }

std::string choose_overhead_window(std::vector<OverheadRun>& runs, const std::string& range) {
  if (range.empty() || runs.empty()) return {};
  std::size_t without = 0;
  for (auto& r : runs) {
    r.range = range;
    if (r.ranges == 0 || !r.range_window_ns) ++without;
  }
  if (without == 0) {
    for (auto& r : runs) r.by_range = true;
    return {};
  }
  return "--step-range " + range + ": " + std::to_string(without) + " of the " + std::to_string(runs.size()) +
         " runs of --overhead closed no NVTX range '" + range +
         "', so the steady-state window compared is the most-launched graph's";
}

ProcessRecords read_process_records(const std::string& path) {
  std::ifstream in = open_records(path);
  return parse_process_records(in, path);
}

}  // namespace gp
