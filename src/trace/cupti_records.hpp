// CUPTI activity records -> the plain records of trace_records.hpp: the Converter the CUPTI session
// feeds its buffers to (cupti_session.cpp), reading each record through cupti_activity.hpp (the
// mapping the injection library's line writer shares), and the test seam's synthetic records
// (cupti_records.cpp). Private to src/trace.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "cupti_activity.hpp"
#include "cupti_api.hpp"
#include "graphprof/trace/trace_records.hpp"

namespace gp {

// Converts CUPTI records into plain ones. API names are looked up once per cbid.
class Converter {
 public:
  void convert(const CUpti_Activity* r, TraceData& out) {
    Sink sink{*this, out};
    cupti_activity::read(r, sink);
  }

 private:
  // The plain records of trace_records.hpp from the views of cupti_activity.hpp.
  struct Sink {
    Converter& self;
    TraceData& out;

    static void copy(const cupti_activity::Span& c, GpuSpan& x) {
      x.start_ns = c.start;
      x.end_ns = c.end;
      x.device_id = c.device;
      x.context_id = c.context;
      x.stream_id = c.stream;
      x.correlation_id = c.correlation;
      x.graph_id = c.graph;
    }
    static void copy(const cupti_activity::Span& c, GpuActivity& x) {
      copy(c, static_cast<GpuSpan&>(x));
      x.graph_node_id = c.graph_node;
    }
    void operator()(const cupti_activity::Kernel& k) {
      KernelRecord x;
      copy(k.span, x);
      x.name = k.name;
      x.grid = {{k.grid[0], k.grid[1], k.grid[2]}};
      x.block = {{k.block[0], k.block[1], k.block[2]}};
      x.shared_bytes = k.shared_bytes;
      x.registers_per_thread = k.registers;
      out.kernels.push_back(std::move(x));
    }
    void operator()(const cupti_activity::Memcpy& m) {
      MemcpyRecord x;
      copy(m.span, x);
      x.copy_kind = m.copy_kind;
      x.bytes = m.bytes;
      out.memcpys.push_back(std::move(x));
    }
    void operator()(const cupti_activity::Memset& m) {
      MemsetRecord x;
      copy(m.span, x);
      x.value = m.value;
      x.bytes = m.bytes;
      out.memsets.push_back(x);
    }
    void operator()(const cupti_activity::Api& a) {
      ApiRecord x;
      x.name = self.api_name(a.domain, a.cbid);
      x.cbid = a.cbid;
      x.start_ns = a.start;
      x.end_ns = a.end;
      x.process_id = a.process;
      x.thread_id = a.thread;
      x.correlation_id = a.correlation;
      x.return_value = a.return_value;
      out.api.push_back(std::move(x));
    }
    void operator()(const cupti_activity::Marker& m) {
      MarkerRecord x;
      x.kind = m.kind == cupti_activity::Marker::Kind::kStart ? MarkerRecord::Kind::kStart
               : m.kind == cupti_activity::Marker::Kind::kEnd ? MarkerRecord::Kind::kEnd
                                                                : MarkerRecord::Kind::kInstant;
      x.timestamp_ns = m.timestamp;
      x.id = m.id;
      if (m.name) x.name = m.name;
      if (m.domain) x.domain = m.domain;
      if (m.on_thread) {
        x.process_id = m.process;
        x.thread_id = m.thread;
      }
      out.markers.push_back(std::move(x));
    }
    void operator()(const cupti_activity::GraphTrace& g) {
      GraphTraceRecord x;
      copy(g.span, x);
      out.graph_traces.push_back(x);
    }
    // The trace pass does not enable MEMORY2; counted with the kinds it does not keep.
    void operator()(const cupti_activity::Memory&) { ++out.other_records; }
    void other(CUpti_ActivityKind) { ++out.other_records; }
  };

  const std::string& api_name(CUpti_CallbackDomain domain, std::uint32_t cbid) {
    const std::uint64_t key = (static_cast<std::uint64_t>(domain) << 32) | cbid;
    auto it = names_.find(key);
    if (it != names_.end()) return it->second;
    const char* name = nullptr;
    std::string text = (cupti().loaded() && cupti().cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name != nullptr)
                           ? cupti_activity::strip_version_suffix(name)
                           : "cbid " + std::to_string(cbid);
    return names_.emplace(key, std::move(text)).first->second;
  }

  std::unordered_map<std::uint64_t, std::string> names_;
};

}  // namespace gp
