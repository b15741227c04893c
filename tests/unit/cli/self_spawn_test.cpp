// spawn_self / wait_child (src/cli/self_spawn.cpp) on the CPU: this test binary starts copies of
// itself (spawn_self always starts /proc/self/exe) that run only the SelfSpawnChild test, told by
// GRAPHPROF_SPAWN_TEST_CHILD what to do, and checks exit statuses, the non-blocking wait, and that
// SIGTERM sent to a waiting parent reaches its child and then ends the parent with SIGTERM.
#include "self_spawn.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace gp::cli {
namespace {

// The child's side: does what GRAPHPROF_SPAWN_TEST_CHILD says ("exit:N", "sleep:S"); skipped when
// the variable is not set (the ordinary run of this binary).
TEST(SelfSpawnChild, DoesWhatTheParentAsks) {
  const char* what = std::getenv("GRAPHPROF_SPAWN_TEST_CHILD");
  if (what == nullptr) GTEST_SKIP() << "only in a child started by the tests below";
  const std::string w = what;
  if (w.rfind("exit:", 0) == 0) std::_Exit(std::atoi(w.c_str() + 5));
  if (w.rfind("sleep:", 0) == 0) {
    std::this_thread::sleep_for(std::chrono::seconds(std::atoi(w.c_str() + 6)));
    std::_Exit(0);
  }
  std::_Exit(99);
}

std::vector<std::string> child_args() { return {"self_spawn_test", "--gtest_filter=SelfSpawnChild.*"}; }

TEST(SelfSpawn, WaitReturnsTheChildsExitStatus) {
  EXPECT_EQ(wait_child(spawn_self(child_args(), {"GRAPHPROF_SPAWN_TEST_CHILD=exit:7"})), 7);
  EXPECT_EQ(wait_child(spawn_self(child_args(), {"GRAPHPROF_SPAWN_TEST_CHILD=exit:0"})), 0);
}

TEST(SelfSpawn, ANonBlockingWaitSaysRunningUntilTheChildEnds) {
  const pid_t pid = spawn_self(child_args(), {"GRAPHPROF_SPAWN_TEST_CHILD=sleep:5"});
  EXPECT_EQ(wait_child(pid, false), -1);
  int status = -1;
  for (int i = 0; i < 600 && status < 0; ++i) {  // up to 60 s on a loaded machine
    status = wait_child(pid, false);
    if (status < 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(status, 0);
}

TEST(SelfSpawn, AKilledChildReads128PlusItsSignal) {
  const pid_t pid = spawn_self(child_args(), {"GRAPHPROF_SPAWN_TEST_CHILD=sleep:60"});
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  EXPECT_EQ(wait_child(pid), 128 + SIGKILL);
}

TEST(SelfSpawn, SigtermToTheParentReachesItsChildThenEndsTheParent) {
  // The parent is a fork of this test (the signal ends it); this test process adopts its orphaned
  // child as a subreaper, so it can see how that child ended.
  ASSERT_EQ(::prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    ::close(fds[0]);
    const pid_t child = spawn_self(child_args(), {"GRAPHPROF_SPAWN_TEST_CHILD=sleep:60"});
    if (::write(fds[1], &child, sizeof child) != sizeof child) std::_Exit(98);
    ::close(fds[1]);
    wait_child(child);
    std::_Exit(97);  // not reached: SIGTERM ends this process while it waits
  }
  ::close(fds[1]);
  pid_t child = 0;
  ASSERT_EQ(::read(fds[0], &child, sizeof child), static_cast<ssize_t>(sizeof child));
  ::close(fds[0]);
  ASSERT_EQ(::kill(parent, SIGTERM), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(parent, &status, 0), parent);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the parent exited with " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  // The child got the SIGTERM too: it ends at once, not after its 60 s.
  const auto t0 = std::chrono::steady_clock::now();
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the child exited with " << WEXITSTATUS(status);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(50));
  ::prctl(PR_SET_CHILD_SUBREAPER, 0);
}

}  // namespace
}  // namespace gp::cli
