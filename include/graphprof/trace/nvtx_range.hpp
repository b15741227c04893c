// NVTX ranges in graphprof's own "graphprof" domain, so runs under Nsight Systems (and graphprof's
// own trace pass) show which workload, mode and phase each stretch of GPU work belongs to.
// A thin wrapper: nvtx3 is included by one file only (src/trace/nvtx_range.cpp). Workloads may
// open their own ranges with it too. Cost when no tool listens: one indirect call.
#pragma once
#include <cstddef>
#include <string>

namespace gp {

// Pushes a range on construction and pops it on destruction (same thread; stack-only).
class NvtxRange {
 public:
  explicit NvtxRange(const char* name) noexcept;
  explicit NvtxRange(const std::string& name) noexcept : NvtxRange(name.c_str()) {}
  ~NvtxRange();
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

// An instantaneous marker in the graphprof domain.
void nvtx_mark(const char* name) noexcept;

}  // namespace gp
