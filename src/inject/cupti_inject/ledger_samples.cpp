// Memory and start-up samples for the profile's ledgers (ledger_samples.hpp).
#include "ledger_samples.hpp"

#include <cuda.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "inject_output.hpp"
#include "interpose_records.hpp"
#include "record_lines.hpp"

namespace gp::inject {

namespace {

const char* sample_name(Sample s) {
  switch (s) {
    case Sample::kCaptureBegin: return "capture_begin";
    case Sample::kCaptureEnd: return "capture_end";
    case Sample::kInstantiateBegin: return "instantiate_begin";
    case Sample::kInstantiateEnd: return "instantiate_end";
    case Sample::kUploadBegin: return "upload_begin";
    case Sample::kUploadEnd: return "upload_end";
    case Sample::kEnd: return "end";
    case Sample::kNone: break;
  }
  return "";
}

unsigned long long graph_mem(CUdevice dev, CUgraphMem_attribute attr) {
  cuuint64_t v = 0;
  return cuDeviceGetGraphMemAttribute(dev, attr, &v) == CUDA_SUCCESS ? static_cast<unsigned long long>(v) : 0ull;
}

// cuMemCreate's parameters in CUPTI's callback data: the call's arguments in order
// (CUmemGenericAllocationHandle* handle, size_t size, const CUmemAllocationProp* prop, flags).
struct MemCreateParams {
  CUmemGenericAllocationHandle* handle;
  size_t size;
};

}  // namespace

void take_sample(Sample at, std::uint32_t correlation) {
  if (at == Sample::kNone) return;
  CUdevice dev = 0;
  size_t free_bytes = 0, total = 0;
  if (cuCtxGetDevice(&dev) != CUDA_SUCCESS || cuMemGetInfo(&free_bytes, &total) != CUDA_SUCCESS) return;
  std::string line;
  records::write(line, records::MemorySampleLine{sample_name(at), correlation, realtime_ns(), free_bytes, total,
                                                 graph_mem(dev, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT),
                                                 graph_mem(dev, CU_GRAPH_MEM_ATTR_USED_MEM_HIGH),
                                                 graph_mem(dev, CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT),
                                                 graph_mem(dev, CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH)});
  write_lines(line, false);
}

void note_mem_create(std::uint32_t correlation, const void* params) {
  if (params == nullptr) return;
  const auto* p = static_cast<const MemCreateParams*>(params);
  write_lines(gp::interpose::vmm_line(correlation, realtime_ns(), p->size), false);
}

std::string memory_nodes_line(void* graph, std::uint32_t graph_id, std::uint32_t exec_id) {
  CUgraph g = static_cast<CUgraph>(graph);
  size_t n = 0;
  if (g == nullptr || cuGraphGetNodes(g, nullptr, &n) != CUDA_SUCCESS || n == 0) return {};
  std::vector<CUgraphNode> nodes(n);
  if (cuGraphGetNodes(g, nodes.data(), &n) != CUDA_SUCCESS) return {};
  std::size_t allocs = 0, frees = 0;
  unsigned long long bytes = 0;
  for (std::size_t i = 0; i < n; ++i) {
    CUgraphNodeType type{};
    if (cuGraphNodeGetType(nodes[i], &type) != CUDA_SUCCESS) continue;
    if (type == CU_GRAPH_NODE_TYPE_MEM_ALLOC) {
      CUDA_MEM_ALLOC_NODE_PARAMS params;
      std::memset(&params, 0, sizeof params);
      if (cuGraphMemAllocNodeGetParams(nodes[i], &params) == CUDA_SUCCESS) {
        ++allocs;
        bytes += params.bytesize;
      }
    } else if (type == CU_GRAPH_NODE_TYPE_MEM_FREE) {
      ++frees;
    }
  }
  if (allocs == 0 && frees == 0) return {};
  std::string line;
  records::write(line, records::MemoryNodesLine{exec_id, graph_id, allocs, bytes, frees});
  return line;
}

std::string process_start_line() {
  // Field 22 of /proc/self/stat, after the parenthesised command name (which may hold spaces).
  FILE* f = std::fopen("/proc/self/stat", "r");
  if (f == nullptr) return {};
  char buf[1024];
  const std::size_t len = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[len] = '\0';
  const char* p = std::strrchr(buf, ')');
  if (p == nullptr) return {};
  unsigned long long start_ticks = 0;
  int field = 2;
  for (const char* q = p + 1; *q != '\0'; ++q) {
    if (*q != ' ') continue;
    ++field;
    if (field == 22) {
      start_ticks = std::strtoull(q + 1, nullptr, 10);
      break;
    }
  }
  const long hz = sysconf(_SC_CLK_TCK);
  if (start_ticks == 0 || hz <= 0) return {};
  timespec boot{}, real{};
  clock_gettime(CLOCK_BOOTTIME, &boot);
  clock_gettime(CLOCK_REALTIME, &real);
  const long double since_boot_now = boot.tv_sec + boot.tv_nsec / 1e9L;
  const long double age = since_boot_now - static_cast<long double>(start_ticks) / hz;
  const long double start = real.tv_sec + real.tv_nsec / 1e9L - age;
  std::string line;
  records::write(line, records::ProcessStartLine{static_cast<unsigned long long>(start * 1e9L), static_cast<long long>(1000000000LL / hz)});
  return line;
}

}  // namespace gp::inject
