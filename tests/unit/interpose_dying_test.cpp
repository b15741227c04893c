// A program that dies keeps its records (src/inject/interpose/interpose_exit.cpp, runtime_interpose.cpp): the
// interposer, loaded over the stand-in shared runtime in a child process, records graph launches
// and the child then dies — killed by SIGKILL after the writer's 100 ms flush, by SIGSEGV, by
// SIGABRT, or through _exit (os._exit) — and every launch is in its records, with an end line
// naming how it ended where the process could say so.
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <tuple>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>

#include "../support/interposer_calls.hpp"

namespace {

int g_fd = -1;
int write_fd(const char* data, std::size_t size, int) { return ::write(g_fd, data, size) == static_cast<ssize_t>(size) ? 1 : 0; }

enum class Death { kKill, kSegv, kAbort, kExit };
constexpr int kLaunches = 37;

// The records of a child that launched kLaunches graphs and died as `how`; its wait status in `status`.
std::string records_of_death(Death how, int& status) {
  const std::string path = ::testing::TempDir() + "/interpose_dying_" + std::to_string(::getpid()) + "_" +
                           std::to_string(static_cast<int>(how)) + ".jsonl";
  std::remove(path.c_str());
  const pid_t child = ::fork();
  if (child == 0) {
    g_fd = ::open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC, 0644);
    void* cudart = dlopen(GRAPHPROF_FAKE_CUDART, RTLD_NOW | RTLD_GLOBAL);
    void* lib = dlopen(GRAPHPROF_INTERPOSE_LIB, RTLD_NOW | RTLD_LOCAL);
    if (g_fd < 0 || cudart == nullptr || lib == nullptr) ::_exit(3);
    const auto begin = reinterpret_cast<gp::interposer_test::BeginFn>(dlsym(lib, "graphprof_interpose_begin"));
    const auto launch = reinterpret_cast<int (*)(void*, void*)>(dlsym(lib, "cudaGraphLaunch"));
    const auto exit_fn = reinterpret_cast<void (*)(int)>(dlsym(lib, "_exit"));
    if (begin == nullptr || launch == nullptr || exit_fn == nullptr || begin(write_fd, ::testing::TempDir().c_str(), 0, nullptr) != 1)
      ::_exit(4);
    int exec = 0, stream = 0;
    for (int i = 0; i < kLaunches; ++i) (void)launch(&exec, &stream);
    switch (how) {
      case Death::kKill:
        std::this_thread::sleep_for(std::chrono::milliseconds(400));  // the writer's flush every 100 ms
        ::kill(::getpid(), SIGKILL);
        break;
      case Death::kSegv: ::raise(SIGSEGV); break;
      case Death::kAbort: ::abort();
      case Death::kExit: exit_fn(0);  // as os._exit reaches the preloaded library's _exit
    }
    ::_exit(5);
  }
  status = -1;
  for (int waited = 0; waited < 1000 && ::waitpid(child, &status, WNOHANG) == 0; ++waited)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  if (status == -1) ::kill(child, SIGKILL), ::waitpid(child, &status, 0);
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::remove(path.c_str());
  return text;
}

// Launch correlation ids in the lx lines.
std::size_t launches_in(const std::string& text) {
  std::size_t n = 0;
  for (std::size_t at = text.find("\"t\":\"lx\""); at != std::string::npos; at = text.find("\"t\":\"lx\"", at + 1)) {
    const std::size_t open = text.find('[', at), close = text.find(']', at);
    if (open == std::string::npos || close == std::string::npos) break;
    if (close > open + 1) n += 1 + static_cast<std::size_t>(std::count(text.begin() + open, text.begin() + close, ','));
  }
  return n;
}

TEST(InterposeDying, SigkillLosesNothingOlderThanTheFlush) {
  int status = 0;
  const std::string text = records_of_death(Death::kKill, status);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  EXPECT_EQ(launches_in(text), static_cast<std::size_t>(kLaunches)) << text;
}

TEST(InterposeDying, AFatalSignalWritesWhatIsPendingThenEndsTheProcessByIt) {
  for (const auto& [how, sig, name] : {std::make_tuple(Death::kSegv, SIGSEGV, "SIGSEGV"), std::make_tuple(Death::kAbort, SIGABRT, "SIGABRT")}) {
    // A handler of the test process's own (a sanitizer's SIGSEGV handler) is kept: the interposer
    // then leaves the signal alone.
    struct sigaction current {};
    if (sigaction(sig, nullptr, &current) != 0 || current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO)) continue;
    int status = 0;
    const std::string text = records_of_death(how, status);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << name << ": " << status;
    EXPECT_EQ(launches_in(text), static_cast<std::size_t>(kLaunches)) << name << ": " << text;
    EXPECT_NE(text.find(std::string("\"t\":\"end\",\"reason\":\"") + name + "\""), std::string::npos) << text;
  }
}

TEST(InterposeDying, ExitWithoutExitHandlersWritesWhatIsPending) {
  int status = 0;
  const std::string text = records_of_death(Death::kExit, status);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(launches_in(text), static_cast<std::size_t>(kLaunches)) << text;
  EXPECT_NE(text.find("\"reason\":\"_exit(0)\""), std::string::npos) << text;
}

}  // namespace
