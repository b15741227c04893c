// What keeps `graphprof profile` light, checked on the CPU: the analysis of records the injection
// library writes when it records only the API calls it needs (src/inject/cupti_inject/recorded_apis.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "graphprof/profile/observer.hpp"
#include "graphprof/profile/profile.hpp"
#include "graphprof/report/profile_text.hpp"
#include "graphprof/core/node_sampling.hpp"

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

// --trace none: which exec each launch ran comes in batches (lx lines) rather than a line per
// launch; older records' launch lines still count.
TEST(ProfileLaunchBatches, EachLaunchJoinsItsExecFromTheBatchedLines) {
  std::string lines =
      R"({"t":"process","pid":1,"ppid":0,"ts":1000,"cupti":130000,"level":0,"cmdline":"app"}
{"t":"exec","exec":7,"graph":3,"nodes":2,"edges":1,"co":0,"ts":1500,"dot":"","dot_verbose":""}
{"t":"exec","exec":8,"graph":4,"nodes":5,"edges":4,"co":0,"ts":1600,"dot":"","dot_verbose":""}
)";
  for (int i = 0; i < 5; ++i)
    lines += "{\"t\":\"a\",\"n\":\"cudaGraphLaunch\",\"cb\":311,\"dr\":0,\"s\":" + std::to_string(3000 + 100 * i) +
             ",\"e\":" + std::to_string(3050 + 100 * i) + ",\"p\":1,\"th\":7,\"co\":" + std::to_string(20 + i) + ",\"r\":0}\n";
  lines += R"({"t":"lx","exec":7,"co":[20,22,23]}
{"t":"lx","exec":8,"co":[21]}
{"t":"launch","exec":8,"co":24}
{"t":"lx","exec":8,"co":"garbled"}
)";
  const ProcessProfile p = analyze_lines(lines);
  EXPECT_EQ(p.graph_launches, 5u);
  ASSERT_EQ(p.graphs.size(), 2u);
  EXPECT_EQ(p.graphs[0].launches, 3u) << "exec 7";
  EXPECT_EQ(p.graphs[1].launches, 2u) << "exec 8: one from a batch, one from an older launch line";
  EXPECT_EQ(p.malformed_lines, 1u);
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

// kernels=P%: the kernel activity switched between samples, on at most P % of the time;
// kernels=on keeps it on (the text names the one that is not the default).
TEST(NodeSampling, TheKernelActivityIsKeptOnOrSwitchedWithABudget) {
  NodeSampling s;
  ASSERT_TRUE(NodeSampling::parse("1,20,20,10/200,kernels=10%", s));
  EXPECT_EQ(s.kernel_duty_pct, 10u);
  EXPECT_TRUE(s.switches_kernels());
  EXPECT_EQ(s.window_ms, 10u);
  NodeSampling back;
  ASSERT_TRUE(NodeSampling::parse(s.text(), back)) << s.text();
  EXPECT_EQ(back.kernel_duty_pct, 10u);
  ASSERT_TRUE(NodeSampling::parse("2,5,50,kernels=100%", s)) << "the windows may be left at their default";
  EXPECT_EQ(s.kernel_duty_pct, 100u);
  EXPECT_EQ(s.period_ms, 200u);
  ASSERT_TRUE(NodeSampling::parse("1,20,20,10/200,kernels=on", s));
  EXPECT_FALSE(s.switches_kernels());
  ASSERT_TRUE(NodeSampling::parse(s.text(), back)) << s.text();
  EXPECT_FALSE(back.switches_kernels());
  ASSERT_TRUE(NodeSampling::parse("all", s));
  EXPECT_FALSE(s.switches_kernels()) << "all: every kernel, the kind on throughout";
  NodeSampling untouched;
  for (const char* bad : {"1,2,3,kernels=0%", "1,2,3,kernels=101%", "1,2,3,kernels=10", "1,2,3,kernels=%", "1,2,3,kernels=off",
                          "1,2,3,10/200,kernels=5%x", "1,2,3,kernels=5%,10/200", "1,2,3,10/200,", "1,2,3,kernels=-5%"})
    EXPECT_FALSE(NodeSampling::parse(bad, untouched)) << bad;
}

