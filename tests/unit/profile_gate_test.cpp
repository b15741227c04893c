// `profile --repeat` reports, the graph-health view of `compare` for two profiles, the profile page
// and the join of a renamed profile dump. Built from the H200 records of the test application
// (tests/data/profile/h200/proc-2096.jsonl: graph A of 5 nodes launched 20 times, graph B of 4
// nodes launched 3 times, 5 eager kernels, one broken capture), edited where a case needs a change.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "graphprof/compare/comparison.hpp"
#include "graphprof/report/compare_report.hpp"
#include "graphprof/graph/graph_analysis.hpp"
#include "graphprof/report/html_report.hpp"
#include "graphprof/report/profile_text.hpp"
#include "graphprof/profile/profile.hpp"

namespace gp {
namespace {

using nlohmann::json;

const std::string kGateData = std::string(GRAPHPROF_TEST_DATA) + "/profile/";

ProcessProfile fixture() {
  static const ProcessProfile p = analyze_process(read_process_records(kGateData + "h200/proc-2096.jsonl"));
  return p;
}

ProfileRun app_run() {
  ProfileRun run;
  run.program = "graph_app";
  run.command = {"./graph_app", "--launches", "20"};
  run.exit_description = "exited with status 0";
  run.wall_ns = 2.0e9;
  return run;
}

// The PyTorch serving loop's records (three buckets in one pool; its graphs' allocation sites).
const ProcessProfile& serving() {
  static const ProcessProfile p = [] {
    for (const auto& e : std::filesystem::directory_iterator(kGateData + "h200/serving_buckets_alloc"))
      if (e.path().extension() == ".jsonl") return analyze_process(read_process_records(e.path().string()));
    throw std::runtime_error("no records in serving_buckets_alloc");
  }();
  return p;
}

// `n` runs of one side made of `base`; `edit` changes each run's process (run index given).
template <typename Edit>
Report side(std::size_t n, Edit edit, const ProcessProfile& base = fixture()) {
  std::vector<ProfileRepetition> runs;
  for (std::size_t k = 0; k < n; ++k) {
    ProfileRepetition r;
    r.exit_description = "exited with status 0";
    r.wall_ns = 2.0e9 + 1.0e7 * static_cast<double>(k);
    ProcessProfile p = base;
    edit(p, k);
    r.processes.push_back(std::move(p));
    runs.push_back(std::move(r));
  }
  return report_from_json(to_json(repeated_profile_report(app_run(), runs)), "mem");
}

Report side(std::size_t n) {
  return side(n, [](ProcessProfile&, std::size_t) {});
}

// The GPU spans of a graph moved by `factor`, a little differently in each run (as real runs do).
void scale_spans(GraphProfile& g, double factor, std::size_t run) {
  for (double& s : g.gpu_span_ns) s *= factor * (1.0 + 0.002 * static_cast<double>(run));
}

const MetricComparison* find(const Comparison& c, const std::string& metric, const std::string& graph = {}) {
  for (const auto& r : c.rows)
    if (r.metric == metric && (graph.empty() ? r.params.empty() : r.params.count("graph") && r.params.at("graph").find(graph) == 0))
      return &r;
  return nullptr;
}

TEST(ProfileRepeat, OneReportKeepsEveryRunAndCountsThemAsIndependent) {
  const Report r = side(3);
  EXPECT_EQ(r.settings.processes.value_or(-1), 3);
  EXPECT_EQ(r.settings.repeat.value_or(-1), 3);
  ASSERT_EQ(r.results.size(), 3u) << "the same two graphs in every run: one result each";
  const json prof = to_json(*r.results[0].sections.profile);
  ASSERT_EQ(prof.at("runs").size(), 3u);
  EXPECT_EQ(prof.at("runs")[2].at("processes")[0].at("graphs").size(), 2u);
  EXPECT_EQ(r.results[0].metrics.at("eager_launches").repetitions.size(), 3u);
  EXPECT_EQ(r.results[0].metrics.at("wall_time").repetitions.size(), 3u);
  EXPECT_EQ(r.results[1].metrics.at("gpu_time_per_iter").repetitions.size(), 3u);
  EXPECT_EQ(r.results[1].metrics.at("gpu_time_per_iter").summary.n, 60u);
}

TEST(ProfileRepeat, AGraphOnlyALaterRunMadeGetsAResultOfItsOwn) {
  const Report r = side(2, [](ProcessProfile& p, std::size_t k) {
    if (k == 1) p.graphs[1].exec.nodes = 7;
  });
  ASSERT_EQ(r.results.size(), 4u);
  EXPECT_EQ(r.results[3].params.at("run"), "2");
  // The application's result still gets every run after a graph's result was appended (it was
  // written through a reference that the append left dangling: the runs went missing on the H200).
  ASSERT_TRUE(to_json(*r.results[0].sections.profile).contains("runs"));
  EXPECT_EQ(to_json(*r.results[0].sections.profile).at("runs").size(), 2u);
  EXPECT_EQ(r.results[0].metrics.at("wall_time").repetitions.size(), 2u);
  EXPECT_EQ(r.results[2].metrics.at("gpu_time_per_iter").repetitions.size(), 1u);
}

TEST(ProfileReportFields, TimelineKernelSequenceAndWhenEachGraphWasMade) {
  const json p = profile_process_json(fixture(), 1);
  const json& t = p.at("timeline");
  ASSERT_EQ(t.at("graph_launches").size(), 120u);
  double graph_ns = 0, launches = 0, made = 0;
  for (const auto& v : t.at("graph_kernel_ns")) graph_ns += v.get<double>();
  for (const auto& v : t.at("graph_launches")) launches += v.get<double>();
  for (const auto& v : t.at("graphs_made")) made += v.get<double>();
  EXPECT_NEAR(graph_ns, p.at("coverage").at("graph_kernel_ns").get<double>(), 130.0) << "rounded per bin";
  EXPECT_EQ(launches, 23);
  EXPECT_EQ(made, 2);
  const json& a = p.at("graphs")[0];
  EXPECT_EQ(a.at("kernel_sequence"), json({"memset", "k_scale", "k_scale", "k_scale", "k_add"}));
  EXPECT_LT(a.at("created_at_ns").get<double>(), a.at("first_launch_at_ns").get<double>());
}

TEST(ProfileGate, TheSameProfileTwicePasses) {
  const Comparison c = compare(side(5), side(5), Thresholds{});
  EXPECT_EQ(c.outcome, CompareOutcome::kPass) << c.outcome_reason;
  EXPECT_EQ(c.count(Verdict::kRegression), 0u);
  ASSERT_NE(find(c, "coverage_kernel_time"), nullptr);
  EXPECT_EQ(find(c, "coverage_kernel_time")->verdict, Verdict::kSame);
  EXPECT_EQ(find(c, "eager_launches_per_step")->verdict, Verdict::kSame);
  ASSERT_NE(find(c, "gpu_time_per_launch", "#1"), nullptr);
  EXPECT_EQ(find(c, "gpu_time_per_launch", "#1")->verdict, Verdict::kSame);
}

// Each row of the graph-health view carries the threshold it was judged by: an absolute change for
// counts and fractions whose floor is the larger (2 points of coverage, 1 graph, 1 launch of 20;
// 3 % of a count where that is more, as 250 launches of the serving app's graphs), and for a graph's GPU time the device rule (3 %, or 3 x its runs'
// spread when they vary more).
TEST(ProfileGate, EachRowCarriesTheThresholdItWasJudgedBy) {
  const Comparison c = compare(side(5), side(5), Thresholds{});
  const MetricComparison* coverage = find(c, "coverage_kernel_time");
  ASSERT_NE(coverage, nullptr);
  EXPECT_EQ(coverage->rule.threshold_basis, ThresholdBasis::kAbsolute);
  EXPECT_EQ(coverage->rule.abs_floor, 2.0);
  EXPECT_EQ(find(c, "graphs")->rule.threshold_basis, ThresholdBasis::kAbsolute);
  const MetricComparison* launches = find(c, "launches", "#1");
  ASSERT_NE(launches, nullptr);
  // 20 launches: 3 % of them is less than one launch, so one launch is the threshold.
  EXPECT_EQ(launches->rule.threshold_basis, ThresholdBasis::kAbsolute);
  EXPECT_EQ(launches->rule.abs_floor, 1.0);
  EXPECT_EQ(launches->rule.threshold, 0.03);
  const MetricComparison* gpu = find(c, "gpu_time_per_launch", "#1");
  EXPECT_EQ(gpu->rule.threshold_basis, ThresholdBasis::kFloor);
  EXPECT_EQ(gpu->rule.threshold, 0.03);
  // Runs whose GPU time per launch varies by ~6 %: the threshold is 3 x that spread.
  auto noisy = [](ProcessProfile& p, std::size_t k) { scale_spans(p.graphs[0], 1.0 + 0.04 * static_cast<double>(k), 0); };
  const Comparison n = compare(side(5, noisy), side(5, noisy), Thresholds{});
  const MetricComparison* wide = find(n, "gpu_time_per_launch", "#1");
  ASSERT_NE(wide, nullptr);
  EXPECT_EQ(wide->rule.threshold_basis, ThresholdBasis::kNoise);
  EXPECT_GT(wide->rule.noise_sd, 0.05);
  EXPECT_NEAR(wide->rule.threshold, std::expm1(3 * wide->rule.noise_sd), 1e-12);
  EXPECT_EQ(wide->verdict, Verdict::kSame) << wide->reason;
}

TEST(ProfileGate, ASlowerGraphFailsOnItsGpuTimePerLaunchAndTheStepsAndNothingElse) {
  const Comparison c = compare(side(5), side(5, [](ProcessProfile& p, std::size_t k) { scale_spans(p.graphs[0], 1.3, k); }), Thresholds{});
  EXPECT_EQ(c.outcome, CompareOutcome::kRegression);
  EXPECT_EQ(find(c, "gpu_time_per_launch", "#1")->verdict, Verdict::kRegression);
  EXPECT_EQ(find(c, "gpu_time_per_step")->verdict, Verdict::kRegression);
  EXPECT_EQ(c.count(Verdict::kRegression), 2u);
  EXPECT_EQ(find(c, "gpu_time_per_launch", "#2")->verdict, Verdict::kSame);
}

TEST(ProfileGate, WorkMovedOutOfAGraphFailsOnCoverageAndEagerLaunchesNotAsAFasterGraph) {
  // As the serving app's "moved" variant: graph A loses its last node, which runs eagerly after
  // every replay instead.
  const Comparison c = compare(side(5), side(5, [](ProcessProfile& p, std::size_t k) {
    GraphProfile& a = p.graphs[0];
    a.exec.nodes = 4;
    a.kernel_sequence.pop_back();
    scale_spans(a, 0.8, k);
    p.eager_launches += a.launches;
    p.eager_kernels += a.launches;
    p.graph_kernels -= a.launches;
    p.eager_kernel_ns += 0.3 * p.graph_kernel_ns;
    p.graph_kernel_ns *= 0.7;
  }), Thresholds{});
  EXPECT_EQ(c.outcome, CompareOutcome::kRegression);
  EXPECT_EQ(find(c, "coverage_kernel_time")->verdict, Verdict::kRegression);
  EXPECT_EQ(find(c, "eager_launches_per_step")->verdict, Verdict::kRegression);
  const MetricComparison* gpu = find(c, "gpu_time_per_launch", "#1");
  ASSERT_NE(gpu, nullptr);
  EXPECT_EQ(gpu->verdict, Verdict::kNotComparable) << "a smaller graph is not a faster one";
  EXPECT_FALSE(gpu->rule.gating);
  EXPECT_EQ(c.count(Verdict::kImprovement), 0u);
  ASSERT_EQ(c.drift.size(), 1u);
  EXPECT_NE(c.drift[0].what.find("5 -> 4 nodes"), std::string::npos);
}

TEST(AppGate, SteadyStateCoverageLeavesOutTheWarmUpAndGatesWhereBothSidesHaveIt) {
  // The graph app's records: its eager warm-up kernels run before the first launch of its
  // most-launched graph, so the steady state is all graphs while the whole process is not.
  const ProcessProfile& p = fixture();
  ASSERT_TRUE(p.steady.has_value());
  EXPECT_TRUE(p.steady->kernel_records);
  EXPECT_GT(p.steady->graph_launches, 0u);
  const double whole = p.graph_kernel_ns / (p.graph_kernel_ns + p.eager_kernel_ns);
  const double steady = p.steady->graph_kernel_ns / (p.steady->graph_kernel_ns + p.steady->eager_kernel_ns);
  EXPECT_GT(steady, whole + 0.02);
  EXPECT_LE(p.steady->graph_launches, p.graph_launches);

  // More eager work at start-up (a cold cache autotunes): the whole process's coverage falls, the
  // steady state's does not; the whole-process row is shown and does not gate.
  const Comparison warm = compare(side(5), side(5, [](ProcessProfile& q, std::size_t) {
    q.eager_kernel_ns += 2.0 * q.graph_kernel_ns;
    q.eager_kernels += 50;
  }), Thresholds{});
  const MetricComparison* steady_row = find(warm, "steady_coverage_kernel_time");
  ASSERT_NE(steady_row, nullptr);
  EXPECT_TRUE(steady_row->rule.gating);
  EXPECT_EQ(steady_row->verdict, Verdict::kSame);
  const MetricComparison* whole_row = find(warm, "coverage_kernel_time");
  ASSERT_NE(whole_row, nullptr);
  EXPECT_EQ(whole_row->verdict, Verdict::kRegression);
  EXPECT_FALSE(whole_row->rule.gating) << "informational beside the steady state";
  for (const auto& r : warm.rows)
    if (r.metric.rfind("coverage", 0) == 0) EXPECT_FALSE(r.rule.gating) << r.metric;

  // Work moved out of the graphs in the loop itself: the steady state's coverage falls and gates.
  const Comparison moved = compare(side(5), side(5, [](ProcessProfile& q, std::size_t) {
    q.steady->eager_kernel_ns += q.steady->graph_kernel_ns;
  }), Thresholds{});
  EXPECT_EQ(find(moved, "steady_coverage_kernel_time")->verdict, Verdict::kRegression);
  EXPECT_EQ(moved.outcome, CompareOutcome::kRegression);
}

TEST(ProfileGate, AGraphNoLongerCapturedIsARegressionNotAMissingBenchmark) {
  const Comparison c = compare(side(5), side(5, [](ProcessProfile& p, std::size_t) {
    p.graphs.pop_back();
  }), Thresholds{});
  EXPECT_EQ(c.outcome, CompareOutcome::kRegression) << c.outcome_reason;
  const MetricComparison* gone = find(c, "*", "#2");
  ASSERT_NE(gone, nullptr);
  EXPECT_EQ(gone->verdict, Verdict::kRegression);
  EXPECT_NE(gone->reason.find("no longer captured"), std::string::npos);
}

TEST(ProfileGate, ANewCaptureFailureIsARegressionEvenFromOneRunPerSide) {
  const Report clean = side(1, [](ProcessProfile& p, std::size_t) { p.capture_trouble.clear(); });
  const Comparison c = compare(clean, side(1), Thresholds{});
  EXPECT_EQ(c.outcome, CompareOutcome::kRegression);
  EXPECT_EQ(find(c, "capture_failures")->verdict, Verdict::kRegression);
}

TEST(ProfileGate, ShiftedExecAndGraphIdsStillPairTheSameGraphs) {
  const Comparison c = compare(side(5), side(5, [](ProcessProfile& p, std::size_t) {
    for (auto& g : p.graphs) g.exec.exec_id += 3, g.exec.graph_id += 3;
  }), Thresholds{});
  EXPECT_EQ(c.outcome, CompareOutcome::kPass) << c.outcome_reason;
  EXPECT_EQ(c.count(Verdict::kAdded), 0u);
  EXPECT_EQ(find(c, "gpu_time_per_launch", "#1")->verdict, Verdict::kSame);
}

TEST(ProfileGate, OneProfilePerSideCannotCallATimeTheSame) {
  const Comparison c = compare(side(1), side(1), Thresholds{});
  EXPECT_EQ(c.outcome, CompareOutcome::kNotTrustworthy) << c.outcome_reason;
  EXPECT_EQ(find(c, "gpu_time_per_launch", "#1")->verdict, Verdict::kInconclusive);
  EXPECT_EQ(find(c, "eager_launches_per_step")->verdict, Verdict::kSame) << "equal counts are equal";
}

TEST(ProfileGate, AReportWithoutKernelSequencesIsMatchedThroughItsGraphResults) {
  // A report of the first profile schema: graphs carry no kernel_sequence and there is no runs[].
  json old = to_json(profile_report(app_run(), std::vector<ProcessProfile>{fixture()}));
  for (auto& g : old["results"][0]["sections"]["profile"]["processes"][0]["graphs"]) g.erase("kernel_sequence");
  old["results"][0]["sections"]["profile"]["processes"][0].erase("timeline");
  const Report base = report_from_json(old, "old");
  const Comparison c = compare(base, report_from_json(to_json(profile_report(app_run(), std::vector<ProcessProfile>{fixture()})), "new"),
                               Thresholds{});
  EXPECT_EQ(c.count(Verdict::kAdded), 0u);
  EXPECT_EQ(c.count(Verdict::kRegression), 0u);
  const std::string page = render_html_report(base);
  EXPECT_NE(page.find("No timeline"), std::string::npos);
  EXPECT_NE(page.find("table-graphs-p1"), std::string::npos);
}

// The rows of one metric whose site contains `site`.
std::vector<const MetricComparison*> site_rows(const Comparison& c, const std::string& metric, const std::string& site = {}) {
  std::vector<const MetricComparison*> out;
  for (const auto& r : c.rows)
    if (r.metric == metric && (site.empty() || (r.params.count("site") && r.params.at("site").find(site) != std::string::npos)))
      out.push_back(&r);
  return out;
}

const auto kNoEdit = [](ProcessProfile&, std::size_t) {};

// Allocation sites of the graphs (the serving loop's: bucket 16's capture allocated a 32 MiB cuBLAS
// workspace and a 2 MiB segment): the same profile passes, a row per site; in-capture rows gate,
// before-capture rows do not.
TEST(ProfileGate, AllocationSitesOfTheSameProfilePass) {
  const Comparison c = compare(side(3, kNoEdit, serving()), side(3, kNoEdit, serving()), Thresholds{});
  EXPECT_EQ(c.outcome, CompareOutcome::kPass) << c.outcome_reason;
  const auto in_capture = site_rows(c, "capture_alloc_bytes");
  ASSERT_EQ(in_capture.size(), 2u);
  for (const auto* r : in_capture) {
    EXPECT_EQ(r->verdict, Verdict::kSame) << r->reason;
    EXPECT_TRUE(r->rule.gating);
  }
  ASSERT_EQ(site_rows(c, "capture_alloc_bytes", "at::cuda::setWorkspaceForHandle").size(), 1u);
  const auto before = site_rows(c, "before_capture_alloc_bytes");
  ASSERT_EQ(before.size(), 4u) << "cuBLAS's own, its workspace, two tensor sites";
  for (const auto* r : before) EXPECT_FALSE(r->rule.gating);
}

// A new site allocating in a graph's capture fails, named; a site whose bytes in capture grew fails;
// less than 2 MiB (the allocation granularity) makes no row.
TEST(ProfileGate, ANewOrGrownAllocationSiteInCaptureFails) {
  auto edit = [](ProcessProfile& p, std::size_t) {
    GraphLedger& g = p.sites.graphs[0];
    AllocationSite extra = g.capture_alloc_sites.front();
    extra.site.where = extra.site.function_where = "at::native::new_buffer in libtorch_cuda.so";
    extra.bytes = 8u << 20;
    g.capture_alloc_sites.push_back(extra);
    AllocationSite tiny = extra;
    tiny.site.where = tiny.site.function_where = "tiny in app";
    tiny.bytes = 4096;
    g.capture_alloc_sites.push_back(tiny);
    for (auto& a : g.capture_alloc_sites)
      if (a.site.where.find("setWorkspaceForHandle") != std::string::npos) a.bytes *= 2;
  };
  const Comparison c = compare(side(3, kNoEdit, serving()), side(3, edit, serving()), Thresholds{});
  EXPECT_EQ(c.outcome, CompareOutcome::kRegression);
  const auto fresh = site_rows(c, "capture_alloc_bytes", "new_buffer");
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_EQ(fresh[0]->verdict, Verdict::kRegression);
  EXPECT_EQ(fresh[0]->reason.rfind("new allocation site in capture: ", 0), 0u) << fresh[0]->reason;
  const auto grown = site_rows(c, "capture_alloc_bytes", "setWorkspaceForHandle");
  ASSERT_EQ(grown.size(), 1u);
  EXPECT_EQ(grown[0]->verdict, Verdict::kRegression) << grown[0]->reason;
  EXPECT_TRUE(site_rows(c, "capture_alloc_bytes", "tiny").empty());
}

// Sites with Python lines on both sides are told apart by them; a side without allocation sites
// (call sites off, an older graphprof) makes one row that is not comparable and nothing fails.
TEST(ProfileGate, AllocationSitesByPythonLineOrNotComparable) {
  auto with_line = [](const char* line) {
    return [line](ProcessProfile& p, std::size_t) {
      for (auto& a : p.sites.graphs[0].capture_alloc_sites) a.python = AllocationPython{line, "same call", {line}};
    };
  };
  const Comparison moved = compare(side(3, with_line("serve.py:10 in main"), serving()), side(3, with_line("serve.py:12 in main"), serving()),
                                   Thresholds{});
  EXPECT_EQ(site_rows(moved, "capture_alloc_bytes", "serve.py:10 in main (").size(), 2u);
  const auto fresh = site_rows(moved, "capture_alloc_bytes", "serve.py:12 in main (");
  ASSERT_EQ(fresh.size(), 2u);
  for (const auto* r : fresh) EXPECT_EQ(r->verdict, Verdict::kRegression);
  const Comparison one_sided = compare(side(3, kNoEdit, serving()), side(3, with_line("serve.py:12 in main"), serving()), Thresholds{});
  EXPECT_EQ(one_sided.outcome, CompareOutcome::kPass) << "matched by the native frame alone";

  auto off = [](ProcessProfile& p, std::size_t) { p.sites.sites_recorded = false; };
  const Comparison c = compare(side(3, off, serving()), side(3, kNoEdit, serving()), Thresholds{});
  const auto rows = site_rows(c, "capture_alloc_bytes");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0]->verdict, Verdict::kNotComparable);
  EXPECT_EQ(c.count(Verdict::kRegression), 0u);
}

