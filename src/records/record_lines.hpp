// The record lines, one versioned codec: the files the injection libraries write
// ($GRAPHPROF_PROFILE_DIR/proc-<pid>.jsonl, one JSON object per line, "t" naming its kind) and
// `graphprof profile` reads (the top of src/profile/profile_records.cpp says what each kind means).
// Each kind has one struct and one writer, `write(std::string&, const XLine&)`, which appends the
// exact bytes of its line; the kinds the profile reads through this header have one reader,
// `read(const J&, XLine&, ...)`. The injection libraries (src/inject) include it for the writers,
// src/profile for the readers; tests/unit/record_lines_test.cpp reads back what every writer wrote.
//
// Version: the process line, the first line of every file, carries "v" (kFormatVersion); a file
// without it is version 1, the same lines before the field existed, and reads the same.
//
// Header-only, without graphprof's libraries or nlohmann/json.hpp (record_text.hpp): the readers
// are templates over the JSON type. The call-site, ledger and NVTX kinds: record_site_lines.hpp.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "record_text.hpp"

namespace gp::records {

// The format's version, written in the process line ("v"); 1: a file without it.
inline constexpr int kFormatVersion = 2;

// ---- the process ----

// process {v, pid, ppid, ts, cupti, level, sample, observed, cmdline, observed_at, observed_at_why,
// observe_note}: the first line of every file.
struct ProcessLine {
  int version = kFormatVersion;
  int pid = 0, ppid = 0;
  std::uint64_t ts = 0;
  std::uint32_t cupti = 0;  // CUPTI's version (0: interposed, no CUPTI call made)
  int level = 2;
  std::string sample;      // the node sampling rule at level 2 (plain text, written unescaped)
  std::string observed = "cupti";  // "cupti" or "interpose"
  std::string cmdline;
  std::string observed_at, observed_at_why;  // interposed: "runtime" or "driver", and why not the runtime
  std::string observe_note;                  // why interposition was asked for and not used
};

inline void write(std::string& s, const ProcessLine& p) {
  appendf(s, "{\"t\":\"process\",\"v\":%d,\"pid\":%d,\"ppid\":%d,\"ts\":%llu,\"cupti\":%u,\"level\":%d,\"sample\":\"%s\",\"observed\":\"%s\",\"cmdline\":",
          p.version, p.pid, p.ppid, static_cast<unsigned long long>(p.ts), p.cupti, p.level, p.sample.c_str(), p.observed.c_str());
  append_json_string(s, p.cmdline.c_str());
  if (!p.observed_at.empty()) appendf(s, ",\"observed_at\":\"%s\"", p.observed_at.c_str());
  if (!p.observed_at_why.empty()) {
    s += ",\"observed_at_why\":";
    append_json_string(s, p.observed_at_why.c_str());
  }
  if (!p.observe_note.empty()) {
    s += ",\"observe_note\":";
    append_json_string(s, p.observe_note.c_str());
  }
  s += "}\n";
}

template <typename J>
void read(const J& j, ProcessLine& p) {
  ProcessLine r;
  r.ts = timestamp(j, "ts", 0, true);  // read first: an unreadable line changes nothing
  r.version = field<int>(j, "v", 1);
  r.pid = field<int>(j, "pid");
  r.ppid = field<int>(j, "ppid");
  r.level = field<int>(j, "level", 2);
  r.sample = field<std::string>(j, "sample");
  r.cmdline = field<std::string>(j, "cmdline");
  r.observed = field<std::string>(j, "observed", "cupti");
  r.observe_note = field<std::string>(j, "observe_note");
  r.observed_at = field<std::string>(j, "observed_at");
  r.observed_at_why = field<std::string>(j, "observed_at_why");
  p = std::move(r);
}

// error {what}: profiling could not start; warning {what}: graphprof's remark about the process.
struct MessageLine {
  bool error = false;
  std::string what;
};

inline void write(std::string& s, const MessageLine& m) {
  s += m.error ? "{\"t\":\"error\",\"what\":" : "{\"t\":\"warning\",\"what\":";
  append_json_string(s, m.what.c_str());
  s += "}\n";
}

template <typename J>
void read(const J& j, MessageLine& m) {
  m.what = field<std::string>(j, "what");
  if (m.what.empty()) throw std::out_of_range("what: missing");  // nothing to say: an unreadable line
}

// end {reason, ts, dropped, lost_buffers, cupti[, exit_ms, probe {...}]}: the last line.
struct EndLine {
  std::string reason;
  std::uint64_t ts = 0;
  std::size_t dropped = 0;
  unsigned long long lost_buffers = 0;
  std::string cupti;  // what became of graphprof's CUPTI session
  // For diagnosis only (the injection library's end, not the interposer's): the final flush's time
  // and what the ownership probe saw.
  bool diagnosis = false;
  double exit_ms = 0;
  bool probe_enabled = false, callback_proven = false, fired = false, record_proven = false, record_seen = false,
       foreign_buffer = false;
};

inline void write(std::string& s, const EndLine& e) {
  s += "{\"t\":\"end\",\"reason\":";
  append_json_string(s, e.reason.c_str());
  appendf(s, ",\"ts\":%llu,\"dropped\":%zu,\"lost_buffers\":%llu,\"cupti\":\"%s\"", static_cast<unsigned long long>(e.ts), e.dropped,
          e.lost_buffers, e.cupti.c_str());
  if (e.diagnosis)
    appendf(s,
            ",\"exit_ms\":%.1f,\"probe\":{\"enabled\":%d,\"callback_proven\":%d,\"fired\":%d,\"record_proven\":%d,\"record_seen\":%d,"
            "\"foreign_buffer\":%d}",
            e.exit_ms, e.probe_enabled ? 1 : 0, e.callback_proven ? 1 : 0, e.fired ? 1 : 0, e.record_proven ? 1 : 0,
            e.record_seen ? 1 : 0, e.foreign_buffer ? 1 : 0);
  s += "}\n";
}

template <typename J>
void read(const J& j, EndLine& e, std::uint64_t begin_ns) {
  e.reason = field<std::string>(j, "reason");
  e.ts = timestamp(j, "ts", begin_ns, true);
  e.dropped = field<std::size_t>(j, "dropped");
  e.lost_buffers = field<std::size_t>(j, "lost_buffers");
  e.cupti = field<std::string>(j, "cupti");
}

// rank {host, host_from, env: {NAME: value}}: the launcher's rank variables.
struct RankLine {
  std::string host, host_from;
  std::vector<std::pair<std::string, std::string>> env;  // in the order written
};

inline void write(std::string& s, const RankLine& r) {
  s += "{\"t\":\"rank\",\"host\":";
  append_json_string(s, r.host.c_str());
  s += ",\"host_from\":";
  append_json_string(s, r.host_from.c_str());
  s += ",\"env\":{";
  for (std::size_t i = 0; i < r.env.size(); ++i) {
    if (i > 0) s += ',';
    append_json_string(s, r.env[i].first.c_str());
    s += ':';
    append_json_string(s, r.env[i].second.c_str());
  }
  s += "}}\n";
}

// device {ord, pci, uuid}: a GPU the process created a context on.
struct DeviceLine {
  std::uint32_t ordinal = 0;
  std::string pci, uuid;
};

inline void write(std::string& s, const DeviceLine& d) {
  appendf(s, "{\"t\":\"device\",\"ord\":%u,\"pci\":", d.ordinal);
  append_json_string(s, d.pci.c_str());
  s += ",\"uuid\":";
  append_json_string(s, d.uuid.c_str());
  s += "}\n";
}

template <typename J>
void read(const J& j, DeviceLine& d) {
  d.ordinal = field<std::uint32_t>(j, "ord");
  d.pci = field<std::string>(j, "pci");
  d.uuid = field<std::string>(j, "uuid");
}

// cupti_notice {kind, r, m}: CUPTI's own error or warning to its subscriber.
struct CuptiNoticeLine {
  std::string kind = "notice", result, message;
};

inline void write(std::string& s, const CuptiNoticeLine& n) {
  appendf(s, "{\"t\":\"cupti_notice\",\"kind\":\"%s\",\"r\":", n.kind.c_str());
  append_json_string(s, n.result.c_str());
  s += ",\"m\":";
  append_json_string(s, n.message.c_str());
  s += "}\n";
}

template <typename J>
void read(const J& j, CuptiNoticeLine& n) {
  n.message = field<std::string>(j, "m");
  n.kind = field<std::string>(j, "kind", "notice");
  n.result = field<std::string>(j, "r");
}

// cupti_refused {n, r, caller}: the application's cuptiSubscribe calls CUPTI refused.
struct CuptiRefusedLine {
  std::size_t n = 0;
  std::string result, caller;
};

inline void write(std::string& s, const CuptiRefusedLine& c) {
  s += "{\"t\":\"cupti_refused\",\"n\":";
  append_u64(s, c.n);
  s += ",\"r\":";
  append_json_string(s, c.result.c_str());
  s += ",\"caller\":";
  append_json_string(s, c.caller.c_str());
  s += "}\n";
}

template <typename J>
void read(const J& j, CuptiRefusedLine& c) {
  c.n = field<std::size_t>(j, "n");
  c.result = field<std::string>(j, "r");
  c.caller = field<std::string>(j, "caller");
}

// dropped {n}: records CUPTI dropped.
struct DroppedLine {
  std::size_t n = 0;
};

inline void write(std::string& s, const DroppedLine& d) { appendf(s, "{\"t\":\"dropped\",\"n\":%zu}\n", d.n); }

template <typename J>
void read(const J& j, DroppedLine& d) {
  d.n = field<std::size_t>(j, "n");
}

// ---- GPU work and API calls (CUPTI's activity records; the interposer's API calls) ----

// The fields kernel, memcpy and memset records share.
struct GpuSpan {
  std::uint64_t start = 0, end = 0;
  std::uint32_t device = 0, context = 0, stream = 0, correlation = 0, graph = 0;
  std::uint64_t graph_node = 0;
};

inline void append_gpu_fields(std::string& s, const GpuSpan& r) {
  appendf(s, "\"s\":%llu,\"e\":%llu,\"d\":%u,\"c\":%u,\"st\":%u,\"co\":%u,\"g\":%u,\"gn\":%llu", static_cast<unsigned long long>(r.start),
          static_cast<unsigned long long>(r.end), r.device, r.context, r.stream, r.correlation, r.graph,
          static_cast<unsigned long long>(r.graph_node));
}

// s, e (in order), d, c, st, co, g; with `node`, gn.
template <typename J>
void read_span(const J& j, GpuSpan& r, std::uint64_t begin_ns, bool node) {
  r.start = timestamp(j, "s", begin_ns);
  r.end = timestamp(j, "e", begin_ns);
  check_order(r.start, r.end);
  r.device = field<std::uint32_t>(j, "d");
  r.context = field<std::uint32_t>(j, "c");
  r.stream = field<std::uint32_t>(j, "st");
  r.correlation = field<std::uint32_t>(j, "co");
  r.graph = field<std::uint32_t>(j, "g");
  if (node) r.graph_node = field<std::uint64_t>(j, "gn");
}

// k {n, s, e, d, c, st, co, g, gn, gr, bl, sh, rg}: a kernel.
struct KernelLine {
  std::string name;
  GpuSpan span;
  std::array<int, 3> grid{0, 0, 0}, block{0, 0, 0};  // read: [0, 0, 0] where missing
  int shared_bytes = 0, registers = 0;
};

inline void write(std::string& s, const KernelLine& k) {
  s += "{\"t\":\"k\",\"n\":";
  append_json_string(s, k.name.c_str());
  s += ',';
  append_gpu_fields(s, k.span);
  appendf(s, ",\"gr\":[%d,%d,%d],\"bl\":[%d,%d,%d],\"sh\":%d,\"rg\":%d}\n", k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1],
          k.block[2], k.shared_bytes, k.registers);
}

