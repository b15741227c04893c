// The test seam of the record conversion: synthetic records built in CUPTI's own structs and
// converted by the Converter that converts live buffers (see cupti_session.hpp).
#include <cstring>
#include <vector>

#include "cupti_records.hpp"
#include "graphprof/trace/cupti_session.hpp"

namespace gp {

namespace {
// The writing side of cupti_activity.hpp's span_of: the shared fields of a synthetic GPU record.
template <typename Cupti>
void fill_span(const SyntheticCuptiRecord& r, Cupti& c) {
  c.start = r.start;
  c.end = r.end;
  c.deviceId = r.device;
  c.contextId = r.context;
  c.streamId = r.stream;
  c.correlationId = r.correlation;
  c.graphId = r.graph_id;
}

template <typename Cupti>
void fill_activity(const SyntheticCuptiRecord& r, Cupti& c) {
  fill_span(r, c);
  c.graphNodeId = r.graph_node_id;
}
}  // namespace

std::vector<SyntheticCuptiActivity> synthetic_cupti_activity(const std::vector<SyntheticCuptiRecord>& records) {
  std::vector<SyntheticCuptiActivity> all(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    const SyntheticCuptiRecord& r = records[i];
    // Zeroed, 8-byte aligned storage big enough for any record kind used here.
    unsigned char* raw = reinterpret_cast<unsigned char*>(all[i].data());
    std::memset(raw, 0, sizeof(SyntheticCuptiActivity));
    switch (r.kind) {
      case SyntheticCuptiRecord::Kind::kKernel: {
        static_assert(sizeof(CUpti_ActivityKernel10) <= sizeof(SyntheticCuptiActivity), "buffer too small");
        auto* k = new (raw) CUpti_ActivityKernel10{};
        k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
        fill_activity(r, *k);
        k->name = r.name;
        k->gridX = r.grid[0], k->gridY = r.grid[1], k->gridZ = r.grid[2];
        k->blockX = r.block[0], k->blockY = r.block[1], k->blockZ = r.block[2];
        k->staticSharedMemory = r.static_shared;
        k->dynamicSharedMemory = r.dynamic_shared;
        k->registersPerThread = static_cast<uint16_t>(r.registers);
        break;
      }
      case SyntheticCuptiRecord::Kind::kMemcpy: {
        auto* m = new (raw) CUpti_ActivityMemcpy6{};
        m->kind = CUPTI_ACTIVITY_KIND_MEMCPY;
        m->copyKind = r.copy_kind;
        m->bytes = r.bytes;
        fill_activity(r, *m);
        break;
      }
      case SyntheticCuptiRecord::Kind::kMemset: {
        auto* m = new (raw) CUpti_ActivityMemset4{};
        m->kind = CUPTI_ACTIVITY_KIND_MEMSET;
        m->value = r.value;
        m->bytes = r.bytes;
        fill_activity(r, *m);
        break;
      }
      case SyntheticCuptiRecord::Kind::kRuntime: {
        auto* a = new (raw) CUpti_ActivityAPI{};
        a->kind = CUPTI_ACTIVITY_KIND_RUNTIME;
        a->cbid = r.cbid;
        a->start = r.start;
        a->end = r.end;
        a->processId = r.pid;
        a->threadId = r.tid;
        a->correlationId = r.correlation;
        break;
      }
      case SyntheticCuptiRecord::Kind::kMarker: {
        auto* m = new (raw) CUpti_ActivityMarker2{};
        m->kind = CUPTI_ACTIVITY_KIND_MARKER;
        m->flags = static_cast<CUpti_ActivityFlag>(r.marker_flags);
        m->timestamp = r.start;
        m->id = r.marker_id;
        m->objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
        m->objectId.pt.processId = r.pid;
        m->objectId.pt.threadId = r.tid;
        m->name = r.name;
        m->domain = r.domain;
        break;
      }
      case SyntheticCuptiRecord::Kind::kGraphTrace: {
        auto* g = new (raw) CUpti_ActivityGraphTrace2{};
        g->kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
        fill_span(r, *g);
        break;
      }
      case SyntheticCuptiRecord::Kind::kOther: {
        auto* a = new (raw) CUpti_ActivityAPI{};
        a->kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
        break;
      }
    }
  }
  return all;
}

TraceData convert_synthetic_cupti_records(const std::vector<SyntheticCuptiRecord>& records) {
  TraceData out;
  Converter conv;
  for (const SyntheticCuptiActivity& raw : synthetic_cupti_activity(records))
    conv.convert(reinterpret_cast<const CUpti_Activity*>(raw.data()), out);
  return out;
}

}  // namespace gp
