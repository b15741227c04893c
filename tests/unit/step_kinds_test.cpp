// Steps by kind, the eager steps' shapes, the framework's reasons joined to their code and the
// capture plan (src/profile/step_kinds.cpp), on small record files written here in the injection
// library's line format: a bucketed serving loop whose schedule is known, so every count can be
// checked exactly. The H200 profiles' goldens are in step_kinds_fixture_test.cpp.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "graphprof/core/error.hpp"
#include "graphprof/core/step_kinds.hpp"
#include "graphprof/profile/profile.hpp"
#include "../../src/report/profile_steps_text.hpp"

namespace gp {
namespace {

constexpr std::uint64_t kT0 = 1'700'000'000'000'000'000ull;

// A serving loop: buckets (batch sizes) captured at one site, largest first, then one step per
// request size: a size a bucket holds replays that bucket's graph (a copy in, the launch), a larger
// one (or one the dispatch skips) launches `eager_kernels` kernels; every step then picks a token
// (one eager launch) and synchronises once.
struct Loop {
  std::vector<int> buckets{8, 4};            // graph ids 1, 2, ... in this order; exec ids 11, 12, ...
  std::vector<int> sizes;                    // one step each
  std::vector<int> eager_sizes_at_bucket;    // sizes a bucket holds that run eagerly anyway (the dispatch bug)
  int level = 0;                             // 0: interposed (no kernel records), 2: kernel records
  int eager_kernels = 5;
  bool sync_each_step = true;
  bool sites = true;
  bool nvtx = false;  // an NVTX range "step" around each step (profile --step-range step)
  std::string forward = "forward";  // the eager kernels' function as the Python frame names it
  // A size captured lazily, as CUDA-graph trees do: step `warmup` runs it eagerly (warm-up), the
  // next step captures graph 9 (exec 19) and launches it. -1: none.
  int warmup = -1;
};

struct Writer {
  std::ostringstream s;
  std::uint64_t t = kT0 + 1000;
  std::uint32_t co = 0;
  std::vector<std::uint32_t> argmax_calls, eager_step_calls;
  std::uint32_t api(const std::string& name, std::uint64_t took = 2000, std::uint32_t thread = 7) {
    const std::uint32_t c = ++co;
    s << "{\"t\":\"a\",\"n\":\"" << name << "\",\"cb\":0,\"dr\":0,\"s\":" << t << ",\"e\":" << t + took << ",\"p\":100,\"th\":" << thread
      << ",\"co\":" << c << ",\"r\":0}\n";
    t += took + 500;
    return c;
  }
  void kernel(const std::string& name, int grid, std::uint32_t c, std::uint32_t exec, std::uint64_t ns) {
    s << "{\"t\":\"k\",\"n\":\"" << name << "\",\"s\":" << t << ",\"e\":" << t + ns << ",\"d\":0,\"c\":1,\"st\":7,\"co\":" << c
      << ",\"g\":" << exec << ",\"gn\":0,\"gr\":[" << grid << ",1,1],\"bl\":[128,1,1],\"sh\":0,\"rg\":32}\n";
    t += ns;  // back to back on the GPU
  }
};

std::string records(const Loop& l) {
  Writer w;
  w.s << "{\"t\":\"process\",\"pid\":100,\"ppid\":1,\"ts\":" << kT0 << ",\"level\":" << l.level
      << ",\"sample\":\"all\",\"observed\":\"" << (l.level == 0 ? "interpose" : "cupti") << "\",\"cmdline\":\"python3 serve.py\"}\n";
  // Captures, one site.
  std::vector<std::uint32_t> capture_calls;
  for (std::size_t b = 0; b < l.buckets.size(); ++b) {
    const std::uint32_t graph = static_cast<std::uint32_t>(b + 1), exec = static_cast<std::uint32_t>(11 + b);
    const std::uint32_t begin = w.api("cudaStreamBeginCapture", 1000);
    w.s << "{\"t\":\"capture_begin\",\"stream\":3,\"mode\":0,\"co\":" << begin << ",\"r\":0}\n";
    capture_calls.push_back(begin);
    w.t += 200'000;  // the capture
    const std::uint32_t end = w.api("cudaStreamEndCapture", 1000);
    w.s << "{\"t\":\"capture_end\",\"stream\":3,\"graph\":" << graph << ",\"co\":" << end << ",\"r\":0}\n";
    const std::uint32_t inst = w.api("cudaGraphInstantiateWithFlags", 300'000);
    w.s << "{\"t\":\"exec\",\"exec\":" << exec << ",\"graph\":" << graph << ",\"nodes\":6,\"edges\":5,\"co\":" << inst << ",\"ts\":" << w.t
        << "}\n";
  }
  w.t += 1'000'000;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> launch_of_exec, timed;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (std::size_t idx = 0; idx < l.sizes.size(); ++idx) {
    const int n = l.sizes[idx];
    ranges.emplace_back(w.t, 0);
    int bucket = -1;
    for (std::size_t b = 0; b < l.buckets.size(); ++b)
      if (n <= l.buckets[b] && (bucket < 0 || l.buckets[b] < l.buckets[static_cast<std::size_t>(bucket)])) bucket = static_cast<int>(b);
    for (int e : l.eager_sizes_at_bucket)
      if (e == n) bucket = -1;
    if (l.warmup >= 0 && idx == static_cast<std::size_t>(l.warmup)) bucket = -1;
    if (l.warmup >= 0 && idx == static_cast<std::size_t>(l.warmup) + 1) {
      const std::uint32_t begin = w.api("cudaStreamBeginCapture", 1000);
      w.s << "{\"t\":\"capture_begin\",\"stream\":3,\"mode\":0,\"co\":" << begin << ",\"r\":0}\n";
      w.t += 200'000;
      const std::uint32_t end = w.api("cudaStreamEndCapture", 1000);
      w.s << "{\"t\":\"capture_end\",\"stream\":3,\"graph\":9,\"co\":" << end << ",\"r\":0}\n";
      const std::uint32_t inst = w.api("cudaGraphInstantiateWithFlags", 300'000);
      w.s << "{\"t\":\"exec\",\"exec\":19,\"graph\":9,\"nodes\":6,\"edges\":5,\"co\":" << inst << ",\"ts\":" << w.t << "}\n";
      w.api("cudaMemcpyAsync", 1500);
      const std::uint32_t c = w.api("cudaGraphLaunch", 3000);
      launch_of_exec.emplace_back(19u, c);
      timed.emplace_back(c, 40'000);
    } else if (bucket >= 0) {
      const auto b = static_cast<std::size_t>(bucket);
      w.api("cudaMemcpyAsync", 1500);
      const std::uint32_t c = w.api("cudaGraphLaunch", 3000);
      launch_of_exec.emplace_back(static_cast<std::uint32_t>(11 + b), c);
      timed.emplace_back(c, 40'000 + 10'000 * b);
      if (l.level == 2)
        for (int k = 0; k < l.eager_kernels; ++k) w.kernel("gemm_" + std::to_string(k), l.buckets[b] * 4, c, static_cast<std::uint32_t>(11 + b), 8'000);
    } else {
      for (int k = 0; k < l.eager_kernels; ++k) {
        const std::uint32_t c = w.api("cudaLaunchKernel", 5000);
        w.eager_step_calls.push_back(c);
        if (l.level == 2) w.kernel("gemm_" + std::to_string(k), n * 4, c, 0, 12'000);
      }
    }
    const std::uint32_t pick = w.api("cudaLaunchKernel", 4000);
    w.argmax_calls.push_back(pick);
    if (l.level == 2) w.kernel("argmax", 1, pick, 0, 3'000);
    if (l.sync_each_step) w.api("cudaStreamSynchronize", 60'000);
    ranges.back().second = w.t;
    w.t += 20'000;
  }
  if (l.nvtx) {
    w.s << "{\"t\":\"step_range\",\"name\":\"step\"}\n{\"t\":\"nvtx\",\"r\":[";
    for (std::size_t i = 0; i < ranges.size(); ++i) w.s << (i ? "," : "") << "[" << ranges[i].first << "," << ranges[i].second << "]";
    w.s << "]}\n{\"t\":\"nvtx_end\",\"inits\":1,\"others\":0,\"open\":0}\n";
  }
  for (const auto& [exec, c] : launch_of_exec) w.s << "{\"t\":\"lx\",\"exec\":" << exec << ",\"co\":[" << c << "]}\n";
  if (l.level == 0)
    for (const auto& [c, ns] : timed) w.s << "{\"t\":\"gl\",\"co\":[" << c << "],\"ns\":[" << ns << "]}\n";
  if (l.sites) {
    auto site = [&](int id, const std::string& api, const std::vector<std::string>& py, const std::vector<std::uint32_t>& calls) {
      w.s << "{\"t\":\"site\",\"s\":" << id << ",\"api\":\"" << api << "\",\"n\":[],\"ni\":0,\"py\":[";
      for (std::size_t i = 0; i < py.size(); ++i) w.s << (i ? "," : "") << py[i];
      w.s << "]}\n{\"t\":\"sc\",\"s\":" << id << ",\"co\":[";
      for (std::size_t i = 0; i < calls.size(); ++i) w.s << (i ? "," : "") << calls[i];
      w.s << "]}\n";
    };
    const std::string main_frame = "[\"/app/serve.py\",120,\"main\"]";
    site(1, "cudaStreamBeginCapture", {"[\"/app/serve.py\",40,\"capture\"]", main_frame}, capture_calls);
    site(2, "cudaLaunchKernel", {"[\"/app/serve.py\",20,\"" + l.forward + "\"]", "[\"/app/serve.py\",92,\"serve\"]", main_frame}, w.eager_step_calls);
    site(3, "cudaLaunchKernel", {"[\"/usr/lib/python3/dist-packages/torch/x.py\",5,\"argmax\"]", "[\"/app/serve.py\",97,\"serve\"]", main_frame},
         w.argmax_calls);
  }
  w.s << "{\"t\":\"end\",\"reason\":\"exit\",\"ts\":" << w.t + 1000 << "}\n";
  return w.s.str();
}

ProcessProfile analyze(const Loop& l, const std::vector<FrameworkLogEntry>& log = {}) {
  std::istringstream in(records(l));
  ProcessRecords r = parse_process_records(in, "synthetic");
  r.framework_log = log;
  return analyze_process(r);
}

// 3 sizes above the largest bucket (9, 12, 9) and 5 a bucket holds.
Loop served() {
  Loop l;
  l.sizes = {3, 9, 8, 2, 12, 4, 9, 1};
  return l;
}

// The same at --trace node (kernel records), and a dispatch that runs size 8 eagerly although
// bucket 8 is captured (size 6 still replays it).
Loop dispatch_bug() {
  Loop l;
  l.level = 2;
  l.eager_sizes_at_bucket = {8};
  l.sizes = {3, 9, 8, 2, 12, 4, 9, 1, 8, 6};
  return l;
}

const StepKind* kind_of(const StepKinds& s, const std::vector<std::uint32_t>& graphs) {
  for (const StepKind& k : s.kinds)
    if (k.graphs == graphs) return &k;
  return nullptr;
}

TEST(StepKinds, EveryStepIsCountedAndClassifiedByTheGraphsItLaunched) {
  const ProcessProfile p = analyze(served());
  ASSERT_TRUE(p.step_kinds);
  const StepKinds& s = *p.step_kinds;
  EXPECT_EQ(s.from, "sync");
  EXPECT_EQ(s.delimiter, "cudaStreamSynchronize");
  EXPECT_EQ(s.steps, 8u);
  EXPECT_EQ(s.eager_steps(), 3u);
  ASSERT_NE(kind_of(s, {1}), nullptr);
  ASSERT_NE(kind_of(s, {2}), nullptr);
  EXPECT_EQ(kind_of(s, {1})->steps, 1u);  // size 8
  EXPECT_EQ(kind_of(s, {2})->steps, 4u);  // sizes 3, 2, 4 and 1
  // The strip holds the steps in order.
  std::vector<std::string> order;
  for (const auto& [kind, n] : s.strip)
    for (std::size_t i = 0; i < n; ++i) order.push_back(s.kinds[kind].name());
  EXPECT_EQ(order, (std::vector<std::string>{"graph_2", "eager (no graph)", "graph_1", "graph_2", "eager (no graph)", "graph_2",
                                             "eager (no graph)", "graph_2"}));
}

// The application's code only eager steps run: the outermost frame of their calls' stacks that no
// call of a graph step has (the line that calls the model eagerly, not the model's own line).
TEST(StepKinds, TheEagerStepsAreNamedByTheCodeOnlyTheyRun) {
  const StepKinds s = *analyze(served()).step_kinds;
  EXPECT_EQ(s.eager_where, "serve.py:92 in serve");
  const std::string a = eager_steps_answer(s);
  EXPECT_EQ(a.rfind("3 of 8 steps ran without a graph at serve.py:92 in serve, ", 0), 0u) << a;
  EXPECT_NE(a.find("x the host time of a graph step"), std::string::npos) << a;
  EXPECT_NE(a.find("of the loop's time"), std::string::npos) << a;
  // No kernel records at the default level: no eager GPU time, and the sentence claims none.
  EXPECT_EQ(a.find("GPU"), std::string::npos) << a;
}

// Host time per step: an eager step here is 5 launches of 5 µs (+0.5 µs apart) against a graph
// step's copy and launch; each step's time is its own, from the previous step's sync to its own.
TEST(StepKinds, HostTimePerStepIsTheStepsOwnSpan) {
  const StepKinds s = *analyze(served()).step_kinds;
  const StepKind* eager = s.eager_kind();
  ASSERT_NE(eager, nullptr);
  ASSERT_TRUE(s.graph_step_host_ns);
  // Eager: 5 x 5.5 µs of launches more than the graph step's 2 + 3.5 µs; the rest is the same.
  EXPECT_NEAR(eager->host_ns_median - *s.graph_step_host_ns, 5 * 5500.0 - (2000 + 3500), 1.0);
  double total = 0;
  for (const StepKind& k : s.kinds) total += k.host_ns_total;
  EXPECT_DOUBLE_EQ(total, s.loop_ns);
  EXPECT_DOUBLE_EQ(eager->eager_launches, 6.0);  // its 5 and the token's
  // The graphs' GPU time per step from the CUDA events (gl lines): graph_1 40 µs, graph_2 50 µs.
  EXPECT_DOUBLE_EQ(kind_of(s, {1})->graph_gpu_ns.value_or(0), 40'000.0);
  EXPECT_DOUBLE_EQ(kind_of(s, {2})->graph_gpu_ns.value_or(0), 50'000.0);
  EXPECT_FALSE(kind_of(s, {2})->gpu_ns());  // its eager token pick is not timed at this level
}

TEST(StepKinds, WithoutKernelRecordsTheShapesAreNotRecordedAndSaidSo) {
  const StepKinds s = *analyze(served()).step_kinds;
  ASSERT_EQ(s.clusters.size(), 1u);
  EXPECT_EQ(s.clusters[0].verdict, "not_recorded");
  EXPECT_EQ(s.clusters[0].steps, 3u);
  bool said = false;
  for (const auto& n : s.notes) said = said || n.find("--trace node") != std::string::npos;
  EXPECT_TRUE(said);
}

TEST(StepKinds, KernelRecordsTellLargerShapesFromACapturedOneRunEagerly) {
  const StepKinds s = *analyze(dispatch_bug()).step_kinds;
  EXPECT_EQ(s.steps, 10u);
  EXPECT_EQ(s.eager_steps(), 5u);
  ASSERT_EQ(s.clusters.size(), 2u);
  EXPECT_EQ(s.clusters[0].verdict, "larger_than_graphs");
  EXPECT_EQ(s.clusters[0].graph, 1u);
  EXPECT_TRUE(s.clusters[0].largest);
  EXPECT_EQ(s.clusters[0].steps, 3u);
  EXPECT_EQ(s.clusters[0].shapes, 2u);  // sizes 9 and 12
  EXPECT_EQ(s.clusters[1].verdict, "matches_graph");
  EXPECT_EQ(s.clusters[1].graph, 1u);
  EXPECT_EQ(s.clusters[1].steps, 2u);
  EXPECT_NE(cluster_text(s.clusters[1]).find("match graph_1 but ran eagerly"), std::string::npos) << cluster_text(s.clusters[1]);
  // GPU time: eager steps' kernels (5 x 12 µs + 3 µs) against graph_1's step (its 5 x 8 µs kernels + 3 µs).
  ASSERT_TRUE(s.clusters[1].extra_gpu_ns);
  EXPECT_DOUBLE_EQ(*s.clusters[1].extra_gpu_ns, 5 * 12'000.0 - 5 * 8'000.0);
  // The plan: capture the larger sizes, fix the dispatch for the captured one.
  ASSERT_EQ(s.plan_clusters.size(), 2u);
  EXPECT_EQ(s.plan_clusters[0].verdict, "capture");
  EXPECT_EQ(s.plan_clusters[1].verdict, "fix the dispatch");
  ASSERT_TRUE(s.plan_clusters[0].startup_ns);
  ASSERT_TRUE(s.plan_clusters[0].pays_back_steps);
  ASSERT_TRUE(s.plan_clusters[0].saving_per_1000_steps_ns);
  EXPECT_NEAR(*s.plan_clusters[0].pays_back_steps * *s.plan_clusters[0].saving_per_1000_steps_ns / 1000.0,
              *s.plan_clusters[0].startup_ns, 1.0);
}

TEST(StepKinds, ANewShapeEveryStepIsDynamicShapes) {
  Loop l;
  l.level = 2;
  l.sizes = {2, 9, 10, 3, 11, 12, 13, 4};
  const StepKinds s = *analyze(l).step_kinds;
  ASSERT_EQ(s.clusters.size(), 1u);
  EXPECT_EQ(s.clusters[0].verdict, "varies");
  EXPECT_EQ(s.clusters[0].shapes, 5u);
  EXPECT_EQ(s.plan_clusters[0].verdict, "pad to a bucket");
}

TEST(StepKinds, WithoutACallThatMarksEachStepEagerStepsAreNotClaimed) {
  Loop l = served();
  l.sync_each_step = false;
  const StepKinds s = *analyze(l).step_kinds;
  EXPECT_EQ(s.from, "graph launch");
  EXPECT_EQ(s.steps, 5u);  // the graph launches
  EXPECT_EQ(s.eager_steps(), 0u);
  ASSERT_FALSE(s.notes.empty());
  EXPECT_NE(s.notes[0].find("--step-range"), std::string::npos);
}

// --step-range: the NVTX ranges are the steps, a loop that never synchronises included.
TEST(StepKinds, NvtxRangesAreTheStepsWhereThereAreAny) {
  Loop l = served();
  l.sync_each_step = false;
  l.nvtx = true;
  const StepKinds s = *analyze(l).step_kinds;
  EXPECT_EQ(s.from, "nvtx range");
  EXPECT_EQ(s.steps, 8u);
  EXPECT_EQ(s.eager_steps(), 3u);
  EXPECT_EQ(s.eager_where, "serve.py:92 in serve");
  EXPECT_EQ(steps_cut_text(s), "a step is one NVTX range of --step-range");
}

TEST(StepKinds, AFrameworkReasonIsJoinedToTheCallsOfTheCodeItNames) {
  FrameworkLogEntry e;
  e.pid = 100, e.kind = "skip", e.reason = "mutated inputs (1 instances)", e.file = "/app/serve.py", e.line = 20, e.function = "forward";
  FrameworkLogEntry elsewhere = e;
  elsewhere.file = "/app/other.py";
  const StepKinds s = *analyze(served(), {e, e, elsewhere}).step_kinds;
  ASSERT_EQ(s.reasons.size(), 2u);
  const FrameworkReason& r = s.reasons[0];
  EXPECT_EQ(r.count, 2u);
  EXPECT_EQ(r.sites, (std::vector<std::string>{"serve.py:20 in forward"}));
  EXPECT_EQ(r.steps, 3u);
  EXPECT_DOUBLE_EQ(r.calls_per_step.value_or(0), 15.0 / 8.0);
  EXPECT_TRUE(s.reasons[1].sites.empty());
  EXPECT_NE(reason_text(s.reasons[1]).find("no recorded call was made from that code"), std::string::npos);
}

// PyTorch 2.11 splits an op out of the graph and logs the plain function name and a line inside it
// that no recorded call ran (the compiled code runs instead); Python's frames carry the qualified
// name ("Model.forward"): the reason still explains that function's eager calls.
TEST(StepKinds, AReasonNamingAFunctionJoinsItsQualifiedFrames) {
  Loop l = served();
  l.forward = "Model.forward";
  FrameworkLogEntry e;
  e.pid = 100, e.kind = "partition", e.reason = "cpu ops (aten.add.Tensor)", e.file = "/app/serve.py", e.line = 23, e.function = "forward";
  FrameworkLogEntry other = e;
  other.function = "ward";  // a name that only ends the same way
  const StepKinds s = *analyze(l, {e, other}).step_kinds;
  ASSERT_EQ(s.reasons.size(), 2u);
  EXPECT_EQ(s.reasons[0].sites, (std::vector<std::string>{"serve.py:20 in Model.forward"}));
  EXPECT_EQ(s.reasons[0].steps, 3u);
  EXPECT_TRUE(s.reasons[1].sites.empty());
  EXPECT_EQ(reason_text(s.reasons[0]).rfind("left out of the CUDA graph (a partition run eagerly): cpu ops (aten.add.Tensor)", 0), 0u)
      << reason_text(s.reasons[0]);
}

// The warm-up before a lazy capture (and a step that captures) is start-up, not a fallback: it is
// its own kind, and neither the answer, the eager clusters nor the plan count it.
TEST(StepKinds, AWarmUpBeforeALazyCaptureIsStartUpNotEager) {
  Loop l;
  l.sizes = {3, 2, 6, 6, 9, 4};  // 9: above the largest bucket, a real eager step
  l.warmup = 2;                  // step 2 warms up, step 3 captures graph 9 and launches it
  const StepKinds s = *analyze(l).step_kinds;
  EXPECT_EQ(s.steps, 6u);
  EXPECT_EQ(s.eager_steps(), 1u) << "only the size above the buckets";
  const StepKind* startup = nullptr;
  for (const StepKind& k : s.kinds)
    if (k.startup) startup = &k;
  ASSERT_NE(startup, nullptr);
  EXPECT_EQ(startup->steps, 1u);
  EXPECT_FALSE(startup->eager());
  EXPECT_EQ(startup->name(), "start-up (warm-up, capture)");
  ASSERT_NE(kind_of(s, {9}), nullptr);
  EXPECT_EQ(kind_of(s, {9})->steps, 1u);
  std::size_t clustered = 0;
  for (const EagerCluster& c : s.clusters) clustered += c.steps;
  EXPECT_EQ(clustered, 1u);
  EXPECT_EQ(eager_steps_answer(s).rfind("1 of 6 steps ran without a graph", 0), 0u) << eager_steps_answer(s);
  // The kind survives the report's JSON.
  const StepKinds back = step_kinds_from_json(to_json(s), "step_kinds");
  EXPECT_EQ(back.eager_steps(), 1u);
}

TEST(StepKinds, TheReportKeepsEveryFigure) {
  const Loop l = dispatch_bug();
  FrameworkLogEntry e;
  e.kind = "re-record", e.reason = "a new graph for each new input size: 9 distinct sizes";
  const StepKinds s = *analyze(l, {e}).step_kinds;
  const nlohmann::json j = to_json(s);
  const StepKinds back = step_kinds_from_json(j, "step_kinds");
  EXPECT_EQ(to_json(back), j);
  nlohmann::json bad = j;
  bad["kinds"][0]["steps"] = "many";
  try {
    step_kinds_from_json(bad, "processes[0].step_kinds");
    FAIL() << "a step count that is not a number was read";
  } catch (const Error& x) {
    EXPECT_EQ(x.code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(x.what()).find("processes[0].step_kinds.kinds[0].steps"), std::string::npos) << x.what();
  }
  bad = j;
  bad["strip"][0][0] = 99;  // a kind that is not there
  EXPECT_THROW(step_kinds_from_json(bad, "s"), Error);
  // The process's JSON carries it, and the console reads it back from there.
  const nlohmann::json pj = profile_process_json(analyze(l), 1);
  ASSERT_TRUE(pj["step_kinds"].is_object());
  std::ostringstream out;
  step_kinds_text(out, profile_process_from_json(pj), false);
  EXPECT_NE(out.str().find("steps by kind (10 steps; a step ends at each cudaStreamSynchronize of the loop)"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("capture plan"), std::string::npos) << out.str();
}

}  // namespace
}  // namespace gp