// --- the app gate you can leave on: exact figures decide, identities survive edits ---------------

// Every site of the serving loop given what it is apart from its line (file, function, the line's
// text), as a profile analysed where the program's source is readable.
void with_source(ProcessProfile& p, const std::string& function = "serve", int line_shift = 0) {
  auto anchor = [&](SiteSummary& s) {
    s.source_file = "serving_buckets.py";
    s.source_function = function;
    s.source_text = "text of site " + std::to_string(s.id);
    s.where = "serving_buckets.py:" + std::to_string(40 + s.id + line_shift) + " in " + function;
  };
  for (auto& e : p.sites.eager_sites) anchor(e.site);
  for (auto& g : p.sites.graphs)
    for (auto* site : {&g.capture_site, &g.instantiate_site})
      if (*site) anchor(**site);
}

EagerSite* first_launch_site(ProcessProfile& p) {
  for (auto& e : p.sites.eager_sites)
    if (e.kind == "kernel launch" && e.per_step) return &e;
  return nullptr;
}

// A site's launches per step estimated from sampled stacks (1 in 16 taken) moves between runs of
// one program by more than any threshold; where the two sides' sampling intervals overlap it is
// the same, and the exact eager launches per step (unchanged) decide.
TEST(AppGate, SampledSiteEstimatesInsideTheirIntervalsAreTheSame) {
  auto sampled = [](double scale) {
    return [scale](ProcessProfile& p, std::size_t k) {
      EagerSite* e = first_launch_site(p);
      ASSERT_NE(e, nullptr);
      const double f = scale * (k % 2 == 0 ? 0.6 : 1.4);  // 0.6x .. 1.4x the true count, run by run
      e->calls = static_cast<std::size_t>(800 * f);
      e->taken = 50;
      e->per_step = 2.0 * f;
    };
  };
  const Comparison c = compare(side(5, sampled(1.0), serving()), side(5, sampled(1.6), serving()), Thresholds{});
  EXPECT_EQ(c.outcome, CompareOutcome::kPass) << c.outcome_reason;
  bool seen = false;
  for (const auto* r : site_rows(c, "eager_launches_per_step"))
    if (r->reason.find("inside the sampling") != std::string::npos) {
      seen = true;
      EXPECT_EQ(r->verdict, Verdict::kSame);
    }
  EXPECT_TRUE(seen) << "the sampled site's row says why it is the same";
  // Its 1.6x is the sample's: the geomean of eager launches per step holds only the exact rows.
  std::size_t sampled_rows = 0;
  for (const auto* r : site_rows(c, "eager_launches_per_step")) sampled_rows += r->sampled ? 1 : 0;
  EXPECT_GE(sampled_rows, 1u);
  std::size_t sampled_json = 0;  // and compare --json says which rows those are
  const nlohmann::json j = nlohmann::json::parse(render_compare_json(c, compare_exit_code(c.outcome)));
  for (const auto& row : j.at("rows")) sampled_json += row.at("sampled").get<bool>() ? 1 : 0;
  EXPECT_EQ(sampled_json, sampled_rows);
  bool geomean_seen = false;
  for (const auto& g : c.geomeans)
    if (g.metric == "eager_launches_per_step") {
      geomean_seen = true;
      EXPECT_NEAR(g.ratio, 1.0, 1e-9);
    }
  EXPECT_TRUE(geomean_seen);
  // Every call taken (exact), the same move fails.
  auto exact = [](double scale) {
    return [scale](ProcessProfile& p, std::size_t) {
      EagerSite* e = first_launch_site(p);
      e->calls = e->taken = static_cast<std::size_t>(800 * scale);
      e->per_step = 2.0 * scale;
    };
  };
  const Comparison x = compare(side(5, exact(1.0), serving()), side(5, exact(1.6), serving()), Thresholds{});
  EXPECT_EQ(x.outcome, CompareOutcome::kRegression) << x.outcome_reason;
}

