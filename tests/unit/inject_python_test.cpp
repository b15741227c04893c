// The injection library's Python frames (src/inject/common/python_frames.cpp) in a process that embeds
// CPython: the stack read on a thread that holds the GIL, on a Python thread that released it (the
// GIL is taken for the read, as around PyTorch's operators), and not at all where it must not be
// (a C++ thread without a thread state, a synchronising call, the held and off modes); and the
// Python stack an allocation made with the GIL released gets from the next call of the same call
// from Python (src/inject/common/alloc_python.cpp). Python's
// ctypes makes the calls: a CDLL function runs with the GIL released, a PyDLL function with it
// held. Skipped when no libpython can be loaded.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "alloc_python.hpp"
#include "python_frames.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define GP_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GP_TEST_ASAN 1
#endif
#endif

namespace {

using gp::inject::PyFrameInfo;
using gp::inject::PyFrameKey;
using gp::inject::PythonMode;
using gp::inject::PythonScope;

struct Seen {
  bool readable = false;
  bool python_thread = false;  // gp::inject::python_thread() on the probing thread
  std::size_t keys = 0;
  std::vector<PyFrameKey> key;  // the site key's frames
  std::vector<PyFrameInfo> frames;
};
Seen g_seen;
std::vector<Seen> g_log;  // every probe since the last clear

void probe(bool may_take) {
  Seen s;
  s.python_thread = gp::inject::python_thread();
  {
    const PythonScope scope(may_take);
    s.readable = scope.readable();
    PyFrameKey keys[48];
    s.keys = gp::inject::python_stack(keys, 48);
    s.key.assign(keys, keys + s.keys);
    if (s.readable) s.frames = gp::inject::python_stack_named(48);
  }
  g_seen = s;
  g_log.push_back(s);
}

}  // namespace

// Called from Python through ctypes (the test binary exports them).
extern "C" __attribute__((visibility("default"))) void gp_test_probe(int may_take) { probe(may_take != 0); }
// Gives the GIL's other waiters time to take it (the busy thread below), then probes.
extern "C" __attribute__((visibility("default"))) void gp_test_probe_after_pause() {
  std::this_thread::sleep_for(std::chrono::milliseconds(3));
  probe(true);
}
extern "C" __attribute__((visibility("default"))) void gp_test_probe_cpp_thread() {
  std::thread t([] { probe(true); });
  t.join();
}

// An operator as PyTorch's: called from Python with the GIL released, it allocates (the site is
// taken without the GIL, as call_site.cpp does: the allocation is kept) and then launches (the GIL
// taken, the Python stack read, the kept allocations of the same call from Python matched).
namespace {
bool g_allocation_readable = false;
std::vector<std::vector<std::uint32_t>> g_matched;  // per launch
std::size_t g_shared = 0;
}  // namespace

__attribute__((noinline)) void fake_allocation(std::uint32_t correlation) {
  const PythonScope scope(false);
  g_allocation_readable = scope.readable();
  if (!scope.readable()) gp::inject::keep_allocation_without_python(correlation);
}
__attribute__((noinline)) void fake_launch() {
  const PythonScope scope(true);
  if (!scope.readable()) return;
  g_seen.frames = gp::inject::python_stack_named(48);
  g_matched.push_back(gp::inject::allocations_of_this_python_call(&g_shared));
}
extern "C" __attribute__((visibility("default"))) void gp_test_operator(int correlation) {
  fake_allocation(static_cast<std::uint32_t>(correlation));
  fake_launch();
}
extern "C" __attribute__((visibility("default"))) void gp_test_allocate(int correlation) {
  fake_allocation(static_cast<std::uint32_t>(correlation));
}
extern "C" __attribute__((visibility("default"))) void gp_test_launch() { fake_launch(); }