KernelRecord kernel_at(std::uint32_t correlation, std::uint64_t start, std::uint64_t end) {
  KernelRecord k;
  k.correlation_id = correlation;
  k.start_ns = start;
  k.end_ns = end;
  return k;
}

// A launch whose kernels ran while the kind went off, or ran (or ended) while it was off, loses all
// its records; one that finished before the switch off or started after the switch on keeps them.
TEST(KernelSwitches, TheLaunchesInFlightAtASwitchAreNamed) {
  const std::vector<KernelRecord> k = {kernel_at(1, 100, 200),   kernel_at(1, 210, 290),  // done before the off at 300
                                       kernel_at(2, 250, 280),   kernel_at(2, 290, 350),  // the second across the off
                                       kernel_at(3, 400, 9000),                            // a wrong end, started while off
                                       kernel_at(4, 480, 520),                             // across the on at 500
                                       kernel_at(5, 600, 700),                             // while on again
                                       kernel_at(6, 1100, 1200), kernel_at(0, 1100, 1300)};  // after the last off; no launch
  const std::vector<KernelSwitch> sw = {{1000, false}, {300, false}, {500, true}, {800, true}};  // out of order, a repeat
  EXPECT_EQ(launches_across_kernel_switches(k, sw), (std::set<std::uint32_t>{2, 3, 4, 6}));
  EXPECT_TRUE(launches_across_kernel_switches(k, {}).empty()) << "no switch: the kind was on throughout";
  EXPECT_TRUE(launches_across_kernel_switches(k, {{50, true}}).empty()) << "on while on: nothing changed";
}

// The switch off says which launches had finished (the drain event: calls before correlation id 3
// on stream 13): their records stay, whatever the clocks say; the same record on another stream
// does not.
TEST(KernelSwitches, ALaunchTheDrainEventSawFinishedKeepsItsRecords) {
  std::vector<KernelRecord> k = {kernel_at(2, 250, 310), kernel_at(3, 280, 320), kernel_at(1, 200, 305)};
  for (auto& r : k) r.stream_id = 13;
  k[2].stream_id = 14;
  const std::vector<KernelSwitch> sw = {{300, false, 3, 13}, {500, true}};
  EXPECT_EQ(launches_across_kernel_switches(k, sw), (std::set<std::uint32_t>{1, 3}));
  const std::vector<KernelSwitch> unsaid = {{300, false}, {500, true}};
  EXPECT_EQ(launches_across_kernel_switches(k, unsaid), (std::set<std::uint32_t>{1, 2, 3}));
}

}  // namespace
}  // namespace gp

