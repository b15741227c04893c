// graphprof's own child processes (src/cli/child_processes.cpp): what each --isolate child of
// `run` and `sweep` is asked to measure, what stays with the parent, and how their reports make
// one. Host-only: plan_suite reads the workload registry and starts nothing.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "child_processes.hpp"
#include "run_options.hpp"
#include "graphprof/cuda/suite.hpp"
#include "graphprof/core/error.hpp"
#include "graphprof/core/report.hpp"
#include "graphprof/core/run_outcome.hpp"

namespace gp::cli {
namespace {

bool has(const std::vector<std::string>& args, const std::string& a) {
  return std::find(args.begin(), args.end(), a) != args.end();
}

std::size_t count_prefix(const std::vector<std::string>& args, const std::string& prefix) {
  return static_cast<std::size_t>(
      std::count_if(args.begin(), args.end(), [&](const std::string& a) { return a.rfind(prefix, 0) == 0; }));
}

// Every output of the parent (each written once, from the merged report).
RunOptions with_every_output() {
  RunOptions o;
  o.json_path = "r.json";
  o.markdown_path = "r.md";
  o.html_path = "r.html";
  o.csv_path = "r.csv";
  o.out_dir = "outdir";
  o.isolate = true;
  return o;
}

std::vector<std::pair<std::string, std::map<std::string, std::string>>> plan_of(const RunOptions& o) {
  RunRequest req;
  req.workloads = o.workloads;
  for (const auto& p : o.params) req.params.insert(parse_param_assignment(p));
  std::vector<std::pair<std::string, std::map<std::string, std::string>>> plan;
  for (const auto& [entry, params] : plan_suite(req)) plan.emplace_back(entry->info.name, params.values());
  return plan;
}

TEST(ChildArguments, RunChildMeasuresOneWorkloadWithItsTracePassAndWritesNoOutputOfTheParent) {
  RunOptions o = with_every_output();
  o.workloads = {"chain", "fork-join"};
  o.modes = {"capture", "graph"};
  o.params = {"elements=1024"};
  o.budget = 0.25;
  o.min_time = 1e-7;
  o.repetitions = 3;
  o.processes = 2;
  o.load = {"/p/libx.so"};
  TraceCliOptions t;
  t.level = "graph";
  t.out = "trace.json";
  t.events = "all";
  t.records_dir = "/tmp/recs";
  t.iterations = 50;
  const auto children = run_children(o, t, plan_of(o));
  ASSERT_EQ(children.size(), 2u);
  EXPECT_EQ(children[0].which, "workload 1 of 2 (chain)");
  EXPECT_EQ(children[1].which, "workload 2 of 2 (fork-join)");
  const auto& a = children[1].args;
  EXPECT_EQ(a[0], "graphprof");
  EXPECT_EQ(a[1], "run");
  EXPECT_TRUE(has(a, "--workload=fork-join"));
  EXPECT_EQ(count_prefix(a, "--workload="), 1u);
  EXPECT_TRUE(has(a, "--mode=capture,graph"));
  EXPECT_TRUE(has(a, "--param=elements=1024"));  // the override ...
  EXPECT_TRUE(has(a, "--param=depth=" + children[1].params.at("depth")));  // ... and every default
  EXPECT_EQ(count_prefix(a, "--param="), children[1].params.size());
  EXPECT_EQ(children[1].params.at("elements"), "1024");
  EXPECT_TRUE(has(a, "--budget=0.25"));
  EXPECT_TRUE(has(a, "--min-time=9.9999999999999995e-08"));  // not rounded to 0
  EXPECT_TRUE(has(a, "--repetitions=3"));
  EXPECT_TRUE(has(a, "--processes=2"));  // each workload's process runs the others itself
  EXPECT_TRUE(has(a, "--load=/p/libx.so"));
  EXPECT_TRUE(has(a, "--out=outdir"));  // DOT dumps go where the parent's would
  EXPECT_TRUE(has(a, "--quiet"));       // one progress line per child, the parent's (not one per mode)
  // Its own trace pass, records to where the parent builds the Chrome trace from.
  EXPECT_TRUE(has(a, "--trace=graph"));
  EXPECT_TRUE(has(a, "--trace-iterations=50"));
  EXPECT_TRUE(has(a, "--trace-records=/tmp/recs"));
  // The parent's outputs: none in the child (its --json is added when it starts).
  for (const char* parent_only : {"--json", "--markdown", "--html", "--csv", "--trace-out", "--trace-events",
                                  "--isolate", "--ranks", "--lockstep"})
    EXPECT_EQ(count_prefix(a, parent_only), 0u) << parent_only;
}

TEST(ChildArguments, DefaultSuiteGivesAnOverrideOnlyToTheWorkloadsThatHaveThatParameter) {
  RunOptions o = with_every_output();
  o.params = {"kernels=7"};
  o.quiet = true;
  const auto plan = plan_of(o);
  const auto children = run_children(o, TraceCliOptions{}, plan);
  ASSERT_EQ(children.size(), plan.size());
  ASSERT_GE(children.size(), 5u);
  std::size_t with_kernels = 0;
  for (const auto& c : children) {
    EXPECT_NE(c.workload, "allreduce");  // multi-GPU workloads run only when named
    EXPECT_TRUE(has(c.args, "--workload=" + c.workload));
    EXPECT_TRUE(has(c.args, "--quiet"));
    EXPECT_TRUE(has(c.args, "--trace=node"));  // run's default trace pass
    const bool takes_kernels = c.params.count("kernels") > 0;
    with_kernels += takes_kernels;
    EXPECT_EQ(has(c.args, "--param=kernels=7"), takes_kernels) << c.workload;
  }
  EXPECT_GE(with_kernels, 1u);
  EXPECT_LT(with_kernels, children.size());
}

TEST(ChildArguments, RunChildWithoutTracePassNamesNoTraceOption) {
  RunOptions o;
  o.workloads = {"chain"};
  TraceCliOptions t;
  t.level = "none";
  const auto a = run_children(o, t, plan_of(o)).at(0).args;
  EXPECT_TRUE(has(a, "--trace=none"));
  EXPECT_EQ(count_prefix(a, "--trace"), 1u);
  EXPECT_EQ(count_prefix(a, "--out"), 0u);
}

TEST(ChildArguments, ProcessesChildrenOfRunMeasureWithoutTracing) {
  RunOptions o;
  o.workloads = {"chain"};
  const auto a = child_arguments("run", o);
  EXPECT_TRUE(has(a, "--trace=none"));
  EXPECT_TRUE(has(a, "--processes=1"));
  EXPECT_EQ(count_prefix(a, "--trace"), 1u);
  EXPECT_EQ(count_prefix(child_arguments("sweep", o), "--trace"), 0u);  // sweep has no trace pass
}

// sweep --isolate: each point's process gets the shared options, then that point's values only.
TEST(ChildArguments, SweepChildGetsThatPointsValuesOnly) {
  RunOptions o = with_every_output();
  o.workloads = {"scaling"};
  o.modes = {"capture"};
  o.params = {"length=10,100", "width=1,4"};
  o.processes = 3;
  const std::vector<std::map<std::string, std::string>> grid{
      {{"length", "10"}, {"width", "4"}}, {{"length", "100"}, {"width", "1"}}, {{"name", "a=b,c"}}};
  const auto children = sweep_children(o, grid);
  ASSERT_EQ(children.size(), 3u);
  EXPECT_EQ(children[0].which, "point 1 of 3 (length=10,width=4)");
  EXPECT_EQ(children[0].workload, "scaling");
  EXPECT_EQ(children[0].params, grid[0]);
  const std::vector<std::string> want{"graphprof",       "sweep",          "--processes=3",  "--quiet", "--workload=scaling",
                                      "--mode=capture",  "--param=length=10", "--param=width=4", "--repetitions=1",
                                      "--target-ci=0.01", "--budget=0.5",   "--min-time=0.10000000000000001",
                                      "--min-samples=20", "--device=0",     "--out=outdir"};
  EXPECT_EQ(children[0].args, want);
  EXPECT_EQ(count_prefix(children[1].args, "--param="), 2u);
  EXPECT_TRUE(has(children[1].args, "--param=length=100"));
  // A value with '=' or ',' stays one argument (no shell, no splitting).
  EXPECT_TRUE(has(children[2].args, "--param=name=a=b,c"));
  EXPECT_EQ(count_prefix(children[2].args, "--param="), 1u);
}

// --isolate-modes: each point's child becomes one child per mode, in mode order within the point,
// each asked for that mode alone and with everything else of the point's command line.
TEST(ChildArguments, IsolateModesSplitsEachChildIntoOnePerMode) {
  RunOptions o = with_every_output();
  o.workloads = {"scaling"};
  o.modes = {"capture", "graph"};
  const auto points = sweep_children(o, {{{"length", "10"}}, {{"length", "100"}}});
  const auto children = split_by_mode(points, {Mode::kCapture, Mode::kGraph});
  ASSERT_EQ(children.size(), 4u);
  EXPECT_EQ(children[0].which, "point 1 of 2 (length=10), mode capture");
  EXPECT_EQ(children[1].which, "point 1 of 2 (length=10), mode graph");
  EXPECT_EQ(children[3].which, "point 2 of 2 (length=100), mode graph");
  for (std::size_t i = 0; i < children.size(); ++i) {
    const Mode m = i % 2 == 0 ? Mode::kCapture : Mode::kGraph;
    EXPECT_EQ(children[i].modes, std::vector<Mode>{m});
    EXPECT_EQ(count_prefix(children[i].args, "--mode="), 1u);
    EXPECT_TRUE(has(children[i].args, std::string("--mode=") + to_string(m)));
    // The rest of the command line is the point's.
    std::vector<std::string> rest = children[i].args, point = points[i / 2].args;
    rest.erase(std::remove_if(rest.begin(), rest.end(), [](const std::string& a) { return a.rfind("--mode=", 0) == 0; }),
               rest.end());
    point.erase(std::remove_if(point.begin(), point.end(), [](const std::string& a) { return a.rfind("--mode=", 0) == 0; }),
                point.end());
    EXPECT_EQ(rest, point);
  }
}

TEST(ChildArguments, TraceRecordsStemNamesWorkloadParametersAndMode) {
  ModeResult r;
  r.workload = "chain";
  r.mode = Mode::kCapture;
  r.params = {{"kernels", "100"}, {"elements", "4096"}};
  EXPECT_EQ(trace_records_stem(r), "chain_elements-4096_kernels-100_capture");
}

// The real binary takes every child's command line: with no device visible it gets past parsing
// and checking (exit 2 would be a usage error) to the device check, exit 4.
TEST(ChildArguments, TheBinaryAcceptsEveryRunAndSweepChildCommandLine) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("gp-children-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  RunOptions o;
  o.out_dir = (dir / "out").string();
  o.modes = {"capture", "graph"};
  o.params = {"kernels=7"};
  o.repetitions = 2;
  o.min_time = 1e-7;
  TraceCliOptions t;
  t.records_dir = (dir / "records").string();
  t.nvtx = true;
  std::vector<IsolatedChild> children = run_children(o, t, plan_of(o));
  RunOptions sweep = o;
  sweep.workloads = {"scaling"};
  sweep.processes = 2;
  for (auto& c : sweep_children(sweep, {{{"length", "10"}, {"width", "2"}}})) children.push_back(c);
  ASSERT_GE(children.size(), 6u);
  for (const auto& c : children) {
    std::string cmd = "CUDA_VISIBLE_DEVICES= '" + std::string(GRAPHPROF_BINARY) + "'";
    for (std::size_t i = 1; i < c.args.size(); ++i) cmd += " '" + c.args[i] + "'";
    cmd += " '--json=" + (dir / "r.json").string() + "' >/dev/null 2>&1";
    const int st = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(st)) << cmd;
    EXPECT_EQ(WEXITSTATUS(st), 4) << cmd;
  }
  std::filesystem::remove_all(dir);
}

// --isolate's report: a real H200 report per child that ran, its workload's modes failed for a
// child whose process failed, in the children's order.
std::vector<IsolatedChild> three_children() {
  std::vector<IsolatedChild> c(3);
  c[0].which = "workload 1 of 3 (chain)";
  c[0].workload = "chain";
  c[1].which = "workload 2 of 3 (fork-join)";
  c[1].workload = "fork-join";
  c[1].params = {{"depth", "8"}};
  c[2].which = "workload 3 of 3 (chain2)";
  c[2].workload = "chain2";
  return c;
}

Report renamed(Report r, const std::string& workload) {
  for (auto& x : r.results) x.workload = workload;
  return r;
}

TEST(MergeIsolated, FailedChildIsRecordedAsFailedInEveryModeAndTheOthersAreKeptInOrder) {
  const Report chain = read_report(std::string(GRAPHPROF_TEST_DATA) + "/h200/chain_run1.json");
  ASSERT_EQ(chain.results.size(), 3u);
  std::vector<std::optional<Report>> got{chain, std::nullopt, renamed(chain, "chain2")};
  const std::vector<Mode> modes{Mode::kEager, Mode::kCapture, Mode::kGraph};
  const Report out = merge_isolated(three_children(), got, {0, 139, 0}, modes, 2);
  ASSERT_EQ(out.results.size(), 9u);
  EXPECT_EQ(out.results[0].workload, "chain");
  EXPECT_EQ(out.results[0].status, Status::kOk);
  for (std::size_t i = 3; i < 6; ++i) {
    EXPECT_EQ(out.results[i].workload, "fork-join");
    EXPECT_EQ(out.results[i].mode, modes[i - 3]);
    EXPECT_EQ(out.results[i].status, Status::kFailed);
    EXPECT_NE(out.results[i].reason.find("exited with status 139"), std::string::npos) << out.results[i].reason;
    EXPECT_EQ(out.results[i].params.at("depth"), "8");
  }
  EXPECT_EQ(out.results[8].workload, "chain2");
  EXPECT_EQ(out.results[8].status, Status::kOk);
  EXPECT_FALSE(out.results[8].metrics.empty());
  EXPECT_EQ(out.settings.isolate.value_or(false), true);
  EXPECT_EQ(out.settings.processes.value_or(-1), 2);  // per child, not summed
  EXPECT_EQ(out.settings.repetitions_total.value_or(-1), 2);
}

// --time-limit with --isolate: a child left unstarted has its modes recorded as cut, and the
// command's message counts them (exit 4 after the outputs are written).
TEST(MergeIsolated, ChildLeftUnstartedByTheTimeLimitIsRecordedAsCutAndCounted) {
  const Report chain = read_report(std::string(GRAPHPROF_TEST_DATA) + "/h200/chain_run1.json");
  std::vector<std::optional<Report>> got{chain, std::nullopt, std::nullopt};
  const std::vector<Mode> modes{Mode::kEager, Mode::kCapture, Mode::kGraph};
  const Report out = merge_isolated(three_children(), got, {0, kCutByTimeLimit, kCutByTimeLimit}, modes, 1);
  ASSERT_EQ(out.results.size(), 9u);
  EXPECT_FALSE(was_cut_by_time_limit(out.results[0]));
  for (std::size_t i = 3; i < 9; ++i) {
    EXPECT_TRUE(was_cut_by_time_limit(out.results[i])) << i;
    EXPECT_EQ(out.results[i].status, Status::kFailed);
    EXPECT_NE(out.results[i].reason.find("--time-limit"), std::string::npos) << out.results[i].reason;
  }
  EXPECT_EQ(out.results[3].params.at("depth"), "8");
  const std::string why = time_limit_message(out, 60);
  EXPECT_NE(why.find("--time-limit 60 s reached: 3 of 9 results measured, 6 not"), std::string::npos) << why;
  EXPECT_EQ(time_limit_message(chain, 60), "");
  // The mark survives the report file (a child's report read back by its parent).
  const Report back = report_from_json(to_json(out), "x.json");
  EXPECT_TRUE(was_cut_by_time_limit(back.results[8]));
}

// A failed child of --isolate-modes is recorded as failed in its own mode only.
TEST(MergeIsolated, FailedPerModeChildIsFailedInItsModeOnly) {
  const Report chain = read_report(std::string(GRAPHPROF_TEST_DATA) + "/h200/chain_run1.json");
  std::vector<IsolatedChild> c(2);
  c[0].workload = c[1].workload = "chain";
  c[0].which = "workload 1 of 1 (chain), mode eager";
  c[1].which = "workload 1 of 1 (chain), mode graph";
  c[0].modes = {Mode::kEager};
  c[1].modes = {Mode::kGraph};
  Report eager_only = chain;
  eager_only.results.resize(1);
  ASSERT_EQ(eager_only.results[0].mode, Mode::kEager);
  const Report out = merge_isolated(c, {eager_only, std::nullopt}, {0, 139},
                                    {Mode::kEager, Mode::kCapture, Mode::kGraph}, 1);
  ASSERT_EQ(out.results.size(), 2u);
  EXPECT_EQ(out.results[1].mode, Mode::kGraph);
  EXPECT_EQ(out.results[1].status, Status::kFailed);
}

TEST(MergeIsolated, NoChildrenOrMismatchedListsAreAnInternalErrorNotUndefinedBehaviour) {
  const std::vector<Mode> modes{Mode::kCapture};
  const auto code_of = [&](const std::vector<IsolatedChild>& children, std::size_t reports, std::vector<int> status) {
    try {
      merge_isolated(children, std::vector<std::optional<Report>>(reports), status, modes, 1);
    } catch (const Error& e) {
      return static_cast<int>(e.code());
    }
    return -1;
  };
  EXPECT_EQ(code_of({}, 0, {}), 6);
  EXPECT_EQ(code_of(three_children(), 3, {0, 0}), 6);
  EXPECT_EQ(code_of(three_children(), 2, {1, 1, 1}), 6);
}

TEST(MergeIsolated, EveryChildFailedExitsWithTheFirstChildsStatus) {
  const std::vector<Mode> modes{Mode::kCapture};
  const auto exit_of = [&](std::vector<int> status) {
    try {
      merge_isolated(three_children(), std::vector<std::optional<Report>>(3), status, modes, 1);
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("workload 1 of 3 (chain)"), std::string::npos) << e.what();
      return static_cast<int>(e.code());
    }
    return -1;
  };
  EXPECT_EQ(exit_of({3, 139, 6}), 3);
  EXPECT_EQ(exit_of({6, 3, 3}), 6);
  EXPECT_EQ(exit_of({139, 3, 3}), 6);  // killed by a signal: internal error
  EXPECT_EQ(exit_of({7, 3, 3}), 6);
}