namespace {

// Line numbers below are those of this program (the "<string>" file).
constexpr const char* kProgram =
    "import ctypes\n"                                      // 1
    "released_lib = ctypes.CDLL(None)\n"                   // 2
    "held_lib = ctypes.PyDLL(None)\n"                      // 3
    "def inner_released():\n"                              // 4
    "    released_lib.gp_test_probe(1)\n"                  // 5
    "def outer():\n"                                       // 6
    "    inner_released()\n"                               // 7
    "def held():\n"                                        // 8
    "    held_lib.gp_test_probe(1)\n"                      // 9
    "def sync_like():\n"                                   // 10
    "    released_lib.gp_test_probe(0)\n"                  // 11
    "def cpp_thread():\n"                                  // 12
    "    released_lib.gp_test_probe_cpp_thread()\n"        // 13
    "import threading, sys\n"                              // 14
    "busy_on = False\n"                                    // 15
    "def busy():\n"                                        // 16
    "    n = 0\n"                                          // 17
    "    while busy_on:\n"                                 // 18
    "        n = (n * 31 + 7) % 1000003\n"                  // 19
    "def paused():\n"                                      // 20
    "    released_lib.gp_test_probe_after_pause()\n"       // 21
    "def two():\n"                                         // 22
    "    released_lib.gp_test_probe(1)\n"                  // 23
    "    released_lib.gp_test_probe(1)\n"                  // 24
    "def operator():\n"                                    // 25
    "    released_lib.gp_test_operator(11)\n"              // 26
    "def allocate_then_launch_elsewhere():\n"              // 27
    "    released_lib.gp_test_allocate(12)\n"              // 28
    "    list(map(lambda _: released_lib.gp_test_launch(), [0]))\n"  // 29
    "    released_lib.gp_test_launch()\n"                  // 30
    "def allocate_held():\n"                               // 31
    "    held_lib.gp_test_allocate(13)\n"                  // 32
    "    released_lib.gp_test_launch()\n";                 // 33

struct Python {
  int (*run)(const char*) = nullptr;
  bool ok = false;
};

Python& python() {
  static Python p = [] {
    Python out;
    void* lib = nullptr;
    for (int minor = 14; minor >= 8 && lib == nullptr; --minor)
      lib = dlopen(("libpython3." + std::to_string(minor) + ".so.1.0").c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (lib == nullptr) return out;
    auto init = reinterpret_cast<void (*)(int)>(dlsym(lib, "Py_InitializeEx"));
    out.run = reinterpret_cast<int (*)(const char*)>(dlsym(lib, "PyRun_SimpleString"));
    if (init == nullptr || out.run == nullptr) return out;
    init(0);
    out.ok = out.run(kProgram) == 0 && gp::inject::look_up_python();
    return out;
  }();
  return p;
}

class InjectPython : public ::testing::Test {
 protected:
  void SetUp() override {
#if defined(GP_TEST_ASAN)
    GTEST_SKIP() << "the embedded interpreter's allocations at exit are not this test's (sanitizer build)";
#endif
    if (!python().ok) GTEST_SKIP() << "no libpython3 could be loaded and initialised";
    gp::inject::set_python_mode(PythonMode::kTake);
    g_seen = Seen{};
  }
  void TearDown() override { gp::inject::set_python_mode(PythonMode::kTake); }
  static void run(const char* code) { ASSERT_EQ(python().run(code), 0) << code; }
};

TEST_F(InjectPython, ReleasedGilIsTakenAndTheWholeStackIsRead) {
  const auto before = gp::inject::python_stats();
  ASSERT_TRUE(before.can_take);
  run("outer()\n");
  ASSERT_TRUE(g_seen.readable);
  ASSERT_GE(g_seen.frames.size(), 3u);
  EXPECT_EQ(g_seen.keys, g_seen.frames.size());
  EXPECT_EQ(g_seen.frames[0].function, "inner_released");
  EXPECT_EQ(g_seen.frames[0].file, "<string>");
  EXPECT_EQ(g_seen.frames[0].line, 5);
  EXPECT_EQ(g_seen.frames[1].function, "outer");
  EXPECT_EQ(g_seen.frames[1].line, 7);
  EXPECT_EQ(g_seen.frames[2].function, "<module>");
  const auto after = gp::inject::python_stats();
  EXPECT_EQ(after.taken, before.taken + 1);
  EXPECT_EQ(after.held, before.held);
}

// The key tells call sites apart and finds the same one again: two calls in one function differ in
// their innermost frame's position, the same call made again has the same key there.
TEST_F(InjectPython, TheKeyTellsCallSitesApartAndFindsThemAgain) {
  g_log.clear();
  run("two()\ntwo()\n");
  ASSERT_EQ(g_log.size(), 4u);
  for (const Seen& s : g_log) ASSERT_GE(s.key.size(), 2u);
  EXPECT_EQ(g_log[0].key[0].code, g_log[1].key[0].code) << "the same function";
  EXPECT_NE(g_log[0].key[0].at, g_log[1].key[0].at) << "two call sites in it";
  EXPECT_EQ(g_log[0].key[0].code, g_log[2].key[0].code);
  EXPECT_EQ(g_log[0].key[0].at, g_log[2].key[0].at) << "the first call site again";
  EXPECT_EQ(g_log[1].key[0].at, g_log[3].key[0].at) << "the second call site again";
  EXPECT_NE(g_log[0].key[1].at, g_log[2].key[1].at) << "called from two places of the module";
  EXPECT_EQ(g_log[0].frames[0].line, 23);
  EXPECT_EQ(g_log[1].frames[0].line, 24);
}

TEST_F(InjectPython, HeldGilIsReadWithoutTakingIt) {
  const auto before = gp::inject::python_stats();
  run("held()\n");
  ASSERT_TRUE(g_seen.readable);
  ASSERT_FALSE(g_seen.frames.empty());
  EXPECT_EQ(g_seen.frames[0].function, "held");
  EXPECT_EQ(g_seen.frames[0].line, 9);
  const auto after = gp::inject::python_stats();
  EXPECT_EQ(after.held, before.held + 1);
  EXPECT_EQ(after.taken, before.taken);
}

TEST_F(InjectPython, NotTakenForASynchronisingCallNorInHeldOrOffMode) {
  run("sync_like()\n");  // may_take false: the GIL is released and stays so
  EXPECT_FALSE(g_seen.readable);
  EXPECT_EQ(g_seen.keys, 0u);
  gp::inject::set_python_mode(PythonMode::kHeld);
  run("outer()\n");
  EXPECT_FALSE(g_seen.readable);
  run("held()\n");
  EXPECT_TRUE(g_seen.readable);
  gp::inject::set_python_mode(PythonMode::kOff);
  run("held()\n");
  EXPECT_FALSE(g_seen.readable);
  EXPECT_EQ(g_seen.keys, 0u);
}

TEST_F(InjectPython, AThreadWithoutAThreadStateIsLeftAlone) {
  const auto before = gp::inject::python_stats();
  run("cpp_thread()\n");  // returns: the C++ thread did not wait for the GIL
  EXPECT_FALSE(g_seen.readable);
  EXPECT_FALSE(g_seen.python_thread);  // so an allocation made there is not kept for a Python stack
  EXPECT_EQ(g_seen.keys, 0u);
  EXPECT_EQ(gp::inject::python_stats().taken, before.taken);
}

TEST_F(InjectPython, APythonThreadThatReleasedTheGilIsReadToo) {
  run("import threading\n"
      "t = threading.Thread(target=outer)\n"
      "t.start()\n"
      "t.join()\n");
  ASSERT_TRUE(g_seen.readable);
  EXPECT_TRUE(g_seen.python_thread);
  ASSERT_GE(g_seen.frames.size(), 2u);
  EXPECT_EQ(g_seen.frames[0].function, "inner_released");
  EXPECT_EQ(g_seen.frames[1].function, "outer");
  EXPECT_NE(g_seen.frames.back().file.find("threading"), std::string::npos);  // the thread's bootstrap
}

// An allocation made with the GIL released (no Python frames at its call) gets the Python stack of
// the launch that follows inside the same call from Python: the operator's line.
TEST_F(InjectPython, AnAllocationGetsThePythonStackOfItsOperatorsLaunch) {
  g_matched.clear();
  run("operator()\n");
  EXPECT_FALSE(g_allocation_readable) << "the GIL is not held at the allocation, and not taken there";
  ASSERT_EQ(g_matched.size(), 1u);
  EXPECT_EQ(g_matched[0], std::vector<std::uint32_t>{11});
  EXPECT_GE(g_shared, gp::inject::kSameCallFrames);
  ASSERT_FALSE(g_seen.frames.empty());
  EXPECT_EQ(g_seen.frames[0].function, "operator");
  EXPECT_EQ(g_seen.frames[0].line, 26);
  EXPECT_FALSE(gp::inject::allocations_kept()) << "matched and forgotten";
}

// A call from another path into the interpreter (here through map, from line 29) is not the
// allocation's call: the allocation keeps native frames only, and is forgotten, so the launch of
// line 30 does not get it either. An allocation made with the GIL held has its own frames.
TEST_F(InjectPython, AnAllocationIsNotGivenTheStackOfAnotherCall) {
  g_matched.clear();
  run("allocate_then_launch_elsewhere()\n");
  ASSERT_EQ(g_matched.size(), 2u);
  EXPECT_TRUE(g_matched[0].empty());
  EXPECT_TRUE(g_matched[1].empty());
  g_matched.clear();
  run("allocate_held()\n");
  EXPECT_TRUE(g_allocation_readable);
  ASSERT_EQ(g_matched.size(), 1u);
  EXPECT_TRUE(g_matched[0].empty()) << "nothing was kept";
}

// The comparison itself: stacks aligned where they enter the interpreter (frames 0x9xx here).
TEST(AllocationPython, StacksAreComparedWhereTheyEnterTheInterpreter) {
  auto interp = [](std::uintptr_t pc) { return pc >= 0x900 && pc < 0xa00; };
  const std::uintptr_t alloc[] = {0x11, 0x12, 0x13, 0x21, 0x22, 0x23, 0x901, 0x902, 0x903};
  const std::uintptr_t launch[] = {0x51, 0x52, 0x21, 0x22, 0x23, 0x901, 0x902};  // cut shorter outside
  const std::uintptr_t other[] = {0x51, 0x52, 0x21, 0x22, 0x23, 0x901, 0x955, 0x903};
  const std::uintptr_t none[] = {0x51, 0x52};
  auto shared = [&](const std::uintptr_t* a, std::size_t na, const std::uintptr_t* b, std::size_t nb) {
    return gp::inject::frames_shared_inside_interpreter(a, na, b, nb, +interp);
  };
  EXPECT_EQ(shared(alloc, 9, launch, 7), 3u);
  EXPECT_EQ(shared(alloc, 9, other, 8), 0u) << "another call from the interpreter";
  EXPECT_EQ(shared(alloc, 9, none, 2), 0u) << "no interpreter frame";
  EXPECT_EQ(shared(alloc, 9, alloc, 9), 6u);
}

// A second Python thread that keeps the GIL busy: once it has the GIL (the probe pauses to let it
// take it), a wait for it lasts a switch interval (the waiter waits that long before the holder is
// asked to drop it), so taking it stops after 16 slow waits and later calls are not read (native
// frames only).
TEST_F(InjectPython, TakingStopsWhenAnotherThreadKeepsTheGilBusy) {
  run("sys.setswitchinterval(0.005)\n"
      "busy_on = True\n"
      "t = threading.Thread(target=busy)\n"
      "t.start()\n");
  for (int i = 0; i < 400 && !gp::inject::python_stats().stopped; ++i) run("paused()\n");
  run("busy_on = False\n"
      "t.join()\n");
  const auto s = gp::inject::python_stats();
  EXPECT_TRUE(s.stopped);
  EXPECT_GE(s.slow, 16u);
  run("outer()\n");
  EXPECT_FALSE(g_seen.readable);  // stopped: the GIL is no longer taken
  run("held()\n");
  EXPECT_TRUE(g_seen.readable);   // a thread that holds it is still read
}

}  // namespace
