// The device level beside the device figures (device_level_cell) and why a result's two device
// methods disagree (device_methods_note), from sections.device_probe as the runner writes it
// (docs/methodology.md "Device level"). The readings are those of the H200 cases in
// docs/findings.md ("Parity").
#include <gtest/gtest.h>

#include "graphprof/core/device_level.hpp"
#include "graphprof/core/report.hpp"
#include "graphprof/core/report_sections.hpp"

namespace gp {
namespace {

ModeResult graph_result(int nodes, double b2b_ns, double latched_ns) {
  ModeResult r;
  r.workload = "scaling";
  r.mode = Mode::kGraph;
  r.status = Status::kOk;
  r.params = {{"length", std::to_string(nodes)}};
  r.sections.graph.emplace();
  r.sections.graph->nodes = nodes;
  r.metrics["gpu_time_per_iter"].summary.median = b2b_ns;
  r.metrics["gpu_time_per_iter_latched"].summary.median = latched_ns;
  return r;
}

DeviceProbeSection probe(DeviceProbeReading before_gpu, DeviceProbeReading before_latched, DeviceProbeReading after_latched,
                         DeviceProbeReading after) {
  DeviceProbeSection p;
  p.chain_kernels = 256;
  p.ns_per_kernel = before_gpu.back_to_back_ns;
  p.latched_ns_per_kernel = before_gpu.latched_ns;
  p.ns_per_kernel_after = after.back_to_back_ns;
  p.latched_ns_per_kernel_after = after.latched_ns;
  p.points = {{"before GPU pass", before_gpu}, {"before latched pass", before_latched}, {"after latched pass", after_latched}};
  return p;
}

TEST(DeviceMethods, AgreeWithinTwoPercentSayNothing) {
  ModeResult r = graph_result(100, 52100, 52400);  // 0.6 %
  r.sections.device_probe = probe({508, 509}, {508, 509}, {508, 509}, {508, 509});
  EXPECT_EQ(device_methods_note(r), "");
  EXPECT_EQ(device_level_cell(r), "508/509");
}

TEST(DeviceMethods, LatchedPassAtTheSlowerLevelIsNamedWithTheProbeReadings) {
  // length 10, explicit graph mode second in its process: 7.42 µs back to back, 8.99 latched.
  ModeResult r = graph_result(10, 7420, 8990);
  r.sections.device_probe = probe({508, 509}, {508, 686}, {686, 686}, {686, 686});
  const std::string note = device_methods_note(r);
  EXPECT_NE(note.find("latched +21 %"), std::string::npos) << note;
  EXPECT_NE(note.find("the latched pass ran at a slower device level"), std::string::npos) << note;
  EXPECT_NE(note.find("686"), std::string::npos) << note;
  EXPECT_EQ(device_level_cell(r), "508/509 → 686/686");
}

TEST(DeviceMethods, ALevelChangeDuringTheGpuPassIsNamed) {
  ModeResult r = graph_result(100, 60000, 68000);
  r.sections.device_probe = probe({508, 509}, {686, 509}, {686, 509}, {686, 509});
  EXPECT_NE(device_methods_note(r).find("changed during the GPU pass"), std::string::npos) << device_methods_note(r);
}

TEST(DeviceMethods, LatchedFasterMeansTheReplaysWaitedForTheHost) {
  ModeResult r = graph_result(10, 9000, 7400);
  r.sections.device_probe = probe({508, 509}, {508, 509}, {508, 509}, {508, 509});
  EXPECT_NE(device_methods_note(r).find("launch-bound"), std::string::npos) << device_methods_note(r);
}

// The H200's short multi-root chains (docs/findings.md, Parity; level_trigger methods): 10 x 4
// without the entry node, 358 ns per node back to back, 287 for one replay behind the latch.
ModeResult short_chains(int nodes, int roots, int sinks, double b2b_ns, double latched_ns) {
  ModeResult r = graph_result(nodes, b2b_ns, latched_ns);
  r.sections.graph->roots = roots;
  r.sections.graph->sinks = sinks;
  r.sections.device_probe = probe({508, 509}, {508, 509}, {508, 509}, {508, 509});
  return r;
}

TEST(DeviceMethods, AShortGraphWithSeveralRootsNamesTheReplayAfterAReplay) {
  const ModeResult r = short_chains(40, 4, 4, 358 * 40, 287 * 40);
  const std::string note = device_methods_note(r);
  EXPECT_NE(note.find("latched -20 %"), std::string::npos) << note;
  EXPECT_NE(note.find("4 roots and 4 sinks"), std::string::npos) << note;
  EXPECT_NE(note.find("costs 2.8 µs more"), std::string::npos) << note;
  EXPECT_NE(note.find("cudaGraphsPerfScaling"), std::string::npos) << note;
  EXPECT_EQ(note.find("launch-bound"), std::string::npos) << note;
  // One entry node but 16 sinks (10 x 16 with the entry node: 207 against 196 ns per node).
  const std::string sinks = device_methods_note(short_chains(161, 1, 16, 207 * 161, 196 * 161));
  EXPECT_NE(sinks.find("1 roots and 16 sinks"), std::string::npos) << sinks;
}

TEST(DeviceMethods, AGapFarBeyondTheRootsIsStillLaunchBound) {
  // 10 000 x 4: back to back 3 % above latched, 230 µs a replay: not the few µs a join costs.
  const std::string note = device_methods_note(short_chains(40000, 4, 4, 193 * 40000 * 1.03, 193 * 40000));
  EXPECT_NE(note.find("launch-bound"), std::string::npos) << note;
  // A chain (one root, one sink) never gets the multi-root reason.
  EXPECT_NE(device_methods_note(short_chains(10, 1, 1, 9000, 7400)).find("launch-bound"), std::string::npos);
}

TEST(DeviceMethods, TheNoteAndTheGraphsRootsTravelInTheJson) {
  const ModeResult r = short_chains(40, 4, 4, 358 * 40, 287 * 40);
  const nlohmann::json j = to_json(r);
  EXPECT_EQ(j.at("device_methods_note").get<std::string>(), device_methods_note(r));
  EXPECT_EQ(j.at("sections").at("graph").at("roots").get<int>(), 4);
  EXPECT_EQ(j.at("sections").at("graph").at("sinks").get<int>(), 4);
  const Sections back = sections_from_json(j.at("sections"), "test");
  ASSERT_TRUE(back.graph.has_value());
  EXPECT_EQ(back.graph->roots, 4);
  EXPECT_EQ(back.graph->sinks, 4);
  EXPECT_FALSE(back.graph->extra.contains("roots"));
  // Agreeing methods write no note; a graph without recorded roots writes no roots.
  ModeResult agree = graph_result(100, 52100, 52400);
  const nlohmann::json ja = to_json(agree);
  EXPECT_FALSE(ja.contains("device_methods_note"));
  EXPECT_FALSE(ja.at("sections").at("graph").contains("roots"));
}

TEST(DeviceMethods, UnexplainedAndUnprobedDifferencesSaySo) {
  ModeResult r = graph_result(1000, 501000, 530000);
  r.sections.device_probe = probe({508, 509}, {508, 509}, {508, 509}, {508, 509});
  EXPECT_NE(device_methods_note(r).find("not explained by the level"), std::string::npos);
  r.sections.device_probe.reset();
  EXPECT_NE(device_methods_note(r).find("no device probe"), std::string::npos);
  EXPECT_EQ(device_level_cell(r), "-");
}

TEST(DeviceMethods, EagerSmallGraphsAndFailuresAreNotJudged) {
  ModeResult small = graph_result(9, 7000, 9000);
  EXPECT_EQ(device_methods_note(small), "");
  ModeResult eager = graph_result(100, 7000, 9000);
  eager.mode = Mode::kEager;
  EXPECT_EQ(device_methods_note(eager), "");
  ModeResult failed = graph_result(100, 7000, 9000);
  failed.status = Status::kFailed;
  EXPECT_EQ(device_methods_note(failed), "");
}

TEST(DeviceMethods, OlderReportsWithoutLatchedReadingsPrintTheirBackToBackLevel) {
  ModeResult r = graph_result(100, 52100, 52400);
  DeviceProbeSection p;
  p.chain_kernels = 256;
  p.ns_per_kernel = 504.4;
  p.ns_per_kernel_after = 680.9;
  r.sections.device_probe = p;
  EXPECT_EQ(device_level_cell(r), "504/- → 681/-");
}

}  // namespace
}  // namespace gp

namespace gp {
namespace {

TEST(LatchDescription, SaysWhatHeldTheStreamFromTheReportsSettings) {
  Report r;
  EXPECT_EQ(latch_description(r), "a latch");  // reports from before settings.latch
  r.settings.latch = "wait-value";
  EXPECT_EQ(latch_description(r), "a stream wait");
  r.settings.latch = "kernel";
  EXPECT_EQ(latch_description(r), "a polling latch kernel");
}

}  // namespace
}  // namespace gp