namespace gp {
namespace {

// Records as the injection writes them with node sampling: exec 7 (graph 3, two kernel nodes)
// launched 6 times; launches 2 and 5 were traced node by node (kernel records, no GRAPH_TRACE
// span), the others have spans only; launch 5's first kernel came back with a wrong end, as seen on
// the H200 right after GRAPH_TRACE was switched off. The eager kernel is recorded.
std::string sampled_lines() {
  std::string s =
      R"({"t":"process","pid":1,"ppid":0,"ts":1000,"cupti":130000,"level":2,"sample":"1,1,3,0/1000","cmdline":"app"}
{"t":"exec","exec":7,"graph":3,"nodes":2,"edges":1,"co":0,"ts":1500,"dot":"","dot_verbose":""}
{"t":"nm","x":30064771072,"o":12884901888}
{"t":"nm","x":30064771073,"o":12884901889}
)";
  for (int i = 0; i < 6; ++i) {
    const unsigned co = 100 + i;
    const unsigned long long t = 10000 + 1000ull * i;
    s += "{\"t\":\"a\",\"n\":\"cudaGraphLaunch\",\"cb\":311,\"dr\":0,\"s\":" + std::to_string(t) + ",\"e\":" + std::to_string(t + 50) +
         ",\"p\":1,\"th\":7,\"co\":" + std::to_string(co) + ",\"r\":0}\n";
    const bool traced = i == 1 || i == 4;
    if (traced) {
      // Two kernels of 100 and 200 ns; the traced launch's span is 330 ns.
      s += "{\"t\":\"k\",\"n\":\"k_a\",\"s\":" + std::to_string(t + 100) + ",\"e\":" + std::to_string(i == 4 ? t + 5000 : t + 200) +
           ",\"d\":0,\"c\":1,\"st\":13,\"co\":" + std::to_string(co) + ",\"g\":7,\"gn\":30064771072,\"gr\":[1,1,1],\"bl\":[32,1,1],\"sh\":0,\"rg\":8}\n";
      s += "{\"t\":\"k\",\"n\":\"k_b\",\"s\":" + std::to_string(t + 230) + ",\"e\":" + std::to_string(t + 430) +
           ",\"d\":0,\"c\":1,\"st\":13,\"co\":" + std::to_string(co) + ",\"g\":7,\"gn\":30064771073,\"gr\":[1,1,1],\"bl\":[32,1,1],\"sh\":0,\"rg\":8}\n";
    } else {
      s += "{\"t\":\"gt\",\"co\":" + std::to_string(co) + ",\"g\":7,\"s\":" + std::to_string(t + 100) + ",\"e\":" + std::to_string(t + 400) +
           ",\"d\":0,\"c\":1,\"st\":13}\n";
    }
  }
  s += R"({"t":"a","n":"cudaLaunchKernel","cb":211,"dr":0,"s":20000,"e":20010,"p":1,"th":7,"co":200,"r":0}
{"t":"k","n":"k_eager","s":20100,"e":20400,"d":0,"c":1,"st":13,"co":200,"g":0,"gn":0,"gr":[1,1,1],"bl":[32,1,1],"sh":0,"rg":8}
{"t":"clock","exec":7,"n":6,"first":10000,"last":15000}
)";
  return s;
}

TEST(ProfileNodeSampling, NodeTimesComeFromTheTracedLaunchesAndSpansFromAll) {
  const ProcessProfile p = analyze_lines(sampled_lines());
  EXPECT_EQ(p.node_sampling, "1,1,3,0/1000");
  ASSERT_EQ(p.graphs.size(), 1u);
  const GraphProfile& g = p.graphs[0];
  EXPECT_EQ(g.launches, 6u);
  EXPECT_EQ(g.gpu_span_ns.size(), 6u) << "a span for every launch: GRAPH_TRACE or the kernels'";
  EXPECT_EQ(g.sampling.traced_ordinals, (std::vector<std::size_t>{1, 4}));
  EXPECT_EQ(g.sampling.span_untraced_ns.size(), 4u);
  // A traced launch's span is its kernels' (330 ns; launch 5 without its implausible record: 200 ns).
  EXPECT_EQ(g.sampling.span_traced_ns, (std::vector<double>{330.0, 200.0}));
  // Node statistics over the two traced launches only, without the implausible record.
  ASSERT_EQ(g.trace.nodes.size(), 2u);
  std::size_t samples = 0;
  for (const auto& n : g.trace.nodes) {
    samples += n.duration.count;
    EXPECT_LE(n.duration.median, 200.0) << n.name;
  }
  EXPECT_EQ(samples, 3u);
  EXPECT_EQ(g.sampling.set_aside, 1u) << "the set-aside record is said with the graph's node sampling";
  EXPECT_TRUE(p.warnings.empty()) << "not a warning: a fault of CUPTI's that the analysis mends";
  // Coverage, process-wide too: the graph's 500 ns of kernels in 2 launches stand for 6 launches'
  // 1500 ns (the implausible 4900 ns record counts nowhere).
  EXPECT_TRUE(p.coverage_estimated);
  EXPECT_DOUBLE_EQ(p.graph_kernel_ns, 1500.0);
  EXPECT_EQ(p.graph_kernels, 9u);
  EXPECT_DOUBLE_EQ(p.eager_kernel_ns, 300.0) << "eager kernels are all recorded: not scaled";
  EXPECT_EQ(p.eager_launches, 1u);
  ASSERT_TRUE(g.sampling.kernel_time_estimate_ns.has_value());
  EXPECT_DOUBLE_EQ(*g.sampling.kernel_time_estimate_ns, 1500.0);
}

