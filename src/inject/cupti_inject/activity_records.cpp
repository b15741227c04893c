// CUPTI's activity records as record lines and the activity buffers (activity_records.hpp).
#include "activity_records.hpp"

#include <cupti.h>

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <string>
#include <unordered_set>

#include "inject_state.hpp"
#include "activity_lines.hpp"

namespace gp::inject {

namespace {

// API names are looked up once per (domain, cbid), without CUPTI's "_v10000" suffix.
std::string api_name(CUpti_CallbackDomain domain, std::uint32_t cbid) {
  const char* name = nullptr;
  if (cuptiGetCallbackName(domain, cbid, &name) != CUPTI_SUCCESS || name == nullptr) return "cbid " + std::to_string(cbid);
  return gp::cupti_activity::strip_version_suffix(name);
}

// The name of an API record to write, or nullptr for graphprof's own ownership probe (whose record
// is noted, not written).
const std::string* recorded_api_name(const gp::cupti_activity::Api& a) {
  const std::uint32_t probe = g_probe_correlation.load();
  if (!a.runtime && a.cbid == CUPTI_DRIVER_TRACE_CBID_cuDeviceGetCount) {
    if (probe != 0 && a.correlation == probe) {
      g_probe_record_seen = true;  // graphprof's own call, not the application's
      return nullptr;
    }
    g_record_proven = true;
  }
  static thread_local std::string names[2][1024];  // per domain, cbid < 1024 cached
  static thread_local std::string local;
  if (a.cbid < 1024) {
    std::string& cached = names[a.runtime ? 0 : 1][a.cbid];
    if (cached.empty()) cached = api_name(a.domain, a.cbid);
    return &cached;
  }
  local = api_name(a.domain, a.cbid);
  return &local;
}

void append_activity(std::string& s, const CUpti_Activity* r) { append_record(s, r, recorded_api_name); }

// The activity buffers this library handed CUPTI. After the exit path takes the buffer callbacks
// back from an application that registered its own, CUPTI hands it that application's buffers
// too: their records are written like the others, but the buffers are not this library's to free
// (and they show that the application took the activity API).
std::mutex g_buffers_mu;
std::unordered_set<const uint8_t*> g_our_buffers;
std::atomic<bool> g_foreign_buffer_seen{false};

}  // namespace

bool foreign_buffer_seen() { return g_foreign_buffer_seen.load(); }

void CUPTIAPI on_buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;
  if (*buffer != nullptr) {
    std::lock_guard<std::mutex> lock(g_buffers_mu);
    g_our_buffers.insert(*buffer);
  }
}

void CUPTIAPI on_buffer_completed(CUcontext context, uint32_t stream_id, uint8_t* buffer, size_t, size_t valid) {
  if (buffer != nullptr && g_on.write) {
    std::string lines;
    lines.reserve(valid + valid / 2);
    CUpti_Activity* record = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) append_activity(lines, record);
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream_id, &dropped) == CUPTI_SUCCESS && dropped > 0)
      records::write(lines, records::DroppedLine{dropped});
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
