// The interposer's host-only parts (src/inject/common/interpose_records.hpp, observe_choice.hpp): the
// lines it writes read back through the profile analysis as the injection's CUPTI lines do (the
// same counts, graph rows, capture join and steady-state window), and the rule that decides per
// process whether it observes instead of CUPTI.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "interpose_records.hpp"
#include "observe_choice.hpp"
#include "graphprof/profile/profile.hpp"

namespace gp {
namespace {

using interpose::Api;
using interpose::ApiCall;

TEST(ObserveChoice, InterposesOnlyWhenAskedAtTraceNoneAndTheSharedRuntimeIsSeen) {
  inject::ObserveFacts f;
  f.level = 0;
  f.interposer_loaded = f.interposer_ready = f.shared_runtime_caller = true;
  EXPECT_FALSE(inject::choose_observer(f).interpose) << "not asked: CUPTI";
  EXPECT_TRUE(inject::choose_observer(f).why_not.empty()) << "nothing to say when not asked";
  f.asked = true;
  EXPECT_TRUE(inject::choose_observer(f).interpose);
  inject::ObserveFacts clock = f;
  clock.level = -1;  // --overhead's plain runs
  EXPECT_TRUE(inject::choose_observer(clock).interpose);
  struct Case {
    const char* what;
    inject::ObserveFacts facts;
    const char* says;
  };
  auto with = [&](auto change) {
    inject::ObserveFacts g = f;
    change(g);
    return g;
  };
  const Case cases[] = {
      {"graph level", with([](auto& g) { g.level = 1; }), "--trace none and --overhead's plain runs only"},
      {"not preloaded", with([](auto& g) { g.interposer_loaded = false; }), "not loaded"},
      {"no shared runtime", with([](auto& g) { g.interposer_ready = false; }), "libcudart.so"},
      {"static runtime", with([](auto& g) { g.shared_runtime_caller = false; }), "statically linked"},
  };
  for (const Case& c : cases) {
    const inject::ObserveChoice choice = inject::choose_observer(c.facts);
    EXPECT_FALSE(choice.interpose) << c.what;
    EXPECT_NE(choice.why_not.find(c.says), std::string::npos) << c.what << ": " << choice.why_not;
  }
  EXPECT_EQ(inject::choose_observer(f).at, "runtime");
}

TEST(ObserveChoice, AProgramWithoutTheSharedRuntimeIsInterposedAtTheDriverWhereTheLookupsAreAnswered) {
  inject::ObserveFacts f;
  f.level = 0;
  f.asked = f.interposer_loaded = true;
  f.interposer_ready = false;  // a statically linked runtime, CuPy, XLA
  f.driver_lookups = true;
  inject::ObserveChoice c = inject::choose_observer(f);
  EXPECT_TRUE(c.interpose);
  EXPECT_EQ(c.at, "driver");
  EXPECT_NE(c.why_at.find("statically linked"), std::string::npos) << c.why_at;
  f.interposer_ready = true;  // the shared runtime is there, but CUDA started elsewhere
  c = inject::choose_observer(f);
  EXPECT_TRUE(c.interpose);
  EXPECT_EQ(c.at, "driver");
  f.level = 1;  // --trace graph: CUPTI, whatever the process
  EXPECT_FALSE(inject::choose_observer(f).interpose);
  f.level = 0;
  f.driver_lookups = false;  // no dlsym of the interposer's (not x86-64)
  c = inject::choose_observer(f);
  EXPECT_FALSE(c.interpose);
  EXPECT_NE(c.why_not.find("x86-64"), std::string::npos) << c.why_not;
}

TEST(InterposeRecords, ReadsTheGraphIdOfARealDump) {
  std::ifstream in(std::string(GRAPHPROF_TEST_DATA) + "/profile/h200/p2096-exec3.dot");
  std::stringstream s;
  s << in.rdbuf();
  ASSERT_FALSE(s.str().empty());
  EXPECT_EQ(interpose::dot_graph_id(s.str()), 1u);  // its nodes are graph_1_node_<i>
  EXPECT_EQ(interpose::dot_graph_id("digraph dot {\nsubgraph cluster_130 {\n"), 130u);
  EXPECT_EQ(interpose::dot_graph_id("digraph dot {}"), 0u);
  EXPECT_EQ(interpose::dot_graph_id("subgraph cluster_99999999999 {"), 0u) << "not a 32-bit id";
}

ApiCall call(Api api, std::uint32_t co, std::uint64_t s, std::uint64_t e, int r = 0) {
  ApiCall c;
  c.api = api;
  c.correlation = co;
  c.start_ns = s;
  c.end_ns = e;
  c.thread = 7;
  c.result = r;
  return c;
}

// A process as the interposer writes it: one capture with a launch inside it, its instantiation,
// three replays, two eager launches, a synchronisation, and one launch of an exec it never saw made.
std::string interposed_process(std::uint64_t t0) {
  std::string s = "{\"t\":\"process\",\"pid\":42,\"ppid\":1,\"ts\":" + std::to_string(t0) +
                  ",\"cupti\":0,\"level\":0,\"sample\":\"\",\"observed\":\"interpose\",\"cmdline\":\"app\"}\n";
  std::vector<ApiCall> calls = {call(Api::cudaStreamBeginCapture, 1, t0 + 100, t0 + 200),
                                call(Api::cudaLaunchKernel, 2, t0 + 300, t0 + 400),
                                call(Api::cudaStreamEndCapture, 3, t0 + 500, t0 + 600),
                                call(Api::cudaGraphInstantiateWithFlags, 4, t0 + 700, t0 + 5700)};
  s += interpose::capture_begin_line(13, 1, 1, 0);
  s += interpose::capture_end_line(13, 130, 3, 0);
  s += "{\"t\":\"exec\",\"exec\":1,\"graph\":130,\"nodes\":14,\"edges\":13,\"co\":4,\"ts\":" + std::to_string(t0 + 5000) +
       ",\"dot\":\"\",\"dot_verbose\":\"\"}\n";
  interpose::LaunchBook book;
  int exec_handle = 0, unseen_handle = 0;
  book.instantiated(&exec_handle, 1);
  for (std::uint32_t i = 0; i < 3; ++i) {
    const std::uint64_t t = t0 + 10000 + 1000 * i;
    calls.push_back(call(Api::cudaGraphLaunch, 5 + i, t, t + 300));
    EXPECT_TRUE(book.launched(&exec_handle, 5 + i, t).empty()) << "no batch full yet";
  }
  calls.push_back(call(Api::cudaLaunchKernel, 8, t0 + 14000, t0 + 14100));
  calls.push_back(call(Api::cuLaunchKernel, 9, t0 + 14200, t0 + 14300));
  calls.push_back(call(Api::cudaStreamSynchronize, 10, t0 + 14400, t0 + 20000));
  book.synchronised(t0 + 20000);
  calls.push_back(call(Api::cudaGraphLaunch, 11, t0 + 21000, t0 + 21300));
  EXPECT_TRUE(book.launched(&unseen_handle, 11, t0 + 21000).empty());
  for (const ApiCall& c : calls) interpose::append_api_line(s, c, 42);
  s += book.final_lines();
  s += "{\"t\":\"end\",\"reason\":\"exit\",\"ts\":" + std::to_string(t0 + 30000) +
       ",\"dropped\":0,\"lost_buffers\":0,\"cupti\":\"unused\"}\n";
  EXPECT_EQ(book.unseen_launches(), 1u);
  return s;
}

TEST(InterposeRecords, ReadBackAsTheInjectionsLinesWithTheSameCounts) {
  const std::uint64_t t0 = 1796125467323145680ull;
  std::istringstream in(interposed_process(t0));
  const ProcessRecords r = parse_process_records(in, "interposed.jsonl");
  EXPECT_EQ(r.malformed_lines, 0u);
  EXPECT_EQ(r.observed_by, Observer::kInterpose);
  EXPECT_EQ(r.trace_level, TraceLevel::kNone);
  const ProcessProfile p = analyze_process(r);
  EXPECT_EQ(p.observed_by, Observer::kInterpose);
  EXPECT_EQ(p.graph_launches, 4u) << "every cudaGraphLaunch call, the unseen exec's too";
  EXPECT_EQ(p.eager_launches, 2u) << "the launch inside the capture is not eager";
  ASSERT_EQ(p.graphs.size(), 1u);
  const GraphProfile& g = p.graphs[0];
  EXPECT_EQ(g.exec.graph_id, 130u);
  EXPECT_EQ(g.exec.nodes, 14u);
  EXPECT_EQ(g.exec.edges, 13u);
  EXPECT_EQ(g.made_by, "stream capture");
  EXPECT_EQ(g.launches, 3u);
  ASSERT_TRUE(g.instantiate_ns.has_value());
  EXPECT_DOUBLE_EQ(*g.instantiate_ns, 5000.0);
  EXPECT_TRUE(p.capture_trouble.empty());
  EXPECT_EQ(p.cupti_at_end, "unused");
  // The report says how the process was observed and what that leaves out.
  ProfileRun run;
  run.program = "app";
  run.trace_level = TraceLevel::kNone;
  const Report report = profile_report(run, {p});
  const nlohmann::json proc = to_json(*report.results.at(0).sections.profile)["processes"][0];
  EXPECT_EQ(proc["observed_by"], "interpose");
  ASSERT_EQ(proc["not_observed"].size(), 3u);
  EXPECT_EQ(proc["not_observed"][1], "GPU times") << "the memory ledger is observed: the interposer records allocations";
}

TEST(InterposeRecords, TheClockLinesGiveTheSteadyWindow) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::path(::testing::TempDir()) / ("interpose-window-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::uint64_t t0 = 1796125467323145680ull;
  std::ofstream(dir / "proc-42.jsonl") << interposed_process(t0);
  const std::optional<SteadyWindow> w = read_steady_window(dir.string());
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->exec, 1u);
  EXPECT_EQ(w->launches, 3u);
  EXPECT_EQ(w->first_ns, t0 + 10000);
  EXPECT_EQ(w->last_ns, t0 + 12000);
  EXPECT_EQ(w->settled_ns, t0 + 20000) << "the return of the synchronisation after the last launch";
  fs::remove_all(dir);
}

TEST(InterposeRecords, LaunchesAreWrittenInBatchesAndAReusedHandleIsANewExec) {
  interpose::LaunchBook book;
  int handle = 0;
  book.instantiated(&handle, 1);
  std::string batch;
  for (std::uint32_t i = 1; i <= interpose::LaunchBook::kBatch; ++i) batch += book.launched(&handle, i, 1000 + i);
  ASSERT_FALSE(batch.empty()) << "a full batch is written";
  EXPECT_EQ(batch.rfind("{\"t\":\"lx\",\"exec\":1,\"co\":[1,2,", 0), 0u) << batch.substr(0, 60);
  book.instantiated(&handle, 2);  // the first exec was destroyed and its address reused
  (void)book.launched(&handle, 9000, 9000);
  const std::string end = book.final_lines();
  EXPECT_NE(end.find("\"exec\":1,\"n\":4096"), std::string::npos) << end.substr(0, 300);
  EXPECT_NE(end.find("{\"t\":\"lx\",\"exec\":2,\"co\":[9000]}"), std::string::npos);
  EXPECT_NE(end.find("\"exec\":2,\"n\":1"), std::string::npos);
  EXPECT_EQ(book.unseen_launches(), 0u);
}

}  // namespace
}  // namespace gp