template <typename J>
void read(const J& j, KernelLine& k, std::uint64_t begin_ns) {
  k.name = field<std::string>(j, "n");
  read_span(j, k.span, begin_ns, true);
  k.grid = int_triple(j, "gr", k.grid);
  k.block = int_triple(j, "bl", k.block);
  k.shared_bytes = field<int>(j, "sh");
  k.registers = field<int>(j, "rg");
}

// mc {k (HtoD...), b, s, e, d, c, st, co, g, gn}: a copy.
struct MemcpyLine {
  std::string copy_kind = "unknown";
  std::uint64_t bytes = 0;
  GpuSpan span;
};

inline void write(std::string& s, const MemcpyLine& m) {
  appendf(s, "{\"t\":\"mc\",\"k\":\"%s\",\"b\":%llu,", m.copy_kind.c_str(), static_cast<unsigned long long>(m.bytes));
  append_gpu_fields(s, m.span);
  s += "}\n";
}

template <typename J>
void read(const J& j, MemcpyLine& m, std::uint64_t begin_ns) {
  m.copy_kind = field<std::string>(j, "k", "unknown");
  m.bytes = field<std::uint64_t>(j, "b");
  read_span(j, m.span, begin_ns, true);
}

// ms {v, b, s, e, d, c, st, co, g, gn}: a memset.
struct MemsetLine {
  std::uint32_t value = 0;
  std::uint64_t bytes = 0;
  GpuSpan span;
};