TEST(ProfileNodeSampling, TheReportAndConsoleSayWhichLaunchesWereTraced) {
  ProfileRun run;
  run.program = "app";
  run.exit_description = "exited with status 0";
  const Report r = profile_report(run, {analyze_lines(sampled_lines())});
  const nlohmann::json proc = to_json(*r.results.front().sections.profile)["processes"][0];
  EXPECT_EQ(proc["node_sampling"], "1,1,3,0/1000");
  EXPECT_EQ(proc["coverage"]["estimated"], true);
  const auto& s = proc["graphs"][0]["node_sampling"];
  ASSERT_TRUE(s.is_object()) << proc["graphs"][0].dump();
  EXPECT_EQ(s["traced_launches"], 2);
  EXPECT_EQ(s["traced_ordinals"].dump(), "[[1,1],[4,4]]");
  EXPECT_EQ(s["span_untraced"]["count"], 4);
  EXPECT_NEAR(s["perturbation"].get<double>(), 265.0 / 300.0 - 1.0, 1e-9) << "median traced span 265 ns vs 300 ns untraced";
  const std::string text = format_profile_summary(r);
  EXPECT_EQ(s["set_aside"], 1);
  for (const char* want : {"node sampling (1,1,3,0/1000", "graph_3: 2 of 6 launches traced (launch 2, 5)", "; 1 node record set aside",
                           "graph kernels estimated from the node-traced launches", "nodes timed over 2 node-traced launches"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
}

// kernels=P%: the kind went off at 14300 while launch 5 (co 104) was still running: both of its
// records are set aside (not the implausible rule's), launch 2 stays the only traced one; the
// eager kernel after the switch off is set aside too unless the kind was on again before it began.
TEST(ProfileNodeSampling, RecordsInFlightAtAKernelSwitchAreSetAside) {
  const ProcessProfile p = analyze_lines(sampled_lines() + R"({"t":"ks","on":0,"ts":14300})" + "\n");
  ASSERT_EQ(p.graphs.size(), 1u);
  const GraphProfile& g = p.graphs[0];
  EXPECT_EQ(g.sampling.traced_ordinals, (std::vector<std::size_t>{1}));
  EXPECT_EQ(g.sampling.switched_aside, 2u);
  EXPECT_EQ(g.sampling.set_aside, 0u) << "counted once, as in flight at the switch";
  EXPECT_EQ(p.kernel_switches_off, 1u);
  EXPECT_EQ(p.eager_switched_aside, 1u);
  EXPECT_EQ(g.launches, 6u) << "counts from every launch call";
  EXPECT_DOUBLE_EQ(p.graph_kernel_ns, 1800.0) << "launch 2's 300 ns for all 6 launches";
  ProfileRun run;
  run.program = "app";
  run.exit_description = "exited with status 0";
  const Report r = profile_report(run, {p});
  const nlohmann::json proc = to_json(*r.results.front().sections.profile)["processes"][0];
  EXPECT_EQ(proc["kernel_activity"]["switched_off"], 1);
  EXPECT_EQ(proc["graphs"][0]["node_sampling"]["set_aside_switched"], 2);
  const std::string text = format_profile_summary(r);
  for (const char* want : {"switched off 1 time, each once the GPU had run the last traced launch", "2 node records of launches in flight at a kernel switch set aside"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;

  const ProcessProfile on_again =
      analyze_lines(sampled_lines() + R"({"t":"ks","on":0,"ts":14300})" + "\n" + R"({"t":"ks","on":1,"ts":16000})" + "\n");
  EXPECT_EQ(on_again.eager_switched_aside, 0u);
  EXPECT_DOUBLE_EQ(on_again.eager_kernel_ns, 300.0);
}

TEST(ProfileOverhead, TheSteadyWindowIsTheMostLaunchedExecsClockLine) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("steady-window-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  EXPECT_FALSE(read_steady_window(dir.string()).has_value()) << "no records";
  {
    std::ofstream a(dir / "proc-1.jsonl");
    a << R"({"t":"process","pid":1,"level":-1})" << "\n"
      << R"({"t":"clock","exec":2,"n":10,"first":100,"last":900})" << "\n"
      << R"({"t":"clock","exec":3,"n":400,"first":1000,"last":41000})" << "\n"
      << R"({"t":"clock","exec":4,"n":900,"first":50,"last":10})" << "\n";  // last before first: unreadable
    std::ofstream b(dir / "proc-2.jsonl");
    b << R"({"t":"clock","exec":5,"n":300,"first":0,"last":5})" << "\n{\"t\":\"clock\",\"exec\":" << "\n";
    std::ofstream c(dir / "notes.txt");
    c << R"({"t":"clock","exec":9,"n":100000,"first":0,"last":1})" << "\n";
  }
  const auto w = read_steady_window(dir.string());
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->exec, 3u);
  EXPECT_EQ(w->launches, 400u);
  EXPECT_EQ(w->last_ns - w->first_ns, 40000u);
  EXPECT_EQ(w->settled_ns, 0u) << "records without the settled field: the window ends at the last launch call";
  fs::remove_all(dir);
}

// --overhead's plain runs may be interposed (no CUPTI): the window says how its process was observed.
TEST(ProfileOverhead, TheWindowSaysHowItsProcessWasObserved) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("window-observed-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    std::ofstream a(dir / "proc-1.jsonl");  // CUPTI: few launches
    a << R"({"t":"process","pid":1,"level":-1,"observed":"cupti"})" << "\n"
      << R"({"t":"clock","exec":2,"n":10,"first":100,"last":900})" << "\n";
    std::ofstream b(dir / "proc-2.jsonl");  // interposed: the most launches
    b << R"({"t":"process","pid":2,"level":-1,"observed":"interpose"})" << "\n"
      << R"({"t":"clock","exec":1,"n":400,"first":1000,"last":41000})" << "\n";
  }
  auto w = read_steady_window(dir.string());
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->exec, 1u);
  EXPECT_EQ(w->observed_by, Observer::kInterpose);
  {
    std::ofstream b(dir / "proc-2.jsonl");  // now CUPTI's (a process line without the field, as older records)
    b << R"({"t":"process","pid":2,"level":-1})" << "\n" << R"({"t":"clock","exec":1,"n":400,"first":1000,"last":41000})" << "\n";
  }
  w = read_steady_window(dir.string());
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->observed_by, Observer::kCupti);
  fs::remove_all(dir);
}

