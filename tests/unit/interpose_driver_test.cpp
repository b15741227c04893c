// The interposer at the driver API (src/inject/interpose/driver_lookup.cpp): a program that takes the
// driver's functions itself — cuGetProcAddress_v2 through dlsym on its own handle of libcuda.so.1,
// then the functions from it, as a statically linked runtime, CuPy and XLA do — gets the
// interposer's definitions where it has them, and its calls are recorded and reach the driver.
// tests/support/static_runtime_caller.cpp, run with the interposer preloaded over the stand-in
// driver (tests/support/fake_cuda.cpp).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

namespace {

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Runs the caller with the interposer preloaded; its stdout in `out`, its records in `records`.
int run_caller(std::string& out, std::string& records) {
  const std::string path = ::testing::TempDir() + "/interpose_driver_" + std::to_string(::getpid()) + ".jsonl";
  const std::string folder = GRAPHPROF_FAKE_CUDA;
  const std::string command = "env LD_PRELOAD=" GRAPHPROF_INTERPOSE_LIB " LD_LIBRARY_PATH=" + folder.substr(0, folder.rfind('/')) +
                              " " GRAPHPROF_STATIC_CALLER " " + path;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return -1;
  std::array<char, 512> b{};
  while (std::fgets(b.data(), b.size(), pipe) != nullptr) out += b.data();
  const int status = ::pclose(pipe);
  std::ifstream in(path);
  records.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(InterposeDriver, AStaticRuntimeLikeCallerGetsTheWrappersFromCuGetProcAddressAndDlsymAndIsRecorded) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "the interposer answers dlsym on x86-64 only";
#endif
  std::string out, records;
  ASSERT_EQ(run_caller(out, records), 0) << out;
  // The pointers it was handed: cuGetProcAddress_v2 (taken with dlsym) and the launches are the
  // interposer's; cuInit, which the interposer does not define, is the driver's own.
  EXPECT_NE(out.find("get_proc=libgraphprof_interpose.so"), std::string::npos) << out;
  EXPECT_NE(out.find("launch=libgraphprof_interpose.so"), std::string::npos) << out;
  EXPECT_NE(out.find("graph_launch=libgraphprof_interpose.so"), std::string::npos) << out;
  EXPECT_NE(out.find("init=libcuda.so.1"), std::string::npos) << out;
  // Every call reached the driver, and every one is in the records under its driver name.
  EXPECT_NE(out.find("reached=3,2"), std::string::npos) << out;
  EXPECT_EQ(count(records, "\"n\":\"cuLaunchKernel\""), 3u) << records;
  EXPECT_EQ(count(records, "\"n\":\"cuGraphLaunch\""), 2u) << records;
}

}  // namespace
