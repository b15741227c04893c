// The interposer library without a GPU (CUDA builds): loaded next to the real shared runtime
// (libcudart.so.13, which without a driver answers every call with an error), it forwards each call
// to the real function and returns what that returned, and once started it records the calls in
// the injection's line format, which the profile analysis reads. Loaded after the runtime, it is
// not what the process's calls resolve to, and it says so (graphprof_interpose_ready).
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <chrono>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "graphprof/profile/profile.hpp"

#include "../support/interposer_calls.hpp"

namespace gp {
namespace {

using gp::interposer_test::collect;
std::string& g_lines = gp::interposer_test::lines();

using gp::interposer::Dim3;
using gp::interposer_test::LaunchFn;
using GraphLaunchFn = int (*)(void*, void*);

TEST(InterposeLibrary, ForwardsToTheRealRuntimeAndRecordsTheCalls) {
  void* cudart = dlopen("libcudart.so.13", RTLD_NOW | RTLD_GLOBAL);
  if (cudart == nullptr) GTEST_SKIP() << "no shared CUDA runtime: " << dlerror();
  void* lib = dlopen(GRAPHPROF_INTERPOSE_LIB, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto ready = reinterpret_cast<int (*)()>(dlsym(lib, "graphprof_interpose_ready"));
  auto begin = reinterpret_cast<gp::interposer_test::BeginFn>(dlsym(lib, "graphprof_interpose_begin"));
  auto end = reinterpret_cast<gp::interposer_test::EndFn>(dlsym(lib, "graphprof_interpose_end"));
  ASSERT_TRUE(ready != nullptr && begin != nullptr && end != nullptr);
  EXPECT_EQ(ready(), 0) << "loaded after libcudart, the process's calls do not resolve to it";

  auto real_launch = reinterpret_cast<LaunchFn>(dlsym(cudart, "cudaLaunchKernel"));
  auto launch = reinterpret_cast<LaunchFn>(dlsym(lib, "cudaLaunchKernel"));
  auto graph_launch = reinterpret_cast<GraphLaunchFn>(dlsym(lib, "cudaGraphLaunch"));
  ASSERT_TRUE(real_launch != nullptr && launch != nullptr && graph_launch != nullptr);
  ASSERT_NE(reinterpret_cast<void*>(launch), reinterpret_cast<void*>(real_launch));
  const Dim3 one{1, 1, 1};
  const int expected = real_launch(nullptr, one, one, nullptr, 0, nullptr);
  ASSERT_NE(expected, 0) << "without a driver the runtime refuses";

  EXPECT_EQ(launch(nullptr, one, one, nullptr, 0, nullptr), expected) << "not recorded yet, but forwarded";
  ASSERT_EQ(begin(collect, ::testing::TempDir().c_str(), 0, nullptr), 1);
  EXPECT_EQ(launch(nullptr, one, one, nullptr, 0, nullptr), expected);
  int fake_exec = 0;
  const int graph_result = graph_launch(&fake_exec, nullptr);
  EXPECT_NE(graph_result, 0);
  end(1);
  end(1);  // a second end writes nothing
  EXPECT_EQ(launch(nullptr, one, one, nullptr, 0, nullptr), expected) << "after the end: forwarded, not recorded";

  // The process line the injection library would write first; its start on the same clock as the
  // interposer's records (CLOCK_REALTIME), which are read against it.
  const auto started = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  std::istringstream in("{\"t\":\"process\",\"pid\":" + std::to_string(::getpid()) +
                        ",\"ppid\":1,\"ts\":" + std::to_string(started) + ",\"cupti\":0,\"level\":0,\"sample\":\"\",\"observed\":\"interpose\",\"cmdline\":\"t\"}\n" +
                        g_lines);
  const ProcessRecords r = parse_process_records(in, "interposed.jsonl");
  EXPECT_EQ(r.malformed_lines, 0u) << g_lines;
  ASSERT_EQ(r.trace.api.size(), 2u) << g_lines;
  EXPECT_EQ(r.trace.api[0].name, "cudaLaunchKernel");
  EXPECT_EQ(r.trace.api[0].return_value, static_cast<std::uint32_t>(expected));
  EXPECT_EQ(r.trace.api[1].name, "cudaGraphLaunch");
  EXPECT_EQ(r.trace.api[1].return_value, static_cast<std::uint32_t>(graph_result));
  EXPECT_LE(r.trace.api[0].start_ns, r.trace.api[0].end_ns);
  ASSERT_EQ(r.launches.size(), 1u) << "the graph launch's exec, by its correlation id";
  EXPECT_EQ(r.launches[0].correlation_id, r.trace.api[1].correlation_id);
  ASSERT_EQ(r.warnings.size(), 1u) << g_lines;
  EXPECT_NE(r.warnings[0].find("1 graph launch ran an exec whose instantiation"), std::string::npos) << r.warnings[0];
  const ProcessProfile p = analyze_process(r);
  EXPECT_EQ(p.graph_launches, 1u);
  EXPECT_EQ(p.eager_launches, 1u);
}

}  // namespace
}  // namespace gp
