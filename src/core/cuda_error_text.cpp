// Names and usual fixes of CUDA capture errors (see include/graphprof/core/cuda_error_text.hpp).
#include "graphprof/core/cuda_error_text.hpp"

namespace gp {

std::string cuda_error_name_of(int e) {
  switch (e) {
    case 0: return "cudaSuccess";
    case 2: return "cudaErrorMemoryAllocation";
    case 900: return "cudaErrorStreamCaptureUnsupported";
    case 901: return "cudaErrorStreamCaptureInvalidated";
    case 902: return "cudaErrorStreamCaptureMerge";
    case 903: return "cudaErrorStreamCaptureUnmatched";
    case 904: return "cudaErrorStreamCaptureUnjoined";
    case 905: return "cudaErrorStreamCaptureIsolation";
    case 906: return "cudaErrorStreamCaptureImplicit";
    case 907: return "cudaErrorCapturedEvent";
    case 908: return "cudaErrorStreamCaptureWrongThread";
    default: return "cudaError " + std::to_string(e);
  }
}

std::string capture_error_hint(int e, const std::string& api) {
  switch (e) {
    case 900:
      return api + " is not allowed while a stream is being captured: move synchronisation, allocation "
             "and host-blocking calls out of the captured region (use cudaMallocAsync, events, "
             "cudaLaunchHostFunc instead)";
    case 901:
      return "an earlier call inside the captured region broke the capture; the first failing call is the one to fix";
    case 906:
      return "a call used the legacy default stream during capture: use a non-blocking stream or "
             "cudaStreamCaptureModeThreadLocal";
    case 904:
      return "a forked stream was not joined back into the origin stream before cudaStreamEndCapture: "
             "record an event on it and make the origin stream wait on it";
    case 905:
      return "a captured stream waited on work that is not part of the capture";
    case 907:
      return api + " on an event recorded inside the capture: the host cannot wait for captured work; "
             "make another captured stream wait on it (cudaStreamWaitEvent) or synchronize after cudaGraphLaunch";
    case 908:
      return "cudaStreamEndCapture was called from another thread than the capture's: end it on the same thread "
             "or capture in cudaStreamCaptureModeRelaxed";
    case 2:
      return "the GPU ran out of memory: lower the workload's size parameters";
    default:
      return {};
  }
}

}  // namespace gp
