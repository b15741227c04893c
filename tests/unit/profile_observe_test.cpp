// What keeps `graphprof profile` light, checked on the CPU: the analysis of records the injection
// library writes when it records only the API calls it needs (src/inject/recorded_apis.hpp).
#include <gtest/gtest.h>

#include <sstream>

#include "graphprof/node_sampling.hpp"
#include "graphprof/profile.hpp"

namespace gp {
namespace {

ProcessProfile analyze_lines(const std::string& lines) {
  std::istringstream in(lines);
  return analyze_process(parse_process_records(in, "mem"));
}

// The capture's own EndCapture call may leave no API record (a record lost, or a CUPTI that does not
// deliver the selected calls' records): the callbacks' capture_end still ends the capture, so the
// launches after it count.
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

namespace gp {
namespace {

TEST(NodeSampling, TracesTheFirstLaunchesAfterTheWarmUpThenOneInEvery) {
  NodeSampling s;
  s.warmup = 1;
  s.first = 3;
  s.every = 4;
  std::string got;
  for (std::uint64_t i = 0; i < 16; ++i) got += s.traced(i) ? 'x' : '.';
  EXPECT_EQ(got, ".xxx...x...x...x");
  for (std::uint64_t n = 0; n <= 16; ++n) {
    std::uint64_t count = 0;
    for (std::uint64_t i = 0; i < n; ++i) count += s.traced(i) ? 1 : 0;
    EXPECT_EQ(s.traced_among(n), count) << n;
  }
}

TEST(NodeSampling, AllTracesEveryLaunchAndTheTextRoundTrips) {
  NodeSampling s;
  ASSERT_TRUE(NodeSampling::parse("all", s));
  EXPECT_TRUE(s.traced(0));
  EXPECT_EQ(s.traced_among(7), 7u);
  ASSERT_TRUE(NodeSampling::parse("2,10,50", s));
  EXPECT_FALSE(s.all);
  EXPECT_EQ(s.text(), "2,10,50,10/200") << "the default windows";
  NodeSampling w;
  ASSERT_TRUE(NodeSampling::parse("0,5,7,0/100", w));
  EXPECT_EQ(w.window_ms, 0u);
  EXPECT_EQ(w.period_ms, 100u);
  EXPECT_EQ(w.text(), "0,5,7,0/100");
  EXPECT_FALSE(s.traced(1));
  EXPECT_TRUE(s.traced(2));
  EXPECT_TRUE(s.traced(11));
  EXPECT_FALSE(s.traced(12));
  EXPECT_TRUE(s.traced(61));
  NodeSampling untouched;
  for (const char* bad : {"", "1,2", "1,2,0", "1,2,3,4", "a,b,c", "1,,3", "-1,2,3", "1,2,3x", "1,2,3,5/0", "1,2,3,9/5",
                          "1,2,3,5/", "1,2,3,/5", "1,2,3,5/9x"})
    EXPECT_FALSE(NodeSampling::parse(bad, untouched)) << bad;
  EXPECT_EQ(untouched.text(), "1,20,20,10/200");
}

}  // namespace
}  // namespace gp
