// The host side of `graphprof profile`: reading the injection library's line files, the per-process
// analysis (graphs, launches, queue-full blocking, coverage, capture trouble) and the report.
// Fixtures: records of real runs on the H200 (tests/data/profile/README.md): the test application
// (graph_app --launches 20 --eager 5 --bad-capture) with its DOT dumps, and the graph launches of
// the ResNet-50 replay demo. The counts asserted are what the H200 recorded.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include <sstream>

#include "graphprof/core/error.hpp"
#include "graphprof/core/json_assert.hpp"
#include "graphprof/graph/graph_analysis.hpp"
#include "graphprof/profile/profile.hpp"
#include "graphprof/core/cuda_error_text.hpp"
#include "graphprof/report/profile_text.hpp"
#include "graphprof/report/chrome_trace.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/report/chrome_trace.hpp"

namespace gp {
namespace {

using nlohmann::json;

const std::string kProfileData = std::string(GRAPHPROF_TEST_DATA) + "/profile/";
const std::string kProfileApp = kProfileData + "h200/proc-2096.jsonl";
const std::string kResnet = kProfileData + "h200/resnet50_launches.jsonl";

ProcessProfile fixture_profile() { return analyze_process(read_process_records(kProfileApp)); }

TEST(ProfileRecords, ReadsEveryKindOfLine) {
  const ProcessRecords r = read_process_records(kProfileApp);
  EXPECT_EQ(r.pid, 2096);
  EXPECT_EQ(r.ppid, 2090);
  EXPECT_EQ(r.command_line, "./build-gpu/tests/apps/graphprof_graph_app --launches 20 --eager 5 --bad-capture");
  EXPECT_EQ(r.trace_level, TraceLevel::kNode);
  EXPECT_EQ(r.end_reason, "exit");
  EXPECT_EQ(r.trace.api.size(), 203u);
  EXPECT_EQ(r.trace.kernels.size(), 20u * 4 + 3 * 4 + 5) << "graph A: 3 k_scale + k_add; graph B: 4; 5 eager";
  EXPECT_EQ(r.trace.memsets.size(), 20u) << "the memset node of graph A";
  EXPECT_EQ(r.trace.memcpys.size(), 2u);
  EXPECT_EQ(r.trace.node_mappings.size(), 9u);
  ASSERT_EQ(r.execs.size(), 2u);
  EXPECT_EQ(r.execs[0].exec_id, 3u);
  EXPECT_EQ(r.execs[0].graph_id, 1u);
  EXPECT_EQ(r.execs[1].exec_id, 5u);
  EXPECT_EQ(r.execs[1].graph_id, 2u);
  EXPECT_EQ(r.captures.size(), 4u);
  EXPECT_EQ(r.uploads.size(), 1u);
  EXPECT_EQ(r.malformed_lines, 0u);
  EXPECT_EQ(r.trace.dropped_records, 0u);
}

TEST(ProfileRecords, KilledProcessKeepsWhatItWroteAndCountsTheTornLine) {
  const ProcessRecords r = read_process_records(kProfileData + "app_killed.jsonl");
  EXPECT_TRUE(r.end_reason.empty());
  EXPECT_EQ(r.malformed_lines, 1u);
  EXPECT_EQ(r.execs.size(), 2u);
  EXPECT_EQ(r.trace.api.size(), 202u) << "only the torn record is lost";
  const ProcessProfile p = analyze_process(r);
  EXPECT_EQ(p.graph_launches, 23u);
}

// Hostile lines: numbers a field cannot hold and empty remarks are unreadable lines, counted,
// never wrapped into huge counts or printed as empty warnings.
TEST(ProfileRecords, OutOfRangeNumbersAndEmptyRemarksAreUnreadableLines) {
  const std::string path = testing::TempDir() + "hostile.jsonl";
  {
    std::ofstream out(path);
    out << R"({"t":"process","pid":7,"ppid":1,"ts":10,"level":2,"cmdline":"x"})" << "\n"
        << R"({"t":"dropped","n":-1})" << "\n"
        << R"({"t":"dropped","n":1e300})" << "\n"
        << R"({"t":"dropped","n":3})" << "\n"
        << R"({"t":"end","reason":"exit","ts":20,"dropped":18446744073709551616})" << "\n"
        << R"({"t":"warning","what":null})" << "\n"
        << R"({"t":"error","what":""})" << "\n"
        << R"({"t":"warning","what":"kept"})" << "\n";
  }
  {
    // A kernel's grid or block must be three integers an int holds (5e128 into an int was undefined
    // behaviour, found by fuzz_profile_records).
    std::ofstream out(path, std::ios::app);
    out << R"({"t":"k","n":"k","s":100,"e":200,"g":1,"gr":[5e128,1,1]})" << "\n"
        << R"({"t":"k","n":"k","s":100,"e":200,"g":1,"bl":[1,1]})" << "\n"
        << R"({"t":"k","n":"k","s":100,"e":200,"g":1,"gr":[4,2,1],"bl":[128,1,1]})" << "\n";
  }
  const ProcessRecords r = read_process_records(path);
  EXPECT_EQ(r.pid, 7);
  EXPECT_EQ(r.trace.dropped_records, 3u);
  EXPECT_EQ(r.malformed_lines, 7u);
  ASSERT_EQ(r.trace.kernels.size(), 1u);
  EXPECT_EQ(r.trace.kernels[0].grid, (std::array<int, 3>{4, 2, 1}));
  EXPECT_EQ(r.trace.kernels[0].block, (std::array<int, 3>{128, 1, 1}));
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "kept");
  EXPECT_TRUE(r.errors.empty());
}

// A record that ends before it starts was read as a zero duration ("coverage 0.0 %", no word):
// it is an unreadable line now, and said once.
TEST(ProfileRecords, RecordsThatEndBeforeTheyStartAreUnreadableLinesWithAWarning) {
  std::istringstream in(
      "{\"t\":\"process\",\"pid\":7}\n"
      "{\"t\":\"k\",\"n\":\"k\",\"s\":200,\"e\":100,\"g\":1}\n"
      "{\"t\":\"k\",\"n\":\"k\",\"s\":100,\"e\":200,\"g\":1}\n"
      "{\"t\":\"a\",\"n\":\"cudaGraphLaunch\",\"s\":50,\"e\":10}\n"
      "{\"t\":\"gt\",\"s\":9,\"e\":8}\n");
  const ProcessRecords r = parse_process_records(in, "mem");
  EXPECT_EQ(r.malformed_lines, 3u);
  ASSERT_EQ(r.trace.kernels.size(), 1u);
  EXPECT_EQ(r.trace.kernels[0].end_ns, 200u);
  EXPECT_TRUE(r.trace.api.empty());
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "3 records end before they start (counted as unreadable lines)");
}

