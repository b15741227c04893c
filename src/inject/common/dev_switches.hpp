// Developer switches of the injection library, for measuring what each of its pieces costs the
// application (bench/inject_overhead.cu, docs/profile.md "What each piece costs"). Not a user
// option: a profile made with any of them is incomplete. GRAPHPROF_INJECT_OFF is a comma-separated
// list of pieces to leave out:
//   cupti        no CUPTI call at all (the library is loaded and writes its process line only)
//   resource_cb  the graph-exec-created and node-cloned callbacks (no dumps, no node join)
//   runtime_cb   the capture/instantiate/upload callbacks
//   launch_cb    the cudaGraphLaunch callback (launch bookkeeping: exec of a launch, sampling)
//   state_cb     CUPTI's state callbacks (its own errors and warnings)
//   probe        the cuDeviceGetCount callback of the exit path's ownership check
//   runtime      the RUNTIME activity kind (host time of every runtime API call)
//   driver       the DRIVER activity kind
//   gpu          the level's GPU activity kinds (GRAPH_TRACE, CONCURRENT_KERNEL, MEMCPY, MEMSET)
//   write        activity buffers are returned to CUPTI without being formatted or written
//   api_filter   every API call is recorded (the whole RUNTIME and DRIVER kinds), not only the
//                calls the analysis uses (src/inject/cupti_inject/recorded_apis.hpp)
// Host-only, no CUDA: parsed once at InitializeInjection.
#pragma once
#include <string>

namespace gp::inject {

struct DevSwitches {
  bool cupti = true, resource_cb = true, runtime_cb = true, launch_cb = true, state_cb = true, probe = true;
  bool runtime = true, driver = true, gpu = true, write = true, api_filter = true;
  std::string unknown;  // names it did not know, comma-separated (said in the records)

  bool any_off() const {
    return !(cupti && resource_cb && runtime_cb && launch_cb && state_cb && probe && runtime && driver && gpu && write &&
             api_filter);
  }

  static DevSwitches parse(const char* list);
};

}  // namespace gp::inject
