// Call sites, eager work by call site, the memory and start-up ledgers and re-captures
// (graphprof/profile_sites.hpp) from records of real H200 runs (tests/data/profile/README.md):
// tests/apps/call_site_app.cu, whose sites, shapes and memory node are known, and
// tests/apps/python/serving_buckets.py (three buckets captured into one pool; recorded with Python
// frames read only where the GIL was held, and with the GIL taken for the read). Plus the naming
// rules on hand-made stacks and unreadable site lines.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>

#include "graphprof/profile/profile.hpp"
#include "../../src/profile/site_analysis.hpp"
#include "../../src/profile/site_report.hpp"
#include "graphprof/core/site_sampling.hpp"
#include "../../src/report/profile_sites_text.hpp"
#include "unit_test_helpers.hpp"

namespace gp {
namespace {

const std::string kSitesData = GRAPHPROF_TEST_DATA;
const std::string kSitesApp = "in graphprof_call_site_app";

std::string only_records(const std::string& dir) {
  for (const auto& e : std::filesystem::directory_iterator(kSitesData + "/profile/h200/" + dir))
    if (e.path().filename().string().rfind("proc-", 0) == 0 && e.path().extension() == ".jsonl") return e.path().string();
  throw std::runtime_error("no records in " + dir);
}

const ProcessProfile& call_site_app() {
  static const ProcessProfile p = analyze_process(read_process_records(only_records("call_site_app")));
  return p;
}


TEST(ProfileSites, EachGraphIsNamedByWhereItWasCaptured) {
  const ProcessProfile& p = call_site_app();
  ASSERT_TRUE(p.sites.sites_recorded);
  ASSERT_EQ(p.graphs.size(), 5u);
  ASSERT_EQ(p.sites.graphs.size(), 5u);
  std::map<std::string, int> by_site;
  for (const auto& l : p.sites.graphs) {
    ASSERT_TRUE(l.capture_site.has_value());
    EXPECT_EQ(l.capture_site->from, "native");
    ++by_site[l.capture_site->where];
    ASSERT_TRUE(l.instantiate_site.has_value());
    EXPECT_EQ(l.instantiate_site->where, l.capture_site->where);
  }
  EXPECT_EQ(by_site["capture_bucket " + kSitesApp], 3);
  EXPECT_EQ(by_site["capture_with_memory_node " + kSitesApp], 1);
  EXPECT_EQ(by_site["late_capture " + kSitesApp], 1);
  // One site, three graphs of 3 nodes. Node sampling traced the kernels of the 1024 bucket only (the
  // other two ran once, a warm-up launch, untraced): one shape among the one traced.
  ASSERT_EQ(p.sites.recaptures.size(), 1u);
  EXPECT_EQ(p.sites.recaptures[0].site.where, "capture_bucket " + kSitesApp);
  EXPECT_EQ(p.sites.recaptures[0].graph_ids, (std::vector<std::uint32_t>{1, 4, 7}));
  EXPECT_EQ(p.sites.recaptures[0].traced, 1u);
  EXPECT_EQ(p.sites.recaptures[0].shapes, 1u);
  EXPECT_EQ(p.sites.recaptures[0].nodes, (std::vector<std::size_t>{3, 3, 3}));
  // The full stack keeps the frames: the capture function, then main.
  const auto& stack = p.sites.recaptures[0].site.stack;
  ASSERT_GE(stack.size(), 3u);
  EXPECT_NE(stack[1].find("capture_bucket(CUstream_st*, int)"), std::string::npos) << stack[1];
  EXPECT_NE(stack[2].find("main+0x"), std::string::npos) << stack[2];
}

TEST(ProfileSites, EagerWorkIsCountedPerCallSiteAndStep) {
  const ProcessProfile& p = call_site_app();
  // The two other buckets of its site ran once each (warm-ups): a step is a launch of graph_4 alone.
  ASSERT_EQ(p.sites.step.steps, 40u);
  EXPECT_EQ(p.sites.step.graph_id, 4u);
  EXPECT_EQ(p.sites.step.from, "most-launched graph");
  const EagerSite* scale = test::eager_site_at(p, "eager_scale " + kSitesApp);
  ASSERT_NE(scale, nullptr);
  EXPECT_EQ(scale->kind, "kernel launch");
  EXPECT_EQ(scale->calls, 80u);
  EXPECT_EQ(scale->stacks, 2u);
  // Per step counts calls from the first step's launch to the end of the last step's launch: the
  // last step's own eager calls come after it, so 78 of the 80 (and 39 of the 40 syncs).
  EXPECT_EQ(scale->calls_in_steps, 78u);
  ASSERT_TRUE(scale->per_step.has_value());
  EXPECT_DOUBLE_EQ(*scale->per_step, 78.0 / 40.0);
  ASSERT_EQ(scale->kernels.size(), 1u);
  EXPECT_EQ(scale->kernels[0].name, "k_scale");
  EXPECT_EQ(scale->kernels[0].count, 80u);
  EXPECT_GT(scale->gpu_ns, 0.0);
  EXPECT_NE(scale->hint.find("would remove 2 launches per step"), std::string::npos) << scale->hint;
  const EagerSite* copy = test::eager_site_at(p, "eager_copy " + kSitesApp);
  ASSERT_NE(copy, nullptr);
  EXPECT_EQ(copy->kind, "copy");
  EXPECT_EQ(copy->calls, 40u);
  const EagerSite* sync = test::eager_site_at(p, "step_sync " + kSitesApp);
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(sync->kind, "sync");
  EXPECT_DOUBLE_EQ(sync->per_step.value_or(0), 39.0 / 40.0);
  EXPECT_GT(sync->host_ns, 0.0);
  EXPECT_NE(sync->hint.find("host waits"), std::string::npos) << sync->hint;
}

TEST(ProfileSites, MemoryAndStartUpLedgers) {
  const ProcessProfile& p = call_site_app();
  std::size_t with_node = 0;
  for (std::size_t i = 0; i < p.graphs.size(); ++i) {
    const GraphLedger& l = p.sites.graphs[i];
    if (l.memory_nodes > 0) {
      ++with_node;
      EXPECT_EQ(l.memory_nodes, 1u);
      EXPECT_EQ(l.memory_node_bytes, std::uint64_t{3} << 20);
    }
    EXPECT_FALSE(l.reuses_memory);  // its buffers were allocated before any capture
    ASSERT_TRUE(l.capture_ns.has_value());
    EXPECT_GT(*l.capture_ns, 0.0);
  }
  EXPECT_EQ(with_node, 1u);
  EXPECT_EQ(p.sites.memory_node_bytes, std::uint64_t{3} << 20);
  // Before the first capture the app allocated its one device buffer (kMaxN floats, 16 KiB); every
  // later capture follows another on the same thread with no allocation between (the 32 MiB the
  // driver reserved for the memory node at that graph's first launch, before the late capture, is
  // the graph-memory pool's, not counted here).
  EXPECT_TRUE(p.sites.graphs[0].before_capture_from_start);
  EXPECT_EQ(p.sites.graphs[0].before_capture_alloc_bytes, 4096u * sizeof(float));
  EXPECT_EQ(p.sites.graphs[0].before_capture_allocs, 1u);
  for (std::size_t i = 1; i < p.graphs.size(); ++i) {
    EXPECT_FALSE(p.sites.graphs[i].before_capture_from_start) << i;
    EXPECT_EQ(p.sites.graphs[i].before_capture_alloc_bytes, 0u) << i;
  }
  // Not added to the graph's memory: the process total is the memory node's alone.
  const nlohmann::json j = profile_process_json(p, 1);
  EXPECT_EQ(j["graphs"][0]["memory"]["before_capture_alloc_bytes"], 16384u);
  EXPECT_EQ(j["graphs"][0]["memory"]["before_capture_since"], "start");
  EXPECT_EQ(j["graphs"][1]["memory"]["before_capture_since"], "previous capture");
  EXPECT_EQ(j["memory"]["capture_alloc_bytes"], 0u);
  ASSERT_TRUE(p.sites.graph_pool_reserved_high.has_value());
  EXPECT_GE(*p.sites.graph_pool_reserved_high, std::uint64_t{3} << 20);
  ASSERT_EQ(p.sites.late_graphs.size(), 1u);
  EXPECT_EQ(p.sites.exec_updates.calls, 2u);
  EXPECT_EQ(p.sites.exec_updates.failures, 1u);
  ASSERT_TRUE(p.sites.start_to_first_replay_ns.has_value());
  ASSERT_TRUE(p.sites.cuda_to_first_replay_ns.has_value());
  EXPECT_GT(*p.sites.start_to_first_replay_ns, *p.sites.cuda_to_first_replay_ns);
  EXPECT_GT(p.sites.graph_making_ns, 0.0);
  ASSERT_EQ(p.capture_trouble.size(), 1u);
  ASSERT_TRUE(p.capture_trouble[0].site.has_value());
  EXPECT_EQ(p.capture_trouble[0].site->where, "broken_capture " + kSitesApp);
}

// Three buckets captured at one site into one pool: the first (largest) allocates the pool's
// segments during its capture, the other two reuse them; a step is a launch of any of them.
TEST(ProfileSites, ServingBucketsShareOnePool) {
  const ProcessProfile p = analyze_process(read_process_records(only_records("serving_buckets")));
  ASSERT_EQ(p.graphs.size(), 3u);
  ASSERT_EQ(p.sites.recaptures.size(), 1u);
  EXPECT_EQ(p.sites.recaptures[0].graph_ids.size(), 3u);
  EXPECT_EQ(p.sites.step.from, "graphs captured at one site");
  EXPECT_EQ(p.sites.step.steps, 24u);
  const GraphLedger& first = p.sites.graphs[0];
  EXPECT_EQ(first.capture_alloc_bytes, std::uint64_t{34} << 20);  // the program's memory_reserved grew 36 MiB, 2 of them before BeginCapture
  EXPECT_EQ(first.capture_allocs, 2u);
  ASSERT_TRUE(first.capture_free_delta.has_value());
  EXPECT_DOUBLE_EQ(*first.capture_free_delta, static_cast<double>(std::uint64_t{34} << 20));
  ASSERT_TRUE(first.instantiate_free_delta.has_value());
  EXPECT_DOUBLE_EQ(*first.instantiate_free_delta, static_cast<double>(std::uint64_t{2} << 20));
  EXPECT_FALSE(first.reuses_memory);
  for (std::size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(p.sites.graphs[i].capture_alloc_bytes, 0u);
    EXPECT_TRUE(p.sites.graphs[i].reuses_memory);
  }
  EXPECT_EQ(p.sites.capture_alloc_bytes, std::uint64_t{34} << 20);
  // Before its capture: everything the serving thread allocated since CUDA started (the model's
  // weights, the warm-up's activations, cuBLAS's 64 MiB and 32 MiB workspaces outside PyTorch's pool:
  // 20 + 2 + 2 + 64 + 32 + 2 MiB and two small blocks); the later buckets, nothing since the previous
  // capture. Shown beside what the graph added, never in its totals.
  EXPECT_TRUE(first.before_capture_from_start);
  EXPECT_EQ(first.before_capture_allocs, 8u);
  EXPECT_GE(first.before_capture_alloc_bytes, std::uint64_t{122} << 20);
  EXPECT_LT(first.before_capture_alloc_bytes, std::uint64_t{123} << 20);
  for (std::size_t i = 1; i < 3; ++i) {
    EXPECT_FALSE(p.sites.graphs[i].before_capture_from_start);
    EXPECT_EQ(p.sites.graphs[i].before_capture_alloc_bytes, 0u);
  }
  // Recorded when the library read Python frames only where the thread held the GIL (what
  // --call-sites held does): PyTorch releases it around its operators, so sites are native frames.
  ASSERT_TRUE(first.capture_site.has_value());
  EXPECT_EQ(first.capture_site->from, "native");
  EXPECT_NE(first.capture_site->where.find("libtorch_cuda.so"), std::string::npos) << first.capture_site->where;
}

// torch.compile(mode="reduce-overhead") with three batch sizes (tests/apps/python/compile_dynamic.py
// --steps 4 --shapes 8,16,32 --hidden 512 on the H200; records trimmed to the ledgers by
// tools/trim-profile-records.py): CUDA-graph trees allocate in their warm-up run, before each
// capture, so nothing is allocated in capture. Before the first (empty) graph the thread had
// allocated 44 MiB since the start (the program's memory_reserved: 42 MiB); before the capture of
// shape 8, 158.1 MiB in 6 allocations, 64 + 32 MiB of them matching the program's memory_reserved
// growth across that first call (+96 MiB); shapes 16 and 32 neither (the program saw no change).
TEST(ProfileSites, CudaGraphTreesAllocateBeforeTheirCaptures) {
  const ProcessProfile p = analyze_process(read_process_records(only_records("compile_dynamic")));
  ASSERT_EQ(p.graphs.size(), 4u);
  const std::vector<std::uint64_t> before = {46137344, 165807104, 0, 0};
  const std::vector<std::size_t> allocs = {4, 6, 0, 0};
  for (std::size_t i = 0; i < 4; ++i) {
    const GraphLedger& l = p.sites.graphs[i];
    EXPECT_EQ(l.capture_alloc_bytes, 0u) << i;
    EXPECT_EQ(l.before_capture_alloc_bytes, before[i]) << i;
    EXPECT_EQ(l.before_capture_allocs, allocs[i]) << i;
    EXPECT_EQ(l.before_capture_from_start, i == 0) << i;
    ASSERT_TRUE(l.capture_site.has_value());
    EXPECT_EQ(l.capture_site->where, "compile_dynamic.py:48 in main");
  }
  EXPECT_EQ(p.sites.capture_alloc_bytes, 0u);  // "before capture" is in no total
  // The shapes' graphs are one site's, as the re-captures say, though CUDA-graph trees capture the
  // later shapes through other torch frames: a step is a launch of any of them.
  ASSERT_EQ(p.sites.recaptures.size(), 1u);
  EXPECT_EQ(p.sites.recaptures[0].graph_ids.size(), 4u);
  EXPECT_EQ(p.sites.step.from, "graphs captured at one site");
  std::uint64_t launches = 0;
  std::size_t launched = 0;  // the records are trimmed: two of the graphs keep a launch
  for (const auto& g : p.graphs) {
    launches += g.launches;
    launched += g.launches > 0 ? 1 : 0;
  }
  ASSERT_GE(launched, 2u);
  EXPECT_EQ(p.sites.step.steps, launches);
  EXPECT_EQ(p.sites.step.other_graphs, launched - 1);
}

// The same program recorded with the GIL taken for the read (--call-sites on): captures and
// eager work are named by the program's own lines, the libraries' frames are kept in the stack, the
// synchronising calls (never taken for) by their native frame.
TEST(ProfileSites, PyTorchSitesAreTheProgramsOwnLines) {
  const ProcessProfile p = analyze_process(read_process_records(only_records("serving_buckets_py")));
  ASSERT_EQ(p.graphs.size(), 3u);
  for (const GraphLedger& g : p.sites.graphs) {
    ASSERT_TRUE(g.capture_site.has_value());
    EXPECT_EQ(g.capture_site->where, "serving_buckets.py:46 in capture_buckets");
    EXPECT_EQ(g.capture_site->from, "python");
    ASSERT_TRUE(g.instantiate_site.has_value());
    EXPECT_EQ(g.instantiate_site->where, "serving_buckets.py:46 in capture_buckets");
  }
  // The whole stack: torch's graphs.py above the program's line, the native frames after.
  const std::vector<std::string>& stack = p.sites.graphs[0].capture_site->stack;
  ASSERT_GE(stack.size(), 4u);
  EXPECT_NE(stack[0].find("/torch/cuda/graphs.py:"), std::string::npos) << stack[0];
  EXPECT_NE(stack[2].find("serving_buckets.py:46 in capture_buckets"), std::string::npos) << stack[2];
  ASSERT_EQ(p.sites.recaptures.size(), 1u);
  EXPECT_EQ(p.sites.recaptures[0].site.where, "serving_buckets.py:46 in capture_buckets");
  EXPECT_EQ(p.sites.recaptures[0].graph_ids.size(), 3u);
  EXPECT_EQ(p.sites.graphs[0].capture_alloc_bytes, std::uint64_t{34} << 20);
  std::map<std::string, const EagerSite*> eager;  // "where kind"
  for (const auto& e : p.sites.eager_sites) eager[e.site.where + " " + e.kind] = &e;
  ASSERT_TRUE(eager.count("serving_buckets.py:67 in serve kernel launch"));
  const EagerSite& pick = *eager["serving_buckets.py:67 in serve kernel launch"];  // argmax and sum, every step
  EXPECT_EQ(pick.calls, 48u);
  ASSERT_EQ(pick.kernels.size(), 1u);
  EXPECT_EQ(pick.kernels[0].name, "reduce_kernel");
  ASSERT_TRUE(pick.per_step.has_value());
  EXPECT_NEAR(*pick.per_step, 2.0, 0.1);
  ASSERT_TRUE(eager.count("serving_buckets.py:65 in serve copy"));  // the request copied into its bucket
  EXPECT_EQ(eager["serving_buckets.py:65 in serve copy"]->calls, 24u);
  bool native_sync = false;
  for (const auto& e : p.sites.eager_sites)
    native_sync = native_sync || (e.kind == "sync" && e.site.from == "native" && e.calls == 24);  // .item()'s wait
  EXPECT_TRUE(native_sync);
  ASSERT_TRUE(p.sites.python_frames.has_value());
  EXPECT_EQ(p.sites.python_frames->mode, "on");
  EXPECT_EQ(p.sites.python_frames->held, 0u);
  EXPECT_GT(p.sites.python_frames->taken, 0u);
  EXPECT_FALSE(p.sites.python_frames->stopped);
}

CallSiteRecord stack_of(std::vector<NativeFrameRecord> native, std::vector<PythonFrameRecord> python = {}) {
  CallSiteRecord s;
  s.native = std::move(native);
  s.python = std::move(python);
  return s;
}

TEST(ProfileSites, ASiteIsNamedByItsInnermostApplicationFrame) {
  const NativeFrameRecord cudart{"/usr/lib/libcudart.so.13", 0x100, "cudaLaunchKernel", 4};
  const NativeFrameRecord static_rt{"/app/bin", 0x200, "libcudart_static_4d8b33a1", 8};
  const NativeFrameRecord stub{"/app/bin", 0x300, "__device_stub__Z7k_scalePfif(float*, int, float)", 8};
  const NativeFrameRecord host_stub{"/app/bin", 0x350, "k_scale(float*, int, float)", 8};
  const NativeFrameRecord user{"/app/bin", 0x400, "ns::step(int)", 16};
  EXPECT_EQ(summarize_site(stack_of({cudart, static_rt, stub, host_stub, user}), {"k_scale"}).where, "ns::step in bin");
  // Stripped or unnamed: module + offset; no module (JIT): the address.
  EXPECT_EQ(summarize_site(stack_of({cudart, {"/lib/libx.so", 0x1a2b, "", 0}})).where, "libx.so+0x1a2b");
  EXPECT_EQ(summarize_site(stack_of({cudart, {"/lib/libx.so", 0x1a2b, "", 0}})).from, "module+offset");
  EXPECT_EQ(summarize_site(stack_of({cudart})).from, "unknown");
  // Python: the first frame outside the libraries' trees, else the innermost with a mark.
  const PythonFrameRecord torch_frame{"/venv/lib/python3.12/site-packages/torch/nn/modules/linear.py", 125, "Linear.forward"};
  const PythonFrameRecord mine{"/home/me/serve.py", 57, "step"};
  const SiteSummary py = summarize_site(stack_of({cudart, user}, {torch_frame, mine}));
  EXPECT_EQ(py.where, "serve.py:57 in step");
  EXPECT_EQ(py.from, "python");
  ASSERT_EQ(py.stack.size(), 4u);
  EXPECT_EQ(py.stack[1], "/home/me/serve.py:57 in step");
  EXPECT_EQ(summarize_site(stack_of({cudart}, {torch_frame})).where, "linear.py:125 in Linear.forward (library code)");
}

// Library Python code by path: the libraries' trees, Inductor's output, the standard library and
// generated code; the innermost frame outside them names the site (a PyTorch program's stack).
TEST(ProfileSites, TheUserFrameIsTheInnermostOutsideLibraryPython) {
  const NativeFrameRecord cudart{"/usr/lib/libcudart.so.13", 0x100, "cudaLaunchKernel", 4};
  const std::vector<PythonFrameRecord> stack{
      {"/opt/venv/lib/python3.12/site-packages/torch/nn/modules/linear.py", 125, "Linear.forward"},
      {"/usr/lib/python3/dist-packages/triton/runtime/jit.py", 300, "JITFunction.run"},
      {"/tmp/torchinductor_me/ab/cabc.py", 40, "call"},
      {"<eval_with_key>.3", 9, "forward"},
      {"<frozen runpy>", 88, "_run_code"},
      {"/usr/lib64/python3.12/contextlib.py", 137, "_GeneratorContextManager.__enter__"},
      {"/home/me/torch_src/torch/cuda/graphs.py", 180, "graph.__enter__"},
      {"/home/me/app/serve.py", 57, "Server.step"},
      {"/home/me/app/main.py", 9, "<module>"}};
  const SiteSummary s = summarize_site(stack_of({cudart}, stack));
  EXPECT_EQ(s.where, "serve.py:57 in Server.step");
  EXPECT_EQ(s.from, "python");
  ASSERT_EQ(s.stack.size(), stack.size() + 1);  // every Python frame, full paths, then the native one
  EXPECT_EQ(s.stack[7], "/home/me/app/serve.py:57 in Server.step");
  // A stack of library code only is named by its innermost frame, marked.
  const SiteSummary lib = summarize_site(stack_of({cudart}, {stack[5], stack[4]}));
  EXPECT_EQ(lib.where, "contextlib.py:137 in _GeneratorContextManager.__enter__ (library code)");
}

// The `sections.profile` of a report of one process of "x.py" made from hand-made records.
nlohmann::json python_profile_of(const ProcessRecords& r) {
  ProfileRun run;
  run.program = "x.py";
  return to_json(*profile_report(run, {analyze_process(r)}).results.at(0).sections.profile);
}

// The `py` line (how the Python stacks were read) and the `site_cost` line reach the report and
// the console; an older library's records without them give null.
TEST(ProfileSites, PythonFramesLineReachesTheReport) {
  std::istringstream in(
      "{\"t\":\"process\",\"pid\":1,\"ppid\":0,\"ts\":10,\"level\":2,\"cmdline\":\"python3 x.py\"}\n"
      "{\"t\":\"py\",\"mode\":\"on\",\"held\":3,\"taken\":250,\"wait_ns\":41000,\"slow\":16,\"stopped\":1,\"can_take\":1}\n"
      "{\"t\":\"site_cost\",\"calls\":253,\"ns\":1265000,\"new\":7,\"new_ns\":290000000,\"full_unwinds\":12}\n");
  const ProcessRecords r = parse_process_records(in, "hand-made");
  EXPECT_EQ(r.malformed_lines, 0u);
  ASSERT_TRUE(r.sites.python_frames.has_value());
  EXPECT_EQ(r.sites.python_frames->taken, 250u);
  EXPECT_TRUE(r.sites.python_frames->stopped);
  const nlohmann::json j = python_profile_of(r);
  const nlohmann::json& py = j["processes"][0]["python_frames"];
  EXPECT_EQ(py["mode"], "on");
  EXPECT_EQ(py["held"], 3);
  EXPECT_EQ(py["wait_ns"], 41000);
  EXPECT_EQ(j["processes"][0]["call_site_cost"]["calls"], 253);
  EXPECT_EQ(j["processes"][0]["call_site_cost"]["full_unwinds"], 12);
  EXPECT_EQ(j["processes"][0]["call_site_cost"]["new_sites"], 7);
  // The console says so without --verbose only when taking the GIL stopped.
  std::ostringstream brief, verbose;
  call_site_notes_text(brief, profile_process_from_json(j["processes"][0]), false);
  EXPECT_NE(brief.str().find("taking the GIL stopped after 16 waits over 1 ms"), std::string::npos) << brief.str();
  call_site_notes_text(verbose, profile_process_from_json(j["processes"][0]), true);
  EXPECT_NE(verbose.str().find("3 calls read where the thread held the GIL, 250 where it was taken"), std::string::npos)
      << verbose.str();
  EXPECT_NE(verbose.str().find("253 calls from known sites, 5.00 µs each in the CUDA callback; 7 new sites, 290 ms in all"),
            std::string::npos)
      << verbose.str();
  std::istringstream old("{\"t\":\"process\",\"pid\":1,\"ppid\":0,\"ts\":10,\"level\":2,\"cmdline\":\"x\"}\n");
  const nlohmann::json none = python_profile_of(parse_process_records(old, "old"));
  EXPECT_TRUE(none["processes"][0]["python_frames"].is_null());
  EXPECT_TRUE(none["processes"][0]["call_site_cost"].is_null());
}

// New sites named on the injection library's own thread (site_cost's named, named_ns): the report
// keeps both times apart and the verbose console says which thread spent which.
TEST(ProfileSites, SitesNamedOffTheApplicationsThreadsAreReportedApart) {
  std::istringstream in(
      "{\"t\":\"process\",\"pid\":1,\"ppid\":0,\"ts\":10,\"level\":0,\"cmdline\":\"python3 x.py\"}\n"
      "{\"t\":\"site_cost\",\"calls\":881,\"ns\":4723866,\"new\":46,\"new_ns\":4006951,\"full_unwinds\":44,"
      "\"skipped\":35118,\"first\":256,\"every\":16,\"every_max\":1024,\"named\":46,\"named_ns\":560434819}\n");
  const ProcessRecords r = parse_process_records(in, "hand-made");
  EXPECT_EQ(r.malformed_lines, 0u);
  ASSERT_TRUE(r.sites.site_cost.has_value());
  EXPECT_EQ(r.sites.site_cost->named, 46u);
  const nlohmann::json j = python_profile_of(r);
  const nlohmann::json& c = j["processes"][0]["call_site_cost"];
  EXPECT_EQ(c["named_off_thread"], 46);
  EXPECT_EQ(c["naming_ns"], 560434819);
  EXPECT_EQ(c["new_sites_ns"], 4006951);
  std::ostringstream verbose;
  call_site_notes_text(verbose, profile_process_from_json(j["processes"][0]), true);
  EXPECT_NE(verbose.str().find("46 new sites, 4.01 ms in all to take them, 560 ms to name them on graphprof's own thread"),
            std::string::npos)
      << verbose.str();
}

TEST(ProfileSites, UnreadableSiteLinesAreCountedNotFatal) {
  std::istringstream in(
      "{\"t\":\"process\",\"pid\":1,\"ppid\":0,\"ts\":10,\"level\":2,\"cmdline\":\"x\"}\n"
      "{\"t\":\"site\",\"s\":0,\"api\":\"cudaLaunchKernel\",\"n\":[[\"/a\",\"0x10\",\"f\",1]],\"ni\":2}\n"
      "{\"t\":\"site\",\"s\":1,\"api\":\"cudaLaunchKernel\",\"n\":[[\"/a\",\"16\",\"f\",1]],\"ni\":2}\n"
      "{\"t\":\"site\",\"s\":2,\"api\":\"cudaLaunchKernel\",\"n\":[[\"/a\",\"0x10\"]],\"ni\":2}\n"
      "{\"t\":\"sc\",\"s\":0,\"co\":[5,6,-1]}\n"
      "{\"t\":\"sc\",\"s\":0,\"co\":[7,8]}\n"
      "{\"t\":\"mem\",\"at\":\"capture_begin\",\"co\":3,\"ts\":20,\"free\":-5}\n"
      // The naming thread's counts: negative, a string, past 64 bits.
      "{\"t\":\"site_cost\",\"calls\":1,\"ns\":1,\"new\":1,\"new_ns\":1,\"full_unwinds\":1,\"named\":-1,\"named_ns\":5}\n"
      "{\"t\":\"site_cost\",\"calls\":1,\"ns\":1,\"new\":1,\"new_ns\":1,\"full_unwinds\":1,\"named\":1,\"named_ns\":\"5\"}\n"
      "{\"t\":\"site_cost\",\"calls\":1,\"ns\":1,\"new\":1,\"new_ns\":1,\"full_unwinds\":1,\"named\":1,"
      "\"named_ns\":1e30}\n"
      // A site written in a signal handler at exit: bare addresses, no module, no function.
      "{\"t\":\"site\",\"s\":3,\"api\":\"cudaLaunchKernel\",\"n\":[[\"\",\"0x7f0012345678\",\"\",0]],\"ni\":0}\n");
  const ProcessRecords r = parse_process_records(in, "hand-made");
  EXPECT_EQ(r.malformed_lines, 7u);
  EXPECT_FALSE(r.sites.site_cost.has_value()) << "no site_cost line was readable";
  ASSERT_EQ(r.sites.sites.size(), 2u);
  EXPECT_EQ(r.sites.sites[0].native[0].offset, 0x10u);
  EXPECT_EQ(r.sites.sites[1].native[0].offset, 0x7f0012345678u) << "a bare address is kept as it is";
  const SiteSummary bare = summarize_site(r.sites.sites[1]);
  EXPECT_NE(bare.where.find("0x7f0012345678"), std::string::npos) << "named by its address: " << bare.where;
  EXPECT_NO_THROW((void)analyze_process(r));
  EXPECT_EQ(r.sites.site_of_call.size(), 2u);  // 7 and 8 (the line with -1 is unreadable)
}


// The allocations in and before each capture are named by the call sites of their allocation calls
// (the library takes a site at cudaMalloc*, cuMemAlloc and cuMemCreate, never taking the GIL
// there): the H200 records of the test application, whose one cudaMalloc (4096 floats, in main)
// comes before its first capture, and whose memory-node graph's cudaMallocAsync is a node, not an
// allocation.
TEST(ProfileSites, AllocationsBeforeACaptureAreNamedByTheirCallSite) {
  const ProcessProfile p = analyze_process(read_process_records(only_records("call_site_app_alloc")));
  ASSERT_EQ(p.sites.graphs.size(), 5u);
  const GraphLedger& first = p.sites.graphs[0];
  ASSERT_EQ(first.before_capture_alloc_sites.size(), 1u);
  EXPECT_EQ(first.before_capture_alloc_sites[0].site.where, "main " + kSitesApp);
  EXPECT_EQ(first.before_capture_alloc_sites[0].bytes, 4096u * sizeof(float));
  EXPECT_EQ(first.before_capture_alloc_sites[0].allocations, 1u);
  for (std::size_t i = 0; i < p.sites.graphs.size(); ++i) {
    EXPECT_TRUE(p.sites.graphs[i].capture_alloc_sites.empty()) << i;
    if (i > 0) EXPECT_TRUE(p.sites.graphs[i].before_capture_alloc_sites.empty()) << i;
  }
  for (const auto& e : p.sites.eager_sites) EXPECT_EQ(e.api.find("Malloc"), std::string::npos) << "an allocation is no eager work";

  const nlohmann::json j = profile_process_json(p, 1);
  const auto& sites = j["graphs"][0]["memory"]["before_capture_alloc_sites"];
  ASSERT_EQ(sites.size(), 1u);
  EXPECT_EQ(sites[0]["site"]["where"], "main " + kSitesApp);
  EXPECT_EQ(sites[0]["bytes"], 16384u);
  EXPECT_TRUE(j["graphs"][0]["memory"]["capture_alloc_sites"].empty());
  std::ostringstream text;
  ledgers_text(text, profile_process_from_json(j));
  const std::string t = text.str();
  const std::size_t table = t.find("allocated at (the call sites");
  ASSERT_NE(table, std::string::npos) << t;
  const std::size_t row = t.find("main " + kSitesApp, table);
  ASSERT_NE(row, std::string::npos) << t;
  const std::string line = t.substr(t.rfind('\n', row) + 1, t.find('\n', row) - t.rfind('\n', row) - 1);
  for (const char* want : {"graph_1", "before capture", "16 KiB (1)"}) EXPECT_NE(line.find(want), std::string::npos) << want << ": " << line;

  // Records of a library that took no allocation sites: no table.
  std::ostringstream old;
  ledgers_text(old, profile_process_from_json(profile_process_json(call_site_app(), 1)));
  EXPECT_EQ(old.str().find("allocated at"), std::string::npos) << old.str();
}

// The PyTorch serving loop on the H200 (bucket 16 captured first into the shared pool): what its
// capture added, and the 122 MiB its thread allocated before it, by call site. The program printed
// memory_reserved 56 MiB before that capture: PyTorch's pool holds 58 MiB of what came before
// (22 + 4 MiB of tensors, a 32 MiB cuBLAS workspace; 2 MiB after the print), and 64.1 MiB are
// cuBLAS's own, allocated by cublasCreate outside the pool. In the capture: a second 32 MiB cuBLAS
// workspace (the capture stream's) and a 2 MiB segment.
TEST(ProfileSites, PyTorchAllocationsAreNamedByTheOperationThatAskedForThem) {
  const ProcessProfile p = analyze_process(read_process_records(only_records("serving_buckets_alloc")));
  ASSERT_EQ(p.sites.graphs.size(), 3u);
  auto mib = [](std::uint64_t b) { return static_cast<double>(b) / (1 << 20); };
  const GraphLedger& first = p.sites.graphs[0];
  EXPECT_EQ(first.before_capture_allocs, 8u);
  std::map<std::string, std::pair<double, std::size_t>> before, in_capture;
  for (const auto& a : first.before_capture_alloc_sites) before[a.site.where] = {mib(a.bytes), a.allocations};
  for (const auto& a : first.capture_alloc_sites) in_capture[a.site.where] = {mib(a.bytes), a.allocations};
  ASSERT_EQ(before.size(), 4u);
  EXPECT_NEAR(before["cublasCreate_v2 in libcublas.so.13"].first, 64.1, 0.05) << "a stripped library: named by its entry point";
  EXPECT_EQ(before["cublasCreate_v2 in libcublas.so.13"].second, 3u);
  EXPECT_EQ(before["at::cuda::setWorkspaceForHandle in libtorch_cuda.so"], std::make_pair(32.0, std::size_t{1}));
  EXPECT_EQ(before["at::detail::empty_strided_cuda in libtorch_cuda.so"], std::make_pair(22.0, std::size_t{2}));
  EXPECT_EQ(before["at::detail::empty_cuda in libtorch_cuda.so"], std::make_pair(4.0, std::size_t{2}));
  EXPECT_EQ(first.before_capture_alloc_sites.front().site.where, "cublasCreate_v2 in libcublas.so.13") << "most bytes first";
  ASSERT_EQ(in_capture.size(), 2u);
  EXPECT_EQ(in_capture["at::cuda::setWorkspaceForHandle in libtorch_cuda.so"], std::make_pair(32.0, std::size_t{1}));
  EXPECT_EQ(in_capture["at::detail::empty_cuda in libtorch_cuda.so"], std::make_pair(2.0, std::size_t{1}));
  for (std::size_t i = 1; i < p.sites.graphs.size(); ++i) {
    EXPECT_TRUE(p.sites.graphs[i].capture_alloc_sites.empty()) << i;
    EXPECT_TRUE(p.sites.graphs[i].before_capture_alloc_sites.empty()) << i;
  }
}

// An `ap` line (src/inject/common/alloc_python.hpp) gives an allocation made with the GIL released the
// Python stack of a later call inside the same call from Python: here the first 20 MiB tensor of
// the serving loop's records is joined to the copy that followed it (site 1, `model.cuda()`'s).
// Its row is then its own, named by the program's line beside the ATen function; the other
// allocation of that native site keeps native frames only. That line also carries what it is
// apart from its number (file, function, its text), read from the program (here a stand-in at the
// records' path for it), by which compare matches the site across edits.
TEST(ProfileSites, AnAllocationWithThePythonStackOfItsCallIsARowOfItsOwn) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "gp_alloc_python_test";
  std::filesystem::create_directories(dir);
  const std::filesystem::path file = dir / "proc-14855.jsonl";
  const std::string program = (dir / "serving_buckets.py").string();
  {
    std::ifstream in(only_records("serving_buckets_alloc"), std::ios::binary);
    std::string records((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string recorded = "/work/main/tests/apps/python/serving_buckets.py";
    for (std::size_t at = records.find(recorded); at != std::string::npos; at = records.find(recorded, at + program.size()))
      records.replace(at, recorded.size(), program);
    std::ofstream(file, std::ios::binary) << records << "{\"t\":\"ap\",\"s\":1,\"k\":5,\"co\":[2]}\n";
    std::ofstream py(program);
    for (int i = 1; i < 30; ++i) py << "# line " << i << "\n";
    py << "    model = Model(hidden).cuda().half()\n";
  }
  const ProcessRecords records = read_process_records(file.string());
  const ProcessProfile p = analyze_process(records);
  std::filesystem::remove_all(dir);
  const CallSiteRecord* copy = nullptr;
  for (const auto& site : records.sites.sites)
    if (site.id == 1) copy = &site;
  ASSERT_NE(copy, nullptr);
  const std::string line = summarize_site(*copy).where;
  ASSERT_NE(line.find(".py:"), std::string::npos) << line;
  const GraphLedger& first = p.sites.graphs[0];
  const AllocationSite* joined = nullptr;
  const AllocationSite* native = nullptr;
  for (const auto& a : first.before_capture_alloc_sites)
    if (a.site.where == "at::detail::empty_strided_cuda in libtorch_cuda.so") (a.python ? joined : native) = &a;
  ASSERT_NE(joined, nullptr);
  ASSERT_NE(native, nullptr);
  EXPECT_EQ(joined->python->where, line);
  EXPECT_EQ(joined->python->from, "same call");
  EXPECT_EQ(joined->python->source_file, "serving_buckets.py");
  EXPECT_EQ(joined->python->source_function, "build_model");
  EXPECT_EQ(joined->python->source_text, "model = Model(hidden).cuda().half()");
  EXPECT_FALSE(joined->python->stack.empty());
  EXPECT_EQ(joined->bytes, 20u << 20);
  EXPECT_EQ(native->bytes, 2u << 20);
  EXPECT_EQ(first.before_capture_alloc_sites.size(), 5u);

  const nlohmann::json j = profile_process_json(p, 1);
  bool found = false;
  for (const auto& a : j["graphs"][0]["memory"]["before_capture_alloc_sites"])
    if (!a["python"].is_null()) {
      found = true;
      EXPECT_EQ(a["python"]["where"], line);
      EXPECT_EQ(a["python"]["from"], "same call");
      EXPECT_EQ(a["python"]["source"], (nlohmann::json{{"file", "serving_buckets.py"},
                                                       {"function", "build_model"},
                                                       {"text", "model = Model(hidden).cuda().half()"}}));
      EXPECT_EQ(a["site"]["where"], "at::detail::empty_strided_cuda in libtorch_cuda.so");
    }
  EXPECT_TRUE(found);
  std::ostringstream text;
  ledgers_text(text, profile_process_from_json(j));
  EXPECT_NE(text.str().find(line + " (at::detail::empty_strided_cuda in libtorch_cuda.so)"), std::string::npos) << text.str();
}

// The serving loop on the H200, interposed (the default observer), from a library that joins an
// allocation to the next call inside the same call from Python (`ap` lines): the model's
// `.cuda()` (line 30: its weights, 22 MiB in 2 segments) and the warm-up's `torch.zeros` (line 40)
// are named by the program's lines beside the ATen function; the allocations of `model(...)`,
// whose next call inside the same operator is cuBLAS's launch (not interposed), keep native
// frames only; no site is named by the interposer's own frames.
TEST(ProfileSites, PyTorchAllocationsAreNamedByTheProgramsLine) {
  const ProcessProfile p = analyze_process(read_process_records(only_records("serving_buckets_ap")));
  ASSERT_EQ(p.sites.graphs.size(), 3u);
  const GraphLedger& first = p.sites.graphs[0];
  std::map<std::string, std::pair<std::uint64_t, std::string>> by_line;
  std::size_t native_only = 0;
  for (const auto* sites : {&first.before_capture_alloc_sites, &first.capture_alloc_sites})
    for (const auto& a : *sites) {
      EXPECT_EQ(a.site.where.find("interpose"), std::string::npos) << a.site.where;
      if (a.python) by_line[a.python->where] = {a.bytes, a.python->from + " " + a.site.where};
      else ++native_only;
    }
  ASSERT_EQ(by_line.size(), 2u);
  EXPECT_EQ(by_line["serving_buckets.py:30 in build_model"].first, 22u << 20);
  EXPECT_EQ(by_line["serving_buckets.py:30 in build_model"].second, "same call at::detail::empty_strided_cuda in libtorch_cuda.so");
  EXPECT_EQ(by_line["serving_buckets.py:40 in capture_buckets"].first, 2u << 20);
  EXPECT_EQ(by_line["serving_buckets.py:40 in capture_buckets"].second.rfind("same call at::detail::empty", 0), 0u);
  EXPECT_GE(native_only, 2u);
}

TEST(ProfileSites, AnAllocationIsNamedByTheCallerOfItsAllocator) {
  CallSiteRecord s;
  s.api = "cudaMalloc";
  s.native = {NativeFrameRecord{"/usr/lib/libcudart.so.13", 0x10, "cudaMalloc", 0, {}},
              NativeFrameRecord{"/t/lib/libc10_cuda.so", 0x20, "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(int, unsigned long, CUstream_st*)", 0, {}},
              NativeFrameRecord{"/t/lib/libtorch_cuda.so", 0x30, "at::detail::empty_cuda(c10::ArrayRef<long>)", 0, {}}};
  EXPECT_EQ(summarize_site(s).where, "at::detail::empty_cuda in libtorch_cuda.so");
  // Interposed (--observe interpose): the interposer's own frames lead into the call.
  CallSiteRecord interposed = s;
  interposed.native.front() = NativeFrameRecord{"/opt/graphprof/libgraphprof_interpose.so", 0x40,
                                                "bool gp::interposer::forward_after<int (*)(void**, unsigned long), void**, unsigned long>(...)", 0, {}};
  EXPECT_EQ(summarize_site(interposed).where, "at::detail::empty_cuda in libtorch_cuda.so");
  s.api = "cudaLaunchKernel";  // other calls keep their innermost frame
  EXPECT_EQ(summarize_site(s).where, "c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc in libc10_cuda.so");
}

// --site-sample: a call whose site was taken at random stands for `w` calls. The call-site app's
// records with every other call of each site kept and marked as standing for two: the counts are
// estimated from the taken calls (exact in expectation), the console marks them with ~ and says how.
TEST(ProfileSites, SampledCallSitesStandForTheirWeight) {
  std::ifstream in(only_records("call_site_app"));
  std::ostringstream sampled;
  std::size_t kept = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("{\"t\":\"sc\",", 0) != 0) {
      sampled << line << "\n";
      continue;
    }
    const nlohmann::json j = nlohmann::json::parse(line);
    nlohmann::json half = nlohmann::json::array();
    const auto& co = j.at("co");
    for (std::size_t i = 0; i < co.size(); i += 2) half.push_back(co[i]);
    kept += half.size();
    sampled << nlohmann::json{{"t", "sc"}, {"s", j.at("s")}, {"w", 2}, {"co", half}}.dump() << "\n";
  }
  ASSERT_GT(kept, 0u);
  std::istringstream records(sampled.str());
  const ProcessProfile p = analyze_process(parse_process_records(records, "sampled"));
  const EagerSite* scale = test::eager_site_at(p, "eager_scale " + kSitesApp);
  ASSERT_NE(scale, nullptr);
  EXPECT_LT(scale->taken, 80u);
  EXPECT_EQ(scale->calls, 2 * scale->taken);
  EXPECT_NEAR(static_cast<double>(scale->calls), 80.0, 2.0);
  ASSERT_EQ(scale->kernels.size(), 1u);
  EXPECT_EQ(scale->kernels[0].count, scale->calls) << "kernels are counted with the weight too";
  const EagerSite* exact = test::eager_site_at(call_site_app(), "eager_scale " + kSitesApp);
  ASSERT_NE(exact, nullptr);
  EXPECT_EQ(exact->taken, exact->calls) << "records without w: every call stands for itself";

