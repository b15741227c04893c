// The injection library without a GPU: it loads, exports InitializeInjection, writes the first line
// of its records (parseable by graphprof) and, when CUPTI cannot start, says why in the records and
// returns success so the application runs on. The CUDA driver stub stands in for libcuda.so.1.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "graphprof/profile/profile.hpp"

namespace gp {
namespace {

TEST(InjectLibrary, LoadsWritesItsProcessLineAndNeverFailsTheApplication) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("inject-load-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  if (!fs::exists(GRAPHPROF_CUDA_STUB)) GTEST_SKIP() << "no CUDA driver stub at " << GRAPHPROF_CUDA_STUB;
  ASSERT_EQ(setenv("GRAPHPROF_PROFILE_DIR", dir.c_str(), 1), 0);
  // The stub's SONAME is libcuda.so.1: loaded first, it satisfies the library's dependency.
  ASSERT_NE(dlopen(GRAPHPROF_CUDA_STUB, RTLD_NOW | RTLD_GLOBAL), nullptr) << dlerror();
  void* lib = dlopen(GRAPHPROF_INJECT_LIB, RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  auto init = reinterpret_cast<int (*)()>(dlsym(lib, "InitializeInjection"));
  ASSERT_NE(init, nullptr);
  EXPECT_EQ(init(), 1) << "the driver must never be told that injection failed";
  EXPECT_EQ(init(), 1) << "a second call does nothing";
  const fs::path records = dir / ("proc-" + std::to_string(::getpid()) + ".jsonl");
  ASSERT_TRUE(fs::exists(records));
  const ProcessRecords r = read_process_records(records.string());
  EXPECT_EQ(r.pid, ::getpid());
  EXPECT_EQ(r.trace_level, TraceLevel::kNode);
  EXPECT_NE(r.command_line.find("inject_load_test"), std::string::npos) << r.command_line;
  EXPECT_EQ(r.malformed_lines, 0u);
  // With the stub there is no driver: CUPTI cannot subscribe (seen here: CUPTI_ERROR_UNKNOWN), and
  // the records say so.
  ASSERT_LE(r.errors.size(), 1u);
  if (!r.errors.empty()) EXPECT_NE(r.errors[0].find("cuptiSubscribe returned"), std::string::npos) << r.errors[0];
}

}  // namespace
}  // namespace gp
