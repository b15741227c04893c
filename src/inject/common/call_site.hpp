// Call sites and ledger samples of the injection library: where in the application each tracked
// CUDA call was made (native stack, and the Python stack when CPython runs the thread), deduplicated
// by the chain of return addresses (and Python code/line pairs) so each distinct site is named
// once; and, around captures, instantiations and uploads, samples of the device's free memory and
// of the graph-memory pool (ledger_samples.hpp). graphprof_inject.cpp calls these from its CUPTI
// callback with the few facts they need (no CUPTI types cross this interface).
//
// Lines written (format at the top of src/profile/profile_records.cpp):
//   site {s, api, n: [[module, offset, function, function offset], ...], ni, mi: [[module, build id, size,
//         mtime], ...], py: [[file, line, function], ...]}
//   sc   {s, w, co: [correlation ids of the calls made from site s]}  (w: each stands for w calls, --site-sample;
//         absent: 1)
//   ap   {s, k, co: [allocations made inside the same call from Python as a call of site s: its Python
//         stack is theirs; k frames in common], alloc_python.hpp}
#pragma once
#include <cstdint>
#include <vector>

namespace gp::inject {

// One runtime- or driver-API callback, as graphprof_inject.cpp's CUPTI callback saw it.
struct ApiEvent {
  bool driver = false;          // CUPTI_CB_DOMAIN_DRIVER_API (else RUNTIME_API)
  std::uint32_t cbid = 0;
  bool enter = true;            // CUPTI_API_ENTER (else EXIT)
  std::uint32_t correlation = 0;
  const char* function = nullptr;  // the API's name as CUPTI gives it
  const void* params = nullptr;    // the call's parameter struct
};

// Reads GRAPHPROF_PROFILE_SITES ("1"/"on": native and Python frames, the GIL taken for the read
// where a Python thread released it; "held": Python frames only where the thread holds the GIL;
// "native": no Python frames; "0"/"off": no call sites) and looks for the Python API.
void init_call_sites();
bool call_sites_enabled();

// The callback ids this part needs enabled, per domain (runtime: launches, copies, memsets,
// syncs, host functions, capture, instantiate, upload, device allocations; driver: cuLaunchKernel*,
// cuMemAlloc_v2, cuMemCreate). An allocation's site is taken without taking the GIL.
std::vector<std::uint32_t> site_callback_ids(bool driver);

// The API calls whose activity records the call-site and ledger analysis needs, besides those
// graphprof_inject.cpp records for itself: the calls whose sites are taken, cudaGraphExecUpdate
// and the exec SetParams calls (counts and failures), the allocation calls (which thread made an
// allocation seen during a capture), cuMemCreate.
std::vector<std::uint32_t> ledger_recorded_ids(bool driver);

// Whether a driver-API callback id is one of this part's (the library's other driver callback is
// its ownership probe).
bool is_site_driver_callback(std::uint32_t cbid);

// Takes the call site (at ENTER of the tracked calls) and the ledger samples; never throws.
void on_api_event(const ApiEvent& e);

// The interposer's call (runtime_interpose.cpp, at --trace none without CUPTI): the site of a
// call named `api` (as recorded), of kind kSiteEager (launch, copy, memset, host function),
// kSiteSync, kSiteAlloc or kSiteGraph (capture, instantiation) — gp::interpose::SiteKind's values.
enum : int { kSiteEager = 1, kSiteSync = 2, kSiteAlloc = 3, kSiteGraph = 4 };
void on_interposed_call(const char* api, std::uint32_t correlation, int kind);

// Writes the pending correlation lists and the `py` line (how the Python stacks were read) before
// the end line; the lists also when they grow large.
// `may_wait`: false in a signal handler (locks are only tried).
void flush_call_sites(bool may_wait);

}  // namespace gp::inject