// Lines inserted above the loop move every site's line number; matched by file, function and the
// line's text they are the same sites: nothing new, nothing gone, and the row says where it moved.
TEST(AppGate, LinesInsertedAboveTheLoopMoveNoSite) {
  const Comparison c = compare(side(3, [](ProcessProfile& p, std::size_t) { with_source(p); }, serving()),
                               side(3, [](ProcessProfile& p, std::size_t) { with_source(p, "serve", 2); }, serving()), Thresholds{});
  EXPECT_EQ(c.outcome, CompareOutcome::kPass) << c.outcome_reason;
  EXPECT_EQ(c.count(Verdict::kAdded), 0u);
  EXPECT_EQ(c.count(Verdict::kRegression), 0u);
  bool moved = false;
  for (const auto* r : site_rows(c, "eager_launches_per_step"))
    if (r->reason.find("moved: serving_buckets.py:") != std::string::npos) moved = true;
  EXPECT_TRUE(moved);
  // Without the line's text (an older report) the same edit is a new site.
  const Comparison old = compare(side(3, [](ProcessProfile& p, std::size_t) { with_source(p); for (auto& e : p.sites.eager_sites) e.site.source_text.clear(); for (auto& g : p.sites.graphs) for (auto* s : {&g.capture_site, &g.instantiate_site}) if (*s) (*s)->source_text.clear(); }, serving()),
                                 side(3, [](ProcessProfile& p, std::size_t) { with_source(p, "serve", 2); for (auto& e : p.sites.eager_sites) e.site.source_text.clear(); for (auto& g : p.sites.graphs) for (auto* s : {&g.capture_site, &g.instantiate_site}) if (*s) (*s)->source_text.clear(); }, serving()),
                                 Thresholds{});
  EXPECT_NE(old.outcome, CompareOutcome::kPass) << "keyed by file:line, a moved line looked new";
}

