// Host-side checks of graphprof_cuda. CUPTI is loaded lazily: without it a trace session fails with a reason instead of the process
// failing to start. Runs without a GPU: a session that cannot load CUPTI makes no CUDA call.
#include <gtest/gtest.h>

#include "graphprof/cuda/cuda_check.hpp"
#include "graphprof/trace/cupti_session.hpp"

namespace gp {
namespace {

TEST(CuptiLoading, MissingCuptiIsARecordedReasonNotACrash) {
  use_cupti_library_for_testing("/nonexistent-gp/libcupti.so.13");
  TraceSession session(TraceLevel::kNode, 1 << 20);
  EXPECT_FALSE(session.ok());
  EXPECT_NE(session.reason().find("CUPTI is not available"), std::string::npos) << session.reason();
  EXPECT_NE(session.reason().find("/nonexistent-gp/libcupti.so.13"), std::string::npos) << session.reason();
  EXPECT_EQ(cupti_unavailable_reason(), session.reason());
  // Everything else degrades quietly.
  EXPECT_EQ(cupti_version(), 0);
  EXPECT_EQ(nvtx_injection_library(), "");
  EXPECT_GT(TraceSession::now_ns(), 0u);
  const TraceData data = session.collect();
  EXPECT_TRUE(data.kernels.empty());
  trace_shutdown();
}

// Which CUDA errors end a run: the context is dead after these, not after a capture mistake.
TEST(StickyErrors, ContextKillersAreStickyCaptureMistakesAreNot) {
  EXPECT_TRUE(is_sticky_error(cudaErrorIllegalAddress));
  EXPECT_TRUE(is_sticky_error(cudaErrorLaunchFailure));
  EXPECT_TRUE(is_sticky_error(cudaErrorMisalignedAddress));
  EXPECT_TRUE(is_sticky_error(cudaErrorAssert));
  EXPECT_FALSE(is_sticky_error(cudaSuccess));
  EXPECT_FALSE(is_sticky_error(cudaErrorStreamCaptureUnsupported));
  EXPECT_FALSE(is_sticky_error(cudaErrorStreamCaptureInvalidated));
  EXPECT_FALSE(is_sticky_error(cudaErrorMemoryAllocation));
  EXPECT_FALSE(is_sticky_error(cudaErrorInsufficientDriver));
}

}  // namespace
}  // namespace gp
