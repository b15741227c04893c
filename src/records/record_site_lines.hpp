// The record lines of call sites, the memory ledger and NVTX step ranges (record_lines.hpp says
// how the codec works; include that header, not this one). The site line's reader is in
// src/profile/site_records.cpp.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "record_text.hpp"

namespace gp::records {

// site {s, api, n: [[module, offset "0x..", function, function offset]...], ni, mi: [[module, build
// id, size, mtime]...], py: [[file, line, function]...]}: a distinct call stack, innermost first.
struct SiteLine {
  struct Native {
    std::string module;
    std::uint64_t offset = 0;
    std::string function;
    std::uint64_t function_offset = 0;
  };
  struct Module {
    std::string path, build_id;
    std::uint64_t size = 0;
    long long mtime = 0;
  };
  struct Python {
    std::string file;
    int line = 0;
    std::string function;
  };
  std::uint32_t id = 0;
  std::string api;
  std::vector<Native> native;
  std::size_t internal = 0;     // frames that led into the callback, left out
  std::vector<Module> modules;  // "mi": written when not empty
  bool python = false;          // "py": written when the stack was taken on a Python thread
  std::vector<Python> py;
};

inline void write(std::string& s, const SiteLine& u) {
  appendf(s, "{\"t\":\"site\",\"s\":%u,\"api\":", u.id);
  append_json_string(s, u.api.c_str());
  s += ",\"n\":[";
  for (std::size_t i = 0; i < u.native.size(); ++i) {
    const SiteLine::Native& f = u.native[i];
    s += i > 0 ? ",[" : "[";
    append_json_string(s, f.module.c_str());
    appendf(s, ",\"0x%llx\",", static_cast<unsigned long long>(f.offset));
    append_json_string(s, f.function.c_str());
    appendf(s, ",%llu]", static_cast<unsigned long long>(f.function_offset));
  }
  appendf(s, "],\"ni\":%zu", u.internal);
  if (!u.modules.empty()) {
    s += ",\"mi\":[";
    for (std::size_t i = 0; i < u.modules.size(); ++i) {
      const SiteLine::Module& m = u.modules[i];
      s += i > 0 ? ",[" : "[";
      append_json_string(s, m.path.c_str());
      s += ',';
      append_json_string(s, m.build_id.c_str());
      appendf(s, ",%llu,%lld]", static_cast<unsigned long long>(m.size), m.mtime);
    }
    s += "]";
  }
  if (u.python) {
    s += ",\"py\":[";
    for (std::size_t i = 0; i < u.py.size(); ++i) {
      s += i > 0 ? ",[" : "[";
      append_json_string(s, u.py[i].file.c_str());
      appendf(s, ",%d,", u.py[i].line);
      append_json_string(s, u.py[i].function.c_str());
      s += "]";
    }
    s += "]";
  }
  s += "}\n";
}

// A line's `co` list of correlation ids, all read before any is kept: a bad line adds nothing.
template <typename J>
std::vector<std::uint32_t> read_correlation_ids(const J& j) {
  std::vector<std::uint32_t> calls;
  for (const J& co : j.at("co").template get_ref<const typename J::array_t&>()) {
    if (!co.is_number_unsigned()) throw std::out_of_range("co: not a non-negative integer");
    const std::uint64_t c = co.template get<std::uint64_t>();
    if (c > UINT32_MAX) throw std::out_of_range("co: not a correlation id");
    calls.push_back(static_cast<std::uint32_t>(c));
  }
  return calls;
}

// The read side of an sc or ap line: its site, w (sc) or k (ap), and its calls.
struct SiteCallsRead {
  std::uint32_t site = 0;
  std::uint32_t weight = 1;  // sc
  std::size_t shared = 0;    // ap
  std::vector<std::uint32_t> correlations;
};

// sc {s, w, co: [...]}: correlation ids of calls made from site s; w (written when not 1): how many
// calls each stands for (sampled calls).
struct SiteCallsLine {
  std::size_t site = 0;
  std::uint32_t weight = 1;
  const std::uint32_t* correlations = nullptr;
  std::size_t count = 0;
};

inline void write(std::string& s, const SiteCallsLine& c) {
  appendf(s, "{\"t\":\"sc\",\"s\":%zu,", c.site);
  if (c.weight != 1) appendf(s, "\"w\":%u,", c.weight);
  s += "\"co\":";
  append_u64_list(s, c.correlations, c.count);
  s += "}\n";
}

template <typename J>
void read_site_calls(const J& j, SiteCallsRead& c) {
  c.site = field<std::uint32_t>(j, "s");
  c.correlations = read_correlation_ids(j);
  c.weight = field<std::uint32_t>(j, "w", 1u);
  if (c.weight == 0) throw std::out_of_range("w: a sampled call stands for at least itself");
}

// ap {s, k, co: [...]}: allocations without Python frames made inside the same call from Python as
// a later call of site s (k native frames in common there).
struct AllocationPythonLine {
  std::uint32_t site = 0;
  std::size_t shared = 0;
  const std::uint32_t* correlations = nullptr;
  std::size_t count = 0;
};

inline void write(std::string& s, const AllocationPythonLine& a) {
  appendf(s, "{\"t\":\"ap\",\"s\":%u,\"k\":%zu,\"co\":", a.site, a.shared);
  append_u64_list(s, a.correlations, a.count);
  s += "}\n";
}

template <typename J>
void read_allocation_python(const J& j, SiteCallsRead& a) {
  a.site = field<std::uint32_t>(j, "s");
  a.shared = field<std::size_t>(j, "k");
  a.correlations = read_correlation_ids(j);
}

// site_cost {calls, ns, new, new_ns, full_unwinds, skipped, first, every, every_max, named, named_ns}:
// what taking the call sites cost the calling threads.
struct SiteCostLine {
  std::uint64_t calls = 0, ns = 0, new_sites = 0, new_ns = 0, full_unwinds = 0, skipped = 0;
  std::uint32_t first = 0, every = 1, every_max = 1;
  std::uint64_t named = 0, named_ns = 0;
};

inline void write(std::string& s, const SiteCostLine& c) {
  appendf(s,
          "{\"t\":\"site_cost\",\"calls\":%llu,\"ns\":%llu,\"new\":%llu,\"new_ns\":%llu,\"full_unwinds\":%llu,\"skipped\":%llu,"
          "\"first\":%u,\"every\":%u,\"every_max\":%u,\"named\":%llu,\"named_ns\":%llu}\n",
          static_cast<unsigned long long>(c.calls), static_cast<unsigned long long>(c.ns), static_cast<unsigned long long>(c.new_sites),
          static_cast<unsigned long long>(c.new_ns), static_cast<unsigned long long>(c.full_unwinds),
          static_cast<unsigned long long>(c.skipped), c.first, c.every, c.every_max, static_cast<unsigned long long>(c.named),
          static_cast<unsigned long long>(c.named_ns));
}

template <typename J>
void read(const J& j, SiteCostLine& c) {
  c = SiteCostLine{field<std::uint64_t>(j, "calls"), field<std::uint64_t>(j, "ns"), field<std::uint64_t>(j, "new"),
                   field<std::uint64_t>(j, "new_ns"), field<std::uint64_t>(j, "full_unwinds"), field<std::uint64_t>(j, "skipped", std::uint64_t{0}),
                   field<std::uint32_t>(j, "first", 0u), std::max(1u, field<std::uint32_t>(j, "every", 1u)),
                   std::max(1u, field<std::uint32_t>(j, "every_max", field<std::uint32_t>(j, "every", 1u))),
                   field<std::uint64_t>(j, "named", std::uint64_t{0}), field<std::uint64_t>(j, "named_ns", std::uint64_t{0})};
}

// py {mode, held, taken, wait_ns, slow, stopped, can_take}: how the Python stacks were read.
struct PythonFramesLine {
  std::string mode;  // written unescaped
  std::uint64_t held = 0, taken = 0, wait_ns = 0, slow = 0;
  bool stopped = false, can_take = false;
};

inline void write(std::string& s, const PythonFramesLine& p) {
  appendf(s, "{\"t\":\"py\",\"mode\":\"%s\",\"held\":%llu,\"taken\":%llu,\"wait_ns\":%llu,\"slow\":%llu,\"stopped\":%d,\"can_take\":%d}\n",
          p.mode.c_str(), static_cast<unsigned long long>(p.held), static_cast<unsigned long long>(p.taken),
          static_cast<unsigned long long>(p.wait_ns), static_cast<unsigned long long>(p.slow), p.stopped ? 1 : 0, p.can_take ? 1 : 0);
}

template <typename J>
void read(const J& j, PythonFramesLine& p) {
  p.mode = field<std::string>(j, "mode");
  p.held = field<std::uint64_t>(j, "held");
  p.taken = field<std::uint64_t>(j, "taken");
  p.wait_ns = field<std::uint64_t>(j, "wait_ns");
  p.slow = field<std::uint64_t>(j, "slow");
  p.stopped = field<int>(j, "stopped") != 0;
  p.can_take = field<int>(j, "can_take") != 0;
}

// mem {at, co, ts, free, total, gu, guh, gr, grh}: free device memory and the graph-memory pool
// (used/reserved, current/high) around a graph call (co) or at the end.
struct MemorySampleLine {
  std::string at;  // written unescaped
  std::uint32_t correlation = 0;
  std::uint64_t ts = 0;
  std::size_t free = 0, total = 0;
  unsigned long long graph_used = 0, graph_used_high = 0, graph_reserved = 0, graph_reserved_high = 0;
};

inline void write(std::string& s, const MemorySampleLine& m) {
  appendf(s, "{\"t\":\"mem\",\"at\":\"%s\",\"co\":%u,\"ts\":%llu,\"free\":%zu,\"total\":%zu,\"gu\":%llu,\"guh\":%llu,\"gr\":%llu,\"grh\":%llu}\n",
          m.at.c_str(), m.correlation, static_cast<unsigned long long>(m.ts), m.free, m.total, m.graph_used, m.graph_used_high,
          m.graph_reserved, m.graph_reserved_high);
}

template <typename J>
void read(const J& j, MemorySampleLine& m, std::uint64_t begin_ns) {
  m.at = field<std::string>(j, "at");
  m.correlation = field<std::uint32_t>(j, "co");
  m.ts = timestamp(j, "ts", begin_ns, true);
  m.free = field<std::uint64_t>(j, "free");
  m.total = field<std::uint64_t>(j, "total");
  m.graph_used = field<std::uint64_t>(j, "gu");
  m.graph_used_high = field<std::uint64_t>(j, "guh");
  m.graph_reserved = field<std::uint64_t>(j, "gr");
  m.graph_reserved_high = field<std::uint64_t>(j, "grh");
}

// mem_nodes {exec, graph, allocs, bytes, frees}: memory nodes of an instantiated graph.
struct MemoryNodesLine {
  std::uint32_t exec = 0, graph = 0;
  std::size_t allocs = 0;
  unsigned long long bytes = 0;
  std::size_t frees = 0;
};

inline void write(std::string& s, const MemoryNodesLine& m) {
  appendf(s, "{\"t\":\"mem_nodes\",\"exec\":%u,\"graph\":%u,\"allocs\":%zu,\"bytes\":%llu,\"frees\":%zu}\n", m.exec, m.graph, m.allocs,
          m.bytes, m.frees);
}

template <typename J>
void read(const J& j, MemoryNodesLine& m) {
  m.exec = field<std::uint32_t>(j, "exec");
  m.graph = field<std::uint32_t>(j, "graph");
  m.allocs = field<std::size_t>(j, "allocs");
  m.frees = field<std::size_t>(j, "frees");
  m.bytes = field<std::uint64_t>(j, "bytes");
}

// vmm {co, ts, b}: cuMemCreate of b bytes.
struct VmmLine {
  std::uint32_t correlation = 0;
  std::uint64_t ts = 0, bytes = 0;
};

inline void write(std::string& s, const VmmLine& v) {
  appendf(s, "{\"t\":\"vmm\",\"co\":%u,\"ts\":%llu,\"b\":%llu}\n", v.correlation, static_cast<unsigned long long>(v.ts),
          static_cast<unsigned long long>(v.bytes));
}

template <typename J>
void read(const J& j, VmmLine& v, std::uint64_t begin_ns) {
  v.correlation = field<std::uint32_t>(j, "co");
  v.ts = timestamp(j, "ts", begin_ns, true);
  v.bytes = field<std::uint64_t>(j, "b");
}

// proc_start {ts, resolution_ns}: when the process started (one clock tick).
struct ProcessStartLine {
  unsigned long long ts = 0;
  long long resolution_ns = 0;
};

inline void write(std::string& s, const ProcessStartLine& p) {
  appendf(s, "{\"t\":\"proc_start\",\"ts\":%llu,\"resolution_ns\":%lld}\n", p.ts, p.resolution_ns);
}

template <typename J>
void read(const J& j, ProcessStartLine& p, std::uint64_t begin_ns) {
  p.ts = timestamp(j, "ts", begin_ns, true);
  p.resolution_ns = static_cast<long long>(field<std::uint64_t>(j, "resolution_ns"));
}

// step_range {name}: --step-range NAME was given.
struct StepRangeLine {
  std::string name;
};

inline void write(std::string& s, const StepRangeLine& r) {
  s += "{\"t\":\"step_range\",\"name\":";
  append_json_string(s, r.name.c_str());
  s += "}\n";
}

template <typename J>
void read(const J& j, StepRangeLine& r) {
  r.name = field<std::string>(j, "name");
}

// nvtx {r: [[start, end], ...]}: NVTX ranges named NAME, in batches.
struct NvtxRangesLine {
  const std::pair<std::uint64_t, std::uint64_t>* ranges = nullptr;
  std::size_t count = 0;
};

inline void write(std::string& s, const NvtxRangesLine& n) {
  s += "{\"t\":\"nvtx\",\"r\":[";
  for (std::size_t i = 0; i < n.count; ++i)
    appendf(s, "%s[%llu,%llu]", i > 0 ? "," : "", static_cast<unsigned long long>(n.ranges[i].first),
            static_cast<unsigned long long>(n.ranges[i].second));
  s += "]}\n";
}

// The ranges of an nvtx line, all read before any is kept.
template <typename J>
std::vector<std::pair<std::uint64_t, std::uint64_t>> read_nvtx_ranges(const J& j) {
  const auto non_negative = [](const J& v) {
    if (!v.is_number_unsigned()) throw std::out_of_range("not a non-negative integer");
    return v.template get<std::uint64_t>();
  };
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (const J& r : j.at("r").template get_ref<const typename J::array_t&>()) {
    const std::uint64_t start = non_negative(r.at(0)), end = non_negative(r.at(1));
    if (end < start) throw std::out_of_range("r: a range that ends before it starts");
    ranges.emplace_back(start, end);
  }
  return ranges;
}

// nvtx_end {inits, others, open}: at exit, NVTX initialisations of the library, ranges of other
// names, NAME ranges never ended.
struct NvtxEndLine {
  unsigned inits = 0;
  unsigned long long others = 0;
  long long open = 0;
};

inline void write(std::string& s, const NvtxEndLine& n) {
  appendf(s, "{\"t\":\"nvtx_end\",\"inits\":%u,\"others\":%llu,\"open\":%lld}\n", n.inits, n.others, n.open);
}

// The read side of an nvtx_end line (its counts as the reader keeps them).
struct NvtxEndRead {
  std::uint64_t inits = 0, others = 0, open = 0;
};

template <typename J>
void read(const J& j, NvtxEndRead& n) {
  n.inits = field<std::uint64_t>(j, "inits");
  n.others = field<std::uint64_t>(j, "others");
  n.open = field<std::uint64_t>(j, "open");
}

}  // namespace gp::records