// Times outside the records' range (0, 2^64 - 1, years away from the process's start) and node
// counts that a report's int cannot hold are unreadable lines, never figures: kept, they became
// durations of 1.8e18 ns and counts of -1 that graphprof's own report reader refused.
TEST(ProfileRecords, TimesAndCountsOutsideSaneRangesAreUnreadableLines) {
  std::istringstream in(
      "{\"t\":\"process\",\"pid\":7,\"ts\":1800000000000000000}\n"
      "{\"t\":\"k\",\"n\":\"zero\",\"s\":0,\"e\":1800000000000000100,\"g\":1}\n"
      "{\"t\":\"k\",\"n\":\"max\",\"s\":1800000000000000100,\"e\":18446744073709551615,\"g\":1}\n"
      "{\"t\":\"k\",\"n\":\"far\",\"s\":1800000000000000100,\"e\":1990000000000000000,\"g\":1}\n"
      "{\"t\":\"a\",\"n\":\"cudaGraphLaunch\",\"s\":1,\"e\":1800000000000000200,\"co\":3}\n"
      "{\"t\":\"k\",\"n\":\"good\",\"s\":1800000000000000100,\"e\":1800000000000000300,\"g\":1}\n"
      "{\"t\":\"exec\",\"exec\":1,\"graph\":1,\"nodes\":3000000000,\"edges\":1,\"ts\":1800000000000000050}\n"
      "{\"t\":\"exec\",\"exec\":2,\"graph\":2,\"nodes\":5,\"edges\":4,\"ts\":18446744073709551615}\n"
      "{\"t\":\"exec\",\"exec\":3,\"graph\":3,\"nodes\":5,\"edges\":4,\"ts\":1800000000000000050}\n"
      "{\"t\":\"proc_start\",\"ts\":1,\"resolution_ns\":1}\n"
      "{\"t\":\"end\",\"reason\":\"exit\",\"ts\":18446744073709551615}\n");
  const ProcessRecords r = parse_process_records(in, "mem");
  EXPECT_EQ(r.malformed_lines, 8u);
  ASSERT_EQ(r.trace.kernels.size(), 1u);
  EXPECT_EQ(r.trace.kernels[0].name, "good");
  EXPECT_TRUE(r.trace.api.empty());
  ASSERT_EQ(r.execs.size(), 1u);
  EXPECT_EQ(r.execs[0].exec_id, 3u);
  EXPECT_EQ(r.end_ns, 0u);
  EXPECT_EQ(r.sites.process_start_ns, 0u);
  // What is left makes a report that graphprof reads back.
  ProfileRun run;
  run.program = "app";
  run.command = {"app"};
  const Report report = profile_report(run, {analyze_process(r)});
  EXPECT_NO_THROW(report_from_json(json::parse(report_json_text(report)), "mem"));
}

