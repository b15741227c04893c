// The interposer makes no CUDA call on a capturing stream (src/inject/runtime_interpose.cpp): with
// a runtime that invalidates a capture whose stream is asked for its id, as the H200's does
// (tests/support/fake_cudart.cpp), a capture made through the interposer while it records stays
// valid, and its capture_begin and capture_end lines carry the stream id read after the capture.
// A process of its own (CUDA builds): the stand-in runtime has the real one's name.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <string>

#include "../support/interposer_calls.hpp"

namespace {

using gp::interposer_test::collect;
std::string& g_lines = gp::interposer_test::lines();

using gp::interposer::Dim3;
using CaptureBeginFn = int (*)(void*, int);
using CaptureEndFn = int (*)(void*, void**);
using gp::interposer_test::LaunchFn;

TEST(InterposeCapture, ACaptureStaysValidAndItsLinesHaveTheStreamId) {
  void* cudart = dlopen(GRAPHPROF_FAKE_CUDART, RTLD_NOW | RTLD_GLOBAL);
  ASSERT_NE(cudart, nullptr) << dlerror();
  void* lib = dlopen(GRAPHPROF_INTERPOSE_LIB, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto begin = reinterpret_cast<gp::interposer_test::BeginFn>(dlsym(lib, "graphprof_interpose_begin"));
  auto end = reinterpret_cast<gp::interposer_test::EndFn>(dlsym(lib, "graphprof_interpose_end"));
  auto capture = reinterpret_cast<CaptureBeginFn>(dlsym(lib, "cudaStreamBeginCapture"));
  auto end_capture = reinterpret_cast<CaptureEndFn>(dlsym(lib, "cudaStreamEndCapture"));
  auto launch = reinterpret_cast<LaunchFn>(dlsym(lib, "cudaLaunchKernel"));
  ASSERT_TRUE(begin && end && capture && end_capture && launch);
  ASSERT_NE(reinterpret_cast<void*>(capture), dlsym(cudart, "cudaStreamBeginCapture")) << "the interposer's own";
  ASSERT_EQ(begin(collect, ::testing::TempDir().c_str(), 0), 1);

  int stream = 0;  // any handle: the stand-in has one stream
  const Dim3 one{1, 1, 1};
  ASSERT_EQ(capture(&stream, 1), 0);
  EXPECT_EQ(launch(nullptr, one, one, nullptr, 0, &stream), 0) << "the capture was invalidated inside the interposer";
  void* graph = nullptr;
  EXPECT_EQ(end_capture(&stream, &graph), 0);
  EXPECT_NE(graph, nullptr);
  end(1);

  const auto begin_at = g_lines.find("{\"t\":\"capture_begin\",\"stream\":42,");
  EXPECT_NE(begin_at, std::string::npos) << g_lines;
  EXPECT_NE(g_lines.find(",\"r\":0}", begin_at), std::string::npos) << g_lines;
  EXPECT_NE(g_lines.find("{\"t\":\"capture_end\",\"stream\":42,"), std::string::npos) << "a graph never instantiated ends at exit\n"
                                                                                       << g_lines;
  EXPECT_EQ(g_lines.find("\"stream\":0,"), std::string::npos) << "no stream id read during the capture\n" << g_lines;
}

}  // namespace
