// The interposer makes no CUDA call on a capturing stream (src/inject/interpose/runtime_interpose.cpp): with
// a runtime that invalidates a capture whose stream is asked for its id, as the H200's does
// (tests/support/fake_cudart.cpp), a capture made through the interposer while it records stays
// valid, and its capture_begin and capture_end lines carry the stream id read after the capture.
// A process of its own (CUDA builds): the stand-in runtime has the real one's name.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "interpose_records.hpp"
#include "../support/interposer_calls.hpp"

namespace {

using gp::interposer_test::collect;
std::string& g_lines = gp::interposer_test::lines();

using gp::interposer::Dim3;
using CaptureBeginFn = int (*)(void*, int);
using CaptureEndFn = int (*)(void*, void**);
using gp::interposer_test::LaunchFn;

// The stand-in runtime and the interposer, loaded, and the interposer's functions the tests call.
struct Loaded {
  void* cudart = nullptr;
  void* lib = nullptr;
  gp::interposer_test::BeginFn begin = nullptr;
  gp::interposer_test::EndFn end = nullptr;
  CaptureBeginFn capture = nullptr;
  CaptureEndFn end_capture = nullptr;
  LaunchFn launch = nullptr;
  template <typename Fn>
  Fn fn(const char* name) const {
    return reinterpret_cast<Fn>(dlsym(lib, name));
  }
};

Loaded load() {
  Loaded l;
  l.cudart = dlopen(GRAPHPROF_FAKE_CUDART, RTLD_NOW | RTLD_GLOBAL);
  l.lib = dlopen(GRAPHPROF_INTERPOSE_LIB, RTLD_NOW | RTLD_LOCAL);
  if (l.cudart == nullptr || l.lib == nullptr) return l;
  l.begin = l.fn<gp::interposer_test::BeginFn>("graphprof_interpose_begin");
  l.end = l.fn<gp::interposer_test::EndFn>("graphprof_interpose_end");
  l.capture = l.fn<CaptureBeginFn>("cudaStreamBeginCapture");
  l.end_capture = l.fn<CaptureEndFn>("cudaStreamEndCapture");
  l.launch = l.fn<LaunchFn>("cudaLaunchKernel");
  return l;
}

TEST(InterposeCapture, ACaptureStaysValidAndItsLinesHaveTheStreamId) {
  const Loaded l = load();
  ASSERT_TRUE(l.cudart && l.lib) << dlerror();
  ASSERT_TRUE(l.begin && l.end && l.capture && l.end_capture && l.launch);
  ASSERT_NE(reinterpret_cast<void*>(l.capture), dlsym(l.cudart, "cudaStreamBeginCapture")) << "the interposer's own";
  ASSERT_EQ(l.begin(collect, ::testing::TempDir().c_str(), 0, nullptr), 1);

  int stream = 0;  // any handle: the stand-in has one stream
  const Dim3 one{1, 1, 1};
  ASSERT_EQ(l.capture(&stream, 1), 0);
  EXPECT_EQ(l.launch(nullptr, one, one, nullptr, 0, &stream), 0) << "the capture was invalidated inside the interposer";
  void* graph = nullptr;
  EXPECT_EQ(l.end_capture(&stream, &graph), 0);
  EXPECT_NE(graph, nullptr);
  l.end(1);

  const auto begin_at = g_lines.find("{\"t\":\"capture_begin\",\"stream\":42,");
  EXPECT_NE(begin_at, std::string::npos) << g_lines;
  EXPECT_NE(g_lines.find(",\"r\":0}", begin_at), std::string::npos) << g_lines;
  EXPECT_NE(g_lines.find("{\"t\":\"capture_end\",\"stream\":42,"), std::string::npos) << "a graph never instantiated ends at exit\n"
                                                                                       << g_lines;
  EXPECT_EQ(g_lines.find("\"stream\":0,"), std::string::npos) << "no stream id read during the capture\n" << g_lines;
}

// What the interposer asked of the injection library, in order: "site API KIND" and "sample AT".
std::vector<std::string>& asked() {
  static std::vector<std::string> v;
  return v;
}
void on_site(const char* api, std::uint32_t, int kind) { asked().push_back(std::string("site ") + api + " " + std::to_string(kind)); }
void on_sample(int at, std::uint32_t) { asked().push_back("sample " + std::to_string(at)); }

// The interposer hands each call's site and the ledger's samples to the injection library (the
// hooks), and writes each device allocation and its free as mem_op lines with the size.
TEST(InterposeCapture, TheHooksGetTheSitesAndSamplesAndAllocationsAreRecorded) {
  const Loaded l = load();
  ASSERT_TRUE(l.cudart && l.lib) << dlerror();
  ASSERT_TRUE(l.begin && l.end && l.capture && l.end_capture && l.launch);
  auto malloc_fn = l.fn<int (*)(void**, std::size_t)>("cudaMalloc");
  auto free_fn = l.fn<int (*)(void*)>("cudaFree");
  auto copy = l.fn<int (*)(void*, const void*, std::size_t, int, void*)>("cudaMemcpyAsync");
  ASSERT_TRUE(malloc_fn && free_fn && copy);
  gp::interpose::Hooks hooks;
  hooks.site = on_site;
  hooks.sample = on_sample;
  g_lines.clear();
  asked().clear();
  ASSERT_EQ(l.begin(collect, ::testing::TempDir().c_str(), 0, &hooks), 1);

  int stream = 0;
  const Dim3 one{1, 1, 1};
  void* p = nullptr;
  ASSERT_EQ(malloc_fn(&p, 4096), 0);
  EXPECT_EQ(l.launch(nullptr, one, one, nullptr, 0, &stream), 0);
  EXPECT_EQ(copy(p, p, 16, 3, &stream), 0);
  ASSERT_EQ(l.capture(&stream, 1), 0);
  EXPECT_EQ(l.launch(nullptr, one, one, nullptr, 0, &stream), 0);
  void* graph = nullptr;
  EXPECT_EQ(l.end_capture(&stream, &graph), 0);
  EXPECT_EQ(free_fn(p), 0);
  l.end(1);

  using gp::interpose::SiteKind;
  auto site = [](const char* api, SiteKind k) { return std::string("site ") + api + " " + std::to_string(static_cast<int>(k)); };
  auto sample = [](int at) { return "sample " + std::to_string(at); };
  namespace at = gp::interpose::ledger_at;
  const std::vector<std::string> expected = {site("cudaMalloc", SiteKind::kAlloc),
                                             site("cudaLaunchKernel", SiteKind::kEager),
                                             site("cudaMemcpyAsync", SiteKind::kEager),
                                             sample(at::kCaptureBegin),
                                             site("cudaStreamBeginCapture", SiteKind::kGraph),
                                             site("cudaLaunchKernel", SiteKind::kEager),
                                             sample(at::kCaptureEnd)};
  EXPECT_EQ(asked(), expected);
  const std::string address = std::to_string(reinterpret_cast<std::uintptr_t>(p));
  EXPECT_NE(g_lines.find("{\"t\":\"mem_op\",\"op\":1,\"mk\":3,\"b\":4096,\"a\":" + address + ","), std::string::npos) << g_lines;
  EXPECT_NE(g_lines.find("{\"t\":\"mem_op\",\"op\":2,\"mk\":3,\"b\":4096,\"a\":" + address + ","), std::string::npos)
      << "the free carries the allocation's size\n"
      << g_lines;
  EXPECT_NE(g_lines.find("\"n\":\"cudaMemcpyAsync\""), std::string::npos) << "asynchronous copies are recorded\n" << g_lines;
  EXPECT_NE(g_lines.find("{\"t\":\"ip_cost\",\"calls\":"), std::string::npos) << "its own cost, at the end\n" << g_lines;
}

}  // namespace
