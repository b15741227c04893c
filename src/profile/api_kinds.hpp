// What kind of CUDA call an API record is, by its name (CUPTI's, or the interposer's, which uses
// the same names): shared by the process analysis and the step kinds. Internal to src/profile.
#pragma once
#include <string>

#include "graphprof/trace/trace_records.hpp"

namespace gp::api_kinds {

inline bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

inline bool is_graph_launch(const ApiRecord& a) { return starts_with(a.name, "cudaGraphLaunch") || starts_with(a.name, "cuGraphLaunch"); }

inline bool is_kernel_launch(const ApiRecord& a) {
  for (const char* p : {"cudaLaunchKernel", "__cudaLaunchKernel", "cudaLaunchCooperativeKernel", "cuLaunchKernel",
                        "cuLaunchCooperativeKernel"})
    if (starts_with(a.name, p)) return true;
  return false;
}

// Host calls that wait for the GPU: explicit synchronisation and the synchronous copy.
inline bool is_sync(const ApiRecord& a) {
  return a.name.find("Synchronize") != std::string::npos || a.name == "cudaMemcpy" || a.name == "cudaMemcpy2D" ||
         a.name == "cudaMemset" || a.name == "cuMemcpyDtoH" || a.name == "cuMemcpyHtoD";
}

}  // namespace gp::api_kinds
