// allreduce: `kernels` small kernels, then an NCCL all-reduce (sum) of `bytes`, repeated `steps`
// times per iteration — the pattern of data-parallel and tensor-parallel steps. Every GPU of the
// machine runs one process (rank): `graphprof run --ranks N` starts them, hands them a rendezvous
// folder for the NCCL unique id, and merges their reports. Built only when CMake finds NCCL; this
// is the one file that includes nccl.h.
//
// Modes: eager launches the kernels and calls ncclAllReduce on the stream; capture records the same
// into a graph (NCCL supports stream capture); graph builds the kernels with cudaGraphAddKernelNode
// and, since NCCL has no graph-node API, adds each all-reduce as a child-graph node holding the
// stream capture of that one call.
#include <dlfcn.h>
#include <nccl.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "graphprof/cuda/handles.hpp"
#include "graphprof/cuda/output_digest.hpp"
#include "graphprof/cuda/workload.hpp"
#include "graphprof/core/error.hpp"

namespace gp {
namespace {

// x = a·x + b, grid-stride. With a = 1/nranks the sum over ranks keeps the values bounded.
__global__ void scale_add(float* x, unsigned long long n, float a, float b) {
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x)
    x[i] = fmaf(x[i], a, b);
}

// NCCL is loaded when the workload first runs, not when graphprof starts, so the binary needs no
// libnccl on machines that never run this workload.
struct Nccl {
  decltype(&::ncclGetUniqueId) get_unique_id = nullptr;
  decltype(&::ncclCommInitRank) comm_init_rank = nullptr;
  decltype(&::ncclCommDestroy) comm_destroy = nullptr;
  decltype(&::ncclAllReduce) all_reduce = nullptr;
  decltype(&::ncclGetErrorString) error_string = nullptr;
  decltype(&::ncclGetLastError) last_error = nullptr;
  decltype(&::ncclGetVersion) get_version = nullptr;
};

template <typename F>
void bind(void* lib, const char* name, F& f) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (f == nullptr) throw environment_error(std::string("allreduce: libnccl has no ") + name + " (NCCL too old?)");
}

const Nccl& nccl() {
  static const Nccl api = [] {
    void* lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_GLOBAL);
    if (lib == nullptr) lib = dlopen(GRAPHPROF_NCCL_LIBRARY_PATH, RTLD_NOW | RTLD_GLOBAL);
    if (lib == nullptr)
      throw environment_error(std::string("allreduce: cannot load NCCL (libnccl.so.2, ") + GRAPHPROF_NCCL_LIBRARY_PATH +
                              "): " + dlerror());
    Nccl n;
    bind(lib, "ncclGetUniqueId", n.get_unique_id);
    bind(lib, "ncclCommInitRank", n.comm_init_rank);
    bind(lib, "ncclCommDestroy", n.comm_destroy);
    bind(lib, "ncclAllReduce", n.all_reduce);
    bind(lib, "ncclGetErrorString", n.error_string);
    bind(lib, "ncclGetLastError", n.last_error);
    bind(lib, "ncclGetVersion", n.get_version);
    return n;
  }();
  return api;
}

void nccl_check(ncclResult_t r, const char* call) {
  if (r != ncclSuccess)
    throw Error(ExitCode::kInternal, std::string(call) + " returned " + nccl().error_string(r) + " (" +
                                         nccl().last_error(nullptr) + ")");
}

