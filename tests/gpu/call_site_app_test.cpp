// `graphprof profile` names call sites and fills the ledgers exactly, on a GPU, against
// tests/apps/call_site_app.cu: every place that matters there is a function of its own, so the
// expected sites are those functions' names; the memory node's size, the three shapes captured
// from one site, the late capture, the broken capture and the two cudaGraphExecUpdate calls (one
// fails) are known. Exit 77 without a GPU.
#include <gtest/gtest.h>

#include <map>

#include "graphprof/core/report.hpp"
#include "profile_helpers.hpp"

namespace gp {
namespace {

using nlohmann::json;
using namespace profile_test;
namespace fs = std::filesystem;

constexpr int kSteps = 40;
constexpr std::uint64_t kMemNodeBytes = std::uint64_t{3} << 20;
const std::string kApp = "in graphprof_call_site_app";

struct Profiled {
  fs::path out;
  Report report;
  json process() const { return profile_of(report)["processes"][0]; }
};

Profiled profile(const std::string& name, const std::string& extra, const std::string& app_args = "") {
  Profiled p;
  p.out = fresh_dir(name);
  const std::string cmd = kTimeout + GRAPHPROF_BINARY + " profile --trace node --out " + p.out.string() + " " + extra + " -- " +
                          GRAPHPROF_CALL_SITE_APP + " --steps " + std::to_string(kSteps) + " " + app_args + " > " +
                          (p.out / "console.txt").string() + " 2>&1";
  const int rc = shell(cmd);
  if (rc != 0) throw std::runtime_error("graphprof profile exited " + std::to_string(rc) + "\n" + console(p.out));
  p.report = read_report((p.out / "report.json").string());
  return p;
}

// A site by its function ("eager_scale in graphprof_call_site_app"), also where a build with debug
// information names it by its line (function_where, report schema 1.7; `where` before).
std::string where(const json& site) {
  if (!site.is_object()) return "(none)";
  return site.contains("function_where") ? site["function_where"].get<std::string>() : site["where"].get<std::string>();
}

TEST(CallSiteApp, GraphsAreNamedByTheirCaptureSiteAndLedgered) {
  const Profiled run = profile("graphs", "--node-sample all");  // every launch's kernels: the shapes of all three
  const json& proc = run.process();
  ASSERT_EQ(proc["graphs"].size(), 5u) << console(run.out);  // 3 buckets, the memory-node graph, the late one
  EXPECT_TRUE(proc["call_sites_recorded"].get<bool>());
  std::size_t buckets = 0;
  for (const auto& g : proc["graphs"]) {
    const std::string at = where(g["capture_site"]);
    if (at == "capture_bucket " + kApp) {
      ++buckets;
      EXPECT_EQ(g["nodes"], 3);
      EXPECT_EQ(g["memory"]["memory_node_bytes"], 0u);
    } else if (at == "capture_with_memory_node " + kApp) {
      EXPECT_EQ(g["memory"]["memory_nodes"], 1u);
      EXPECT_EQ(g["memory"]["memory_node_bytes"], kMemNodeBytes);
    } else {
      EXPECT_EQ(at, "late_capture " + kApp) << g.dump(1);
    }
    EXPECT_EQ(where(g["instantiate_site"]).substr(0, at.find(' ')), at.substr(0, at.find(' ')));
    EXPECT_TRUE(g["startup"]["capture_ns"].is_number()) << g.dump(1);
  }
  EXPECT_EQ(buckets, 3u);
  // Before the first capture the app allocated its one device buffer (4096 floats); the other
  // captures follow one another with no device allocation between (the memory node's pool grows at
  // that graph's launch: the graph-memory pool's, not counted).
  const json& first = proc["graphs"][0]["memory"];
  EXPECT_EQ(first["before_capture_since"], "start") << first.dump();
  EXPECT_EQ(first["before_capture_alloc_bytes"], 4096u * sizeof(float));
  // ... named by its call site: main's cudaMalloc.
  ASSERT_EQ(first["before_capture_alloc_sites"].size(), 1u) << first.dump(1);
  EXPECT_EQ(where(first["before_capture_alloc_sites"][0]["site"]), "main " + kApp);
  EXPECT_EQ(first["before_capture_alloc_sites"][0]["bytes"], 4096u * sizeof(float));
  EXPECT_EQ(first["before_capture_alloc_sites"][0]["allocations"], 1u);
  for (std::size_t i = 1; i < proc["graphs"].size(); ++i) EXPECT_EQ(proc["graphs"][i]["memory"]["before_capture_alloc_bytes"], 0u) << i;
  // One site, three shapes (grids 1, 4 and 16 blocks).
  ASSERT_EQ(proc["recaptures"].size(), 1u) << proc["recaptures"].dump(1);
  EXPECT_EQ(where(proc["recaptures"][0]["site"]), "capture_bucket " + kApp);
  EXPECT_EQ(proc["recaptures"][0]["graphs"].size(), 3u);
  EXPECT_EQ(proc["recaptures"][0]["shapes"], 3u);
  EXPECT_EQ(proc["recaptures"][0]["traced"], 3u);
  // The step is the 1024 bucket, launched once per step; the late graph came after it began.
  ASSERT_TRUE(proc["step"].is_object());
  EXPECT_EQ(proc["step"]["steps"], kSteps);
  ASSERT_EQ(proc["late_graphs"].size(), 1u);
  EXPECT_EQ(proc["exec_updates"]["calls"], 2u);
  EXPECT_EQ(proc["exec_updates"]["failures"], 1u);
  ASSERT_EQ(proc["capture_trouble"].size(), 1u);
  EXPECT_EQ(where(proc["capture_trouble"][0]["site"]), "broken_capture " + kApp);
  EXPECT_TRUE(proc["memory"]["graph_pool_reserved_high_bytes"].get<std::uint64_t>() >= kMemNodeBytes) << proc["memory"].dump();
  EXPECT_GT(proc["startup"]["graph_making_ns"].get<double>(), 0.0);
  EXPECT_TRUE(proc["startup"]["start_to_first_replay_ns"].is_number());
}

TEST(CallSiteApp, EagerWorkIsGroupedByCallSiteWithCallsPerStep) {
  const Profiled run = profile("eager", "--verbose");  // the table of eager work by site is a --verbose section
  const json& proc = run.process();
  std::map<std::string, const json*> by_where;
  for (const auto& s : proc["eager_sites"]) by_where[where(s["site"])] = &s;
  ASSERT_TRUE(by_where.count("eager_scale " + kApp)) << proc["eager_sites"].dump(1) << console(run.out);
  const json& scale = *by_where["eager_scale " + kApp];
  EXPECT_EQ(scale["kind"], "kernel launch");
  EXPECT_EQ(scale["calls"], 2 * kSteps);
  EXPECT_EQ(scale["stacks"], 2u);  // two launch statements in one function
  // From the first step's launch to the end of the last step's launch: the last step's own calls
  // come after it (78 of 80).
  EXPECT_EQ(scale["calls_in_steps"], 2 * kSteps - 2);
  ASSERT_EQ(scale["kernels"].size(), 1u);
  EXPECT_EQ(scale["kernels"][0]["name"], "k_scale");
  EXPECT_EQ(scale["kernels"][0]["count"], 2 * kSteps);
  EXPECT_GT(scale["gpu_ns"].get<double>(), 0.0);
  ASSERT_TRUE(by_where.count("eager_copy " + kApp));
  EXPECT_EQ((*by_where["eager_copy " + kApp])["kind"], "copy");
  EXPECT_EQ((*by_where["eager_copy " + kApp])["calls"], kSteps);
  ASSERT_TRUE(by_where.count("step_sync " + kApp));
  const json& sync = *by_where["step_sync " + kApp];
  EXPECT_EQ(sync["kind"], "sync");
  EXPECT_EQ(sync["calls"], kSteps);
  EXPECT_EQ(sync["calls_in_steps"], kSteps - 1);
  EXPECT_NE(sync["hint"].get<std::string>().find("host waits"), std::string::npos);
  // The --verbose console's table names them.
  const std::string text = console(run.out);
  EXPECT_NE(text.find("eager work left, by call site"), std::string::npos) << text;
  EXPECT_NE(text.find(scale["site"]["where"].get<std::string>()), std::string::npos) << text;
}

TEST(CallSiteApp, CallSitesCanBeTurnedOff) {
  const Profiled run = profile("off", "--call-sites off");
  const json& proc = run.process();
  EXPECT_FALSE(proc["call_sites_recorded"].get<bool>());
  EXPECT_TRUE(proc["eager_sites"].empty());
  EXPECT_EQ(proc["graphs"].size(), 5u);
  // The memory ledger does not depend on call sites.
  bool node = false;
  for (const auto& g : proc["graphs"]) node = node || g["memory"]["memory_node_bytes"] == kMemNodeBytes;
  EXPECT_TRUE(node);
}

// --step-range step: the app's loop steps are NVTX ranges 'step' (a range 'eager part' nested in
// each): every eager call of a step is inside its range, so the per-step figures are exact — 2
// launches, 1 copy, 1 sync — where the graph rule counts 78 of the 80 launches (1.95).
TEST(CallSiteApp, StepRangeMakesEveryPerStepFigureExact) {
  const Profiled run = profile("step_range", "--step-range step", "--nvtx-step step");
  const json& proc = run.process();
  ASSERT_TRUE(proc["step"].is_object()) << console(run.out);
  EXPECT_EQ(proc["step"]["from"], "nvtx range") << proc["step"].dump() << console(run.out);
  EXPECT_EQ(proc["step"]["range"], "step");
  EXPECT_EQ(proc["step"]["steps"], kSteps);
  EXPECT_EQ(proc["step_range"]["used"], true);
  std::map<std::string, const json*> by_where;
  for (const auto& s : proc["eager_sites"]) by_where[where(s["site"])] = &s;
  ASSERT_TRUE(by_where.count("eager_scale " + kApp)) << proc["eager_sites"].dump(1);
  EXPECT_EQ((*by_where["eager_scale " + kApp])["calls_in_steps"], 2 * kSteps);
  EXPECT_DOUBLE_EQ((*by_where["eager_scale " + kApp])["per_step"].get<double>(), 2.0);
  ASSERT_TRUE(by_where.count("eager_copy " + kApp));
  EXPECT_DOUBLE_EQ((*by_where["eager_copy " + kApp])["per_step"].get<double>(), 1.0);
  ASSERT_TRUE(by_where.count("step_sync " + kApp));
  EXPECT_DOUBLE_EQ((*by_where["step_sync " + kApp])["per_step"].get<double>(), 1.0);
  const std::string text = console(run.out);
  EXPECT_NE(text.find("step = NVTX range 'step' (40 ranges): 2.00 eager kernel launches and 1.00 host waits per step"),
            std::string::npos)
      << text;
}

// A name the program never uses: the graph rule, and the console and report say so.
TEST(CallSiteApp, StepRangeThatNeverOccursFallsBackWithAWarning) {
  const Profiled run = profile("step_range_missing", "--step-range decode", "--nvtx-step step");
  const json& proc = run.process();
  ASSERT_TRUE(proc["step"].is_object()) << console(run.out);
  EXPECT_EQ(proc["step"]["from"], "most-launched graph");
  EXPECT_EQ(proc["step"]["steps"], kSteps);
  EXPECT_EQ(proc["step_range"]["used"], false);
  // The app's own ranges reached graphprof: 40 'step' and 40 'eager part', none named 'decode'.
  EXPECT_EQ(proc["step_range"]["missing"], "the NVTX range 'decode' never occurred (80 ranges of other names)");
  const std::string text = console(run.out);
  EXPECT_NE(text.find("graphprof warning: --step-range decode: the NVTX range 'decode' never occurred"), std::string::npos) << text;
}

}  // namespace
}  // namespace gp