// A renamed function: its sites are matched by file and the line's text; its graphs by what they are.
TEST(AppGate, ARenamedFunctionKeepsItsSitesAndGraphs) {
  const Comparison c = compare(side(3, [](ProcessProfile& p, std::size_t) { with_source(p); }, serving()),
                               side(3, [](ProcessProfile& p, std::size_t) { with_source(p, "serve_requests"); }, serving()), Thresholds{});
  EXPECT_EQ(c.outcome, CompareOutcome::kPass) << c.outcome_reason;
  EXPECT_EQ(c.count(Verdict::kAdded), 0u);
  EXPECT_EQ(c.count(Verdict::kRegression), 0u);
}

// The step first: every graph 10 % slower fails on the GPU time per step, naming the graphs; with
// the same node count and with a changed one (cuBLAS picking other kernels adds nodes).
TEST(AppGate, ASlowerStepFailsOnGpuTimePerStepNamingTheGraphs) {
  for (const bool more_nodes : {false, true}) {
    const Comparison c = compare(side(5), side(5, [more_nodes](ProcessProfile& p, std::size_t k) {
      for (auto& g : p.graphs) {
        scale_spans(g, 1.10, k);
        if (more_nodes) g.exec.nodes += 1, g.kernel_sequence.push_back("extra_kernel");
      }
    }), Thresholds{});
    EXPECT_EQ(c.outcome, CompareOutcome::kRegression) << c.outcome_reason;
    const MetricComparison* step = find(c, "gpu_time_per_step");
    ASSERT_NE(step, nullptr);
    EXPECT_EQ(step->verdict, Verdict::kRegression) << step->reason;
    EXPECT_NE(step->reason.find("graphs slower per launch: #1"), std::string::npos) << step->reason;
    const MetricComparison* g1 = find(c, "gpu_time_per_launch", "#1");
    ASSERT_NE(g1, nullptr);
    EXPECT_EQ(g1->verdict, Verdict::kRegression) << g1->reason;
    if (more_nodes) EXPECT_NE(g1->reason.find("the graph changed (5 -> 6 nodes)"), std::string::npos) << g1->reason;
  }
}