// Rank 0 writes the unique id of communicator number `generation` to `<folder>/nccl-id.<generation>`
// (atomically: temporary file, then rename); the other ranks wait for it. Every rank creates its
// communicators in the same order (one per repetition and mode), so the numbers line up.
ncclUniqueId exchange_id(const std::string& folder, int rank, int generation) {
  ncclUniqueId id{};
  const std::filesystem::path path = std::filesystem::path(folder) / ("nccl-id." + std::to_string(generation));
  if (rank == 0) {
    nccl_check(nccl().get_unique_id(&id), "ncclGetUniqueId");
    const std::filesystem::path tmp = path.string() + ".tmp";
    {
      std::ofstream f(tmp, std::ios::binary);
      f.write(reinterpret_cast<const char*>(&id), sizeof id);
      if (!f) throw environment_error("allreduce: cannot write the NCCL id to " + tmp.string());
    }
    std::filesystem::rename(tmp, path);
    return id;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  for (;;) {
    std::ifstream f(path, std::ios::binary);
    if (f && f.read(reinterpret_cast<char*>(&id), sizeof id)) return id;
    if (std::chrono::steady_clock::now() > deadline)
      throw environment_error("allreduce: rank " + std::to_string(rank) + " waited 120 s for rank 0's NCCL id in " +
                              path.string());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

class AllReduce final : public Workload {
 public:
  ~AllReduce() override {
    if (comm_ != nullptr) (void)nccl().comm_destroy(comm_);
  }

  void setup(const Params& p) override {
    const long long bytes = p.get_int("bytes", 4, 1LL << 34);
    count_ = static_cast<unsigned long long>(bytes / 4);
    kernels_ = static_cast<int>(p.get_int("kernels", 0, 100000));
    steps_ = static_cast<int>(p.get_int("steps", 1, 100000));
    rank_ = static_cast<int>(p.get_int("rank", 0, 4095));
    nranks_ = static_cast<int>(p.get_int("nranks", 1, 4096));
    if (rank_ >= nranks_)
      throw usage_error("--param rank=" + std::to_string(rank_) + ": must be below nranks=" + std::to_string(nranks_));
    const std::string& folder = p.get("rendezvous");
    if (nranks_ > 1 && folder == "none")
      throw usage_error("allreduce with nranks=" + std::to_string(nranks_) +
                        " needs its peers: start it with `graphprof run --ranks N`, which sets rendezvous");
    static int generation = 0;  // communicators made by this process so far
    ncclUniqueId id{};
    if (nranks_ == 1) nccl_check(nccl().get_unique_id(&id), "ncclGetUniqueId");
    else id = exchange_id(folder, rank_, generation);
    ++generation;
    nccl_check(nccl().comm_init_rank(&comm_, nranks_, id, rank_), "ncclCommInitRank");

    buf_ = DeviceBuffer(count_ * sizeof(float));
    host_.resize(count_);
    for (unsigned long long i = 0; i < count_; ++i)
      host_[i] = 1.0f + 0.01f * static_cast<float>(i % 101) + static_cast<float>(rank_);
  }

  void reset(cudaStream_t s) override {
    GP_CUDA_CHECK(cudaMemcpyAsync(buf_.get(), host_.data(), buf_.bytes(), cudaMemcpyHostToDevice, s));
    GP_CUDA_CHECK(cudaStreamSynchronize(s));
  }

  void enqueue(LaunchContext& ctx) override {
    float* x = buf_.as<float>();
    for (int s = 0; s < steps_; ++s) {
      for (int k = 0; k < kernels_; ++k) ctx.launch(scale_add, grid(), block(), 0, x, count_, scale(), offset(k));
      all_reduce(ctx, ctx.stream());
    }
  }

  void build_graph(cudaGraph_t g) override {
    float* x = buf_.as<float>();
    unsigned long long n = count_;
    float a = scale();
    std::vector<cudaGraphNode_t> tail;  // what the next node depends on
    Stream side = make_stream();
    for (int s = 0; s < steps_; ++s) {
      for (int k = 0; k < kernels_; ++k) {
        float b = offset(k);
        void* args[] = {&x, &n, &a, &b};
        cudaKernelNodeParams kp{};
        kp.func = reinterpret_cast<void*>(scale_add);
        kp.gridDim = grid();
        kp.blockDim = block();
        kp.kernelParams = args;
        cudaGraphNode_t node = nullptr;
        GP_CUDA_CHECK(cudaGraphAddKernelNode(&node, g, tail.data(), tail.size(), &kp));
        tail.assign(1, node);
      }
      // NCCL has no node API: capture the all-reduce alone into a graph of its own and add that
      // as a child-graph node. (Recording it straight into this graph with
      // cudaStreamBeginCaptureToGraph works for one rank, but with two ranks on the H200 NCCL
      // 2.28 failed with "dependency created on uncaptured work in another stream".)
      GP_CUDA_CHECK(cudaStreamBeginCapture(side.get(), cudaStreamCaptureModeThreadLocal));
      const ncclResult_t r = nccl().all_reduce(x, x, count_, ncclFloat, ncclSum, comm_, side.get());
      cudaGraph_t child = nullptr;
      const cudaError_t end = cudaStreamEndCapture(side.get(), &child);
      const Graph owned(child);
      nccl_check(r, "ncclAllReduce (captured for a child-graph node)");
      GP_CUDA_CHECK(end);
      cudaGraphNode_t node = nullptr;
      GP_CUDA_CHECK(cudaGraphAddChildGraphNode(&node, g, tail.data(), tail.size(), child));
      tail.assign(1, node);
    }
  }

  std::string checksum(cudaStream_t s) override { return OutputDigest().device(buf_.get(), buf_.bytes()).compute(s); }


  std::map<std::string, double> extra_metrics() override {
    int v = 0;
    (void)nccl().get_version(&v);
    return {{"nccl_version", static_cast<double>(v)},
            {"ranks", static_cast<double>(nranks_)},
            {"bytes_per_allreduce", static_cast<double>(count_ * sizeof(float))}};
  }

 private:
  void all_reduce(LaunchContext& ctx, cudaStream_t stream) {
    ncclResult_t r = ncclSuccess;
    ctx.api("ncclAllReduce", [&] {
      r = nccl().all_reduce(buf_.get(), buf_.get(), count_, ncclFloat, ncclSum, comm_, stream);
      return r == ncclSuccess ? cudaSuccess : cudaGetLastError();
    });
    nccl_check(r, "ncclAllReduce");
  }

  float scale() const { return 1.0f / static_cast<float>(nranks_); }
  static float offset(int k) { return 0.001f * static_cast<float>(k % 7 + 1); }
  dim3 block() const { return dim3(256); }
  dim3 grid() const {
    const unsigned long long blocks = (count_ + 255) / 256;
    return dim3(static_cast<unsigned>(blocks < 1024 ? (blocks ? blocks : 1) : 1024));
  }

  unsigned long long count_ = 0;
  int kernels_ = 0, steps_ = 1, rank_ = 0, nranks_ = 1;
  ncclComm_t comm_ = nullptr;
  DeviceBuffer buf_;
  std::vector<float> host_;
};

}  // namespace

GP_REGISTER_WORKLOAD(AllReduce, WorkloadInfo{
    "allreduce",
    "K small kernels then an NCCL all-reduce of B bytes, S times per iteration; one process per GPU (run --ranks N)",
    {{"bytes", "1048576", "bytes each all-reduce sums across the ranks (floats)"},
     {"kernels", "4", "small kernels before each all-reduce"},
     {"steps", "4", "kernels + all-reduce rounds per iteration"},
     {"rank", "0", "this process's rank (set by --ranks)"},
     {"nranks", "1", "number of ranks (set by --ranks; 1 = this GPU alone)"},
     {"rendezvous", "none", "folder where rank 0 leaves the NCCL unique id (set by --ranks)"}}})

}  // namespace gp