// A switch of kernels=P% that failed leaves the kind on: the process says so.
TEST(KernelSwitches, AFailedSwitchIsAWarningOfTheProcess) {
  const ProcessProfile p = analyze_lines(
      R"({"t":"process","pid":1,"ppid":0,"ts":1000,"cupti":130000,"level":2,"sample":"1,20,20,10/200,kernels=10%","cmdline":"app"}
{"t":"ks_fail","call":"cuptiActivityDisable","r":17}
)");
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("cuptiActivityDisable failed (result 17)"), std::string::npos) << p.warnings[0];
  EXPECT_NE(p.warnings[0].find("stayed on"), std::string::npos) << p.warnings[0];
}

TEST(ProfileOverhead, TheWindowEndsAtTheFirstSynchronisationAfterTheLastLaunch) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("settled-window-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    std::ofstream a(dir / "proc-1.jsonl");
    a << R"({"t":"clock","exec":3,"n":201,"first":1000,"last":21000,"settled":221000})" << "\n"
      << R"({"t":"clock","exec":4,"n":50,"first":1000,"last":9000,"settled":8000})" << "\n";  // before its last launch
  }
  auto w = read_steady_window(dir.string());
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->exec, 3u);
  EXPECT_EQ(w->settled_ns, 221000u) << "a GPU-bound loop: the work ends long after the last launch call";
  {
    std::ofstream a(dir / "proc-1.jsonl");
    a << R"({"t":"clock","exec":4,"n":50,"first":1000,"last":9000,"settled":8000})" << "\n";
  }
  w = read_steady_window(dir.string());
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->settled_ns, 0u) << "a synchronisation before the last launch ends nothing";
  fs::remove_all(dir);
}