// A graph launched once (a warm-up: the default level times launches from the second on) has no
// GPU time; it does not take the step's GPU time away from the graphs that have one.
TEST(AppGate, AGraphLaunchedOnceLeavesTheStepsGpuTime) {
  auto warm_up_graph = [](ProcessProfile& p, std::size_t) {
    p.graphs[1].gpu_span_ns.clear();
    p.graphs[1].launches = 1;
  };
  const Comparison c = compare(side(5, warm_up_graph), side(5, warm_up_graph), Thresholds{});
  const MetricComparison* step = find(c, "gpu_time_per_step");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->verdict, Verdict::kSame) << step->reason;
  ASSERT_TRUE(step->base.has_value());
  EXPECT_EQ(step->base->reps.size(), 5u);
}

// The light default without GPU timing (or an older report): figures neither side has are not
// comparable and gate nothing; the same program twice passes with 3 and with 5 runs a side.
TEST(AppGate, FiguresNeitherSideMeasuredDoNotMakeTheGateUntrusted) {
  auto light = [](ProcessProfile& p, std::size_t) {
    for (auto& g : p.graphs) g.gpu_span_ns.clear();
  };
  for (const std::size_t runs : {3u, 5u}) {
    const Comparison c = compare(side(runs, light), side(runs, light), Thresholds{});
    EXPECT_EQ(c.outcome, CompareOutcome::kPass) << runs << ": " << c.outcome_reason;
    const MetricComparison* g1 = find(c, "gpu_time_per_launch", "#1");
    ASSERT_NE(g1, nullptr);
    EXPECT_EQ(g1->verdict, Verdict::kNotComparable);
    EXPECT_FALSE(g1->rule.gating);
  }
  // One side with GPU time, the other without: still no exit 5.
  const Comparison mixed = compare(side(5, light), side(5), Thresholds{});
  EXPECT_EQ(mixed.outcome, CompareOutcome::kPass) << mixed.outcome_reason;
}

