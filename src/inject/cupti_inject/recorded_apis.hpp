// Which API calls the injection library records, and the capture window.
//
// The analysis needs the host time of a few kinds of call only: launches (graph and kernel, runtime
// and driver: Triton calls cuLaunchKernel), the calls that wait for the GPU, graph instantiation,
// upload, update and exec parameter changes, capture begin/end, and the ownership probe's
// cuDeviceGetCount (plus the calls whose call sites are taken, call_site.hpp). An application makes many
// more (PyTorch checks cudaGetLastError after every kernel launch, asks for the device, the stream's
// capture state...): recording all of them (the RUNTIME and DRIVER activity kinds) cost each of
// those calls the record. cuptiActivityEnableRuntimeApi/DriverApi select the calls one by one.
// The calls that break a stream capture most often (synchronising, allocating, querying) are among
// them, so a failed capture still shows the call that broke it. (Switching the RUNTIME kind on for
// the length of each capture overrides the selection: on the H200 the selected calls' records
// stopped after the first capture that did so.)
#pragma once
#include <cstdint>
#include <vector>

namespace gp::inject {

// Enables the records of the calls the analysis needs (recorded_apis.cpp lists them), and of the
// calls whose call sites are taken (call_site.hpp: copies, memsets, host functions); false when
// this CUPTI cannot select calls (then the caller records every call, as with the RUNTIME and
// DRIVER kinds).
bool enable_recorded_apis(const std::vector<std::uint32_t>& runtime_extra, const std::vector<std::uint32_t>& driver_extra);

}  // namespace gp::inject
