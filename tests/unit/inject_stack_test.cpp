// The injection library's native stacks (src/inject/common/native_stack.cpp), host-only: the cached
// unwinder gives the same return addresses as the full unwind, in this thread and another, for
// shallow and deep chains and a frame with a large local array; frames are named from the
// executable's own symbol table (static functions too), with the module's identity; an address no
// module maps is named by nothing and does not crash.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "native_stack.hpp"
#include "graphprof/core/elf_identity.hpp"

namespace gp::inject {
namespace {

using Stack = std::vector<std::uintptr_t>;

__attribute__((noinline)) Stack take(bool cached) {
  std::uintptr_t pcs[48];
  const std::size_t n = cached ? cached_native_stack(pcs, 48) : native_stack(pcs, 48);
  asm volatile("");
  return Stack(pcs, pcs + n);
}

__attribute__((noinline)) static Stack leaf_site(bool cached) {
  Stack s = take(cached);
  asm volatile("");
  return s;
}

__attribute__((noinline)) static Stack big_frame_site(bool cached) {
  volatile char buffer[4096];
  buffer[0] = 1;
  Stack s = take(cached);
  asm volatile("");
  return s;
}

__attribute__((noinline)) static Stack deep(int depth, bool cached) {
  if (depth == 0) return leaf_site(cached);
  Stack s = deep(depth - 1, cached);
  asm volatile("");
  return s;
}

// The same call site three times (a loop, not unrolled): a full unwind, then the cached path twice.
template <typename F>
std::vector<Stack> three_times(F f) {
  std::vector<Stack> out;
  volatile int n = 3;
  for (int i = 0; i < n; ++i) out.push_back(f());
  return out;
}

void expect_same(const std::vector<Stack>& runs) {
  ASSERT_GE(runs[0].size(), 3u);
  EXPECT_EQ(runs[0], runs[1]);
  EXPECT_EQ(runs[0], runs[2]);
}

TEST(InjectStack, CachedStacksEqualFullUnwinds) {
  expect_same(three_times([] { return leaf_site(true); }));
  expect_same(three_times([] { return big_frame_site(true); }));
  expect_same(three_times([] { return deep(7, true); }));
  std::thread t([] {
    expect_same(three_times([] { return deep(3, true); }));
    expect_same(three_times([] { return leaf_site(true); }));
  });
  t.join();
}

TEST(InjectStack, CachedAndFullUnwindAgreeBelowTheirOwnFrame) {
  // From different callers (take(true) vs take(false) are the same frame): every frame above matches.
  const std::vector<Stack> cached = three_times([] { return deep(2, true); });
  const std::vector<Stack> full = three_times([] { return deep(2, false); });
  ASSERT_EQ(cached[2].size(), full[2].size());
  // The callers themselves differ: two lambdas (GCC "TestBody()::{lambda()#1}", clang "TestBody()::$_4")
  // and the two instances of three_times (clang's name starts with its return type). Those frames
  // are skipped; every frame below them and above them must agree.
  auto caller_frame = [](const std::string& fn) {
    return fn.find("three_times<") != std::string::npos || fn.find("TestBody()::") != std::string::npos;
  };
  std::size_t compared = 0;
  for (std::size_t i = 1; i < full[2].size(); ++i) {
    const std::string c = describe_frame(cached[2][i]).function, f = describe_frame(full[2][i]).function;
    if (caller_frame(c) && caller_frame(f)) continue;
    EXPECT_EQ(c, f) << i;
    ++compared;
  }
  EXPECT_GE(compared, 4u);  // leaf_site and deep x3 at least
}

TEST(InjectStack, FramesAreNamedFromTheSymbolTable) {
  const Stack s = leaf_site(false);
  ASSERT_GE(s.size(), 2u);
  const NativeFrame f = describe_frame(s[1]);  // s[0] is take()
  EXPECT_EQ(f.function.rfind("gp::inject::(anonymous namespace)::leaf_site", 0), 0u) << f.function;
  EXPECT_FALSE(f.module.empty());
  EXPECT_FALSE(f.internal);
  EXPECT_GT(f.function_offset, 0u);
}

// The module's identity is read with its symbols: the file's size and time, and its build ID as
// graphprof reads it back after the run (graphprof/core/elf_identity.hpp).
TEST(InjectStack, FramesCarryTheirModulesIdentity) {
  const Stack s = leaf_site(false);
  ASSERT_GE(s.size(), 2u);
  const NativeFrame f = describe_frame(s[1]);
  struct stat st {};
  ASSERT_EQ(::stat(f.module.c_str(), &st), 0) << f.module;
  EXPECT_EQ(f.identity.size, static_cast<std::uint64_t>(st.st_size));
  EXPECT_EQ(f.identity.mtime, static_cast<std::int64_t>(st.st_mtime));
  std::ifstream in(f.module, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(f.identity.build_id, elf_build_id(bytes.data(), bytes.size()));
}

TEST(InjectStack, CodeOutsideAnyModuleIsNamedByItsAddressOnly) {
  void* page = mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  const auto pc = reinterpret_cast<std::uintptr_t>(page) + 16;
  const NativeFrame f = describe_frame(pc);
  EXPECT_TRUE(f.module.empty());
  EXPECT_TRUE(f.function.empty());
  EXPECT_EQ(f.offset, pc);
  munmap(page, 4096);
}

}  // namespace
}  // namespace gp::inject
