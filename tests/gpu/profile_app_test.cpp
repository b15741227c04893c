// `graphprof profile` on a real GPU, against tests/apps/graph_app.cu whose work is known exactly:
// graph A (stream capture, 5 nodes, 4 edges) launched N times, graph B (explicit API, 4 nodes,
// 4 edges) launched 3 times, K eager kernels, one HtoD and one DtoH copy. Also: a broken capture,
// the application's failing exit status, SIGTERM forwarded to the application, render/analyze
// --report on a profiled graph, and applications that use CUPTI themselves (graphprof's own
// `run --trace`, tests/apps/cupti_activity_app.cpp), and two ranks' processes on one GPU
// (tests/apps/rank_app.cu). Exit 77 without a GPU.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "graphprof/core/node_sampling.hpp"
#include "graphprof/core/report.hpp"
#include "profile_helpers.hpp"

namespace gp {
namespace {

using nlohmann::json;
using namespace profile_test;
namespace fs = std::filesystem;

constexpr int kLaunches = 50;
constexpr int kEager = 20;

std::string profile_cmd(const fs::path& out, const std::string& extra, const std::string& app_args) {
  // Node level unless the test names its level (the default, --trace none, records no kernels).
  const std::string level = extra.find("--trace ") == std::string::npos ? " --trace node" : "";
  return kTimeout + GRAPHPROF_BINARY + " profile" + level + " --out " + out.string() + " " + extra + " -- " + GRAPHPROF_GRAPH_APP + " " +
         app_args + " > " + (out / "console.txt").string() + " 2>&1";
}

const ModeResult* graph_result(const Report& r, std::size_t nodes) {
  for (const auto& x : r.results)
    if (!x.params.empty() && x.sections.graph && static_cast<std::size_t>(x.sections.graph->nodes) == nodes) return &x;
  return nullptr;
}

TEST(ProfileApp, CountsGraphsLaunchesAndEagerWorkExactly) {
  const fs::path out = fresh_dir("counts");
  ASSERT_EQ(shell(profile_cmd(out, "--node-sample all", "--launches " + std::to_string(kLaunches) + " --eager " +
                                                       std::to_string(kEager))),
            0)
      << console(out);
  const Report r = read_report((out / "report.json").string());
  const json& p = profile_of(r);
  EXPECT_EQ(p["exit_status"], 0);
  ASSERT_EQ(p["processes"].size(), 1u);
  const json& proc = p["processes"][0];
  EXPECT_EQ(proc["end_reason"], "exit");
  EXPECT_TRUE(proc["errors"].empty());
  // The exit path's ownership probe: the session was graphprof's to the end, nothing to warn about.
  EXPECT_EQ(proc["cupti_at_end"], "graphprof");
  EXPECT_TRUE(proc["warnings"].empty()) << proc["warnings"].dump();
  ASSERT_EQ(proc["graphs"].size(), 2u);
  const json& ga = proc["graphs"][0];  // instantiated first
  const json& gb = proc["graphs"][1];
  EXPECT_EQ(ga["nodes"], 5);
  EXPECT_EQ(ga["edges"], 4);
  EXPECT_EQ(ga["made_by"], "stream capture");
  EXPECT_EQ(ga["launches"], kLaunches);
  EXPECT_EQ(ga["kernels"], 4 * kLaunches);
  EXPECT_TRUE(ga["upload_ns"].is_number());
  EXPECT_TRUE(ga["instantiate_ns"].is_number());
  EXPECT_EQ(gb["nodes"], 4);
  EXPECT_EQ(gb["edges"], 4);
  EXPECT_EQ(gb["made_by"], "explicit API");
  EXPECT_EQ(gb["launches"], 3);
  EXPECT_EQ(gb["kernels"], 12);
  const json& c = proc["coverage"];
  EXPECT_EQ(c["graph_launches"], kLaunches + 3);
  EXPECT_EQ(c["graph_kernels"], 4 * kLaunches + 12);
  EXPECT_EQ(c["eager_kernels"], kEager);
  EXPECT_EQ(c["eager_launches"], kEager);
  EXPECT_GT(c["kernel_time_in_graphs"].get<double>(), 0.0);
  EXPECT_LT(c["kernel_time_in_graphs"].get<double>(), 1.0);
  std::map<std::string, std::size_t> copies;
  for (const auto& x : proc["copies"]) copies[x["name"]] = x["count"];
  // One record per copy call is what CUPTI gave elsewhere; pageable copies might be split.
  EXPECT_GE(copies["memcpy HtoD"], 1u);
  EXPECT_GE(copies["memcpy DtoH"], 1u);
  EXPECT_EQ(copies.count("memset"), 0u) << "the only memset is a node of graph A";
  EXPECT_TRUE(proc["capture_trouble"].empty());
  EXPECT_EQ(proc["dropped_records"], 0);

  // Per-graph results: every node of A timed and joined to its DOT node, and the dump renders as
  // a heat map of those times.
  const ModeResult* a = graph_result(r, 5);
  ASSERT_NE(a, nullptr);
  const json trace = to_json(a->sections.trace.value());
  EXPECT_EQ(trace["join"]["dot_status"], "same graph");
  ASSERT_EQ(trace["nodes"].size(), 5u);
  for (const auto& n : trace["nodes"]) EXPECT_EQ(n["count"], kLaunches) << n.dump();
  EXPECT_EQ(trace["join"]["dot_name_mismatches"], 0);
  EXPECT_EQ(a->metrics.at("launch_cpu_per_call").summary.n, static_cast<std::size_t>(kLaunches));
  const std::string dot = a->sections.graph.value().dot;
  ASSERT_TRUE(fs::exists(dot));
  ASSERT_TRUE(fs::exists(a->sections.graph.value().dot_verbose));
  EXPECT_EQ(shell(std::string(GRAPHPROF_BINARY) + " render " + dot + " -o " + (out / "a.svg").string() + " --report " +
                  (out / "report.json").string() + " > /dev/null"),
            0);
  EXPECT_TRUE(fs::exists(out / "a.svg"));
  EXPECT_EQ(shell(std::string(GRAPHPROF_BINARY) + " analyze " + dot + " --report " + (out / "report.json").string() +
                  " > /dev/null"),
            0);
}

TEST(ProfileApp, GraphLevelCountsLaunchesWithoutKernels) {
  const fs::path out = fresh_dir("graph-level");
  ASSERT_EQ(shell(profile_cmd(out, "--trace graph", "--launches 10 --eager 5")), 0) << console(out);
  const Report report = read_report((out / "report.json").string());  // keep it: profile_of refers into it
  const json proc = profile_of(report)["processes"][0];
  ASSERT_EQ(proc["graphs"].size(), 2u);
  EXPECT_EQ(proc["graphs"][0]["launches"], 10);
  EXPECT_EQ(proc["graphs"][1]["launches"], 3);
  EXPECT_EQ(proc["graphs"][0]["gpu_span"]["count"], 10);
  EXPECT_EQ(proc["coverage"]["graph_kernels"], 0) << "no kernel records at --trace graph";
}

TEST(ProfileApp, BrokenCaptureAndFailingExitAreReported) {
  const fs::path out = fresh_dir("broken");
  ASSERT_EQ(shell(profile_cmd(out, "--trace none", "--launches 5 --eager 2 --bad-capture --exit 3")), 0)
      << "the report is written whatever the application's status; " << console(out);
  const Report r = read_report((out / "report.json").string());
  const json& p = profile_of(r);
  EXPECT_EQ(p["exit_status"], 3);
  EXPECT_EQ(r.results.front().status, Status::kFailed);
  const json& proc = p["processes"][0];
  EXPECT_EQ(proc["graphs"][0]["launches"], 5) << "launch -> exec from the launch callback at --trace none";
  ASSERT_EQ(proc["capture_trouble"].size(), 1u);
  // The test application links the static runtime: interposed at the driver, the offending call is
  // the driver's name for it (CUPTI names the runtime's).
  EXPECT_EQ(proc["observed_at"], "driver");
  EXPECT_EQ(proc["capture_trouble"][0]["api"], "cuStreamSynchronize");
  EXPECT_EQ(proc["capture_trouble"][0]["error"], "cudaErrorStreamCaptureUnsupported");
  EXPECT_EQ(proc["capture_trouble"][0]["end_error"], "cudaErrorStreamCaptureInvalidated");
}

// An application that uses CUPTI itself: graphprof's own `run --trace node`. The injection
// subscribes first (at CUDA initialisation), so the application's cuptiSubscribe is refused; its
// trace pass then says so and leaves CUPTI alone (it neither registers buffer callbacks nor
// finalizes). The application runs to the end with its own exit status and writes its own report,
// and the profile is complete: the injection keeps CUPTI to the end.
TEST(ProfileApp, AnApplicationThatUsesCuptiItselfStillRunsAndIsProfiled) {
  const fs::path out = fresh_dir("cupti-app");
  const std::string cmd = kTimeout + GRAPHPROF_BINARY + " profile --trace node --out " + out.string() + " -- " + GRAPHPROF_BINARY +
                          " run --workload chain --mode capture --param kernels=10 --trace node --budget 0.05 --min-time 0.01"
                          " --json " + (out / "inner.json").string() + " > " + (out / "console.txt").string() + " 2>&1";
  ASSERT_EQ(shell(cmd), 0) << console(out);
  const Report report = read_report((out / "report.json").string());  // keep it: profile_of refers into it
  const json& p = profile_of(report);
  EXPECT_EQ(p["exit_status"], 0) << "the application's own exit status; " << console(out);
  ASSERT_GE(p["processes"].size(), 1u);
  const json& proc = p["processes"][0];
  EXPECT_EQ(proc["end_reason"], "exit") << console(out);
  EXPECT_TRUE(proc["errors"].empty()) << console(out);
  EXPECT_EQ(proc["cupti_at_end"], "graphprof") << "the application's refused trace pass left CUPTI alone; " << console(out);
  EXPECT_TRUE(proc["warnings"].empty()) << console(out);
  // The whole run was recorded: the capture graph's timing replays, trace pass included.
  ASSERT_GE(proc["graphs"].size(), 1u) << console(out);
  long long launches = 0;
  for (const auto& g : proc["graphs"]) launches += g["launches"].get<long long>();
  EXPECT_GE(launches, 10) << console(out);
  const std::string text = console(out);
  EXPECT_EQ(text.find("records stop "), std::string::npos) << text;

  // The application's own report: its timing is unaffected, its trace pass says why it has no records.
  const Report inner = read_report((out / "inner.json").string());
  ASSERT_FALSE(inner.results.empty());
  EXPECT_EQ(inner.results.front().status, Status::kOk);
  ASSERT_TRUE(inner.results.front().sections.trace.has_value());
  const TraceSection& trace = *inner.results.front().sections.trace;
  EXPECT_EQ(trace.status, "unavailable");
  EXPECT_NE(trace.reason.find("CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"), std::string::npos) << trace.reason;
}

// Profiles tests/apps/cupti_activity_app.cpp with `arg` and checks what such runs share: graphprof
// and the application end with status 0, one process that ended at exit with `cupti_at_end`, and
// one warning that starts with `phrase`, which the console says too. Leaves the console in `text`.
void profile_cupti_app(const std::string& name, const std::string& arg, const std::string& cupti_at_end,
                       const std::string& phrase, fs::path& out, std::string& text) {
  out = fresh_dir(name);
  const std::string cmd = kTimeout + GRAPHPROF_BINARY + " profile --trace node --out " + out.string() + " -- " + GRAPHPROF_CUPTI_ACTIVITY_APP +
                          " " + arg + " > " + (out / "console.txt").string() + " 2>&1";
  ASSERT_EQ(shell(cmd), 0) << console(out);
  text = console(out);
  const Report report = read_report((out / "report.json").string());  // keep it: profile_of refers into it
  const json& p = profile_of(report);
  EXPECT_EQ(p["exit_status"], 0) << text;
  ASSERT_EQ(p["processes"].size(), 1u);
  const json& proc = p["processes"][0];
  EXPECT_EQ(proc["end_reason"], "exit") << text;
  EXPECT_EQ(proc["cupti_at_end"], cupti_at_end) << text;
  ASSERT_EQ(proc["warnings"].size(), 1u) << text;
  EXPECT_EQ(proc["warnings"][0].get<std::string>().rfind(phrase, 0), 0u) << proc["warnings"][0];
  EXPECT_NE(text.find("graphprof warning: " + phrase), std::string::npos) << text;
}

// An application that ends every CUPTI session with cuptiFinalize (cupti_activity_app finalize).
// The injection must not hang at exit on a CUPTI that is no longer its own: the application ends
// with its own status, and the profile says what happened, in the report, on stderr as the
// application exits, and on the console.
TEST(ProfileApp, AnApplicationThatFinalizesCuptiEndsNormallyAndIsSaidSo) {
  fs::path out;
  std::string text;
  profile_cupti_app("cupti-finalize", "finalize", "finalized_elsewhere", "the application used CUPTI itself", out, text);
  EXPECT_NE(text.find("cupti_activity_app: cuptiFinalize -> 0"), std::string::npos) << text;
  const std::size_t line = text.find("graphprof profile: process ");
  ASSERT_NE(line, std::string::npos) << text;
  EXPECT_NE(text.substr(line, text.find('\n', line) - line).find(": the application used CUPTI itself"), std::string::npos) << text;
}

// An application that takes CUPTI's activity API without finalizing it (tests/apps/
// cupti_activity_app.cpp: its own buffer callbacks, records still pending at exit). At exit the
// injection's subscription is alive, so it takes the buffer callbacks back before its flush (the
// application's might be gone by then), writes the application's pending records without freeing
// its buffers, and reports activity_taken. The application's status and output are its own.
TEST(ProfileApp, AnApplicationThatTakesCuptisActivityApiEndsNormallyAndIsSaidSo) {
  fs::path out;
  std::string text;
  profile_cupti_app("cupti-activity", "", "activity_taken", "the application used CUPTI's activity API itself", out, text);
  EXPECT_NE(text.find("cupti_activity_app: cuptiActivityRegisterCallbacks -> 0"), std::string::npos) << text;
  EXPECT_EQ(text.find("cupti_activity_app: 0 buffers"), std::string::npos) << "the application got its records; " << text;
  // The 100 calls whose records were pending at exit came back to graphprof.
  std::size_t calls = 0;
  for (const auto& f : fs::directory_iterator(out / "profile-data")) {
    if (f.path().extension() != ".jsonl") continue;
    std::ifstream in(f.path());
    std::string line;
    while (std::getline(in, line)) calls += line.find("\"n\":\"cuDeviceGetCount\"") != std::string::npos;
  }
  EXPECT_GE(calls, 100u) << text;
}

// Node sampling (include/graphprof/core/node_sampling.hpp) without windows: graph A's launches 2-6, then
// 1 in 10, are traced node by node, every launch has its GRAPH_TRACE span and is counted, and the
// node statistics come from the traced launches alone.
TEST(ProfileApp, NodeSamplingTracesTheRulesLaunchesAndCountsThemAll) {
  const fs::path out = fresh_dir("sampling");
  ASSERT_EQ(shell(profile_cmd(out, "--node-sample 1,5,10,0/1000,kernels=on", "--launches 200 --eager 20")), 0) << console(out);
  const Report r = read_report((out / "report.json").string());
  const json proc = profile_of(r)["processes"][0];
  NodeSampling rule;
  ASSERT_TRUE(NodeSampling::parse("1,5,10,0/1000,kernels=on", rule));
  EXPECT_EQ(proc["node_sampling"], rule.text()) << "the kernel activity on throughout, whatever the default";
  const json& ga = proc["graphs"][0];
  EXPECT_EQ(ga["launches"], 200);
  EXPECT_EQ(ga["gpu_span"]["count"], 200) << "a GRAPH_TRACE span for every launch";
  ASSERT_TRUE(ga["node_sampling"].is_object()) << ga.dump();
  const std::size_t traced = ga["node_sampling"]["traced_launches"].get<std::size_t>();
  EXPECT_GE(traced, 24u) << "launches 2-6 and 16, 26, ..., 196";
  EXPECT_LE(traced, 30u) << "only a few more, if the start window caught them";
  EXPECT_EQ(ga["node_sampling"]["span_untraced"]["count"].get<std::size_t>(), 200 - traced);
  EXPECT_EQ(ga["kernels"].get<std::size_t>(), 4 * traced);
  EXPECT_EQ(proc["coverage"]["graph_launches"], 203);
  EXPECT_EQ(proc["coverage"]["eager_launches"], 20) << "counted by their calls, traced or not";
  const ModeResult* a = graph_result(r, 5);
  ASSERT_NE(a, nullptr);
  const json trace = to_json(a->sections.trace.value());
  ASSERT_EQ(trace["nodes"].size(), 5u);
  for (const auto& n : trace["nodes"]) EXPECT_EQ(n["count"].get<std::size_t>(), traced) << n.dump();
  EXPECT_NE(console(out).find("node sampling"), std::string::npos) << console(out);
}

// The same rule with the kernel activity switched (kernels=100%: no budget, so the rule alone picks
// the launches): CONCURRENT_KERNEL goes off between the samples, every launch is still counted, and
// a traced launch keeps all its kernel records (the kind goes off only once its work is done).
TEST(ProfileApp, NodeSamplingWithTheKernelActivitySwitchedKeepsTheCountsAndTheTracedLaunches) {
  const fs::path out = fresh_dir("sampling-kernels");
  ASSERT_EQ(shell(profile_cmd(out, "--node-sample 1,5,10,0/1000,kernels=100%", "--launches 200 --eager 20")), 0) << console(out);
  const Report r = read_report((out / "report.json").string());
  const json proc = profile_of(r)["processes"][0];
  EXPECT_EQ(proc["node_sampling"], "1,5,10,0/1000,kernels=100%");
  ASSERT_TRUE(proc["kernel_activity"].is_object()) << "the kind was switched off at least once; " << console(out);
  EXPECT_GE(proc["kernel_activity"]["switched_off"].get<std::size_t>(), 1u);
  const json& ga = proc["graphs"][0];
  EXPECT_EQ(ga["launches"], 200);
  ASSERT_TRUE(ga["node_sampling"].is_object()) << ga.dump();
  const std::size_t traced = ga["node_sampling"]["traced_launches"].get<std::size_t>();
  EXPECT_GE(traced, 20u) << "launches 2-6 and 16, 26, ..., 196, a few perhaps set aside; " << ga["node_sampling"].dump();
  EXPECT_LE(traced, 30u);
  EXPECT_EQ(ga["kernels"].get<std::size_t>(), 4 * traced) << "every traced launch whole";
  EXPECT_EQ(proc["coverage"]["graph_launches"], 203);
  EXPECT_EQ(proc["coverage"]["eager_launches"], 20) << "counted by their calls, recorded or not";
  EXPECT_NE(console(out).find("kernel activity (CONCURRENT_KERNEL) was on for the samples only"), std::string::npos) << console(out);
}

// An application whose own CUPTI client (a profiler inside it) subscribes after CUDA started: CUPTI
// refuses it (graphprof holds the one subscription), the application runs to its end with its own
// output and status, and graphprof's summary and report say that the application's profiler could
// not attach (seen by the preloaded libgraphprof_cupti_watch.so).
TEST(ProfileApp, AnApplicationWhoseOwnProfilerCannotAttachIsSaidSo) {
  const fs::path out = fresh_dir("cupti-refused");
  const std::string cmd = kTimeout + GRAPHPROF_BINARY + " profile --trace node --out " + out.string() + " -- " + GRAPHPROF_CUPTI_ACTIVITY_APP +
                          " subscribe > " + (out / "console.txt").string() + " 2>&1";
  ASSERT_EQ(shell(cmd), 0) << console(out);
  const std::string text = console(out);
  EXPECT_NE(text.find("cupti_activity_app: cuptiSubscribe -> 39"), std::string::npos)
      << "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, and the application's own output; " << text;
  EXPECT_NE(text.find("the application's own CUPTI client could not attach"), std::string::npos) << text;
  const Report report = read_report((out / "report.json").string());
  const json& p = profile_of(report);
  EXPECT_EQ(p["exit_status"], 0) << text;
  const json& refused = p["processes"][0]["cupti_refused"];
  ASSERT_TRUE(refused.is_object()) << text;
  EXPECT_EQ(refused["subscribe_calls"], 1);
  EXPECT_EQ(refused["result"], "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
  EXPECT_NE(refused["caller"].get<std::string>().find("cupti_activity_app"), std::string::npos) << refused.dump();
}

TEST(ProfileApp, SigtermReachesTheApplicationAndTheReportIsWritten) {
  const fs::path out = fresh_dir("sigterm");
  std::vector<std::string> args{GRAPHPROF_BINARY, "profile", "--trace", "node", "--out", out.string(), "--", GRAPHPROF_GRAPH_APP,
                                "--launches", "20", "--sleep-ms", "30000"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, argv[0], nullptr, nullptr, argv.data(), environ), 0);
  // The application does its work in well under a second on the H200, then sleeps.
  std::this_thread::sleep_for(std::chrono::seconds(6));
  kill(pid, SIGTERM);
  // The application flushes and dies within seconds (its handler gives up after 3 s); never wait forever.
  int status = 0;
  pid_t done = 0;
  for (int i = 0; i < 400 && done == 0; ++i) {
    done = waitpid(pid, &status, WNOHANG);
    if (done == 0) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  if (done == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    FAIL() << "graphprof profile did not end within 40 s of SIGTERM";
  }
  ASSERT_EQ(done, pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  const Report report = read_report((out / "report.json").string());  // keep it: profile_of refers into it
  const json& p = profile_of(report);
  EXPECT_EQ(p["exit_status"], 128 + SIGTERM);
  const json& proc = p["processes"][0];
  EXPECT_EQ(proc["end_reason"], "SIGTERM");
  EXPECT_EQ(proc["cupti_at_end"], "graphprof");
  EXPECT_EQ(proc["graphs"][0]["launches"], 20);
}

// Two ranks on one GPU (NCCL would refuse this: no collective): a bash launcher sets torchrun's
// variables for two copies of tests/apps/rank_app.cu, one after the other; rank 1 does twice the
// work per kernel and captures one more kernel in its tail graph.
TEST(ProfileApp, TwoRanksOnOneGpuGetACrossRankView) {
  const fs::path out = fresh_dir("ranks");
  const std::string app = GRAPHPROF_RANK_APP;
  const std::string launcher = "bash -c 'RANK=0 LOCAL_RANK=0 WORLD_SIZE=2 " + app + " --launches 20 --iters 64 && RANK=1 LOCAL_RANK=1 WORLD_SIZE=2 " +
                               app + " --launches 20 --iters 128 --extra'";
  ASSERT_EQ(shell(kTimeout + GRAPHPROF_BINARY + " profile --trace node --out " + out.string() + " -- " + launcher + " > " +
                  (out / "console.txt").string() + " 2>&1"),
            0)
      << console(out);
  const Report report = read_report((out / "report.json").string());
  const json& p = profile_of(report);
  ASSERT_EQ(p["processes"].size(), 2u) << console(out);
  for (int r = 0; r < 2; ++r) {
    const json& proc = p["processes"][r];
    EXPECT_EQ(proc["rank"]["rank"], r) << proc["rank"].dump();
    EXPECT_EQ(proc["rank"]["from"], "RANK");
    ASSERT_EQ(proc["gpus"].size(), 1u) << "one context, one device line";
    EXPECT_FALSE(proc["gpus"][0]["pci_bus_id"].get<std::string>().empty());
    EXPECT_EQ(proc["gpus"][0]["uuid"].get<std::string>().rfind("GPU-", 0), 0u) << proc["gpus"].dump();
    EXPECT_EQ(proc["graphs"][0]["capture_mode"], "thread-local");
  }
  const json& v = p["cross_rank"];
  ASSERT_EQ(v["ranks"].size(), 2u) << v.dump();
  ASSERT_EQ(v["graphs"].size(), 3u) << "step on both ranks; tail apart (k_extra on rank 1)";
  const json& step = v["graphs"][0];
  EXPECT_TRUE(step["missing_on"].empty());
  EXPECT_EQ(step["kernels_per_launch"], 4);
  EXPECT_EQ(step["slowest_rank"], 1) << "twice the work per kernel";
  ASSERT_EQ(v["trouble"].size(), 1u) << v["trouble"].dump();
  EXPECT_EQ(v["trouble"][0]["kind"], "graph_differs");
  EXPECT_NE(v["trouble"][0]["detail"].get<std::string>().find("k_extra"), std::string::npos);
  EXPECT_NE(console(out).find("cross-rank view: 2 ranks of world size 2 on 1 host"), std::string::npos) << console(out);
}

}  // namespace
}  // namespace gp
