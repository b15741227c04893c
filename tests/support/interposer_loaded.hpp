// The interposer (GRAPHPROF_INTERPOSE_LIB) loaded over the stand-in shared runtime
// (GRAPHPROF_FAKE_CUDART, tests/support/fake_cudart.cpp) and recording into collect(): for the
// tests of its windows (tests/unit/interpose_pause_test.cpp, interpose_windows_test.cpp), whose
// targets define both paths.
#pragma once
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "interposer_calls.hpp"

namespace gp::interposer_test {

using GraphLaunchFn = int (*)(void*, void*);

// The interposer loaded over the stand-in runtime, recording into collect(): its functions.
struct Loaded {
  gp::interposer_test::BeginFn begin = nullptr;
  gp::interposer_test::EndFn end = nullptr;
  LaunchFn launch = nullptr;
  GraphLaunchFn graph_launch = nullptr;
};
inline void load_and_begin(Loaded& out) {
  void* cudart = dlopen(GRAPHPROF_FAKE_CUDART, RTLD_NOW | RTLD_GLOBAL);
  void* lib = dlopen(GRAPHPROF_INTERPOSE_LIB, RTLD_NOW | RTLD_LOCAL);
  ASSERT_TRUE(cudart && lib) << dlerror();
  out.begin = reinterpret_cast<gp::interposer_test::BeginFn>(dlsym(lib, "graphprof_interpose_begin"));
  out.end = reinterpret_cast<gp::interposer_test::EndFn>(dlsym(lib, "graphprof_interpose_end"));
  out.launch = reinterpret_cast<LaunchFn>(dlsym(lib, "cudaLaunchKernel"));
  out.graph_launch = reinterpret_cast<GraphLaunchFn>(dlsym(lib, "cudaGraphLaunch"));
  ASSERT_TRUE(out.begin && out.end && out.launch && out.graph_launch);
  ASSERT_EQ(out.begin(collect, ::testing::TempDir().c_str(), 0, nullptr), 1);
}

// The lines of a file, and how often `what` occurs in a text.
inline std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}
inline std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace gp::interposer_test