// What one record line may cost is bounded: a line longer than 16 MiB is skipped unread, a call
// site with more frames than a stack is read with is unreadable; the lines around them are kept.
TEST(ProfileRecords, OversizedLinesAndSitesAreUnreadableLines) {
  std::string frames;
  for (int i = 0; i < 1000; ++i) frames += std::string(i ? "," : "") + "[\"/lib/a.so\",\"0x10\",\"f\",1]";
  std::string py;
  for (int i = 0; i < 300; ++i) py += std::string(i ? "," : "") + "[\"a.py\",1,\"g\"]";
  const std::string lines = "{\"t\":\"process\",\"pid\":7}\n"
                            "{\"t\":\"warning\",\"what\":\"" + std::string((std::size_t{16} << 20) + 10, 'x') + "\"}\n"
                            "{\"t\":\"warning\",\"what\":\"kept\"}\n"
                            "{\"t\":\"site\",\"s\":1,\"api\":\"cudaLaunchKernel\",\"n\":[" + frames + "]}\n"
                            "{\"t\":\"site\",\"s\":2,\"api\":\"cudaLaunchKernel\",\"n\":[],\"py\":[" + py + "]}\n"
                            "{\"t\":\"site\",\"s\":3,\"api\":\"cudaLaunchKernel\",\"n\":[[\"/lib/a.so\",\"0x10\",\"f\",1]]}\n"
                            "{\"t\":\"warning\",\"what\":\"last, without a line end\"}";
  std::istringstream in(lines);
  const ProcessRecords r = parse_process_records(in, "mem");
  EXPECT_EQ(r.pid, 7);
  EXPECT_EQ(r.malformed_lines, 3u);
  ASSERT_EQ(r.warnings.size(), 2u);
  EXPECT_EQ(r.warnings[0], "kept");
  EXPECT_EQ(r.warnings[1], "last, without a line end");
  ASSERT_EQ(r.sites.sites.size(), 1u);
  EXPECT_EQ(r.sites.sites[0].id, 3u);
}

// Capture begins are matched to their ends by stream and correlation: a begin gets the first end
// after it on its stream. 100,000 begins that never end (a pass over every capture call for each
// begin: minutes) are matched at once.
TEST(ProfileAnalysis, CaptureBeginsAreMatchedToTheirEndsInLinearTime) {
  ProcessRecords r;
  r.pid = 7;
  const auto call = [&](std::uint32_t co, const char* name, std::uint32_t thread) {
    ApiRecord a;
    a.name = name;
    a.correlation_id = co;
    a.thread_id = thread;
    a.start_ns = 1000 + co;
    a.end_ns = 1000 + co;
    r.trace.api.push_back(a);
  };
  for (std::uint32_t i = 0; i < 100000; ++i) r.captures.push_back(CaptureCall{false, 9, 0, 1 + i, 0, -1});  // ends before them
  for (std::uint32_t i = 0; i < 100000; ++i) {
    r.captures.push_back(CaptureCall{true, 9, 0, 200000 + i, 0, 0});
    call(200000 + i, "cudaStreamBeginCapture", 100 + i);
  }
  // One capture on stream 5 whose EndCapture has no API record: a call on its thread after the end
  // closes it, the launch inside it broke it.
  r.captures.push_back(CaptureCall{true, 5, 0, 400000, 0, 0});
  call(400000, "cudaStreamBeginCapture", 1);
  ApiRecord bad;
  bad.name = "cudaMalloc";
  bad.correlation_id = 400001;
  bad.thread_id = 1;
  bad.start_ns = bad.end_ns = 1000 + 400001;
  bad.return_value = 900;  // cudaErrorStreamCaptureUnsupported
  r.trace.api.push_back(bad);
  r.captures.push_back(CaptureCall{false, 5, 0, 400002, 901, -1});
  call(400003, "cudaMemcpy", 1);
  const auto t0 = std::chrono::steady_clock::now();
  const ProcessProfile p = analyze_process(r);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  ASSERT_EQ(p.capture_trouble.size(), 1u);
  EXPECT_EQ(p.capture_trouble[0].api, "cudaMalloc");
  EXPECT_EQ(p.capture_trouble[0].stream_id, 5u);
  EXPECT_EQ(p.capture_trouble[0].end_error, "cudaErrorStreamCaptureInvalidated");
}

// Text from the records reaches the terminal without its control characters (an ESC starts an
// escape sequence), and repeated lines are counted, not printed 100,000 times.
TEST(ProfileReport, ConsoleCleansRecordTextAndCountsRepeatedLines) {
  std::ostringstream lines;
  lines << "{\"t\":\"process\",\"pid\":7,\"ts\":1000,\"cmdline\":\"app\\u001b]0;title\\u0007\"}\n";
  for (int i = 0; i < 100000; ++i) lines << "{\"t\":\"warning\",\"what\":\"cudaMalloc of " << i << " bytes failed\"}\n";
  lines << "{\"t\":\"warning\",\"what\":\"\\u001b[2J\\u001b[31mred\\u009b1m\"}\n";
  for (int i = 0; i < 30; ++i) lines << "{\"t\":\"error\",\"what\":\"kind" << char('a' + i % 26) << char('a' + i / 26) << "\"}\n";
  std::istringstream in(lines.str());
  const ProcessRecords records = parse_process_records(in, "mem");
  ASSERT_EQ(records.warnings.size(), 100001u);
  ProfileRun run;
  run.program = "app\x1b[1m";
  run.command = {"app"};
  run.notes = {"a note with a bell\x07"};
  const std::string text = format_profile_summary(profile_report(run, {analyze_process(records)}), true);
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\x07'), std::string::npos);
  EXPECT_EQ(text.find("\xc2\x9b"), std::string::npos);
  EXPECT_NE(text.find("graphprof warning: cudaMalloc of 0 bytes failed (and 99,999 more like it)"), std::string::npos) << text;
  EXPECT_NE(text.find("\\x1b[2J\\x1b[31mred"), std::string::npos) << text;
  EXPECT_NE(text.find("NOT PROFILED: ... and 20 more of other kinds"), std::string::npos) << text;
  EXPECT_LT(std::count(text.begin(), text.end(), '\n'), 200) << "one line per kind of warning, not one per warning";
}

