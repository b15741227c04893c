// CUPTI's activity records turned into record lines (the format is at the top of
// src/profile/profile_records.cpp), and the activity buffers handed to and taken back from CUPTI.
// Included only by graphprof_inject.cpp (the library's one cupti.h translation unit).
#pragma once
#include <cupti.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_set>

#include "graphprof/core/copy_kind.hpp"
#include "inject_state.hpp"

namespace gp::inject {

// The GPU fields kernel, memcpy and memset records share, in the line format's short keys.
template <typename R>
void append_gpu_fields(std::string& s, const R& r) {
  appendf(s, "\"s\":%llu,\"e\":%llu,\"d\":%u,\"c\":%u,\"st\":%u,\"co\":%u,\"g\":%u,\"gn\":%llu",
          static_cast<unsigned long long>(r.start), static_cast<unsigned long long>(r.end), r.deviceId, r.contextId,
          r.streamId, r.correlationId, r.graphId, static_cast<unsigned long long>(r.graphNodeId));
}

// API names are looked up once per (domain, cbid), without CUPTI's "_v10000" suffix.
inline std::string api_name(CUpti_CallbackDomain domain, std::uint32_t cbid) {
  const char* name = nullptr;
  if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) return "cbid " + std::to_string(cbid);
  std::string n = name;
  const std::size_t v = n.rfind("_v");
  if (v != std::string::npos && v + 2 < n.size() && n.find_first_not_of("0123456789", v + 2) == std::string::npos) n.resize(v);
  return n;
}

inline void append_record(std::string& s, const CUpti_Activity* r) {
  switch (r->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
      const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(r);
      s += "{\"t\":\"k\",\"n\":";
      append_json_string(s, k->name ? k->name : "(unnamed kernel)");
      s += ',';
      append_gpu_fields(s, *k);
      appendf(s, ",\"gr\":[%d,%d,%d],\"bl\":[%d,%d,%d],\"sh\":%d,\"rg\":%d}\n", k->gridX, k->gridY, k->gridZ, k->blockX,
              k->blockY, k->blockZ, k->staticSharedMemory + k->dynamicSharedMemory, k->registersPerThread);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(r);
      appendf(s, "{\"t\":\"mc\",\"k\":\"%s\",\"b\":%llu,", gp::copy_kind_name(m->copyKind), static_cast<unsigned long long>(m->bytes));
      append_gpu_fields(s, *m);
      s += "}\n";
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
      const auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(r);
      appendf(s, "{\"t\":\"ms\",\"v\":%u,\"b\":%llu,", m->value, static_cast<unsigned long long>(m->bytes));
      append_gpu_fields(s, *m);
      s += "}\n";
      return;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
      const auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(r);
      const bool runtime = r->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
      const std::uint32_t probe = g_probe_correlation.load();
      if (!runtime && a->cbid == CUPTI_DRIVER_TRACE_CBID_cuDeviceGetCount) {
        if (probe != 0 && a->correlationId == probe) {
          g_probe_record_seen = true;  // graphprof's own call, not the application's
          return;
        }
        g_record_proven = true;
      }
      static thread_local std::string names[2][1024];  // per domain, cbid < 1024 cached
      std::string local;
      const std::string* name = &local;
      if (a->cbid < 1024) {
        std::string& cached = names[runtime ? 0 : 1][a->cbid];
        if (cached.empty()) cached = api_name(runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, a->cbid);
        name = &cached;
      } else {
        local = api_name(runtime ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API, a->cbid);
      }
      s += "{\"t\":\"a\",\"n\":";
      append_json_string(s, name->c_str());
      appendf(s, ",\"cb\":%u,\"dr\":%d,\"s\":%llu,\"e\":%llu,\"p\":%u,\"th\":%u,\"co\":%u,\"r\":%u}\n", a->cbid,
              runtime ? 0 : 1, static_cast<unsigned long long>(a->start), static_cast<unsigned long long>(a->end),
              a->processId, a->threadId, a->correlationId, a->returnValue);
      return;
    }
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
      const auto* g = reinterpret_cast<const CUpti_ActivityGraphTrace2*>(r);
      appendf(s, "{\"t\":\"gt\",\"co\":%u,\"g\":%u,\"s\":%llu,\"e\":%llu,\"d\":%u,\"c\":%u,\"st\":%u}\n", g->correlationId,
              g->graphId, static_cast<unsigned long long>(g->start), static_cast<unsigned long long>(g->end), g->deviceId,
              g->contextId, g->streamId);
      return;
    }
    case CUPTI_ACTIVITY_KIND_MEMORY2: {  // allocations and frees, cudaMallocAsync pools included (the memory ledger)
      const auto* m = reinterpret_cast<const CUpti_ActivityMemory4*>(r);
      appendf(s, "{\"t\":\"mem_op\",\"op\":%d,\"mk\":%d,\"b\":%llu,\"a\":%llu,\"ts\":%llu,\"co\":%u,\"st\":%u,\"async\":%u,\"pt\":%d,\"pa\":%llu}\n",
              static_cast<int>(m->memoryOperationType), static_cast<int>(m->memoryKind), static_cast<unsigned long long>(m->bytes),
              static_cast<unsigned long long>(m->address), static_cast<unsigned long long>(m->timestamp), m->correlationId,
              m->streamId, m->isAsync, static_cast<int>(m->memoryPoolConfig.memoryPoolType),
              static_cast<unsigned long long>(m->memoryPoolConfig.address));
      return;
    }
    default:
      return;
  }
}

// The activity buffers this library handed CUPTI. After the exit path takes the buffer callbacks
// back from an application that registered its own, CUPTI hands it that application's buffers
// too: their records are written like the others, but the buffers are not this library's to free
// (and they show that the application took the activity API).
inline std::mutex g_buffers_mu;
inline std::unordered_set<const uint8_t*> g_our_buffers;
inline std::atomic<bool> g_foreign_buffer_seen{false};

inline void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
  if (*buffer != nullptr) {
    std::lock_guard<std::mutex> lock(g_buffers_mu);
    g_our_buffers.insert(*buffer);
  }
}

inline void CUPTIAPI on_buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid) {
  if (buffer != nullptr && g_on.write) {
    std::string lines;
    lines.reserve(valid + valid / 2);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) append_record(lines, record);
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS && dropped > 0)
      appendf(lines, "{\"t\":\"dropped\",\"n\":%zu}\n", dropped);
    if (!write_lines(lines, true)) ++g_lost_buffers;
  }
  bool ours = false;
  {
    std::lock_guard<std::mutex> lock(g_buffers_mu);
    ours = g_our_buffers.erase(buffer) > 0;
  }
  if (ours) std::free(buffer);
  else if (buffer != nullptr) g_foreign_buffer_seen = true;
  ++g_buffers_done;
}

}  // namespace gp::inject
