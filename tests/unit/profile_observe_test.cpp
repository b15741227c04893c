// What keeps `graphprof profile` light, checked on the CPU: the analysis of records the injection
// library writes when it records only the API calls it needs (src/inject/recorded_apis.hpp).
#include <gtest/gtest.h>

#include <sstream>

#include "graphprof/profile.hpp"

namespace gp {
namespace {

ProcessProfile analyze_lines(const std::string& lines) {
  std::istringstream in(lines);
  return analyze_process(parse_process_records(in, "mem"));
}

// The capture's own EndCapture call may leave no API record (the library switches the record-every-
// call mode off in that call's callback): the callbacks' capture_end still ends the capture, so
// the launches after it count.
TEST(ProfileCaptureWindow, ACaptureEndsAtItsCallbackWhenTheEndCaptureCallHasNoRecord) {
  const std::string lines =
      R"({"t":"process","pid":1,"ppid":0,"ts":1000,"cupti":130000,"level":0,"cmdline":"app"}
{"t":"capture_begin","stream":13,"mode":0,"co":10,"r":0}
{"t":"capture_end","stream":13,"graph":1,"co":12,"r":0}
{"t":"a","n":"cudaStreamBeginCapture","cb":315,"dr":0,"s":2000,"e":2100,"p":1,"th":7,"co":10,"r":0}
{"t":"a","n":"cudaLaunchKernel","cb":211,"dr":0,"s":2200,"e":2300,"p":1,"th":7,"co":11,"r":0}
{"t":"a","n":"cudaGraphLaunch","cb":311,"dr":0,"s":3000,"e":3100,"p":1,"th":7,"co":14,"r":0}
{"t":"a","n":"cudaLaunchKernel","cb":211,"dr":0,"s":3200,"e":3300,"p":1,"th":7,"co":15,"r":0}
)";
  const ProcessProfile p = analyze_lines(lines);
  EXPECT_EQ(p.graph_launches, 1u);
  EXPECT_EQ(p.eager_launches, 1u) << "the launch inside the capture is not eager, the one after it is";
  EXPECT_TRUE(p.capture_trouble.empty());
}

TEST(ProfileCaptureWindow, AFailedCaptureWithoutAnEndRecordIsStillNamed) {
  const std::string lines =
      R"({"t":"process","pid":1,"ppid":0,"ts":1000,"cupti":130000,"level":0,"cmdline":"app"}
{"t":"capture_begin","stream":13,"mode":0,"co":10,"r":0}
{"t":"capture_end","stream":13,"graph":0,"co":12,"r":901}
{"t":"a","n":"cudaStreamBeginCapture","cb":315,"dr":0,"s":2000,"e":2100,"p":1,"th":7,"co":10,"r":0}
{"t":"a","n":"cudaStreamSynchronize","cb":131,"dr":0,"s":2200,"e":2300,"p":1,"th":7,"co":11,"r":900}
{"t":"a","n":"cudaLaunchKernel","cb":211,"dr":0,"s":3200,"e":3300,"p":1,"th":7,"co":15,"r":0}
)";
  const ProcessProfile p = analyze_lines(lines);
  ASSERT_EQ(p.capture_trouble.size(), 1u);
  EXPECT_EQ(p.capture_trouble[0].api, "cudaStreamSynchronize");
  EXPECT_EQ(p.capture_trouble[0].end_error, "cudaErrorStreamCaptureInvalidated");
  EXPECT_EQ(p.eager_launches, 1u);
}

}  // namespace
}  // namespace gp
