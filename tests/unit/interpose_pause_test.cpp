// The interposer's windows of recording and pause (src/inject/runtime_interpose.cpp), through the
// stand-in shared runtime (tests/support/fake_cudart.cpp). The developer switch
// GRAPHPROF_DEV_PAUSE=PERIOD_MS,START_MS,FILE: nothing happens before the first graph launch; from
// it, recording is paused and resumed every PERIOD_MS, each switch's CLOCK_MONOTONIC time is
// written to FILE in order, and the calls made in paused windows are forwarded but not recorded.
// GRAPHPROF_PAUSE_WINDOWS=PERIOD_MS,START_MS (profile --overhead-windows): each whole window is a
// pw line with the graph launches made in it, paused windows included. Each test is a process of
// its own (the switch is read once, when recording begins).
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../support/interposer_calls.hpp"

namespace {

using gp::interposer::Dim3;
using gp::interposer_test::collect;
using gp::interposer_test::LaunchFn;
using GraphLaunchFn = int (*)(void*, void*);

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The interposer loaded over the stand-in runtime, recording into collect(): its functions.
struct Loaded {
  gp::interposer_test::EndFn end = nullptr;
  LaunchFn launch = nullptr;
  GraphLaunchFn graph_launch = nullptr;
};
void load_and_begin(Loaded& out) {
  void* cudart = dlopen(GRAPHPROF_FAKE_CUDART, RTLD_NOW | RTLD_GLOBAL);
  void* lib = dlopen(GRAPHPROF_INTERPOSE_LIB, RTLD_NOW | RTLD_LOCAL);
  ASSERT_TRUE(cudart && lib) << dlerror();
  auto begin = reinterpret_cast<gp::interposer_test::BeginFn>(dlsym(lib, "graphprof_interpose_begin"));
  out.end = reinterpret_cast<gp::interposer_test::EndFn>(dlsym(lib, "graphprof_interpose_end"));
  out.launch = reinterpret_cast<LaunchFn>(dlsym(lib, "cudaLaunchKernel"));
  out.graph_launch = reinterpret_cast<GraphLaunchFn>(dlsym(lib, "cudaGraphLaunch"));
  ASSERT_TRUE(begin && out.end && out.launch && out.graph_launch);
  ASSERT_EQ(begin(collect, ::testing::TempDir().c_str(), 0, nullptr), 1);
}

}  // namespace