// --overhead --step-range NAME: the window of the NVTX ranges NAME, from the H200 records of the
// PyTorch serving loop with a torch.cuda.nvtx range per step (24 ranges named serve_step).
TEST(ProfileOverhead, TheRangeWindowIsTheFirstRangesStartToTheLastRangesEnd) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("range-window-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  EXPECT_FALSE(read_range_window(dir.string()).has_value()) << "no records";
  fs::copy_file(std::string(GRAPHPROF_TEST_DATA) + "/profile/h200/serving_buckets_nvtx/proc-12161.jsonl", dir / "proc-12161.jsonl");
  {
    std::ofstream other(dir / "proc-2.jsonl");  // a second process with fewer ranges, one line unreadable
    other << R"({"t":"nvtx","r":[[10,20],[30,40]]})" << "\n" << R"({"t":"nvtx","r":[[50,)" << "\n"
          << R"({"t":"nvtx_end","inits":1,"others":0,"open":0})" << "\n";
  }
  const auto w = read_range_window(dir.string());
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->ranges, 24u) << "the process that closed most ranges";
  EXPECT_EQ(w->first_ns, 1796159361873365499ull);
  EXPECT_EQ(w->last_ns, 1796159361947180287ull);
  const auto g = read_steady_window(dir.string());
  ASSERT_TRUE(g.has_value());
  EXPECT_EQ(g->launches, 12u) << "the most-launched graph of the same records: half the steps";
  fs::remove_all(dir);
}

std::vector<OverheadRun> range_runs() {
  // plain, profiled, profiled, plain: the graph windows and the ranges' windows differ.
  std::vector<OverheadRun> runs(4);
  const double graph[] = {1.0e6, 1.1e6, 1.1e6, 1.0e6}, range[] = {2.0e6, 3.0e6, 3.0e6, 2.0e6};
  for (std::size_t i = 0; i < runs.size(); ++i) {
    runs[i].profiled = i == 1 || i == 2;
    runs[i].wall_ns = 5.0e9;
    runs[i].window_ns = graph[i];
    runs[i].steps = 11;
    runs[i].exec = 2;
    runs[i].settled = true;
    runs[i].range_window_ns = range[i];
    runs[i].ranges = 24;
  }
  return runs;
}

TEST(ProfileOverhead, EveryRunWithTheRangesComparesTheRangesWindow) {
  std::vector<OverheadRun> runs = range_runs();
  EXPECT_EQ(choose_overhead_window(runs, "serve_step"), "");
  for (const auto& r : runs) {
    EXPECT_TRUE(r.by_range);
    EXPECT_EQ(r.compared_steps(), 24u);
  }
  EXPECT_DOUBLE_EQ(*runs[1].compared_window_ns(), 3.0e6);

  runs = range_runs();
  runs[3].ranges = 0;
  runs[3].range_window_ns.reset();
  const std::string note = choose_overhead_window(runs, "serve_step");
  EXPECT_EQ(note, "--step-range serve_step: 1 of the 4 runs of --overhead closed no NVTX range 'serve_step', so the steady-state "
                  "window compared is the most-launched graph's");
  for (const auto& r : runs) {
    EXPECT_FALSE(r.by_range) << "one window for the whole series";
    EXPECT_DOUBLE_EQ(*r.compared_window_ns(), *r.window_ns);
  }
  runs = range_runs();
  EXPECT_EQ(choose_overhead_window(runs, ""), "") << "no --step-range";
  EXPECT_FALSE(runs[0].by_range);
}