inline void write(std::string& s, const MemsetLine& m) {
  appendf(s, "{\"t\":\"ms\",\"v\":%u,\"b\":%llu,", m.value, static_cast<unsigned long long>(m.bytes));
  append_gpu_fields(s, m.span);
  s += "}\n";
}

template <typename J>
void read(const J& j, MemsetLine& m, std::uint64_t begin_ns) {
  m.value = field<std::uint32_t>(j, "v");
  m.bytes = field<std::uint64_t>(j, "b");
  read_span(j, m.span, begin_ns, true);
}

// gt {co, g, s, e, d, c, st}: a graph launch's span on the GPU (--trace graph).
struct GraphTraceLine {
  GpuSpan span;  // without graph_node
};

inline void write(std::string& s, const GraphTraceLine& g) {
  appendf(s, "{\"t\":\"gt\",\"co\":%u,\"g\":%u,\"s\":%llu,\"e\":%llu,\"d\":%u,\"c\":%u,\"st\":%u}\n", g.span.correlation, g.span.graph,
          static_cast<unsigned long long>(g.span.start), static_cast<unsigned long long>(g.span.end), g.span.device, g.span.context,
          g.span.stream);
}

template <typename J>
void read(const J& j, GraphTraceLine& g, std::uint64_t begin_ns) {
  read_span(j, g.span, begin_ns, false);
}

