// Host-speed probes (see include/graphprof/cuda/host_probe.hpp).
#include "graphprof/cuda/host_probe.hpp"

#include <chrono>
#include <cstdint>
#include <vector>

#include "graphprof/cuda/handles.hpp"
#include "graphprof/core/stats.hpp"

namespace gp {

namespace {
using Clock = std::chrono::steady_clock;

double ns(Clock::time_point a, Clock::time_point b) {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}

// A dependent integer chain the compiler cannot fold: about 10 µs on a current server core.
std::uint64_t cpu_loop(std::uint64_t seed) {
  volatile std::uint64_t sink = seed;
  std::uint64_t x = sink;
  for (int i = 0; i < 4000; ++i) x = x * 6364136223846793005ULL + 1442695040888963407ULL;
  sink = x;
  return sink;
}
}  // namespace

std::map<std::string, double> measure_host_probes(const std::string& suffix) {
  std::vector<double> cpu, api;
  for (int i = 0; i < 200; ++i) {
    const auto t0 = Clock::now();
    cpu_loop(static_cast<std::uint64_t>(i));
    cpu.push_back(ns(t0, Clock::now()));
  }
  Stream s = make_stream();
  for (int i = 0; i < 2000; ++i) {
    const auto t0 = Clock::now();
    const cudaError_t e = cudaStreamQuery(s.get());
    api.push_back(ns(t0, Clock::now()));
    if (e != cudaSuccess) GP_CUDA_CHECK(e);
  }
  return {{"cpu_loop_ns" + suffix, median(cpu)}, {"cuda_api_ns" + suffix, median(api)}};
}

}  // namespace gp