// run --isolate --trace-out: the parent builds the Chrome trace from its children's records (the
// committed H200 records of chain, named as `--trace-records` names them).
TEST(IsolatedTraces, ChromeTraceFromTheChildrensRecordsHasEachTracedModeJoinedToItsDump) {
  const std::string dir = std::string(GRAPHPROF_TEST_DATA) + "/trace";
  Report report;
  for (const Mode m : {Mode::kEager, Mode::kCapture, Mode::kGraph}) {
    ModeResult r;
    r.workload = "chain";
    r.mode = m;
    r.params = {{"elements", "4096"}, {"kernels", "10"}, {"sync_inside", "0"}};
    r.sections.trace = TraceSection{};
    if (m != Mode::kEager) {
      r.sections.graph = GraphDumpSection{};
      r.sections.graph->dot = dir + "/" + trace_records_stem(r) + ".dot";
    }
    report.results.push_back(r);
  }
  ModeResult untraced = report.results[0];  // no trace section: nothing to add
  untraced.workload = "fork-join";
  untraced.sections.trace.reset();
  report.results.push_back(untraced);
  ModeResult failed = report.results[0];  // its trace pass failed: no records
  failed.workload = "host";
  failed.sections.trace->status = "failed";
  report.results.push_back(failed);

  ChromeTraceBuilder chrome(0);
  add_isolated_traces(report, dir, chrome);
  const nlohmann::json doc = chrome.to_json();
  EXPECT_TRUE(validate_chrome_trace(doc).empty());
  std::vector<std::string> passes;
  std::size_t named_nodes = 0;
  for (const auto& e : doc.at("traceEvents")) {
    const std::string name = e.value("name", "");
    if (name.rfind("trace pass: ", 0) == 0) passes.push_back(name);
    if (e.contains("args") && e.at("args").is_object() && e.at("args").contains("dot_node")) ++named_nodes;
  }
  const std::vector<std::string> want{"trace pass: chain eager", "trace pass: chain capture", "trace pass: chain graph"};
  EXPECT_EQ(passes, want);
  EXPECT_GT(named_nodes, 0u);  // graph kernels carry their DOT node's name

  // Without the dumps the same records give the same sessions, no node names.
  for (auto& r : report.results) r.sections.graph.reset();
  ChromeTraceBuilder bare(0);
  add_isolated_traces(report, dir, bare);
  std::size_t bare_named = 0;
  for (const auto& e : bare.to_json().at("traceEvents"))
    if (e.contains("args") && e.at("args").is_object() && e.at("args").contains("dot_node")) ++bare_named;
  EXPECT_EQ(bare_named, 0u);
  EXPECT_EQ(bare.to_json().at("traceEvents").size(), doc.at("traceEvents").size());
}