// The light default's GPU time: gl lines (launches timed by CUDA events, src/inject/interpose/launch_timing.cpp)
// joined to the launches by correlation id give each graph a GPU time per launch without CUPTI;
// a line out of range is unreadable, not a figure.
TEST(AppGate, GraphLaunchesTimedByEventsGiveTheLightDefaultAGpuTime) {
  const std::string src = kGateData + "h200/serving_buckets_light/proc-4586.jsonl";
  std::ifstream in(src);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  // Every 4th launch of each exec timed: 10 us, 20 us, ... by exec.
  std::map<std::uint32_t, std::vector<std::uint32_t>> launches;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);)
    if (line.find("\"t\":\"lx\"") != std::string::npos) {
      const json j = json::parse(line);
      for (const auto& co : j["co"]) launches[j["exec"].get<std::uint32_t>()].push_back(co.get<std::uint32_t>());
    }
  ASSERT_FALSE(launches.empty());
  json co = json::array(), ns = json::array();
  std::size_t timed = 0;
  for (const auto& [exec, calls] : launches)
    for (std::size_t i = 0; i < calls.size(); i += 4, ++timed) co.push_back(calls[i]), ns.push_back(10000 * exec);
  const std::string with = text + json{{"t", "gl"}, {"co", co}, {"ns", ns}}.dump() + "\n" +
                           R"({"t":"gl","co":[1],"ns":[18446744073709551615]})" + "\n";
  const auto dir = std::filesystem::temp_directory_path() / ("graphprof-gl-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "proc-4586.jsonl") << with;
  const ProcessProfile p = analyze_process(read_process_records((dir / "proc-4586.jsonl").string()));
  std::filesystem::remove_all(dir);
  std::size_t seen = 0;
  for (const auto& g : p.graphs) {
    if (g.launches == 0) continue;
    ASSERT_FALSE(g.gpu_span_ns.empty()) << "exec " << g.exec.exec_id;
    EXPECT_EQ(g.gpu_span_by_events, g.gpu_span_ns.size());
    EXPECT_EQ(g.gpu_span_ns.front(), 10000.0 * g.exec.exec_id);
    seen += g.gpu_span_ns.size();
  }
  EXPECT_EQ(seen, timed);
  EXPECT_EQ(p.malformed_lines, 1u) << "the out-of-range line";
  const json j = to_json(profile_report(app_run(), std::vector<ProcessProfile>{p}));
  const json& g0 = j["results"][0]["sections"]["profile"]["processes"][0]["graphs"][0];
  EXPECT_EQ(g0["gpu_span_from"], "events");
}

