// The interposer's windows of `profile --overhead-windows` (GRAPHPROF_PAUSE_WINDOWS=PERIOD_MS,START_MS,
// src/inject/interpose/runtime_interpose.cpp), through the stand-in shared runtime: each whole window is a pw
// line with the graph launches made in it, paused windows included; GRAPHPROF_DEV_PAUSE_LOG with
// %p logs the switch times to a file of the process. One test in this binary: the switch is read
// once, when recording begins, and scripts/sanitize.sh runs a binary's tests in one process.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../support/interposer_loaded.hpp"

namespace {

using gp::interposer_test::collect;
using gp::interposer_test::count;
using gp::interposer_test::lines_of;
using gp::interposer_test::load_and_begin;
using gp::interposer_test::Loaded;

// Where a fork() child writes its lines: write(2) alone, no lock a parent's thread might have held.
int g_child_fd = -1;
int child_write(const char* data, std::size_t size, int) { return ::write(g_child_fd, data, size) == static_cast<ssize_t>(size) ? 1 : 0; }

}  // namespace

TEST(InterposeWindows, EachWholeWindowIsWrittenWithTheGraphLaunchesInIt) {
  const std::string log = ::testing::TempDir() + "/interpose_windows_%p.txt";
  const std::string log_of_this = ::testing::TempDir() + "/interpose_windows_" + std::to_string(getpid()) + ".txt";
  std::remove(log_of_this.c_str());
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
  // ... and on to a paused window (an odd number written: the last one recorded).
  while ((windows() < 6 || windows() % 2 == 0) && std::chrono::steady_clock::now() < deadline) {
    EXPECT_EQ(graph_launch(&exec, &stream), 0);
    ++launches;
    std::this_thread::sleep_for(std::chrono::microseconds(300));
  }
  // A fork() child made in a paused window that begins recording of its own records its calls: it
  // does not inherit the pause (the switch's thread is not copied, so it would never resume). It
  // writes with write(2) alone, into a file of its own.
  const std::string child_lines = ::testing::TempDir() + "/interpose_windows_child_" + std::to_string(getpid()) + ".jsonl";
  std::remove(child_lines.c_str());
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    g_child_fd = ::open(child_lines.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    const gp::interposer::Dim3 one{1, 1, 1};
    const bool ok = g_child_fd >= 0 && interposer.begin(child_write, ::testing::TempDir().c_str(), 0, nullptr) == 1 &&
                    interposer.launch(nullptr, one, one, nullptr, 0, &stream) == 0;
    interposer.end(1);
    ::_exit(ok ? 0 : 2);
  }
  int status = -1;
  for (int waited = 0; waited < 1000 && ::waitpid(child, &status, WNOHANG) == 0; ++waited)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (status == -1) ::kill(child, SIGKILL), ::waitpid(child, &status, 0);
  end(1);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child ended with status " << status;
  {
    std::ifstream in(child_lines);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(count(text, "\"n\":\"cudaLaunchKernel\""), 1u) << "the child's own launch is recorded:\n" << text;
  }
  std::remove(child_lines.c_str());

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
