// `graphprof profile --trace none --observe interpose` against CUPTI at --trace none, on a GPU:
// the serving application built with the shared runtime (tests/apps/serving_app.cu as
// graphprof_serving_app_shared) is observed by interposition, with no CUPTI, and gives the same
// counts as CUPTI gives on the same program (graphs, nodes, edges, launches per graph, graph and
// eager launches, the broken capture); the statically linked build keeps CUPTI and says why.
// Exit 77 without a GPU.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "graphprof/core/report.hpp"
#include "profile_helpers.hpp"

namespace gp {
namespace {

using nlohmann::json;
using namespace profile_test;
namespace fs = std::filesystem;

struct Profiled {
  fs::path out;
  Report report;
  json process() const { return profile_of(report)["processes"][0]; }
};

Profiled profile(const std::string& name, const std::string& app, const std::string& extra, const std::string& args) {
  Profiled p;
  p.out = fresh_dir(name);
  const std::string cmd = kTimeout + GRAPHPROF_BINARY + " profile --trace none --out " + p.out.string() + " " + extra + " -- " +
                          app + " " + args + " > " + (p.out / "console.txt").string() + " 2>&1";
  const int rc = shell(cmd);
  if (rc != 0) throw std::runtime_error("graphprof profile exited " + std::to_string(rc) + "\n" + console(p.out));
  p.report = read_report((p.out / "report.json").string());
  return p;
}

// What must be equal whichever way the process was observed.
json counts(const json& proc) {
  json c;
  c["graph_launches"] = proc["coverage"]["graph_launches"];
  c["eager_launches"] = proc["coverage"]["eager_launches"];
  c["captures_in_trouble"] = proc["capture_trouble"].size();
  for (const auto& g : proc["graphs"])
    c["graphs"].push_back(json{{"nodes", g["nodes"]}, {"edges", g["edges"]}, {"launches", g["launches"]}, {"made_by", g["made_by"]}});
  return c;
}

// `app` built with the shared runtime is interposed at the runtime and driver API; built the nvcc
// way (static runtime) at the driver API alone: `where` is the console's words for it.
void expect_same_counts(const std::string& variant, int steps, const std::string& app = GRAPHPROF_SERVING_APP_SHARED,
                        const std::string& where = "the CUDA runtime and driver API") {
  const std::string args = "--steps " + std::to_string(steps) + " --variant " + variant;
  // --trace none interposes by default (--observe auto).
  const std::string tag = variant + (app == GRAPHPROF_SERVING_APP_SHARED ? "" : "-static");
  const Profiled cupti = profile("cupti-" + tag, app, "--observe cupti", args);
  const Profiled interposed = profile("interposed-" + tag, app, "", args);
  ASSERT_EQ(profile_of(cupti.report)["processes"].size(), 1u) << console(cupti.out);
  ASSERT_EQ(profile_of(interposed.report)["processes"].size(), 1u) << console(interposed.out);
  const json& c = cupti.process();
  const json& i = interposed.process();
  EXPECT_EQ(c["observed_by"], "cupti");
  EXPECT_EQ(i["observed_by"], "interpose") << i["observe_note"] << "\n" << console(interposed.out);
  EXPECT_EQ(i["cupti_at_end"], "unused");
  EXPECT_TRUE(i["errors"].empty()) << i["errors"];
  EXPECT_EQ(counts(i), counts(c)) << "interposed:\n" << counts(i).dump(1) << "\nCUPTI:\n" << counts(c).dump(1);
  // The known shape of the program: four buckets of 14 nodes (13 edges), one launch per step.
  ASSERT_EQ(i["graphs"].size(), 4u) << console(interposed.out);
  EXPECT_EQ(i["coverage"]["graph_launches"], steps);
  for (const auto& g : i["graphs"]) {
    EXPECT_EQ(g["nodes"], 14);
    EXPECT_EQ(g["made_by"], "stream capture");
    EXPECT_GT(g["graph"].get<std::uint32_t>(), 0u);
  }
  // The graph ids are the dumps' (CUPTI's numbering), so a dump joins its row.
  for (std::size_t k = 0; k < 4; ++k) EXPECT_EQ(i["graphs"][k]["graph"], c["graphs"][k]["graph"]) << "graph " << k;
  EXPECT_NE(std::string(console(interposed.out)).find("observed by: interposition at " + where + " (no"), std::string::npos)
      << console(interposed.out);
}

TEST(Interpose, SharedRuntimeAppCountsMatchCupti) {
  expect_same_counts("as-is", 400);
}

TEST(Interpose, BrokenCaptureIsSeenAsByCupti) {
  expect_same_counts("bad-capture", 40);
}

// The default (--trace none, interposed) takes the call sites and the ledgers as CUPTI's
// callbacks do: the same capture site per graph, the same eager sites with the same counts (every
// call's site taken), the same bytes allocated before and in each capture.
json sites_and_ledgers(const json& proc) {
  json s;
  for (const auto& e : proc["eager_sites"])
    s["eager"][e["site"]["where"].get<std::string>() + " / " + e["kind"].get<std::string>()] = e["calls"];
  for (const auto& g : proc["graphs"]) {
    s["capture_sites"].push_back(g["capture_site"].is_object() ? g["capture_site"]["where"] : json());
    s["capture_alloc_bytes"].push_back(g["memory"]["capture_alloc_bytes"]);
    s["before_capture_alloc_bytes"].push_back(g["memory"]["before_capture_alloc_bytes"]);
    s["memory_node_bytes"].push_back(g["memory"]["memory_node_bytes"]);
  }
  return s;
}

TEST(Interpose, CallSitesAndLedgersMatchCupti) {
  const std::string args = "--steps 200 --variant as-is";
  const Profiled cupti = profile("sites-cupti", GRAPHPROF_SERVING_APP_SHARED, "--observe cupti --site-sample all", args);
  const Profiled interposed = profile("sites-interposed", GRAPHPROF_SERVING_APP_SHARED, "--site-sample all", args);
  const json& c = cupti.process();
  const json& i = interposed.process();
  ASSERT_EQ(i["observed_by"], "interpose") << console(interposed.out);
  ASSERT_TRUE(i["call_sites_recorded"].get<bool>()) << console(interposed.out);
  const json a = sites_and_ledgers(i), b = sites_and_ledgers(c);
  EXPECT_FALSE(a["eager"].empty()) << console(interposed.out);
  EXPECT_FALSE(a["capture_sites"][0].is_null()) << console(interposed.out);
  EXPECT_EQ(a, b) << "interposed:\n" << a.dump(1) << "\nCUPTI:\n" << b.dump(1);
}

// The default samples the eager calls' sites after the first ones of each thread: the per-site
// counts are estimates (taken < calls), and the console says so.
TEST(Interpose, TheDefaultSamplesEagerSites) {
  const Profiled p = profile("sites-sampled", GRAPHPROF_SERVING_APP_SHARED, "--verbose", "--steps 2000 --variant as-is");
  const json& proc = p.process();
  ASSERT_EQ(proc["observed_by"], "interpose") << console(p.out);
  std::size_t calls = 0, taken = 0;
  for (const auto& e : proc["eager_sites"]) {
    if (e["kind"] != "kernel launch") continue;
    calls += e["calls"].get<std::size_t>();
    taken += e["taken"].get<std::size_t>();
  }
  EXPECT_LT(taken, calls) << console(p.out);
  EXPECT_GT(taken, 0u);
  // Each sampled launch stands for 16: the estimate is near the exact count (its spread here is
  // about 10 %; 35 % is more than three times that).
  const double eager = proc["coverage"]["eager_launches"].get<double>();
  EXPECT_NEAR(static_cast<double>(calls), eager, 0.35 * eager) << console(p.out);
  EXPECT_NE(console(p.out).find("~ estimated"), std::string::npos) << console(p.out);
}

// --overhead-windows: the windowed runs of the interposed app give windows timed by its graph
// launches (one a request), and the profile run after them is recorded throughout: its counts are
// the program's, exactly. No assertion on the change itself (a timing): benchmark runs report it.
TEST(Interpose, OverheadWindowsTimeTheStepsAndLeaveTheProfileWhole) {
  const int steps = 40000;  // about 1.6 s at 40 us a request: ~20 windows of each kind after the start (20000 gave 6 compared)
  const Profiled p = profile("windows", GRAPHPROF_SERVING_APP_SHARED, "--overhead-windows 1 --window-ms 30",
                             "--steps " + std::to_string(steps));
  const json w = profile_of(p.report)["overhead_windows"];
  ASSERT_TRUE(w.is_object()) << console(p.out);
  EXPECT_EQ(w["period_ms"], 30);
  ASSERT_EQ(w["runs"].size(), 1u);
  const json& run = w["runs"][0];
  EXPECT_EQ(run["status"], 0);
  EXPECT_EQ(run["processes"], 1) << "the interposed process wrote its windows";
  EXPECT_GE(run["compared"].get<int>(), 6) << console(p.out);
  ASSERT_TRUE(w["change"].is_number()) << console(p.out);
  EXPECT_LE(w["low"].get<double>(), w["change"].get<double>());
  EXPECT_GE(w["high"].get<double>(), w["change"].get<double>());
  // The time per launch is a request's: tens of microseconds, not nanoseconds or seconds.
  EXPECT_GT(w["paused_ns_per_launch"].get<double>(), 1e3);
  EXPECT_LT(w["paused_ns_per_launch"].get<double>(), 1e7);
  ASSERT_EQ(profile_of(p.report)["processes"].size(), 1u);
  EXPECT_EQ(p.process()["coverage"]["graph_launches"], steps) << "the profile run is not paused";
  EXPECT_EQ(p.process()["graphs"].size(), 4u);
  EXPECT_NE(console(p.out).find("overhead on the application's own steps:"), std::string::npos) << console(p.out);
  EXPECT_FALSE(fs::exists(p.out / "profile-data" / "windows-run")) << "the windowed runs' records are removed";
}

// A program built the nvcc way calls no shared runtime: it is interposed at the driver API (the
// static runtime reaches the driver through exported cu* symbols and cuGetProcAddress), with
// CUPTI's counts, and the report says where and why.
TEST(Interpose, StaticRuntimeIsInterposedAtTheDriverWithCuptisCounts) {
  expect_same_counts("as-is", 40, GRAPHPROF_SERVING_APP, "the CUDA driver API");
  const Profiled p = profile("static", GRAPHPROF_SERVING_APP, "", "--steps 40");
  const json& proc = p.process();
  EXPECT_EQ(proc["observed_by"], "interpose") << console(p.out);
  EXPECT_EQ(proc["observed_at"], "driver") << console(p.out);
  ASSERT_TRUE(proc["observed_at_why"].is_string()) << console(p.out);
  EXPECT_NE(proc["observed_at_why"].get<std::string>().find("statically linked"), std::string::npos) << proc["observed_at_why"];
  EXPECT_EQ(proc["coverage"]["graph_launches"], 40);
}

TEST(Interpose, StaticRuntimeBrokenCaptureIsSeenAsByCupti) {
  expect_same_counts("bad-capture", 40, GRAPHPROF_SERVING_APP, "the CUDA driver API");
}

}  // namespace
}  // namespace gp