// The application may leave a FIFO, a device or a link to one where its records were: refused at
// once (it blocked graphprof forever), naming the file.
TEST(ProfileRecords, ARecordFileThatIsNotARegularFileIsRefusedWithoutBlocking) {
  const std::string dir = ::testing::TempDir() + "gp_profile_fifo";
  std::filesystem::create_directories(dir);
  const std::string fifo = dir + "/proc-9.jsonl";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {fifo, std::string("/dev/zero")}) {
    try {
      read_process_records(path);
      ADD_FAILURE() << path << " was read";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kBadInput);
      EXPECT_NE(std::string(e.what()).find(path + ": the profile records are not a regular file"), std::string::npos)
          << e.what();
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(ProfileRecords, TheRecordsMakeAWellFormedChromeTrace) {
  ChromeTraceBuilder chrome;
  chrome.add("graph_app pid 2096", read_process_records(kProfileApp).trace, nullptr);
  EXPECT_FALSE(chrome.empty());
  EXPECT_TRUE(validate_chrome_trace(chrome.to_json()).empty());
}

TEST(ProfileRecords, UnknownAndBrokenLinesAreNotFatal) {
  std::istringstream in("{\"t\":\"process\",\"pid\":7}\nnot json\n[1,2]\n{\"t\":\"future-kind\"}\n");
  const ProcessRecords r = parse_process_records(in, "mem");
  EXPECT_EQ(r.pid, 7);
  EXPECT_EQ(r.malformed_lines, 2u);
  EXPECT_EQ(r.trace.other_records, 1u);
  EXPECT_THROW(read_process_records(kProfileData + "no-such-file.jsonl"), Error);
}

TEST(ProfileAnalysis, GraphsAreCountedPerExecWithHowTheyWereMade) {
  const ProcessProfile p = fixture_profile();
  ASSERT_EQ(p.graphs.size(), 2u);
  const GraphProfile& a = p.graphs[0];
  EXPECT_EQ(a.exec.exec_id, 3u);
  EXPECT_EQ(a.made_by, "stream capture");
  EXPECT_EQ(a.capture_stream, 13u);
  EXPECT_EQ(a.exec.nodes, 5u);
  EXPECT_EQ(a.exec.edges, 4u);
  EXPECT_EQ(a.launches, 20u);
  EXPECT_EQ(a.kernels, 80u);
  ASSERT_TRUE(a.instantiate_ns);
  EXPECT_DOUBLE_EQ(*a.instantiate_ns, 272822);
  ASSERT_TRUE(a.upload_ns);
  EXPECT_DOUBLE_EQ(*a.upload_ns, 29784);
  EXPECT_EQ(a.gpu_span_ns.size(), 20u);
  const GraphProfile& b = p.graphs[1];
  EXPECT_EQ(b.exec.exec_id, 5u);
  EXPECT_EQ(b.made_by, "explicit API");
  EXPECT_EQ(b.exec.nodes, 4u);
  EXPECT_EQ(b.exec.edges, 4u);
  EXPECT_EQ(b.launches, 3u);
  EXPECT_EQ(b.kernels, 12u);
  ASSERT_TRUE(b.instantiate_ns);
  EXPECT_DOUBLE_EQ(*b.instantiate_ns, 123684);
  EXPECT_FALSE(b.upload_ns);
}

TEST(ProfileAnalysis, NodeTimesAreJoinedToTheOriginalGraphsNodes) {
  const ProcessProfile p = fixture_profile();
  const TraceSummary& t = p.graphs[0].trace;
  EXPECT_EQ(t.iterations, 20u);
  ASSERT_EQ(t.nodes.size(), 5u);
  EXPECT_EQ(t.nodes[0].node.dot_name(), "graph_1_node_0");
  EXPECT_EQ(t.nodes[0].kind, "memset");
  EXPECT_EQ(t.nodes[4].name, "k_add");
  EXPECT_DOUBLE_EQ(t.nodes[4].duration.median, 1280);
  for (const auto& n : t.nodes) EXPECT_EQ(n.duration.count, 20u);
  EXPECT_EQ(t.dot_status, "same graph");
  EXPECT_EQ(t.dot_name_mismatches, 0u) << "kinds and mangled names agree with the dump";
  EXPECT_EQ(t.unattributed, 0u);
  EXPECT_EQ(p.graphs[0].exec.dot, kProfileData + "h200/p2096-exec3.dot") << "found next to the records";
  const TraceSummary& b = p.graphs[1].trace;
  EXPECT_EQ(b.dot_status, "same graph");
  ASSERT_EQ(b.nodes.size(), 4u);
  for (const auto& n : b.nodes) EXPECT_EQ(n.duration.count, 3u);
}

TEST(ProfileAnalysis, CoverageEagerWorkAndSyncs) {
  const ProcessProfile p = fixture_profile();
  EXPECT_EQ(p.graph_kernels, 92u);
  EXPECT_EQ(p.eager_kernels, 5u);
  EXPECT_DOUBLE_EQ(p.graph_kernel_ns, 107008);
  EXPECT_DOUBLE_EQ(p.eager_kernel_ns, 5445);
  EXPECT_EQ(p.graph_launches, 23u);
  EXPECT_EQ(p.eager_launches, 5u) << "10 cudaLaunchKernel calls, 5 of them inside the two captures";
  ASSERT_EQ(p.top_eager_kernels.size(), 1u);
  EXPECT_EQ(p.top_eager_kernels[0].name, "k_scale");
  EXPECT_EQ(p.top_eager_kernels[0].count, 5u);
  ASSERT_EQ(p.copies.size(), 2u);
  std::map<std::string, NamedCount> copies;
  for (const auto& c : p.copies) copies[c.name] = c;
  EXPECT_EQ(copies["memcpy HtoD"].count, 1u);
  EXPECT_EQ(copies["memcpy HtoD"].bytes, 262144u);
  EXPECT_EQ(copies["memcpy DtoH"].bytes, 262144u);
  std::map<std::string, std::size_t> syncs;
  for (const auto& s : p.syncs) syncs[s.name] = s.count;
  EXPECT_EQ(syncs["cudaStreamSynchronize"], 4u);
  EXPECT_EQ(syncs["cudaMemcpy"], 1u);
  EXPECT_EQ(p.eager_calls.all.count, 5u);
  EXPECT_EQ(p.graph_calls.all.count, 23u);
  EXPECT_EQ(p.graph_calls.blocked, 0u) << "20 short launches never fill the queue";
}

// ResNet-50 replayed 200 times back to back at --trace node: the queue fills while the first
// launches return after about 0.25 ms each, then every call waits about 1 ms for room.
TEST(ProfileAnalysis, ResNetReplaysThatWaitForAFullQueueAreSetApartFromTheHostCost) {
  const ProcessProfile p = analyze_process(read_process_records(kResnet));
  ASSERT_EQ(p.graphs.size(), 1u);
  EXPECT_EQ(p.graphs[0].exec.nodes, 342u);
  EXPECT_EQ(p.graphs[0].exec.edges, 341u);
  const LaunchCalls& c = p.graph_calls;
  EXPECT_EQ(c.all.count, 201u);
  EXPECT_EQ(c.max_in_flight, 35u);
  EXPECT_EQ(c.reference_from, "queue at most half full");
  ASSERT_TRUE(c.reference_ns);
  EXPECT_DOUBLE_EQ(*c.reference_ns, 249817) << "median of the 29 calls made with at most 17 launches in flight";
  EXPECT_EQ(c.blocked, 146u);
  EXPECT_DOUBLE_EQ(c.blocked_wait_ns, 125333253);
  ASSERT_TRUE(c.in_flight_when_blocked);
  EXPECT_DOUBLE_EQ(*c.in_flight_when_blocked, 35);
  EXPECT_EQ(c.unblocked.count, 55u);
  EXPECT_DOUBLE_EQ(c.unblocked.median, 245911);
  EXPECT_GT(c.all.median, 1.0e6) << "a naive timer would call this the launch cost";
  // The work of a call made to an idle GPU starts within microseconds; queued replays wait ~36 ms.
  EXPECT_EQ(c.idle_calls, 2u);
  ASSERT_TRUE(c.idle_latency && c.queued_latency);
  EXPECT_EQ(c.idle_latency->count, 2u);
  EXPECT_DOUBLE_EQ(c.idle_latency->median, 4181.5);
  EXPECT_EQ(c.queued_latency->count, 199u);
  EXPECT_DOUBLE_EQ(c.queued_latency->median, 35941082);
  EXPECT_EQ(p.graphs[0].calls.blocked, 146u) << "the exec's own launch calls: the same 201";
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
  run.program = "graphprof_graph_app";
  run.command = {"graphprof_graph_app", "--launches", "20", "--eager", "5", "--bad-capture", "--exit", "3"};
  run.exit_status = 3;
  run.exit_description = "exited with status 3";
  run.wall_ns = 2.0e9;
  run.warmup_wall_ns = 3.0e9;
  run.plain_runs_ns = {1.5e9, 1.7e9};
  run.plain_wall_ns = 1.6e9;
  run.overhead_runs = {OverheadRun{false, 0, 1.5e9, 1.0e9, 999, 3}, OverheadRun{true, 3, 2.0e9, 1.1e9, 999, 3},
                       OverheadRun{true, 3, 2.0e9, 1.2e9, 999, 3}, OverheadRun{false, 0, 1.7e9, 1.0e9, 999, 3}};
  run.overhead_changes = {OverheadChange{"steady_window", 2, 0.15, -0.2, 0.6, true, 1.0e9, 1.15e9},
                          OverheadChange{"wall_time", 2, 0.25, 0.10, 0.40, false, 1.6e9, 2.0e9}};
  return run;
}

// A hand-edited report without fields the summary reads: its headline reads them tolerantly ("-"),
// and a field missing deeper is an exception the commands turn into exit 3 (core/json_assert.hpp),
// never a read of freed memory (a const operator[] on a missing key, found by fuzz_profile_report).
TEST(ProfileReport, MissingFieldsOfAHandEditedReportNeverReadFreedMemory) {
  Report r = profile_report(fixture_run(), {fixture_profile()});
  json section = to_json(*r.results[0].sections.profile);
  for (const char* key : {"trace_level", "exit", "program"}) section.erase(key);
  r.results[0].sections.profile = profile_section_from_json(section);
  const std::string text = format_profile_summary(r);
  EXPECT_NE(text.find("profile: - (1 CUDA process, trace -): the application -, wall"), std::string::npos) << text;
  section["processes"][0].erase("coverage");
  r.results[0].sections.profile = profile_section_from_json(section);
  EXPECT_THROW(format_profile_summary(r), JsonMisuse);
}

TEST(ProfileReport, OneAppResultAndOneResultPerGraphThatSurviveTheJsonRoundTrip) {
  const Report r = report_from_json(to_json(profile_report(fixture_run(), {fixture_profile()})), "mem");
  ASSERT_EQ(r.results.size(), 3u);
  const ModeResult& app = r.results[0];
  EXPECT_EQ(app.workload, "graphprof_graph_app");
  EXPECT_EQ(app.mode, Mode::kApp);
  EXPECT_EQ(app.status, Status::kFailed) << "a failing application is recorded";
  const json prof = to_json(*app.sections.profile);
  EXPECT_NEAR(prof.at("overhead").get<double>(), 0.25, 1e-12) << "against the mean of the plain runs";
  EXPECT_EQ(prof.at("plain_runs_ns").size(), 2u);
  EXPECT_DOUBLE_EQ(prof.at("warmup_wall_ns").get<double>(), 3.0e9);
  EXPECT_EQ(app.metrics.at("wall_time_plain").summary.n, 2u);
  EXPECT_NEAR(app.metrics.at("kernel_time_in_graphs").summary.median, 107008.0 / (107008.0 + 5445.0), 1e-12);
  const json& calls = prof.at("processes")[0].at("graph_launch_calls");
  EXPECT_EQ(calls.at("max_in_flight"), 2);
  EXPECT_TRUE(calls.at("idle_latency").is_object());
  EXPECT_EQ(calls.at("queued_latency").at("count"), 22);
  const ModeResult& g = r.results[1];
  EXPECT_EQ(g.params.at("exec"), "3");
  EXPECT_EQ(g.params.at("graph"), "1");
  EXPECT_EQ(g.params.at("process"), "1");
  EXPECT_EQ(g.metrics.at("launch_cpu_per_call").summary.n, 20u);
  EXPECT_EQ(g.metrics.at("gpu_time_per_iter").summary.n, 20u);
  EXPECT_EQ(g.sections.trace.value().nodes.size(), 5u);
  EXPECT_EQ(g.sections.graph.value().extra.at("made_by"), "stream capture");
  EXPECT_EQ(r.results[2].params.at("exec"), "5");
}

TEST(ProfileReport, RenderAndAnalyzeFindThePerNodeTimesOfAGraphByItsDump) {
  const std::string path = ::testing::TempDir() + "profile_report_test.json";
  write_report(profile_report(fixture_run(), {fixture_profile()}), path);
  const NodeTimes t = node_times_from_report(read_report(path), path, kProfileData + "h200/p2096-exec3.dot", "", "");
  ASSERT_EQ(t.by_node.size(), 5u);
  EXPECT_DOUBLE_EQ(t.by_node.at("graph_1_node_4").median_ns, 1280);
  EXPECT_EQ(t.by_node.at("graph_1_node_0").count, 20u);
  ASSERT_TRUE(t.instantiate_ns);
  EXPECT_DOUBLE_EQ(*t.instantiate_ns, 272822);
}

TEST(ProfileReport, ConsoleSummaryShowsCoverageGraphsAndTrouble) {
  const std::string text = format_profile_summary(profile_report(fixture_run(), {fixture_profile()}));
  for (const char* want : {"profile: graphprof_graph_app (1 CUDA process", "exited with status 3", "overhead (--overhead: 2 plain and profiled runs",
                           "warm-up run of 3.00 s not counted", "steady-state window (exec 3, 999 steps)", "+15.0 %",
                           "-20.0 % .. +60.0 % (wider than the effect)", "process wall time", "+10.0 % .. +40.0 %",
                           "the interval is wider than the effect",
                           "graph coverage: 95.2 % of GPU kernel time", "23 graph launches, 5 eager kernel launches",
                           "cudaGraphLaunch: 23 calls", "0 blocked on a full launch queue", "after the call returns to an idle GPU (1 call)",
                           "at --trace node CUPTI adds work", "stream capture", "explicit API", "top eager kernels", "k_scale",
                           "memcpy HtoD", "cudaStreamSynchronize", "capture trouble",
                           "slowest nodes of graph_1 (exec 3, 5 nodes timed over 20 launches", "graph_1_node_4",
                           "cudaErrorStreamCaptureInvalidated"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
}

TEST(ProfileReport, ConsoleSaysHowManyLaunchesWereInFlightWhenCallsBlocked) {
  ProfileRun run = fixture_run();
  run.plain_wall_ns.reset();
  run.overhead_runs.clear();
  run.overhead_changes.clear();
  const std::string text = format_profile_summary(profile_report(run, {analyze_process(read_process_records(kResnet))}));
  for (const char* want : {"146 blocked on a full launch queue", "(35 launches in flight when blocked)", "host cost 246 µs (median of the 55 calls not blocked)",
                           "after the call returns to an idle GPU (2 calls)", "35.9 ms after it returns when queued behind earlier work (199 calls, up to 35 launches in flight)"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
  EXPECT_EQ(text.find("overhead"), std::string::npos);
}

// A process whose application took CUPTI away from graphprof: `graphprof run --trace node` under
// `profile` on the H200 (h200/cupti_app, job 1 of session 3). Its trace pass's refused subscribe
// ended in cuptiFinalize 158 ms after CUDA started, before CUPTI handed over any buffer: no API
// or GPU record reached the injection, only its callbacks (5 captured graphs). At exit the
// injection found its subscription gone, made no CUPTI call and said so.
TEST(ProfileReport, AnApplicationThatTookCuptiIsSaidInTheReportAndTheConsole) {
  const ProcessRecords r = read_process_records(kProfileData + "h200/cupti_app/proc-3241.jsonl");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.cupti_at_end, "finalized_elsewhere");
  EXPECT_EQ(r.end_reason, "exit");
  EXPECT_EQ(r.execs.size(), 5u);
  EXPECT_TRUE(r.trace.api.empty());
  const ProcessProfile p = analyze_process(r);
  EXPECT_DOUBLE_EQ(p.records_end_ns, 158226430.0) << "CUDA start (ts 1796031415611319363) to the last graph instantiated";
  EXPECT_DOUBLE_EQ(p.cuda_wall_ns, 303117304.0) << "to the end line (ts 1796031415914436667)";
  const Report report = report_from_json(to_json(profile_report(fixture_run(), {p})), "mem");
  const json proc = to_json(*report.results.at(0).sections.profile).at("processes")[0];
  EXPECT_EQ(proc.at("cupti_at_end"), "finalized_elsewhere");
  ASSERT_EQ(proc.at("warnings").size(), 1u);
  EXPECT_DOUBLE_EQ(proc.at("records_end_ns").get<double>(), p.records_end_ns);
  const std::string console = format_profile_summary(report);
  EXPECT_NE(console.find("  graphprof warning: the application used CUPTI itself"), std::string::npos) << console;
  EXPECT_NE(console.find("  records stop 158 ms after CUDA initialisation, 145 ms before the process's last flush"),
            std::string::npos) << console;
  // None of its kernel or launch records had come through: no coverage figure made of nothing.
  EXPECT_TRUE(proc.at("coverage").at("kernel_time_in_graphs").is_null());
  EXPECT_NE(console.find("no kernel or launch record reached graphprof before CUPTI was taken from it"), std::string::npos) << console;
  EXPECT_EQ(console.find("graph coverage:"), std::string::npos) << console;
  EXPECT_NE(console.find("graphs (5 instantiated)"), std::string::npos) << console;

  // Records of a run where the session stayed graphprof's (written before this field existed: no
  // "cupti") say nothing of the kind.
  const ProcessRecords plain = read_process_records(kProfileApp);
  EXPECT_TRUE(plain.warnings.empty());
  EXPECT_TRUE(plain.cupti_at_end.empty());
  const Report plain_report = profile_report(fixture_run(), {analyze_process(plain)});
  EXPECT_TRUE(to_json(*plain_report.results.at(0).sections.profile).at("processes")[0].at("cupti_at_end").is_null());
  const std::string plain_console = format_profile_summary(plain_report);
  EXPECT_EQ(plain_console.find("graphprof warning"), std::string::npos);
  EXPECT_EQ(plain_console.find("records stop"), std::string::npos);
  EXPECT_EQ(plain_console.find("CUPTI reported"), std::string::npos);
}

// An application that took CUPTI's activity API without finalizing it: tests/apps/
// cupti_activity_app.cpp with "disable" on the H200 (h200/cupti_activity, job 2 of session 3). Its
// own callbacks got the first 1000+ records; the 100 still pending at exit came back to graphprof,
// which took the buffer callbacks back before its flush. No "records stop" line: the records have a
// hole, not an end.
TEST(ProfileReport, AnApplicationThatTookTheActivityApiIsSaidWithoutARecordsStopLine) {
  const ProcessRecords r = read_process_records(kProfileData + "h200/cupti_activity/proc-3502.jsonl");
  EXPECT_EQ(r.cupti_at_end, "activity_taken");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.trace.api.size(), 100u) << "the records pending at exit, taken back";
  for (const auto& a : r.trace.api) EXPECT_EQ(a.name, "cuDeviceGetCount");
  const std::string console = format_profile_summary(profile_report(fixture_run(), {analyze_process(r)}));
  EXPECT_NE(console.find("  graphprof warning: the application used CUPTI's activity API itself"), std::string::npos) << console;
  EXPECT_EQ(console.find("records stop"), std::string::npos) << console;
  EXPECT_NE(console.find("no kernel or launch record reached graphprof"), std::string::npos) << console;
}

// Kernel names reach 10 kB (CUTLASS/Triton templates): the console's tables clip them by display
// width (they printed 10 kB rows, and a 200 MB name filled 1 GiB of stdout); the report keeps them.
TEST(ProfileReport, HugeKernelNamesAreClippedInTheConsoleTablesAndKeptInTheReport) {
  const std::string name = "_Z" + std::string(10000, 'k') + "\u00e9v";
  std::istringstream in("{\"t\":\"process\",\"pid\":7,\"ppid\":6,\"level\":2,\"cmdline\":\"app\"}\n"
                        "{\"t\":\"k\",\"n\":\"" + name + "\",\"s\":100,\"e\":200,\"co\":1}\n"
                        "{\"t\":\"k\",\"n\":\"" + name + "\",\"s\":300,\"e\":450,\"co\":2}\n");
  const Report report = profile_report(fixture_run(), {analyze_process(parse_process_records(in, "mem"))});
  const std::string console = format_profile_summary(report);
  std::size_t widest = 0, start = 0;
  while (start < console.size()) {
    const std::size_t nl = console.find('\n', start);
    widest = std::max(widest, display_width(console.substr(start, nl == std::string::npos ? std::string::npos : nl - start)));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  EXPECT_LE(widest, 200u) << console.substr(0, 2000);
  EXPECT_NE(console.find("…"), std::string::npos) << console.substr(0, 2000);  // cut in the middle
  EXPECT_NE(to_json(report).dump().find(std::string(10000, 'k')), std::string::npos) << "the report keeps the whole name";
}

// What CUPTI itself reports to graphprof's subscriber (its state callbacks) is passed on as it is. The
// line is made up: no such notice was seen on the H200 yet.
TEST(ProfileReport, CuptiNoticesArePassedOn) {
  std::istringstream in(
      "{\"t\":\"process\",\"pid\":7,\"ppid\":6,\"level\":2,\"cmdline\":\"app\"}\n"
      "{\"t\":\"cupti_notice\",\"kind\":\"warning\",\"r\":\"CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED\",\"m\":\"a second subscriber\"}\n"
      "{\"t\":\"end\",\"reason\":\"exit\",\"cupti\":\"graphprof\"}\n");
  const ProcessRecords r = parse_process_records(in, "mem");
  ASSERT_EQ(r.cupti_notices.size(), 1u);
  EXPECT_EQ(r.cupti_notices[0], "warning CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: a second subscriber");
  const Report report = profile_report(fixture_run(), {analyze_process(r)});
  EXPECT_EQ(to_json(*report.results.at(0).sections.profile).at("processes")[0].at("cupti_notices").size(), 1u);
  const std::string text = format_profile_summary(report);
  EXPECT_NE(text.find("  CUPTI reported: warning CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED: a second subscriber"),
            std::string::npos) << text;
  EXPECT_EQ(text.find("records stop"), std::string::npos) << "the session stayed graphprof's";
}

TEST(ProfileReport, NoCudaProcessIsSaidPlainly) {
  const std::string text = format_profile_summary(profile_report(fixture_run(), {}));
  EXPECT_NE(text.find("no process of the application initialised CUDA"), std::string::npos) << text;
}

TEST(ProfileReport, AProcessThatOnlyInitialisedCudaIsSaidPlainly) {
  std::istringstream in("{\"t\":\"process\",\"pid\":7,\"ppid\":6,\"level\":2,\"cmdline\":\"compile_worker\"}\n{\"t\":\"end\",\"reason\":\"exit\"}\n");
  const std::string text =
      format_profile_summary(profile_report(fixture_run(), {fixture_profile(), analyze_process(parse_process_records(in, "mem"))}));
  EXPECT_NE(text.find("process 2 (pid 7): compile_worker\n  no kernel ran in this process"), std::string::npos) << text;
}

}  // namespace

TEST(ProfileReport, ARecordFileWithoutWorkStillSaysItsUnreadableLines) {
  // A truncated or garbled proc-*.jsonl reads as a process without work: the summary must not
  // hide that lines were lost behind "no kernel ran".
  std::istringstream in("{\"t\":\"process\",\"pid\":42,\"ts\":1000,\"level\":2}\n{\"t\":\"k\",\"n\":\"kern\",\"s\":2\n\xff\xfe\n");
  const ProcessRecords r = parse_process_records(in, "proc-42.jsonl");
  EXPECT_EQ(r.malformed_lines, 2u);
  const std::string console = format_profile_summary(profile_report(fixture_run(), {analyze_process(r)}));
  EXPECT_NE(console.find("no kernel ran in this process"), std::string::npos) << console;
  EXPECT_NE(console.find("2 unreadable lines"), std::string::npos) << console;
}

}  // namespace gp