// --ranks' rendezvous, --processes' and --isolate's report files: a folder made new each time under
// a name no one can guess (mkdtemp, 0700). The old name graphprof-<what>-<pid> was reused when it
// existed, whoever had made it.
TEST(TemporaryFolderTest, IsNewPrivateAndNeverAFolderThatWasThere) {
  namespace fs = std::filesystem;
  const fs::path planted = fs::temp_directory_path() / ("graphprof-ranks-" + std::to_string(::getpid()));
  fs::create_directories(planted);
  std::string first_path;
  {
    const TemporaryFolder first("ranks");
    const TemporaryFolder second("ranks");
    first_path = first.path();
    EXPECT_NE(fs::path(first.path()), planted);
    EXPECT_NE(first.path(), second.path());
    EXPECT_EQ(fs::path(first.path()).parent_path(), fs::temp_directory_path());
    EXPECT_EQ(fs::path(first.path()).filename().string().rfind("graphprof-ranks-", 0), 0u);
    struct stat st {};
    ASSERT_EQ(::stat(first.path().c_str(), &st), 0);
    EXPECT_TRUE(S_ISDIR(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0700u);
  }
  EXPECT_FALSE(fs::exists(first_path));
  EXPECT_TRUE(fs::exists(planted));  // not ours: left alone
  fs::remove_all(planted);
}

}  // namespace
}  // namespace gp::cli
