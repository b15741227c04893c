// The record lines of graphs and their launches, node sampling's switches and the interposer's
// own figures (record_lines.hpp says how the codec works; include that header, not this one).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "record_text.hpp"

namespace gp::records {

// nm {x, o}: an exec node cloned from a node of the original graph.
struct NodeCloneLine {
  std::uint64_t exec_node = 0, original_node = 0;
};

inline void write(std::string& s, const NodeCloneLine& n) {
  appendf(s, "{\"t\":\"nm\",\"x\":%llu,\"o\":%llu}\n", static_cast<unsigned long long>(n.exec_node),
          static_cast<unsigned long long>(n.original_node));
}

template <typename J>
void read(const J& j, NodeCloneLine& n) {
  n.exec_node = field<std::uint64_t>(j, "x");
  n.original_node = field<std::uint64_t>(j, "o");
}

// exec {exec, graph, nodes, edges, co, ts, dot, dot_verbose}: a graph instantiated (written by the
// injection library's callback and by the interposer).
struct ExecLine {
  std::uint32_t exec = 0, graph = 0;
  std::size_t nodes = 0, edges = 0;
  std::uint32_t correlation = 0;
  std::uint64_t ts = 0;
  std::string dot, dot_verbose;  // the dump files ("" when none)
};

inline void write(std::string& s, const ExecLine& e) {
  appendf(s, "{\"t\":\"exec\",\"exec\":%u,\"graph\":%u,\"nodes\":%zu,\"edges\":%zu,\"co\":%u,\"ts\":%llu,\"dot\":", e.exec, e.graph,
          e.nodes, e.edges, e.correlation, static_cast<unsigned long long>(e.ts));
  append_json_string(s, e.dot.c_str());
  s += ",\"dot_verbose\":";
  append_json_string(s, e.dot_verbose.c_str());
  s += "}\n";
}

template <typename J>
void read(const J& j, ExecLine& e, std::uint64_t begin_ns) {
  e.exec = field<std::uint32_t>(j, "exec");
  e.graph = field<std::uint32_t>(j, "graph");
  e.nodes = count_field(j, "nodes");
  e.edges = count_field(j, "edges");
  e.correlation = field<std::uint32_t>(j, "co");
  e.ts = timestamp(j, "ts", begin_ns, true);
  e.dot = field<std::string>(j, "dot");
  e.dot_verbose = field<std::string>(j, "dot_verbose");
}

// capture_begin {stream, mode, co, r} / capture_end {stream, graph, co, r}.
struct CaptureLine {
  bool begin = true;
  std::uint32_t stream = 0, graph = 0;  // graph: capture_end only
  int mode = -1;                        // capture_begin only
  std::uint32_t correlation = 0;
  int result = 0;
};

inline void write(std::string& s, const CaptureLine& c) {
  if (c.begin)
    appendf(s, "{\"t\":\"capture_begin\",\"stream\":%u,\"mode\":%d,\"co\":%u,\"r\":%d}\n", c.stream, c.mode, c.correlation, c.result);
  else
    appendf(s, "{\"t\":\"capture_end\",\"stream\":%u,\"graph\":%u,\"co\":%u,\"r\":%d}\n", c.stream, c.graph, c.correlation, c.result);
}

template <typename J>
void read(const J& j, CaptureLine& c) {
  c.stream = field<std::uint32_t>(j, "stream");
  c.graph = field<std::uint32_t>(j, "graph");
  c.correlation = field<std::uint32_t>(j, "co");
  c.result = field<int>(j, "r");
  c.mode = field<int>(j, "mode", -1);
}

// upload {exec, co}; launch {exec, co} (read only: older records of --trace none).
struct ExecCallLine {
  std::uint32_t exec = 0, correlation = 0;
};

inline void write(std::string& s, const ExecCallLine& u) {
  appendf(s, "{\"t\":\"upload\",\"exec\":%u,\"co\":%u}\n", u.exec, u.correlation);
}

template <typename J>
void read(const J& j, ExecCallLine& u) {
  u.exec = field<std::uint32_t>(j, "exec");
  u.correlation = field<std::uint32_t>(j, "co");
}

// ux {exec, sp, up}: the exec's SetParams calls and exec updates so far (cumulative).
struct ExecChangesLine {
  std::uint32_t exec = 0;
  std::uint64_t set_params = 0, updates = 0;
};

inline void write(std::string& s, const ExecChangesLine& u) {
  appendf(s, "{\"t\":\"ux\",\"exec\":%u,\"sp\":%llu,\"up\":%llu}\n", u.exec, static_cast<unsigned long long>(u.set_params),
          static_cast<unsigned long long>(u.updates));
}

template <typename J>
void read(const J& j, ExecChangesLine& u) {
  u.exec = field<std::uint32_t>(j, "exec");
  u.set_params = field<std::uint64_t>(j, "sp");
  u.updates = field<std::uint64_t>(j, "up");
}

// lx {exec, co: [...]}: correlation ids of launches of exec, in batches. Written from the caller's
// list (no copy).
struct ExecLaunchesLine {
  std::uint32_t exec = 0;
  const std::uint32_t* correlations = nullptr;
  std::size_t count = 0;
};

inline void write(std::string& s, const ExecLaunchesLine& l) {
  s += "{\"t\":\"lx\",\"exec\":";
  append_u64(s, l.exec);
  s += ",\"co\":";
  append_u64_list(s, l.correlations, l.count);
  s += "}\n";
}

// The read side of an lx line.
struct ExecLaunchesRead {
  std::uint32_t exec = 0;
  std::vector<std::uint32_t> correlations;
};

template <typename J>
void read(const J& j, ExecLaunchesRead& l) {
  l.exec = field<std::uint32_t>(j, "exec");
  const J& co = j.at("co");
  if (!co.is_array()) throw std::out_of_range("co: not a list");
  for (const J& c : co) l.correlations.push_back(c.template get<std::uint32_t>());
}

// clock {exec, n, first, last, settled}: per exec at exit, launches, first and last launch call's
// start, the return of the first synchronising call after the last launch (0: none).
struct ClockLine {
  std::uint32_t exec = 0;
  std::uint64_t launches = 0, first = 0, last = 0, settled = 0;
};

inline void write(std::string& s, const ClockLine& c) {
  appendf(s, "{\"t\":\"clock\",\"exec\":%u,\"n\":%llu,\"first\":%llu,\"last\":%llu,\"settled\":%llu}\n", c.exec,
          static_cast<unsigned long long>(c.launches), static_cast<unsigned long long>(c.first), static_cast<unsigned long long>(c.last),
          static_cast<unsigned long long>(c.settled));
}

template <typename J>
void read(const J& j, ClockLine& c) {
  c.exec = field<std::uint32_t>(j, "exec");
  c.launches = field<std::uint64_t>(j, "n");
  c.first = field<std::uint64_t>(j, "first");
  c.last = field<std::uint64_t>(j, "last");
  c.settled = j.value("settled", std::uint64_t{0});
}

// ks {on, ts, took, done, st}: CONCURRENT_KERNEL switched on (1) or off (0) at ts.
struct KernelSwitchLine {
  bool on = false;
  std::uint64_t ts = 0, took_ns = 0;
  std::uint32_t done_before = 0, done_stream = 0;
};

inline void write(std::string& s, const KernelSwitchLine& k) {
  appendf(s, "{\"t\":\"ks\",\"on\":%d,\"ts\":%llu,\"took\":%llu,\"done\":%u,\"st\":%u}\n", k.on ? 1 : 0,
          static_cast<unsigned long long>(k.ts), static_cast<unsigned long long>(k.took_ns), k.done_before, k.done_stream);
}

template <typename J>
void read(const J& j, KernelSwitchLine& k, std::uint64_t begin_ns) {
  k.ts = timestamp(j, "ts", begin_ns);
  k.on = field<int>(j, "on") != 0;
  k.done_before = field<std::uint32_t>(j, "done", 0u);
  k.done_stream = field<std::uint32_t>(j, "st", 0u);
}

// ks_fail {call, r}: a driver or CUPTI call of that switch failed.
struct SwitchFailLine {
  std::string call;  // a function's name (written unescaped)
  int result = 0;
};

inline void write(std::string& s, const SwitchFailLine& f) {
  appendf(s, "{\"t\":\"ks_fail\",\"call\":\"%s\",\"r\":%d}\n", f.call.c_str(), f.result);
}

template <typename J>
void read(const J& j, SwitchFailLine& f) {
  f.call = field<std::string>(j, "call");
  if (f.call.empty()) throw std::out_of_range("call: missing");
  f.result = field<int>(j, "r");
}

// ks_stats {untraced, drains, queries, not_ready, offs, on, pending}: at exit, how the switch went
// (diagnosis; not read).
struct SwitchStatsLine {
  std::uint64_t untraced = 0, drains = 0, queries = 0, not_ready = 0, offs = 0;
  bool on = false, pending = false;
};

inline void write(std::string& s, const SwitchStatsLine& k) {
  appendf(s,
          "{\"t\":\"ks_stats\",\"untraced\":%llu,\"drains\":%llu,\"queries\":%llu,\"not_ready\":%llu,\"offs\":%llu,\"on\":%d,"
          "\"pending\":%d}\n",
          static_cast<unsigned long long>(k.untraced), static_cast<unsigned long long>(k.drains), static_cast<unsigned long long>(k.queries),
          static_cast<unsigned long long>(k.not_ready), static_cast<unsigned long long>(k.offs), k.on ? 1 : 0, k.pending ? 1 : 0);
}

// ip_cost {calls, every}: interposed, at the end: calls made through the interposer, of which 1 in
// `every` was timed at random.
struct InterposeCostLine {
  std::uint64_t calls = 0;
  std::uint32_t every = 0;
};

inline void write(std::string& s, const InterposeCostLine& c) {
  appendf(s, "{\"t\":\"ip_cost\",\"calls\":%llu,\"every\":%u}\n", static_cast<unsigned long long>(c.calls), c.every);
}

template <typename J>
void read(const J& j, InterposeCostLine& c) {
  c.calls = field<std::uint64_t>(j, "calls");
}

// ic {co: [...], ns: [...]} (each timed call's correlation id and its time in the interposer) and
// gl {co: [...], ns: [...]} (graph launches timed on the GPU): (correlation id, value) pairs,
// `batch` pairs a line; `pairs` is emptied.
inline constexpr char kInterposeCostKind[] = "ic";
inline constexpr char kLaunchGpuKind[] = "gl";

template <typename V>
void write_correlated(std::string& s, const char* kind, std::vector<std::pair<std::uint32_t, V>>& pairs, std::size_t batch) {
  for (std::size_t at = 0; at < pairs.size(); at += batch) {
    const std::size_t end = pairs.size() < at + batch ? pairs.size() : at + batch;
    s += "{\"t\":\"";
    s += kind;
    s += "\",\"co\":[";
    for (std::size_t i = at; i < end; ++i) {
      if (i > at) s += ',';
      append_u64(s, pairs[i].first);
    }
    s += "],\"ns\":[";
    for (std::size_t i = at; i < end; ++i) {
      if (i > at) s += ',';
      append_u64(s, pairs[i].second);
    }
    s += "]}\n";
  }
  pairs.clear();
}

// The `co` and `ns` lists of an ic or gl line as (correlation id, value) pairs, all read before any
// is kept: a value above `max` or a list that is not counts makes the line unreadable.
template <typename J>
std::vector<std::pair<std::uint32_t, std::uint64_t>> read_correlated(const J& j, const char* kind, std::uint64_t max) {
  const auto& co = j.at("co").template get_ref<const typename J::array_t&>();
  const auto& ns = j.at("ns").template get_ref<const typename J::array_t&>();
  if (co.size() != ns.size()) throw std::out_of_range(std::string(kind) + ": co and ns differ in length");
  std::vector<std::pair<std::uint32_t, std::uint64_t>> out;
  for (std::size_t i = 0; i < co.size(); ++i) {
    if (!co[i].is_number_unsigned() || !ns[i].is_number_unsigned()) throw std::out_of_range(std::string(kind) + ": not a count");
    const std::uint64_t c = co[i].template get<std::uint64_t>(), n = ns[i].template get<std::uint64_t>();
    if (c > UINT32_MAX || n > max) throw std::out_of_range(std::string(kind) + ": value out of range");
    out.emplace_back(static_cast<std::uint32_t>(c), n);
  }
  return out;
}

// pw {rec, from, to, n, span}: a whole window of recording (rec 1) or pause (rec 0), its bounds,
// the graph launch calls in it and the time from the last launch before it to its last one.
struct PauseWindowLine {
  bool recording = false;
  std::uint64_t from = 0, to = 0, launches = 0, span = 0;
};

inline void write(std::string& s, const PauseWindowLine& w) {
  appendf(s, "{\"t\":\"pw\",\"rec\":%d,\"from\":%llu,\"to\":%llu,\"n\":%llu,\"span\":%llu}\n", w.recording ? 1 : 0,
          static_cast<unsigned long long>(w.from), static_cast<unsigned long long>(w.to), static_cast<unsigned long long>(w.launches),
          static_cast<unsigned long long>(w.span));
}

template <typename J>
void read(const J& j, PauseWindowLine& w) {
  w.recording = field<int>(j, "rec") != 0;
  w.from = field<std::uint64_t>(j, "from");
  w.to = field<std::uint64_t>(j, "to");
  w.launches = field<std::uint64_t>(j, "n");
  w.span = field<std::uint64_t>(j, "span");
}

}  // namespace gp::records