// The compare console names a graph whose label the table cuts, whole, under its row; a share in %
// (coverage) moves in points, as its threshold is given.
TEST(AppGate, TheConsoleNamesACutGraphWholeAndCoverageInPoints) {
  auto long_site = [](ProcessProfile& p, std::size_t k) {
    with_source(p);
    for (auto& g : p.sites.graphs)
      if (g.capture_site) g.capture_site->where = "graphprof_serving_buckets_application.py:46 in capture_all_the_buckets";
    (void)k;
  };
  const Comparison c = compare(side(5, long_site, serving()), side(5, [&](ProcessProfile& p, std::size_t k) {
    long_site(p, k);
    for (auto& g : p.graphs) scale_spans(g, 1.3, k);
    p.eager_launches += 400;
  }, serving()), Thresholds{});
  std::ostringstream out;
  print_compare_console(c, ExitCode::kRegression, out, CompareConsoleOptions{});
  const std::string text = out.str();
  EXPECT_NE(text.find("graph #1/3 graphprof_serving_buckets_application.py:46 in capture_all_the_buckets"), std::string::npos) << text;
  std::ostringstream all;
  CompareConsoleOptions every;
  every.show_all = true;
  print_compare_console(c, ExitCode::kRegression, all, every);
  EXPECT_NE(all.str().find("coverage_kernels              ") , std::string::npos) << all.str();
  EXPECT_NE(all.str().find("+0.0 pts"), std::string::npos) << all.str();
}

// Full names in the compare console: every listed row by allocation site names its site whole
// (the benchmark column holds 30 columns), the site that is gone as well as the new one, and a
// note the column had to cut is on the line under its row in full.
TEST(AppGate, TheConsoleNamesEveryCutAllocationSiteWholeWithItsFullNote) {
  auto line_at = [](const char* where) {
    return [where](ProcessProfile& p, std::size_t) {
      for (auto& a : p.sites.graphs[0].capture_alloc_sites) a.python = AllocationPython{where, "same call", {where}};
    };
  };
  const std::string gone = "graphprof_serving_buckets_application.py:46 in Server.capture_all_the_buckets_at_start";
  const std::string fresh = "graphprof_serving_buckets_application.py:52 in Server.capture_all_the_buckets_at_start";
  const Comparison c = compare(side(3, line_at(gone.c_str()), serving()), side(3, line_at(fresh.c_str()), serving()), Thresholds{});
  std::ostringstream out;
  print_compare_console(c, ExitCode::kRegression, out, CompareConsoleOptions{});
  const std::string text = out.str();
  std::size_t listed = 0;
  for (const auto* r : site_rows(c, "capture_alloc_bytes")) {
    if (r->verdict == Verdict::kSame) continue;
    ++listed;
    const std::string& site = r->params.at("site");
    ASSERT_GT(site.size(), 30u);
    EXPECT_NE(text.find(site), std::string::npos) << site << "\n" << text;
    EXPECT_NE(text.find(r->reason), std::string::npos) << r->reason << "\n" << text;
  }
  EXPECT_EQ(listed, 4u) << "two sites gone, two new:\n" << text;
  for (const std::string& where : {gone, fresh})
    EXPECT_NE(text.find(where + " (at::cuda::setWorkspaceForHandle in libtorch_cuda.so)"), std::string::npos) << text;
}

TEST(ProfilePage, HeadlineTimelineGraphsEagerWorkAndCaptureTrouble) {
  HtmlReportOptions o;
  o.dot_dirs = {kGateData + "h200"};
  const std::string page = render_html_report(side(2), o);
  for (const char* id : {"strip-p1", "stat-coverage-p1", "stat-eager-p1", "chart-timeline-p1", "table-graphs-p1", "graph-svg-0",
                         "table-nodes-0", "chart-eager-p1", "table-copies-p1", "table-syncs-p1", "table-trouble-p1", "table-runs",
                         "id=\"environment\"", "95.2 %", "cudaErrorStreamCaptureInvalidated", "./graph_app --launches 20"})
    EXPECT_NE(page.find(id), std::string::npos) << id;
  EXPECT_EQ(page.find("<script"), std::string::npos);
  EXPECT_EQ(page.find("Suite summary"), std::string::npos) << "not the run page";
}

// The page's memory and start-up ledger per graph and where its allocations were made (the
// serving loop's: bucket 16 captured first, 122.1 MiB before its capture "since start").
TEST(ProfilePage, MemoryLedgerAndAllocationSitesPerGraph) {
  auto line = [](ProcessProfile& p, std::size_t) {
    p.sites.graphs[0].capture_alloc_sites.front().python = AllocationPython{"serve.py:46 in capture", "same call", {}};
  };
  const std::string page = render_html_report(side(1, line, serving()), HtmlReportOptions{});
  for (const char* want : {"id=\"table-ledger-p1\"", "id=\"table-alloc-sites-p1\"", "122.1 MiB (8) since start",
                           "reuses memory of earlier captures (shared pool)", "cublasCreate_v2 in libcublas.so.13",
                           "serve.py:46 in capture (at::cuda::setWorkspaceForHandle in libtorch_cuda.so)",
                           "the same call&#39;s next CUDA call", "native frames only"})
    EXPECT_NE(page.find(want), std::string::npos) << want;
  // A profile without a ledger (the C++ test application's older records) has no such section.
  EXPECT_EQ(render_html_report(side(1), HtmlReportOptions{}).find("table-ledger-p1"), std::string::npos);
}

// The eager chart of a default-level profile (no GPU time for eager work: every site's gpu_ns is 0)
// ranks the call sites by calls and labels them in calls, not as a column of "0 ns" bars.
TEST(ProfilePage, EagerChartWithoutGpuTimeRanksSitesByCalls) {
  const ProcessProfile light = [] {
    for (const auto& e : std::filesystem::directory_iterator(kGateData + "h200/serving_buckets_light"))
      if (e.path().extension() == ".jsonl") return analyze_process(read_process_records(e.path().string()));
    throw std::runtime_error("no records in serving_buckets_light");
  }();
  const std::string page = render_html_report(side(1, kNoEdit, light), HtmlReportOptions{});
  const auto start = page.find("id=\"chart-eager-p1\"");
  ASSERT_NE(start, std::string::npos);
  const std::string chart = page.substr(start, page.find("</svg>", start) - start);
  EXPECT_EQ(chart.find("0 ns"), std::string::npos) << chart;
  EXPECT_NE(chart.find("eager calls (no GPU time recorded) by call site"), std::string::npos) << chart;
  // The values written after the bars, top to bottom: calls, most first.
  std::vector<double> calls;
  for (auto at = chart.find("class=\"gp-value\""); at != std::string::npos; at = chart.find("class=\"gp-value\"", at + 1))
    calls.push_back(std::stod(chart.substr(chart.find('>', at) + 1)));
  ASSERT_GE(calls.size(), 3u) << chart;
  EXPECT_EQ(calls.front(), 48.0) << chart;
  EXPECT_TRUE(std::is_sorted(calls.rbegin(), calls.rend())) << chart;
}

