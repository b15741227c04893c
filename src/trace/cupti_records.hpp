// CUPTI activity records and graph callbacks -> the plain records of trace_records.hpp: the
// Converter the CUPTI session feeds its buffers to (cupti_session.cpp), and the test seam's
// synthetic records (cupti_records.cpp). Private to src/trace.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>

#include "cupti_api.hpp"
#include "graphprof/core/copy_kind.hpp"
#include "graphprof/trace/trace_records.hpp"

namespace gp {

// CUPTI's callback names carry the API version ("cudaGraphLaunch_v10000"); users know the API.
inline std::string strip_version_suffix(std::string name) {
  const std::size_t v = name.rfind("_v");
  if (v != std::string::npos && v + 2 < name.size() &&
      std::all_of(name.begin() + static_cast<std::ptrdiff_t>(v) + 2, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
    name.resize(v);
  return name;
}

static_assert(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD == 1 && CUPTI_ACTIVITY_MEMCPY_KIND_DTOD == 8 &&
                  CUPTI_ACTIVITY_MEMCPY_KIND_PTOP == 10,
              "CUPTI renumbered its memcpy kinds: update include/graphprof/core/copy_kind.hpp");

// The fields of GpuSpan (kernel, memcpy, memset and graph trace records) and GpuActivity (not graph
// traces). (For memcpy, runtimeCorrelationId was always 0 on CUDA 13.0; correlationId matches the
// API record.)
template <typename Cupti>
void copy_span(const Cupti& c, GpuSpan& x) {
  x.start_ns = c.start;
  x.end_ns = c.end;
  x.device_id = c.deviceId;
  x.context_id = c.contextId;
  x.stream_id = c.streamId;
  x.correlation_id = c.correlationId;
  x.graph_id = c.graphId;
}

template <typename Cupti>
void copy_activity(const Cupti& c, GpuActivity& x) {
  copy_span(c, x);
  x.graph_node_id = c.graphNodeId;
}

// Converts CUPTI records into plain ones. API names are looked up once per cbid.
class Converter {
 public:
  void convert(const CUpti_Activity* r, TraceData& out) {
    switch (r->kind) {
      case CUPTI_ACTIVITY_KIND_KERNEL:
      case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(r);
        KernelRecord x;
        x.name = k->name ? k->name : "(unnamed kernel)";
        copy_activity(*k, x);
        x.grid = {{k->gridX, k->gridY, k->gridZ}};
        x.block = {{k->blockX, k->blockY, k->blockZ}};
        x.shared_bytes = k->staticSharedMemory + k->dynamicSharedMemory;
        x.registers_per_thread = k->registersPerThread;
        out.kernels.push_back(std::move(x));
        return;
      }
      case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(r);
        MemcpyRecord x;
        x.copy_kind = copy_kind_name(m->copyKind);
        x.bytes = m->bytes;
        copy_activity(*m, x);
        out.memcpys.push_back(std::move(x));
        return;
      }
      case CUPTI_ACTIVITY_KIND_MEMSET: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(r);
        MemsetRecord x;
        x.value = m->value;
        x.bytes = m->bytes;
        copy_activity(*m, x);
        out.memsets.push_back(x);
        return;
      }
      case CUPTI_ACTIVITY_KIND_RUNTIME:
      case CUPTI_ACTIVITY_KIND_DRIVER: {
        const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(r);
        ApiRecord x;
        x.name = api_name(r->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API,
                          a->cbid);
        x.cbid = a->cbid;
        x.start_ns = a->start;
        x.end_ns = a->end;
        x.process_id = a->processId;
        x.thread_id = a->threadId;
        x.correlation_id = a->correlationId;
        x.return_value = a->returnValue;
        out.api.push_back(std::move(x));
        return;
      }
      case CUPTI_ACTIVITY_KIND_MARKER: {
        const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(r);
        MarkerRecord x;
        const auto flags = static_cast<std::uint32_t>(m->flags);
        if (flags & CUPTI_ACTIVITY_FLAG_MARKER_START) x.kind = MarkerRecord::Kind::kStart;
        else if (flags & CUPTI_ACTIVITY_FLAG_MARKER_END) x.kind = MarkerRecord::Kind::kEnd;
        else x.kind = MarkerRecord::Kind::kInstant;
        x.timestamp_ns = m->timestamp;
        x.id = m->id;
        if (m->name) x.name = m->name;
        if (m->domain) x.domain = m->domain;
        if (m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || m->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
          x.process_id = m->objectId.pt.processId;
          x.thread_id = m->objectId.pt.threadId;
        }
        out.markers.push_back(std::move(x));
        return;
      }
      case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
        const auto* g = reinterpret_cast<const CUpti_ActivityGraphTrace2*>(r);
        GraphTraceRecord x;
        copy_span(*g, x);
        out.graph_traces.push_back(x);
        return;
      }
      default:
        ++out.other_records;
        return;
    }
  }

 private:
  const std::string& api_name(CUpti_CallbackDomain domain, std::uint32_t cbid) {
    const std::uint64_t key = (static_cast<std::uint64_t>(domain) << 32) | cbid;
    auto it = names_.find(key);
    if (it != names_.end()) return it->second;
    const char* name = nullptr;
    std::string text = (cupti().loaded() && cupti().cuptiGetCallbackName(domain, cbid, &name) == CUPTI_SUCCESS && name != nullptr)
                           ? strip_version_suffix(name)
                           : "cbid " + std::to_string(cbid);
    return names_.emplace(key, std::move(text)).first->second;
  }

  std::unordered_map<std::uint64_t, std::string> names_;
};

}  // namespace gp
