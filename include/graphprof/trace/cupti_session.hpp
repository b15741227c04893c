// CUPTI tracing behind a plain interface. A TraceSession records, while it lives, CUDA runtime API
// calls, NVTX ranges, graph-node creation and cloning, and either every kernel/copy/memset
// (TraceLevel::kNode) or one span per graph launch (kGraph). collect() hands back plain records
// (trace_records.hpp); no CUPTI type crosses this header. The implementation is in
// src/trace/cupti_*.cpp, the trace layer's only files that include cupti.h.
//
// CUPTI allows one subscriber per process, so only one session may be active at a time, and it
// fails (ok() == false, with a reason) under another CUPTI tool such as Nsight Systems. A failed
// session records nothing and costs nothing; callers report the reason and carry on.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graphprof/trace/trace_records.hpp"

namespace gp {

class TraceSession {
 public:
  // Starts recording. `buffer_bytes` is the first activity buffer size; buffers grow (up to
  // 64 MiB) when CUPTI fills them. `detach` = true: collect() detaches CUPTI from the process
  // (cuptiFinalize), so later work runs without it; false: CUPTI stays loaded but idle (nothing
  // enabled, no subscriber) until trace_shutdown(). Never throws for CUPTI problems: check ok().
  TraceSession(TraceLevel level, std::size_t buffer_bytes, bool detach = true);
  // Stops recording if collect() was not called (noexcept; records are discarded).
  ~TraceSession();
  TraceSession(const TraceSession&) = delete;
  TraceSession& operator=(const TraceSession&) = delete;

  bool ok() const noexcept { return ok_; }
  const std::string& reason() const noexcept { return reason_; }  // why !ok()

  // Flushes CUPTI, stops recording (and detaches CUPTI, see the constructor), then returns
  // every record. The caller must have synchronised the device: CUPTI's flush does not
  // wait for the GPU. Throws gp::Error(kInternal) only if called twice.
  TraceData collect();

  // CUPTI's clock, the one every record uses (ns). Used to bracket iterations on the host.
  static std::uint64_t now_ns() noexcept;

 private:
  bool ok_ = false;
  bool collected_ = false;
  std::string reason_;
  TraceLevel level_;
  bool detach_ = true;
};

// Absolute path of the CUPTI library this process loaded, for NVTX_INJECTION64_PATH (NVTX only
// reports ranges to CUPTI when that variable names it before the first NVTX call). Empty when
// unknown. Library code never sets the variable; the CLI does, at startup.
std::string nvtx_injection_library();

// CUPTI is loaded with dlopen when the first session starts (graphprof does not link it, so the
// binary starts without it). Empty when it is loaded, else "CUPTI is not available: WHY" — the
// reason a session reports. Loads CUPTI if that was not tried yet.
std::string cupti_unavailable_reason();
// Test seam: load CUPTI from this path instead of the usual places. Only before the first load.
void use_cupti_library_for_testing(const std::string& path);

// Detaches CUPTI for good at the end of a run (flush + cuptiFinalize), so that CUDA 13.0 does
// not crash while unloading it at exit. Safe to call when nothing was traced, and more than once.
void trace_shutdown() noexcept;

// Test seam: CUPTI activity records with the given field values, built in CUPTI's own structs
// and converted by the same code that converts live buffers. Lets the CPU tests check the
// conversion without a GPU (and without including cupti.h).
struct SyntheticCuptiRecord {
  enum class Kind { kKernel, kMemcpy, kMemset, kRuntime, kMarker, kGraphTrace, kOther };
  Kind kind = Kind::kKernel;
  std::uint64_t start = 0, end = 0;  // kMarker: start is the timestamp
  std::uint32_t device = 0, context = 0, stream = 0, correlation = 0;
  std::uint32_t graph_id = 0;
  std::uint64_t graph_node_id = 0;
  const char* name = nullptr;    // kernel or marker name (nullptr allowed: CUPTI sends null names)
  const char* domain = nullptr;  // marker domain
  std::uint32_t cbid = 0;        // kRuntime
  std::uint32_t marker_flags = 0;  // CUPTI_ACTIVITY_FLAG_MARKER_* bits
  std::uint32_t marker_id = 0;
  std::uint8_t copy_kind = 0;    // CUpti_ActivityMemcpyKind value
  std::uint64_t bytes = 0;
  std::uint32_t value = 0;       // memset value
  int grid[3] = {0, 0, 0}, block[3] = {0, 0, 0};
  int static_shared = 0, dynamic_shared = 0, registers = 0;
  std::uint32_t pid = 0, tid = 0;
};
TraceData convert_synthetic_cupti_records(const std::vector<SyntheticCuptiRecord>& records);
// The same records as CUPTI's raw structs (each element holds one CUpti_Activity of its kind), for
// a test that feeds them to the injection library's line writer too.
using SyntheticCuptiActivity = std::array<std::uint64_t, 64>;
std::vector<SyntheticCuptiActivity> synthetic_cupti_activity(const std::vector<SyntheticCuptiRecord>& records);

// cuptiGetVersion(); 0 when CUPTI cannot be queried.
int cupti_version() noexcept;

}  // namespace gp
