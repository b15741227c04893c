// The interposer's developer switch GRAPHPROF_DEV_PAUSE=PERIOD_MS,START_MS,FILE
// (src/inject/interpose/runtime_interpose.cpp), through the stand-in shared runtime (tests/support/
// fake_cudart.cpp): nothing happens before the first graph launch; from it, recording is paused and
// resumed every PERIOD_MS, each switch's CLOCK_MONOTONIC time is written to FILE in order, and the
// calls made in paused windows are forwarded but not recorded. One test in this binary: the switch
// is read once, when recording begins, and scripts/sanitize.sh runs a binary's tests in one process
// (GRAPHPROF_PAUSE_WINDOWS: tests/unit/interpose_windows_test.cpp).
#include <gtest/gtest.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "../support/interposer_loaded.hpp"

namespace {

using gp::interposer::Dim3;
using gp::interposer_test::count;
using gp::interposer_test::lines_of;
using gp::interposer_test::load_and_begin;
using gp::interposer_test::Loaded;

}  // namespace

TEST(InterposePause, RecordingIsPausedInAlternateWindowsFromTheFirstGraphLaunch) {
  const std::string switches = ::testing::TempDir() + "/interpose_pause_" + std::to_string(getpid()) + ".txt";
  std::remove(switches.c_str());
  ASSERT_EQ(::setenv("GRAPHPROF_DEV_PAUSE", ("30,0," + switches).c_str(), 1), 0);
  Loaded interposer;
  ASSERT_NO_FATAL_FAILURE(load_and_begin(interposer));
  const auto end = interposer.end;
  const auto launch = interposer.launch;
  const auto graph_launch = interposer.graph_launch;

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
