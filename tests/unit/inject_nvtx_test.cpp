// The NVTX side of `profile --step-range NAME` (src/inject/common/nvtx_steps.cpp), built into this test:
// NVTX reaches it through the static-injection symbol (the library itself is reached through
// NVTX_INJECTION64_PATH), the program makes ranges of every kind, and the lines the library writes
// are read back by the profile reader. CUDA builds only (nvtx3 comes with the toolkit).
#include <cstdint>

// The static injection NVTX looks for (nvtxInit.h), declared before its headers with the same
// types: NvtxInitializeInjectionNvtxFunc_t and NvtxGetExportTableFunc_t.
extern "C" int InitializeInjectionNvtx2(const void* (*get_table)(std::uint32_t));
extern "C" int (*InitializeInjectionNvtx2_fnptr)(const void* (*)(std::uint32_t));
int (*InitializeInjectionNvtx2_fnptr)(const void* (*)(std::uint32_t)) = InitializeInjectionNvtx2;
#define NVTX_STATIC_INJECTION_IMPL
#include <nvtx3/nvToolsExt.h>

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <thread>

#include "graphprof/profile/profile.hpp"
#include "inject_output.hpp"
#include "nvtx_steps.hpp"

namespace gp {
namespace {

TEST(InjectNvtx, OnlyTheNamedRangesAreKeptFromEveryKindOfCall) {
  ::setenv("GRAPHPROF_PROFILE_STEP_RANGE", "decode", 1);
  ::unsetenv("NVTX_INJECTION64_PATH");
  nvtxRangePushA("decode");  // before CUDA started the library: kept in memory
  nvtxRangePop();
  const std::string path = (std::filesystem::temp_directory_path() / ("inject_nvtx_" + std::to_string(::getpid()) + ".jsonl")).string();
  ASSERT_TRUE(inject::open_output(path));
  inject::write_lines("{\"t\":\"process\",\"pid\":1,\"ppid\":0,\"ts\":1,\"cupti\":1,\"level\":2,\"cmdline\":\"t\"}\n", true);
  inject::init_step_ranges();
  std::thread a([] {
    for (int i = 0; i < 3; ++i) {
      nvtxRangePushA("decode");
      nvtxRangePushA("sample");  // another name, nested
      nvtxRangePop();
      nvtxRangePop();
    }
  });
  a.join();
  const nvtxRangeId_t id = nvtxRangeStartA("decode");
  std::thread b([id] { nvtxRangeEnd(id); });  // ended on another thread
  b.join();
  nvtxRangePushW(L"decode");
  nvtxRangePop();
  nvtxDomainHandle_t d = nvtxDomainCreateA("server");
  nvtxEventAttributes_t e{};
  e.version = NVTX_VERSION;
  e.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
  e.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
  e.message.registered = nvtxDomainRegisterStringA(d, "decode");
  nvtxDomainRangePushEx(d, &e);
  nvtxDomainRangePop(d);
  e.messageType = NVTX_MESSAGE_TYPE_ASCII;
  e.message.ascii = "prefill";
  nvtxDomainRangePushEx(d, &e);
  nvtxDomainRangePop(d);
  (void)nvtxRangeStartA("decode");  // never ended
  nvtxRangePop();                   // a pop without a push changes nothing
  inject::write_lines(inject::step_range_lines(true), true);

  const ProcessRecords r = read_process_records(path);
  std::filesystem::remove(path);
  EXPECT_EQ(r.malformed_lines, 0u);
  EXPECT_EQ(r.sites.step_ranges.name, "decode");
  ASSERT_EQ(r.sites.step_ranges.ranges.size(), 7u);  // 1 early, 3 pushed, 1 started, 1 wide, 1 registered
  for (const auto& [start, end] : r.sites.step_ranges.ranges) EXPECT_LE(start, end);
  EXPECT_TRUE(r.sites.step_ranges.ended);
  EXPECT_EQ(r.sites.step_ranges.nvtx_inits, 1u);
  EXPECT_EQ(r.sites.step_ranges.other_ranges, 4u);  // 3 'sample', 1 'prefill'
  EXPECT_EQ(r.sites.step_ranges.open_ranges, 1u);
}

}  // namespace
}  // namespace gp
