// The host side of `graphprof profile`: reading the injection library's line files, the per-process
// analysis (graphs, launches, queue-full blocking, coverage, capture trouble) and the report.
// Fixture: tests/data/profile/app_node.jsonl (see README.md there for what it contains).
#include <gtest/gtest.h>

#include <sstream>

#include "graphprof/error.hpp"
#include "graphprof/graph_analysis.hpp"
#include "graphprof/profile.hpp"
#include "graphprof/trace_chrome.hpp"

namespace gp {
namespace {

using nlohmann::json;

const std::string kData = std::string(GRAPHPROF_TEST_DATA) + "/profile/";

ProcessProfile fixture_profile() { return analyze_process(read_process_records(kData + "app_node.jsonl")); }

TEST(ProfileRecords, ReadsEveryKindOfLine) {
  const ProcessRecords r = read_process_records(kData + "app_node.jsonl");
  EXPECT_EQ(r.pid, 4242);
  EXPECT_EQ(r.ppid, 4200);
  EXPECT_EQ(r.command_line, "graph_app --launches 4 --eager 3");
  EXPECT_EQ(r.end_reason, "exit");
  EXPECT_EQ(r.trace.kernels.size(), 3u + 16u + 4u);
  EXPECT_EQ(r.trace.memsets.size(), 4u);
  EXPECT_EQ(r.trace.memcpys.size(), 2u);
  EXPECT_EQ(r.trace.node_mappings.size(), 9u);
  ASSERT_EQ(r.execs.size(), 2u);
  EXPECT_EQ(r.execs[0].exec_id, 3u);
  EXPECT_EQ(r.execs[0].graph_id, 1u);
  EXPECT_EQ(r.captures.size(), 4u);
  EXPECT_EQ(r.uploads.size(), 1u);
  EXPECT_EQ(r.malformed_lines, 0u);
}

TEST(ProfileRecords, KilledProcessKeepsWhatItWroteAndCountsTheTornLine) {
  const ProcessRecords r = read_process_records(kData + "app_killed.jsonl");
  EXPECT_TRUE(r.end_reason.empty());
  EXPECT_EQ(r.malformed_lines, 1u);
  EXPECT_EQ(r.execs.size(), 2u);
  const ProcessProfile p = analyze_process(r);
  EXPECT_EQ(p.graph_launches, 5u);
}

TEST(ProfileRecords, TheRecordsMakeAWellFormedChromeTrace) {
  ChromeTraceBuilder chrome;
  chrome.add("graph_app pid 4242", read_process_records(kData + "app_node.jsonl").trace, nullptr);
  EXPECT_FALSE(chrome.empty());
  EXPECT_TRUE(validate_chrome_trace(chrome.to_json()).empty());
}

TEST(ProfileRecords, UnknownAndBrokenLinesAreNotFatal) {
  std::istringstream in("{\"t\":\"process\",\"pid\":7}\nnot json\n[1,2]\n{\"t\":\"future-kind\"}\n");
  const ProcessRecords r = parse_process_records(in, "mem");
  EXPECT_EQ(r.pid, 7);
  EXPECT_EQ(r.malformed_lines, 2u);
  EXPECT_EQ(r.trace.other_records, 1u);
  EXPECT_THROW(read_process_records(kData + "no-such-file.jsonl"), Error);
}

TEST(ProfileAnalysis, GraphsAreCountedPerExecWithHowTheyWereMade) {
  const ProcessProfile p = fixture_profile();
  ASSERT_EQ(p.graphs.size(), 2u);
  const GraphProfile& a = p.graphs[0];
  EXPECT_EQ(a.exec.exec_id, 3u);
  EXPECT_EQ(a.made_by, "stream capture");
  EXPECT_EQ(a.capture_stream, 13u);
  EXPECT_EQ(a.exec.nodes, 5u);
  EXPECT_EQ(a.launches, 4u);
  EXPECT_EQ(a.kernels, 16u);
  ASSERT_TRUE(a.instantiate_ns);
  EXPECT_DOUBLE_EQ(*a.instantiate_ns, 50000);
  ASSERT_TRUE(a.upload_ns);
  EXPECT_DOUBLE_EQ(*a.upload_ns, 20000);
  EXPECT_EQ(a.gpu_span_ns.size(), 4u);
  const GraphProfile& b = p.graphs[1];
  EXPECT_EQ(b.made_by, "explicit API");
  EXPECT_EQ(b.launches, 1u);
  EXPECT_EQ(b.kernels, 4u);
  EXPECT_FALSE(b.upload_ns);
}

TEST(ProfileAnalysis, NodeTimesAreJoinedToTheOriginalGraphsNodes) {
  const ProcessProfile p = fixture_profile();
  const TraceSummary& t = p.graphs[0].trace;
  EXPECT_EQ(t.iterations, 4u);
  ASSERT_EQ(t.nodes.size(), 5u);
  EXPECT_EQ(t.nodes[0].node.dot_name(), "graph_1_node_0");
  EXPECT_EQ(t.nodes[0].kind, "memset");
  EXPECT_EQ(t.nodes[4].name, "k_add");
  EXPECT_DOUBLE_EQ(t.nodes[4].duration.median, 200000);
  for (const auto& n : t.nodes) EXPECT_EQ(n.duration.count, 4u);
  EXPECT_EQ(t.dot_status, "same graph");
  EXPECT_EQ(t.dot_name_mismatches, 0u) << "kinds and mangled names agree with the dump";
  EXPECT_EQ(p.graphs[0].exec.dot, kData + "p4242-exec3.dot") << "found next to the records";
  EXPECT_EQ(p.graphs[1].trace.dot_status, "no dump");
  EXPECT_EQ(t.unattributed, 0u);
}

TEST(ProfileAnalysis, CoverageEagerWorkAndSyncs) {
  const ProcessProfile p = fixture_profile();
  EXPECT_EQ(p.graph_kernels, 20u);
  EXPECT_EQ(p.eager_kernels, 3u);
  EXPECT_EQ(p.graph_launches, 5u);
  EXPECT_EQ(p.eager_launches, 3u) << "launches inside captures are not eager launches";
  EXPECT_DOUBLE_EQ(p.eager_kernel_ns, 6000);
  ASSERT_EQ(p.top_eager_kernels.size(), 1u);
  EXPECT_EQ(p.top_eager_kernels[0].name, "k_scale");
  EXPECT_EQ(p.top_eager_kernels[0].count, 3u);
  ASSERT_EQ(p.copies.size(), 2u);
  std::map<std::string, NamedCount> copies;
  for (const auto& c : p.copies) copies[c.name] = c;
  EXPECT_EQ(copies["memcpy HtoD"].count, 1u);
  EXPECT_EQ(copies["memcpy DtoH"].bytes, 262144u);
  std::map<std::string, std::size_t> syncs;
  for (const auto& s : p.syncs) syncs[s.name] = s.count;
  EXPECT_EQ(syncs["cudaStreamSynchronize"], 2u);
  EXPECT_EQ(syncs["cudaMemcpy"], 1u);
  EXPECT_EQ(p.eager_calls.all.count, 3u);
}

TEST(ProfileAnalysis, ALaunchCallThatWaitsForAFullQueueIsSetApart) {
  const ProcessProfile p = fixture_profile();
  const LaunchCalls& c = p.graphs[0].calls;
  EXPECT_EQ(c.all.count, 4u);
  EXPECT_EQ(c.idle_calls, 3u);
  EXPECT_EQ(c.reference_from, "10th percentile") << "fewer than 5 calls to an idle GPU";
  ASSERT_TRUE(c.reference_ns);
  EXPECT_DOUBLE_EQ(*c.reference_ns, 2000);
  EXPECT_EQ(c.blocked, 1u);
  EXPECT_DOUBLE_EQ(c.blocked_wait_ns, 148000);
  EXPECT_DOUBLE_EQ(c.unblocked.median, 2000);
  EXPECT_DOUBLE_EQ(c.all.p90 > c.unblocked.p90 ? 1 : 0, 1);
  ASSERT_TRUE(c.queue_latency);
  EXPECT_EQ(c.queue_latency->count, 4u);
}

TEST(ProfileAnalysis, TheCallThatBrokeACaptureIsNamedWithItsFix) {
  const ProcessProfile p = fixture_profile();
  ASSERT_EQ(p.capture_trouble.size(), 1u);
  const CaptureTrouble& t = p.capture_trouble[0];
  EXPECT_EQ(t.stream_id, 13u);
  EXPECT_EQ(t.api, "cudaStreamSynchronize");
  EXPECT_EQ(t.error, "cudaErrorStreamCaptureUnsupported");
  EXPECT_EQ(t.end_error, "cudaErrorStreamCaptureInvalidated");
  EXPECT_NE(t.hint.find("not allowed while a stream is being captured"), std::string::npos);
  EXPECT_EQ(cuda_error_name_of(906), "cudaErrorStreamCaptureImplicit");
  EXPECT_EQ(cuda_error_name_of(12345), "cudaError 12345");
}

ProfileRun fixture_run() {
  ProfileRun run;
  run.program = "graph_app";
  run.command = {"graph_app", "--launches", "4"};
  run.exit_status = 3;
  run.exit_description = "exited with status 3";
  run.wall_ns = 2.0e9;
  run.plain_wall_ns = 1.6e9;
  return run;
}

TEST(ProfileReport, OneAppResultAndOneResultPerGraphThatSurviveTheJsonRoundTrip) {
  const Report r = report_from_json(to_json(profile_report(fixture_run(), {fixture_profile()})), "mem");
  ASSERT_EQ(r.results.size(), 3u);
  const ModeResult& app = r.results[0];
  EXPECT_EQ(app.workload, "graph_app");
  EXPECT_EQ(app.mode, Mode::kApp);
  EXPECT_EQ(app.status, Status::kFailed) << "a failing application is recorded";
  EXPECT_NEAR(app.sections.other.at("profile").at("overhead").get<double>(), 0.25, 1e-12);
  // Graph kernels: 4 launches x (5+6+7+200 us) + 4 x 3 us; eager: 3 x 2 us.
  EXPECT_NEAR(app.metrics.at("kernel_time_in_graphs").summary.median, 884000.0 / 890000.0, 1e-12);
  const ModeResult& g = r.results[1];
  EXPECT_EQ(g.params.at("exec"), "3");
  EXPECT_EQ(g.params.at("graph"), "1");
  EXPECT_EQ(g.params.at("process"), "1");
  EXPECT_EQ(g.metrics.at("launch_cpu_per_call").summary.n, 4u);
  EXPECT_EQ(g.sections.trace.value().nodes.size(), 5u);
  EXPECT_EQ(g.sections.graph.value().extra.at("made_by"), "stream capture");
}

TEST(ProfileReport, RenderAndAnalyzeFindThePerNodeTimesOfAGraphByItsDump) {
  const std::string path = ::testing::TempDir() + "profile_report_test.json";
  write_report(profile_report(fixture_run(), {fixture_profile()}), path);
  const NodeTimes t = node_times_from_report(read_report(path), path, kData + "p4242-exec3.dot", "", "");
  ASSERT_EQ(t.by_node.size(), 5u);
  EXPECT_DOUBLE_EQ(t.by_node.at("graph_1_node_4").median_ns, 200000);
  EXPECT_EQ(t.by_node.at("graph_1_node_0").count, 4u);
  ASSERT_TRUE(t.instantiate_ns);
  EXPECT_DOUBLE_EQ(*t.instantiate_ns, 50000);
}

TEST(ProfileReport, ConsoleSummaryShowsCoverageGraphsAndTrouble) {
  const std::string text = format_profile_summary(profile_report(fixture_run(), {fixture_profile()}));
  for (const char* want : {"profile: graph_app (1 CUDA process", "exited with status 3", "overhead:", "+25.0 %",
                           "graph coverage:", "5 graph launches, 3 eager kernel launches", "stream capture",
                           "explicit API", "1 blocked on a full launch queue", "top eager kernels", "k_scale",
                           "memcpy HtoD", "cudaStreamSynchronize", "capture trouble",
                           "slowest nodes of graph_1 (exec 3, 5 nodes timed over 4 launches", "graph_1_node_4",
                           "cudaErrorStreamCaptureInvalidated"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
}

TEST(ProfileReport, NoCudaProcessIsSaidPlainly) {
  const std::string text = format_profile_summary(profile_report(fixture_run(), {}));
  EXPECT_NE(text.find("no process of the application initialised CUDA"), std::string::npos) << text;
}

}  // namespace
}  // namespace gp