// a {n, cb, dr (1: driver API), s, e, p, th, co, r}: an API call (CUPTI's record, or the
// interposer's: cb 0, the analysis goes by the name). Written without printf: the interposer writes
// one per call.
struct ApiLine {
  const char* name = "";  // without CUPTI's version suffix
  std::uint32_t cbid = 0;
  bool driver = false;
  std::uint64_t start = 0, end = 0;
  std::uint32_t process = 0, thread = 0, correlation = 0, result = 0;
};

inline void write(std::string& s, const ApiLine& a) {
  s += "{\"t\":\"a\",\"n\":";
  append_json_string(s, a.name);
  s += ",\"cb\":";
  append_u64(s, a.cbid);
  s += a.driver ? ",\"dr\":1,\"s\":" : ",\"dr\":0,\"s\":";
  append_u64(s, a.start);
  s += ",\"e\":";
  append_u64(s, a.end);
  s += ",\"p\":";
  append_u64(s, a.process);
  s += ",\"th\":";
  append_u64(s, a.thread);
  s += ",\"co\":";
  append_u64(s, a.correlation);
  s += ",\"r\":";
  append_u64(s, a.result);
  s += "}\n";
}

// The read side of an `a` line (its name is a string of its own).
struct ApiRead {
  std::string name;
  ApiLine line;
};

template <typename J>
void read(const J& j, ApiRead& a, std::uint64_t begin_ns) {
  a.name = field<std::string>(j, "n");
  a.line.cbid = field<std::uint32_t>(j, "cb");
  a.line.start = timestamp(j, "s", begin_ns);
  a.line.end = timestamp(j, "e", begin_ns);
  check_order(a.line.start, a.line.end);
  a.line.process = field<std::uint32_t>(j, "p");
  a.line.thread = field<std::uint32_t>(j, "th");
  a.line.correlation = field<std::uint32_t>(j, "co");
  a.line.result = field<std::uint32_t>(j, "r");
}

// mem_op {op (1 alloc, 2 free), mk, b, a, ts, co, st, async, pt, pa}: CUPTI's MEMORY2 record, and
// the interposer's allocations and frees in the same line.
struct MemoryOpLine {
  int op = 0, memory_kind = 0;
  std::uint64_t bytes = 0, address = 0, ts = 0;
  std::uint32_t correlation = 0, stream = 0;
  bool is_async = false;
  int pool_type = 0;
  std::uint64_t pool_address = 0;
};

inline void write(std::string& s, const MemoryOpLine& m) {
  appendf(s, "{\"t\":\"mem_op\",\"op\":%d,\"mk\":%d,\"b\":%llu,\"a\":%llu,\"ts\":%llu,\"co\":%u,\"st\":%u,\"async\":%u,\"pt\":%d,\"pa\":%llu}\n",
          m.op, m.memory_kind, static_cast<unsigned long long>(m.bytes), static_cast<unsigned long long>(m.address),
          static_cast<unsigned long long>(m.ts), m.correlation, m.stream, m.is_async ? 1u : 0u, m.pool_type,
          static_cast<unsigned long long>(m.pool_address));
}

template <typename J>
void read(const J& j, MemoryOpLine& m, std::uint64_t begin_ns) {
  m.op = field<int>(j, "op");
  m.memory_kind = field<int>(j, "mk");
  m.pool_type = field<int>(j, "pt");
  m.bytes = field<std::uint64_t>(j, "b");
  m.address = field<std::uint64_t>(j, "a");
  m.ts = timestamp(j, "ts", begin_ns, true);
  m.pool_address = field<std::uint64_t>(j, "pa");
  m.correlation = field<std::uint32_t>(j, "co");
  m.is_async = field<std::uint32_t>(j, "async") != 0;
}

}  // namespace gp::records

#include "record_graph_lines.hpp"
#include "record_site_lines.hpp"