TEST(InterposePause, RecordingIsPausedInAlternateWindowsFromTheFirstGraphLaunch) {
  const std::string switches = ::testing::TempDir() + "/interpose_pause_" + std::to_string(getpid()) + ".txt";
  std::remove(switches.c_str());
  ASSERT_EQ(::setenv("GRAPHPROF_DEV_PAUSE", ("30,0," + switches).c_str(), 1), 0);
  Loaded interposer;
  ASSERT_NO_FATAL_FAILURE(load_and_begin(interposer));
  const auto [end, launch, graph_launch] = interposer;

  const Dim3 one{1, 1, 1};
  int stream = 0;
  for (int i = 0; i < 20; ++i) EXPECT_EQ(launch(nullptr, one, one, nullptr, 0, &stream), 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_TRUE(lines_of(switches).empty()) << "no switch before the first graph launch";
  int exec = 0;
  EXPECT_EQ(graph_launch(&exec, &stream), 0);
  // Calls until the switch has paused and resumed twice (at most 10 s on a loaded machine).
  int calls = 20;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (lines_of(switches).size() < 5 && std::chrono::steady_clock::now() < deadline) {
    EXPECT_EQ(launch(nullptr, one, one, nullptr, 0, &stream), 0) << "forwarded in either window";
    ++calls;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  end(1);

  const std::vector<std::string> marks = lines_of(switches);
  ASSERT_GE(marks.size(), 5u);
  unsigned long long last = 0;
  for (std::size_t i = 0; i < marks.size(); ++i) {
    char kind[16] = {};
    unsigned long long ns = 0;
    ASSERT_EQ(std::sscanf(marks[i].c_str(), "%llu %15s", &ns, kind), 2) << marks[i];
    EXPECT_EQ(std::string(kind), i % 2 == 0 ? "recording" : "paused") << "alternating, recording first";
    EXPECT_GT(ns, last) << "in order";
    last = ns;
  }
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  EXPECT_LE(last, static_cast<unsigned long long>(now.tv_sec) * 1000000000ull + static_cast<unsigned long long>(now.tv_nsec))
      << "CLOCK_MONOTONIC";
  const std::size_t recorded = count(gp::interposer_test::lines(), "\"n\":\"cudaLaunchKernel\"");
  EXPECT_GT(recorded, 20u) << "the calls before the first graph launch and in recording windows are recorded";
  EXPECT_LT(recorded, static_cast<std::size_t>(calls)) << "the calls in paused windows are not";
  std::remove(switches.c_str());
}

TEST(InterposePause, OverheadWindowsWriteEachWholeWindowWithTheGraphLaunchesInIt) {
  const std::string log = ::testing::TempDir() + "/interpose_windows_%p.txt";
  const std::string log_of_this = ::testing::TempDir() + "/interpose_windows_" + std::to_string(getpid()) + ".txt";
  std::remove(log_of_this.c_str());
  ASSERT_EQ(::unsetenv("GRAPHPROF_DEV_PAUSE"), 0);
  ASSERT_EQ(::setenv("GRAPHPROF_PAUSE_WINDOWS", "30,0", 1), 0);
  ASSERT_EQ(::setenv("GRAPHPROF_DEV_PAUSE_LOG", log.c_str(), 1), 0);
  Loaded interposer;
  ASSERT_NO_FATAL_FAILURE(load_and_begin(interposer));
  const auto end = interposer.end;
  const auto graph_launch = interposer.graph_launch;

  int exec = 0, stream = 0;
  std::size_t launches = 0;
  // Graph launches until six windows are whole (at most 10 s on a loaded machine).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  auto windows = [] {
    const std::lock_guard<std::mutex> lock(gp::interposer_test::lines_mutex());
    return count(gp::interposer_test::lines(), "\"t\":\"pw\"");
  };
  while (windows() < 6 && std::chrono::steady_clock::now() < deadline) {
    EXPECT_EQ(graph_launch(&exec, &stream), 0);
    ++launches;
    std::this_thread::sleep_for(std::chrono::microseconds(300));
  }
  end(1);

  std::vector<std::string> pw;
  {
    std::istringstream in(gp::interposer_test::lines());
    for (std::string line; std::getline(in, line);)
      if (line.find("\"t\":\"pw\"") != std::string::npos) pw.push_back(line);
  }
  ASSERT_GE(pw.size(), 6u);
  unsigned long long previous_to = 0, in_windows = 0, in_paused = 0;
  for (std::size_t i = 0; i < pw.size(); ++i) {
    int rec = -1;
    unsigned long long from = 0, to = 0, n = 0, span = 0;
    ASSERT_EQ(std::sscanf(pw[i].c_str(), "{\"t\":\"pw\",\"rec\":%d,\"from\":%llu,\"to\":%llu,\"n\":%llu,\"span\":%llu}", &rec, &from,
                          &to, &n, &span),
              5)
        << pw[i];
    EXPECT_EQ(rec, i % 2 == 0 ? 1 : 0) << "alternating, recording first: " << pw[i];
    EXPECT_LT(from, to) << pw[i];
    if (i > 0) EXPECT_EQ(from, previous_to) << "each window starts where the one before ended";
    previous_to = to;
    EXPECT_EQ(n > 0, span > 0) << "launches in a window have a time from the last one before: " << pw[i];
    in_windows += n;
    if (rec == 0) in_paused += n;
  }
  EXPECT_GT(in_paused, 0u) << "graph launches in paused windows are counted too: the steps' clock runs in both";
  EXPECT_LT(in_windows, launches) << "the first launch (which starts the windows) and those after the last whole window are in none";
  const std::size_t recorded = count(gp::interposer_test::lines(), "\"n\":\"cudaGraphLaunch\"");
  EXPECT_LT(recorded + in_paused, launches + 1) << "the launches in paused windows are not recorded";
  const std::vector<std::string> marks = lines_of(log_of_this);
  EXPECT_GE(marks.size(), pw.size()) << "GRAPHPROF_DEV_PAUSE_LOG with %p: the switch times in the file of this process";
  std::remove(log_of_this.c_str());
}
