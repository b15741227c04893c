// Samples for the memory and start-up ledgers of `graphprof profile` (docs/profile.md): the
// device's free memory (cuMemGetInfo) and the graph-memory pool's used/reserved bytes
// (cuDeviceGetGraphMemAttribute) around captures, instantiations and uploads; the memory nodes of
// each instantiated graph; cuMemCreate sizes; the process's start time. CUDA driver API only (no
// CUPTI here).
//
// Lines written (format at the top of src/profile/profile_records.cpp):
//   mem      {at, co, ts, free, total, gu, guh, gr, grh}   at: capture_begin, capture_end,
//            instantiate_begin, instantiate_end, upload_begin, upload_end, end
//   mem_nodes {exec, graph, allocs, bytes, frees}
//   vmm      {co, ts, b}                                    cuMemCreate (physical allocation) of b bytes
//   proc_start {ts, resolution_ns}
#pragma once
#include <cstdint>
#include <string>

namespace gp::inject {

enum class Sample { kNone, kCaptureBegin, kCaptureEnd, kInstantiateBegin, kInstantiateEnd, kUploadBegin, kUploadEnd, kEnd };

// Writes one `mem` line for the current context's device (nothing when no context is current).
void take_sample(Sample at, std::uint32_t correlation);

// cuMemCreate returned: its parameters name the size.
void note_mem_create(std::uint32_t correlation, const void* params);

// The `mem_nodes` line of an instantiated graph (empty when it has no memory node). `graph` is
// the CUgraph the exec was made from.
std::string memory_nodes_line(void* graph, std::uint32_t graph_id, std::uint32_t exec_id);

// The `proc_start` line: when the kernel started this process (CLOCK_REALTIME ns, from
// /proc/self/stat's start time in clock ticks since boot, so to within one tick).
std::string process_start_line();

}  // namespace gp::inject
