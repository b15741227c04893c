// The one reading of CUPTI's activity records: which record struct (and version) each kind is,
// which of its fields graphprof keeps and what they mean. Two writers consume it: the trace
// session's Converter (cupti_records.hpp: plain records in memory) and the injection library's
// line writer (src/inject/cupti_inject/activity_lines.hpp: the line files `profile` reads). A CPU test feeds the
// same synthetic records to both and checks they agree (tests/unit/trace_cupti_conversion_test.cpp).
// Header-only and private to the CUPTI files: it includes cupti.h and nothing of graphprof but
// core/copy_kind.hpp.
#pragma once
#include <cupti.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "graphprof/core/copy_kind.hpp"

namespace gp::cupti_activity {

static_assert(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD == 1 && CUPTI_ACTIVITY_MEMCPY_KIND_DTOD == 8 &&
                  CUPTI_ACTIVITY_MEMCPY_KIND_PTOP == 10,
              "CUPTI renumbered its memcpy kinds: update include/graphprof/core/copy_kind.hpp");

// CUPTI's callback names carry the API version ("cudaGraphLaunch_v10000"); users know the API.
inline std::string strip_version_suffix(std::string name) {
  const std::size_t v = name.rfind("_v");
  if (v != std::string::npos && v + 2 < name.size() &&
      std::all_of(name.begin() + static_cast<std::ptrdiff_t>(v) + 2, name.end(), [](char c) { return c >= '0' && c <= '9'; }))
    name.resize(v);
  return name;
}

// The fields every GPU record shares. For memcpy, runtimeCorrelationId was always 0 on CUDA 13.0;
// correlationId matches the API record. graph_node is 0 for graph traces (a whole launch).
struct Span {
  std::uint64_t start = 0, end = 0;
  std::uint32_t device = 0, context = 0, stream = 0, correlation = 0, graph = 0;
  std::uint64_t graph_node = 0;
};

struct Kernel {
  Span span;
  const char* name = nullptr;  // never null: "(unnamed kernel)" when CUPTI gives none
  int grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  int shared_bytes = 0;  // static + dynamic
  int registers = 0;
};

struct Memcpy {
  Span span;
  const char* copy_kind = "";  // core/copy_kind.hpp's name ("HtoD", ...)
  std::uint64_t bytes = 0;
};

struct Memset {
  Span span;
  std::uint32_t value = 0;
  std::uint64_t bytes = 0;
};

struct Api {
  bool runtime = true;  // false: the driver API
  CUpti_CallbackDomain domain = CUPTI_CB_DOMAIN_RUNTIME_API;
  std::uint32_t cbid = 0;
  std::uint64_t start = 0, end = 0;
  std::uint32_t process = 0, thread = 0, correlation = 0, return_value = 0;
};

struct Marker {
  enum class Kind { kInstant, kStart, kEnd };
  Kind kind = Kind::kInstant;
  std::uint64_t timestamp = 0;
  std::uint32_t id = 0;
  const char* name = nullptr;    // null on kEnd
  const char* domain = nullptr;  // null for NVTX's default domain
  bool on_thread = false;        // process/thread below are known
  std::uint32_t process = 0, thread = 0;
};

struct GraphTrace {
  Span span;
};

// An allocation or free (MEMORY2), cudaMallocAsync pools included.
struct Memory {
  int operation = 0;    // CUpti_ActivityMemoryOperationType: 1 allocation, 2 release
  int memory_kind = 0;  // CUpti_ActivityMemoryKind
  std::uint64_t bytes = 0, address = 0, timestamp = 0;
  std::uint32_t correlation = 0, stream = 0, is_async = 0;
  int pool_type = 0;  // CUpti_ActivityMemoryPoolType
  std::uint64_t pool_address = 0;
};

namespace detail {
template <typename R>
Span span_of(const R& r) {
  Span s;
  s.start = r.start;
  s.end = r.end;
  s.device = r.deviceId;
  s.context = r.contextId;
  s.stream = r.streamId;
  s.correlation = r.correlationId;
  s.graph = r.graphId;
  return s;
}
}  // namespace detail

// Hands one record to `sink` as the plain view of its kind: sink(const Kernel&), sink(const Memcpy&),
// sink(const Memset&), sink(const Api&), sink(const Marker&), sink(const GraphTrace&),
// sink(const Memory&); any other kind goes to sink.other(kind). A sink ignores what it does not keep.
template <typename Sink>
void read(const CUpti_Activity* r, Sink& sink) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(r);
      Kernel x;
      x.span = detail::span_of(*k);
      x.span.graph_node = k->graphNodeId;
      x.name = k->name ? k->name : "(unnamed kernel)";
      x.grid[0] = k->gridX, x.grid[1] = k->gridY, x.grid[2] = k->gridZ;
      x.block[0] = k->blockX, x.block[1] = k->blockY, x.block[2] = k->blockZ;
      x.shared_bytes = static_cast<int>(k->staticSharedMemory + k->dynamicSharedMemory);
      x.registers = k->registersPerThread;
      sink(x);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(r);
      Memcpy x;
      x.span = detail::span_of(*m);
      x.span.graph_node = m->graphNodeId;
      x.copy_kind = copy_kind_name(m->copyKind);
      x.bytes = m->bytes;
      sink(x);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(r);
      Memset x;
      x.span = detail::span_of(*m);
      x.span.graph_node = m->graphNodeId;
      x.value = m->value;
      x.bytes = m->bytes;
      sink(x);
      return;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(r);
      Api x;
      x.runtime = r->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
      x.domain = x.runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
      x.cbid = a->cbid;
      x.start = a->start;
      x.end = a->end;
      x.process = a->processId;
      x.thread = a->threadId;
      x.correlation = a->correlationId;
      x.return_value = a->returnValue;
      sink(x);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MARKER: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMarker2*>(r);
      Marker x;
      const auto flags = static_cast<std::uint32_t>(m->flags);
      if (flags & CUPTI_ACTIVITY_FLAG_MARKER_START) x.kind = Marker::Kind::kStart;
      else if (flags & CUPTI_ACTIVITY_FLAG_MARKER_END) x.kind = Marker::Kind::kEnd;
      x.timestamp = m->timestamp;
      x.id = m->id;
      x.name = m->name;
      x.domain = m->domain;
      if (m->objectKind == CUPTI_ACTIVITY_OBJECT_THREAD || m->objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
        x.on_thread = true;
        x.process = m->objectId.pt.processId;
        x.thread = m->objectId.pt.threadId;
      }
      sink(x);
      return;
    }
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
      const auto* g = reinterpret_cast<const CUpti_ActivityGraphTrace2*>(r);
      GraphTrace x;
      x.span = detail::span_of(*g);
      sink(x);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemory4*>(r);
      Memory x;
      x.operation = static_cast<int>(m->memoryOperationType);
      x.memory_kind = static_cast<int>(m->memoryKind);
      x.bytes = m->bytes;
      x.address = m->address;
      x.timestamp = m->timestamp;
      x.correlation = m->correlationId;
      x.stream = m->streamId;
      x.is_async = m->isAsync;
      x.pool_type = static_cast<int>(m->memoryPoolConfig.memoryPoolType);
      x.pool_address = m->memoryPoolConfig.address;
      sink(x);
      return;
    }
    default:
      sink.other(r->kind);
      return;
  }
}

}  // namespace gp::cupti_activity
