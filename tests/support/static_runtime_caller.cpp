// A program that reaches the CUDA driver as a statically linked runtime does (and CuPy, XLA,
// Triton): it opens libcuda.so.1 itself, takes cuGetProcAddress_v2 with dlsym and the driver's
// functions from it (and one with dlsym directly), and calls them through those pointers: no call
// goes through the dynamic linker. tests/unit/interpose_driver_test.cpp runs it with the interposer
// preloaded over the stand-in driver (tests/support/fake_cuda.cpp).
//   static_runtime_caller RECORDS_FILE
// It starts the interposer's recording into RECORDS_FILE, makes 3 kernel launches and 2 graph
// launches, ends the recording and prints where each pointer it was given lives and what reached
// the stand-in driver.
#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

#include "interposer_calls.hpp"

namespace {
int g_fd = -1;
int write_fd(const char* data, std::size_t size, int) { return ::write(g_fd, data, size) == static_cast<ssize_t>(size) ? 1 : 0; }

const char* module_of(const void* p) {
  Dl_info info{};
  if (p == nullptr || dladdr(p, &info) == 0 || info.dli_fname == nullptr) return "none";
  const char* base = std::strrchr(info.dli_fname, '/');
  return base != nullptr ? base + 1 : info.dli_fname;
}

using GetProcFn = int (*)(const char*, void**, int, unsigned long long, void*);
using CuLaunchFn = int (*)(void*, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, void*, void**, void**);
using GraphLaunchFn = int (*)(void*, void*);
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  g_fd = ::open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
  void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (g_fd < 0 || cuda == nullptr) return 3;
  const auto get_proc = reinterpret_cast<GetProcFn>(dlsym(cuda, "cuGetProcAddress_v2"));
  void* launch = nullptr;
  void* init = nullptr;
  if (get_proc == nullptr || get_proc("cuLaunchKernel", &launch, 13000, 0, nullptr) != 0 ||
      get_proc("cuInit", &init, 13000, 0, nullptr) != 0)
    return 4;
  void* graph_launch = dlsym(cuda, "cuGraphLaunch");
  const auto begin = reinterpret_cast<gp::interposer_test::BeginFn>(dlsym(RTLD_DEFAULT, "graphprof_interpose_begin"));
  const auto end = reinterpret_cast<gp::interposer_test::EndFn>(dlsym(RTLD_DEFAULT, "graphprof_interpose_end"));
  if (launch == nullptr || graph_launch == nullptr || begin == nullptr || end == nullptr) return 5;
  if (begin(write_fd, "/tmp", 0, nullptr) != 1) return 6;
  int stream = 0, exec = 0;
  for (int i = 0; i < 3; ++i)
    (void)reinterpret_cast<CuLaunchFn>(launch)(nullptr, 1, 1, 1, 32, 1, 1, 0, &stream, nullptr, nullptr);
  for (int i = 0; i < 2; ++i) (void)reinterpret_cast<GraphLaunchFn>(graph_launch)(&exec, &stream);
  end(1);
  int launches = -1, graph_launches = -1;
  const auto calls = reinterpret_cast<void (*)(int*, int*)>(dlsym(cuda, "fake_cuda_calls"));
  if (calls != nullptr) calls(&launches, &graph_launches);
  std::printf("get_proc=%s launch=%s init=%s graph_launch=%s reached=%d,%d\n", module_of(reinterpret_cast<void*>(get_proc)),
              module_of(launch), module_of(init), module_of(graph_launch), launches, graph_launches);
  return 0;
}