// The call-site test application's records: one broken capture, eager sites that run every step
// (a kernel launch, a copy, a host wait) and one after the last step only ("saves nothing").
const ProcessProfile& call_site_app() {
  static const ProcessProfile p = analyze_process(read_process_records(kGateData + "h200/call_site_app/proc-4180.jsonl"));
  return p;
}

// The lines of the console's "what to fix first" block (up to the empty line after it).
std::vector<std::string> fix_first_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text.substr(text.find("  what to fix first")));
  for (std::string line; std::getline(in, line) && !line.empty();) lines.push_back(line);
  return lines;
}

// "what to fix first" opens the console summary (right after the headline, brief and verbose):
// the broken capture with its fix, then the eager sites of every step, the largest host time per
// step first; the row that runs after the last step only is not in it.
TEST(ProfileConsole, WhatToFixFirstOpensTheSummaryCapturesThenPerStepSites) {
  const Report r = side(1, kNoEdit, call_site_app());
  for (const bool verbose : {false, true}) {
    const std::string text = format_profile_summary(r, verbose);
    const auto block = text.find("  what to fix first\n");
    ASSERT_NE(block, std::string::npos) << text;
    EXPECT_LT(block, text.find("graph coverage")) << text;
    EXPECT_EQ(text.find('\n', text.find("profile: ")) + 2, block) << "the line after the headline (and an empty one)";
    const std::vector<std::string> lines = fix_first_lines(text);
    ASSERT_GE(lines.size(), 5u) << text;
    EXPECT_EQ(lines[1].rfind("  1. broken capture on stream ", 0), 0u) << lines[1];
    EXPECT_EQ(lines[2].rfind("     fix: cudaStreamSynchronize is not allowed while a stream is being captured", 0), 0u) << lines[2];
    std::vector<double> per_step;
    for (const auto& l : lines) {
      EXPECT_EQ(l.find("saves nothing"), std::string::npos) << l;
      const auto at = l.find(" per step, ~");
      if (l.find(". eager ") == std::string::npos || at == std::string::npos) continue;
      const std::string ns = l.substr(at + 12, l.find(" host time per step") - at - 12);
      per_step.push_back(std::stod(ns) * (ns.find("µs") != std::string::npos ? 1e3 : ns.find("ms") != std::string::npos ? 1e6 : 1));
    }
    ASSERT_EQ(per_step.size(), 3u) << text;
    EXPECT_TRUE(std::is_sorted(per_step.rbegin(), per_step.rend())) << text;
    EXPECT_NE(lines[3].find("eager kernel launch every step at eager_scale"), std::string::npos) << lines[3];
  }
}

// A profile without broken captures or eager work in its steps says so in one line.
TEST(ProfileConsole, WhatToFixFirstSaysWhenNothingStandsOut) {
  const Report r = side(1, [](ProcessProfile& p, std::size_t) { p.capture_trouble.clear(); p.sites.eager_sites.clear(); }, call_site_app());
  const std::string text = format_profile_summary(r, false);
  EXPECT_NE(text.find("  what to fix first: nothing stands out (no broken capture, no eager work in every step)"), std::string::npos)
      << text;
}

// The page opens with the same block (before the process's headline strip), linked first in its nav.
TEST(ProfilePage, WhatToFixFirstIsAtTheTop) {
  const std::string page = render_html_report(side(1, kNoEdit, call_site_app()), HtmlReportOptions{});
  const auto block = page.find("<section id=\"fix-first\"><h2>What to fix first</h2>");
  ASSERT_NE(block, std::string::npos);
  EXPECT_LT(block, page.find("id=\"strip-p1\""));
  EXPECT_LT(page.find("<a href=\"#fix-first\">"), page.find("<a href=\"#process-p1\">"));
  const std::string section = page.substr(block, page.find("</section>", block) - block);
  EXPECT_NE(section.find("<li class=\"gp-bad\">broken capture on stream"), std::string::npos) << section;
  EXPECT_NE(section.find("<b>fix:</b> cudaStreamSynchronize is not allowed"), std::string::npos) << section;
  EXPECT_NE(section.find("eager kernel launch every step at eager_scale"), std::string::npos) << section;
  EXPECT_EQ(section.find("saves nothing"), std::string::npos) << section;
}

TEST(ProfileDump, ARenamedDumpIsJoinedByTheGraphIdItCarriesOrByExec) {
  const std::string report_path = ::testing::TempDir() + "profile_gate_join.json";
  write_report(profile_report(app_run(), std::vector<ProcessProfile>{fixture()}), report_path);
  const std::string renamed = ::testing::TempDir() + "renamed.dot";
  std::filesystem::copy_file(kGateData + "h200/p2096-exec3.dot", renamed, std::filesystem::copy_options::overwrite_existing);
  const Report r = read_report(report_path);
  const NodeTimes by_id = node_times_from_report(r, report_path, renamed, "", "", "", top_level_graph_id(load_dot(renamed)));
  EXPECT_EQ(by_id.by_node.size(), 5u);
  const NodeTimes by_exec = node_times_from_report(r, report_path, renamed, "", "", "3");
  EXPECT_EQ(by_exec.by_node.size(), 5u);
  try {
    (void)node_times_from_report(r, report_path, renamed);
    FAIL() << "no result names renamed.dot";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--exec"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace gp