TEST(ProfileOverhead, TheReportAndTheConsoleNameTheRangesWindow) {
  ProfileRun run;
  run.program = "serving_buckets.py";
  run.exit_description = "exited with status 0";
  run.overhead_runs = range_runs();
  (void)choose_overhead_window(run.overhead_runs, "serve_step");
  run.overhead_changes = {OverheadChange{"steady_window", 2, 0.5, 0.4, 0.6, false, 2.0e6, 3.0e6},
                          OverheadChange{"host_per_step", 2, 0.5, 0.4, 0.6, false, 2.0e6 / 24, 3.0e6 / 24}};
  const Report r = profile_report(run, {});
  const nlohmann::json o = to_json(*r.results.front().sections.profile)["overhead_runs"];
  ASSERT_EQ(o.size(), 4u);
  EXPECT_EQ(o[1]["window"], "nvtx range");
  EXPECT_EQ(o[1]["range"], "serve_step");
  EXPECT_EQ(o[1]["steps"], 24);
  EXPECT_DOUBLE_EQ(o[1]["window_ns"].get<double>(), 3.0e6);
  EXPECT_DOUBLE_EQ(o[1]["host_per_step_ns"].get<double>(), 3.0e6 / 24);
  EXPECT_EQ(o[1]["window_end"], "range_end");
  EXPECT_DOUBLE_EQ(o[1]["graph_window_ns"].get<double>(), 1.1e6) << "the graph's window is kept beside it";
  EXPECT_EQ(o[1]["graph_steps"], 11);
  const std::string text = format_profile_summary(r);
  for (const char* want : {"steady-state window (NVTX range 'serve_step', 24 steps)", "from the start of the first NVTX range 'serve_step'",
                           "NVTX\n   range hooks alone"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  EXPECT_EQ(text.find("exec 2"), std::string::npos) << text;

  run.overhead_runs = range_runs();  // without --step-range: the graph's window, as before
  const std::string plain = format_profile_summary(profile_report(run, {}));
  EXPECT_NE(plain.find("steady-state window (exec 2, 11 steps)"), std::string::npos) << plain;
  EXPECT_EQ(to_json(*profile_report(run, {}).results.front().sections.profile)["overhead_runs"][0]["window"], "most-launched graph");
}

// Plain runs observed by interposition (no CUPTI): the report keeps each run's observer and the
// console says the plain runs had no CUPTI, only when every plain run was interposed.
TEST(ProfileOverhead, TheConsoleSaysWhenThePlainRunsHadNoCupti) {
  ProfileRun run;
  run.program = "serving_loop.py";
  run.exit_description = "exited with status 0";
  run.overhead_runs = range_runs();
  for (auto& r : run.overhead_runs) r.observed_by = r.profiled ? Observer::kCupti : Observer::kInterpose;
  run.overhead_changes = {OverheadChange{"steady_window", 2, 0.5, 0.4, 0.6, false, 2.0e6, 3.0e6}};
  const Report r = profile_report(run, {});
  const nlohmann::json o = to_json(*r.results.front().sections.profile)["overhead_runs"];
  ASSERT_EQ(o.size(), 4u);
  for (const auto& x : o) EXPECT_EQ(x["observed_by"], x["profiled"].get<bool>() ? "cupti" : "interpose");
  std::string text = format_profile_summary(r);
  EXPECT_NE(text.find("plain runs are observed by interposition\n   alone (no CUPTI)"), std::string::npos) << text;
  EXPECT_EQ(text.find("plain runs carry"), std::string::npos) << text;
  run.overhead_runs[0].observed_by = Observer::kCupti;  // one plain run kept CUPTI (a static runtime)
  text = format_profile_summary(profile_report(run, {}));
  EXPECT_NE(text.find("plain runs carry graphprof's graph-launch"), std::string::npos) << text;
}

// The observer's spellings are the record lines' and the command line's; an unknown one reads as
// nothing (a record file's process line: CUPTI, as before the field existed).
TEST(Observer, EachSpellingReadsBackAndAnUnknownOneIsNothing) {
  for (Observer o : {Observer::kCupti, Observer::kInterpose}) EXPECT_EQ(parse_observer(to_string(o)), o);
  EXPECT_FALSE(parse_observer("Interpose").has_value());
  EXPECT_FALSE(parse_observer("").has_value());
  EXPECT_EQ(observer_or_cupti(""), Observer::kCupti);
  EXPECT_EQ(observer_or_cupti("interpose"), Observer::kInterpose);
  for (ObserveRequest r : {ObserveRequest::kAuto, ObserveRequest::kCupti, ObserveRequest::kInterpose}) {
    ObserveRequest back = r == ObserveRequest::kAuto ? ObserveRequest::kCupti : ObserveRequest::kAuto;
    ASSERT_TRUE(observe_request_from_string(to_string(r), back)) << to_string(r);
    EXPECT_EQ(back, r);
  }
  ObserveRequest unchanged = ObserveRequest::kCupti;
  EXPECT_FALSE(observe_request_from_string("none", unchanged));
  EXPECT_EQ(unchanged, ObserveRequest::kCupti);
}

}  // namespace
}  // namespace gp