  std::ostringstream text;
  ProfileProcess members;
  add_sites(members, p);  // the process's report members the console reads
  nlohmann::json report = to_json(members);
  report["trace_level"] = "node";
  report["call_site_cost"] = {{"sample_first", 256}, {"sample_every", 2}};
  eager_sites_text(text, profile_process_from_json(report));
  EXPECT_NE(text.str().find("~" + std::to_string(scale->calls)), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("1 call in 2 at random"), std::string::npos) << text.str();
  report["call_site_cost"]["sample_every_max"] = 64;
  std::ostringstream rarer;
  eager_sites_text(rarer, profile_process_from_json(report));
  EXPECT_NE(rarer.str().find("up to 1 in 64 where a stack cost a thread more than 0.25 % of its time"), std::string::npos) << rarer.str();

  std::istringstream zero("{\"t\":\"sc\",\"s\":0,\"w\":0,\"co\":[5]}\n");
  EXPECT_EQ(parse_process_records(zero, "hand-made").malformed_lines, 1u) << "a call stands for at least itself";
}

// The interposer's own time on the application's threads (the ip_cost and ic lines): the whole
// run's estimate scales the timed calls' time to all calls; the steps' uses only the timed calls
// that started in a step (the start-up's naming of new sites left out), scaled to the calls there.
TEST(ProfileSites, InterpositionCostIsEstimatedFromItsTimedCalls) {
  std::ifstream in(only_records("call_site_app"));
  std::stringstream records;
  records << in.rdbuf();
  const ProcessProfile exact = analyze_process(read_process_records(only_records("call_site_app")));
  ASSERT_GT(exact.sites.step.steps, 0u);
  // One timed call inside the steps (the first API call that started there) and one before them.
  const ProcessRecords r = read_process_records(only_records("call_site_app"));
  std::uint32_t inside = 0, before = 0;
  std::size_t in_steps = 0;
  for (const auto& a : r.trace.api) {
    if (exact.sites.step.contains(a.start_ns)) {
      ++in_steps;
      if (inside == 0) inside = a.correlation_id;
    } else if (before == 0 && a.correlation_id != 0) {
      before = a.correlation_id;
    }
  }
  ASSERT_NE(inside, 0u);
  ASSERT_NE(before, 0u);
  records << "{\"t\":\"ip_cost\",\"calls\":1600,\"every\":16}\n"
          << "{\"t\":\"ic\",\"co\":[" << before << "," << inside << "],\"ns\":[100000,400]}\n";
  const ProcessProfile p = analyze_process(parse_process_records(records, "with ip_cost"));
  ASSERT_TRUE(p.interpose_cost.has_value());
  EXPECT_EQ(p.interpose_cost->calls, 1600u);
  const nlohmann::json j = profile_process_json(p, 1);
  const nlohmann::json& c = j.at("interposition_cost");
  EXPECT_DOUBLE_EQ(c.at("per_call_ns").get<double>(), 50200.0) << "the whole run: both timed calls";
  EXPECT_DOUBLE_EQ(c.at("own_ns").get<double>(), 50200.0 * 1600);
  EXPECT_EQ(c.at("step_timed_calls"), 1u);
  EXPECT_DOUBLE_EQ(c.at("step_per_call_ns").get<double>(), 400.0) << "the steps: the start-up's call left out";
  EXPECT_EQ(c.at("step_calls"), in_steps);
  EXPECT_DOUBLE_EQ(c.at("per_step_ns").get<double>(), 400.0 * static_cast<double>(in_steps) / static_cast<double>(exact.sites.step.steps));
  EXPECT_TRUE(c.at("step_share").is_number());
  std::istringstream bad(
      "{\"t\":\"ic\",\"co\":[1,2],\"ns\":[5]}\n"
      "{\"t\":\"ic\",\"co\":[1],\"ns\":[-5]}\n"
      "{\"t\":\"ic\",\"co\":[99999999999],\"ns\":[5]}\n"
      "{\"t\":\"ic\",\"co\":\"x\",\"ns\":[5]}\n"
      "{\"t\":\"sc\",\"s\":0,\"w\":99999999999,\"co\":[5]}\n"
      "{\"t\":\"sc\",\"s\":0,\"w\":\"16\",\"co\":[5]}\n"
      "{\"t\":\"ip_cost\",\"calls\":-1}\n");
  const ProcessRecords hostile = parse_process_records(bad, "hand-made");
  EXPECT_EQ(hostile.malformed_lines, 7u) << "each unreadable line counted, none kept";
  EXPECT_FALSE(hostile.interpose_cost.has_value() && !hostile.interpose_cost->timed.empty());
  EXPECT_TRUE(hostile.sites.weight_of_call.empty());
}

TEST(SiteSampling, ParsesItsRule) {
  SiteSampling r;
  ASSERT_TRUE(SiteSampling::parse("256,16", r));
  EXPECT_FALSE(r.all);
  EXPECT_EQ(r.first, 256u);
  EXPECT_EQ(r.every, 16u);
  EXPECT_EQ(r.text(), "256,16");
  ASSERT_TRUE(SiteSampling::parse("all", r));
  EXPECT_TRUE(r.all);
  ASSERT_TRUE(SiteSampling::parse("0,1", r));
  EXPECT_TRUE(r.all) << "1 in 1 is every call";
  for (const char* bad : {"", "16", ",16", "16,", "1,0", "-1,4", "1,-4", "a,b", "1,2,3", "1,99999999", "all,1"})
    EXPECT_FALSE(SiteSampling::parse(bad, r)) << bad;
}

// Where a stack costs a thread more than 0.25 % of its time at 1 in M, M grows (powers of two).
TEST(SiteSampling, TheRateGrowsWhereStacksWouldCostMoreThanTheBudget) {
  SiteSampling r;  // 256,16
  // A C++ loop: 0.2 us a stack, a call every 8 us: 0.2 / 16 = 0.0125 us a call, 0.16 % of 8 us.
  EXPECT_EQ(r.every_for(200, 16, 16 * 8000), 16u);
  // 0.4 us a stack: 0.3 % at 1 in 16, so 1 in 32 (0.16 %).
  EXPECT_EQ(r.every_for(400, 16, 16 * 8000), 32u);
  // A Python loop: 13 us a stack, a call every 12 us: needs 13 / 0.03 = 433 -> 512.
  EXPECT_EQ(r.every_for(13000, 16, 16 * 12000), 512u);
  EXPECT_EQ(r.every_for(1e9, 1000, 1), SiteSampling::kMaxEvery) << "never rarer than 1 in 65536";
  EXPECT_EQ(r.every_for(13000, 0, 0), 16u) << "no rate known yet: the rule's";
}

}  // namespace
}  // namespace gp
