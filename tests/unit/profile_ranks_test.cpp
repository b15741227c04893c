// Multi-rank profiles (graphprof/profile/profile_ranks.hpp): rank identity from launcher variables, NCCL
// kernel names as collectives, the "rank"/"device" record lines, the cross-rank view (matching,
// slowest rank, skew, collectives and wait, trouble across ranks) and `merge` by global rank.
// The process records are the H200 test application's (tests/data/profile/README.md); cases that
// need a second rank copy them and change what the case is about (the rank variables, a kernel's
// duration, a kernel's name), each said where it is done. tests/unit/profile_ranks_fixture_test.cpp
// replays the 2-rank recordings.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "graphprof/core/error.hpp"
#include "graphprof/profile/profile.hpp"
#include "graphprof/report/profile_text.hpp"
#include "graphprof/profile/profile_ranks.hpp"

namespace gp {
namespace {

using nlohmann::json;

const std::string kRanksApp = std::string(GRAPHPROF_TEST_DATA) + "/profile/h200/proc-2096.jsonl";
// The all-reduce kernel as NCCL 2.28 named it on two H200s (tests/data/dot/allreduce_2ranks_graph_verbose.dot).
const std::string kNcclAllReduce = "_Z39ncclDevKernel_AllReduce_Sum_f32_RING_LL24ncclDevKernelArgsStorageILm4096EE";

TEST(RankIdentity, TorchrunVariables) {
  const RankIdentity id = rank_identity_of({{"RANK", "3"}, {"LOCAL_RANK", "1"}, {"WORLD_SIZE", "4"}, {"LOCAL_WORLD_SIZE", "2"},
                                            {"GROUP_RANK", "1"}});
  ASSERT_TRUE(id.known());
  EXPECT_EQ(*id.rank, 3);
  EXPECT_EQ(*id.local_rank, 1);
  EXPECT_EQ(*id.world_size, 4);
  EXPECT_EQ(*id.local_world_size, 2);
  EXPECT_EQ(*id.node_rank, 1);
  EXPECT_EQ(id.from, "RANK");
  EXPECT_TRUE(id.problems.empty());
}

TEST(RankIdentity, EachLauncherAndWhichWins) {
  EXPECT_EQ(rank_identity_of({{"OMPI_COMM_WORLD_RANK", "5"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "8"}}).from,
            "OMPI_COMM_WORLD_RANK");
  const RankIdentity pmi = rank_identity_of({{"PMI_RANK", "2"}, {"PMI_SIZE", "4"}, {"MPI_LOCALRANKID", "0"}});
  EXPECT_EQ(*pmi.rank, 2);
  EXPECT_EQ(*pmi.local_rank, 0);
  const RankIdentity slurm = rank_identity_of({{"SLURM_PROCID", "7"}, {"SLURM_LOCALID", "3"}, {"SLURM_NTASKS", "8"},
                                               {"SLURM_NTASKS_PER_NODE", "4(x2)"}, {"SLURM_NODEID", "1"}});
  EXPECT_EQ(*slurm.rank, 7);
  EXPECT_EQ(*slurm.node_rank, 1);
  EXPECT_FALSE(slurm.local_world_size) << "4(x2) is not a count";
  EXPECT_TRUE(slurm.problems.empty()) << "and not a problem either";
  // torchrun under srun: the worker's RANK, not the Slurm task's.
  const RankIdentity both = rank_identity_of({{"SLURM_PROCID", "1"}, {"RANK", "6"}, {"WORLD_SIZE", "8"}});
  EXPECT_EQ(*both.rank, 6);
  EXPECT_EQ(both.from, "RANK");
  EXPECT_FALSE(rank_identity_of({{"CUDA_VISIBLE_DEVICES", "0"}}).known());
}

TEST(RankIdentity, ValuesThatAreNotRanksAreNamed) {
  const RankIdentity bad = rank_identity_of({{"RANK", "-1"}, {"SLURM_PROCID", "2"}});
  EXPECT_EQ(*bad.rank, 2) << "RANK unusable: the next launcher's variables";
  ASSERT_EQ(bad.problems.size(), 1u);
  EXPECT_NE(bad.problems[0].find("RANK=-1"), std::string::npos);
  const RankIdentity beyond = rank_identity_of({{"RANK", "4"}, {"WORLD_SIZE", "4"}});
  EXPECT_EQ(*beyond.rank, 4);
  EXPECT_FALSE(beyond.world_size);
  ASSERT_EQ(beyond.problems.size(), 1u);
  EXPECT_FALSE(rank_identity_of({{"RANK", "99999999999999999999"}}).known());
}

TEST(NcclCollectives, NamesAsNcclWritesThem) {
  const auto ar = nccl_collective_of(kNcclAllReduce);
  ASSERT_TRUE(ar);
  EXPECT_EQ(ar->kind, "all-reduce");
  EXPECT_EQ(ar->op, "sum");
  EXPECT_EQ(ar->dtype, "f32");
  EXPECT_EQ(ar->algorithm, "RING_LL");
  EXPECT_EQ(nccl_collective_of("ncclDevKernel_ReduceScatter_Sum_bf16_RING_SIMPLE")->kind, "reduce-scatter");
  EXPECT_EQ(nccl_collective_of("ncclDevKernel_ReduceScatter_Sum_bf16_RING_SIMPLE")->dtype, "bf16");
  EXPECT_EQ(nccl_collective_of("ncclDevKernel_AllGather_RING_LL")->kind, "all-gather");
  EXPECT_EQ(nccl_collective_of("ncclDevKernel_Broadcast_RING_LL")->kind, "broadcast");
  EXPECT_EQ(nccl_collective_of("ncclDevKernel_SendRecv")->kind, "send-recv");
  EXPECT_EQ(nccl_collective_of("ncclDevKernel_Reduce_Max_u8_RING_LL")->kind, "reduce");
  EXPECT_EQ(nccl_collective_of("ncclDevKernel_Generic_4")->kind, "collective (generic kernel)");
  EXPECT_EQ(nccl_collective_of("ncclDevKernel_AllReduce_Sum_f16_NVLS_TREE_SIMPLE")->algorithm, "NVLS_TREE_SIMPLE");
  // NCCL before 2.19: ncclKernel_<Coll>_<ALGO>_<PROTO>_<Op>_<type>
  const auto old = nccl_collective_of("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)");
  ASSERT_TRUE(old);
  EXPECT_EQ(old->kind, "all-reduce");
  EXPECT_EQ(old->dtype, "f32");
  EXPECT_FALSE(nccl_collective_of("_Z7k_scalePfif"));
  EXPECT_FALSE(nccl_collective_of("ncclHelperNotAKernel"));
  EXPECT_FALSE(nccl_collective_of("my_ncclDevKernel_AllReduce"));
}

TEST(RankRecords, RankAndDeviceLines) {
  std::istringstream in(
      "{\"t\":\"process\",\"pid\":7,\"ppid\":1,\"ts\":10,\"level\":2,\"cmdline\":\"app\"}\n"
      "{\"t\":\"rank\",\"host\":\"node-a\",\"host_from\":\"SLURMD_NODENAME\",\"env\":{\"SLURM_PROCID\":\"1\",\"SLURM_NTASKS\":\"2\"}}\n"
      "{\"t\":\"device\",\"ord\":0,\"pci\":\"0000:00:06.0\",\"uuid\":\"GPU-3c943a93-3d47-bfbf-fcbe-6a29614b20a3\"}\n"
      "{\"t\":\"rank\",\"env\":{\"RANK\":1}}\n"  // a number where a string belongs: unreadable
      "{\"t\":\"capture_begin\",\"stream\":13,\"mode\":1,\"co\":5,\"r\":0}\n");
  const ProcessRecords r = parse_process_records(in, "x.jsonl");
  EXPECT_EQ(r.host, "node-a");
  EXPECT_EQ(r.host_from, "SLURMD_NODENAME");
  EXPECT_EQ(r.rank_env.at("SLURM_PROCID"), "1");
  ASSERT_EQ(r.gpus.size(), 1u);
  EXPECT_EQ(r.gpus[0].pci_bus_id, "0000:00:06.0");
  EXPECT_EQ(r.malformed_lines, 1u);
  ASSERT_EQ(r.captures.size(), 1u);
  EXPECT_EQ(r.captures[0].mode, 1);
  const ProcessProfile p = analyze_process(r);
  ASSERT_TRUE(p.rank.known());
  EXPECT_EQ(*p.rank.rank, 1);
  EXPECT_EQ(*p.rank.world_size, 2);
}

// The test application's records as rank `rank` of 2 on `host`.
ProcessRecords as_rank(int rank, const std::string& host) {
  ProcessRecords r = read_process_records(kRanksApp);
  r.rank_env = {{"RANK", std::to_string(rank)}, {"LOCAL_RANK", std::to_string(rank)}, {"WORLD_SIZE", "2"}};
  r.host = host;
  r.host_from = "gethostname";
  r.gpus = {GpuIdentity{0, "0000:00:0" + std::to_string(6 + rank) + ".0", ""}};
  r.pid += rank;
  return r;
}

// Every kernel of exec `exec` `factor` times as long (start kept).
void stretch(ProcessRecords& r, std::uint32_t exec, double factor) {
  for (auto& k : r.trace.kernels)
    if (k.graph_id == exec) k.end_ns = k.start_ns + static_cast<std::uint64_t>(factor * static_cast<double>(k.end_ns - k.start_ns));
}

json view_of(const std::vector<ProcessRecords>& records, Report* report_out = nullptr) {
  std::vector<ProcessProfile> procs;
  for (const auto& r : records) procs.push_back(analyze_process(r));
  ProfileRun run;
  run.program = "graphprof_graph_app";
  const Report report = profile_report(run, procs);
  if (report_out) *report_out = report;
  return to_json(*report.results.front().sections.profile).at("cross_rank");
}

TEST(CrossRankView, NoRanksNoView) {
  EXPECT_TRUE(view_of({read_process_records(kRanksApp)}).is_null());
}

TEST(CrossRankView, SameGraphOnBothRanksWithTheSlowerRankAndSkew) {
  ProcessRecords r0 = as_rank(0, "h"), r1 = as_rank(1, "h");
  stretch(r1, 3, 2.0);  // graph A (exec 3) twice as slow on rank 1
  const json v = view_of({r0, r1});
  ASSERT_EQ(v["ranks"].size(), 2u);
  EXPECT_EQ(v["world_size"], 2);
  EXPECT_TRUE(v["missing_ranks"].empty());
  EXPECT_EQ(v["ranks"][1]["gpus"][0]["pci_bus_id"], "0000:00:07.0");
  ASSERT_EQ(v["graphs"].size(), 2u) << "graph A and graph B, each matched on both ranks";
  const json& a = v["graphs"][0];
  EXPECT_EQ(a["matched_by"], "shape");
  EXPECT_EQ(a["nodes"], 5);
  EXPECT_EQ(a["kernels_per_launch"], 4) << "3 k_scale + k_add (the memset node is not a kernel)";
  EXPECT_TRUE(a["missing_on"].empty());
  EXPECT_EQ(a["slowest_rank"], 1);
  EXPECT_EQ(a["fastest_rank"], 0);
  const double fast = a["ranks"][0]["gpu_per_launch_ns"].get<double>(), slow = a["ranks"][1]["gpu_per_launch_ns"].get<double>();
  EXPECT_GT(slow, fast);
  EXPECT_DOUBLE_EQ(a["skew_ns"].get<double>(), slow - fast);
  EXPECT_TRUE(a["collectives"].empty());
  EXPECT_TRUE(a["collective_share"].is_null());
  EXPECT_EQ(v["graphs"][1]["skew_ns"], 0.0) << "graph B untouched: the same records on both ranks";
  // Both ranks broke a capture the same way (the application's --bad-capture): no cross-rank trouble without NCCL.
  EXPECT_TRUE(v["trouble"].empty()) << v["trouble"].dump();
  const std::string text = format_cross_rank_summary(v);
  EXPECT_NE(text.find("cross-rank view: 2 ranks of world size 2 on 1 host"), std::string::npos) << text;
  EXPECT_NE(text.find("(rank 1)"), std::string::npos) << text;
}

TEST(CrossRankView, MissingRanksOfALargerWorld) {
  ProcessRecords r = as_rank(0, "h");
  r.rank_env["WORLD_SIZE"] = "4";
  const json v = view_of({r});
  EXPECT_EQ(v["missing_ranks"], json::array({1, 2, 3}));
  EXPECT_NE(v["notes"][0].get<std::string>().find("graphprof merge"), std::string::npos);
  EXPECT_EQ(format_cross_rank_summary(v), "") << "one rank and no trouble: nothing to say across ranks";
}

TEST(CrossRankView, GraphThatDiffersAcrossRanks) {
  ProcessRecords r0 = as_rank(0, "h"), r1 = as_rank(1, "h");
  // Rank 1's graph B (exec 5) loses one of its kernels from every launch.
  const auto it = std::find_if(r1.trace.kernels.begin(), r1.trace.kernels.end(), [](const KernelRecord& k) { return k.graph_id == 5; });
  ASSERT_NE(it, r1.trace.kernels.end());
  const std::string gone = it->name;
  r1.trace.kernels.erase(std::remove_if(r1.trace.kernels.begin(), r1.trace.kernels.end(),
                                        [&](const KernelRecord& k) { return k.graph_id == 5 && k.graph_node_id == it->graph_node_id; }),
                         r1.trace.kernels.end());
  const json v = view_of({r0, r1});
  ASSERT_EQ(v["graphs"].size(), 3u) << "A matched; B on rank 0 and B' on rank 1 apart";
  EXPECT_EQ(v["graphs"][1]["missing_on"], json::array({1}));
  ASSERT_EQ(v["trouble"].size(), 1u) << v["trouble"].dump();
  EXPECT_EQ(v["trouble"][0]["kind"], "graph_differs");
  EXPECT_NE(v["trouble"][0]["detail"].get<std::string>().find("only here:"), std::string::npos) << v["trouble"][0]["detail"];
}

// The arithmetic of collectives on records whose k_add kernel is renamed in the test to the NCCL
// all-reduce kernel's name (no NCCL ran here: the recorded 2-rank fixture has no NCCL either).
TEST(CrossRankView, CollectiveShareAndWaitArithmetic) {
  ProcessRecords r0 = as_rank(0, "h"), r1 = as_rank(1, "h");
  for (ProcessRecords* r : {&r0, &r1})
    for (auto& k : r->trace.kernels)
      if (k.graph_id == 3 && k.name.find("k_add") != std::string::npos) k.name = kNcclAllReduce;
  // Rank 0's "all-reduce" takes 3 x as long: it waited for rank 1.
  for (auto& k : r0.trace.kernels)
    if (k.name == kNcclAllReduce) k.end_ns = k.start_ns + 3 * (k.end_ns - k.start_ns);
  const json v = view_of({r0, r1});
  const json& a = v["graphs"][0];
  ASSERT_EQ(a["collectives"].size(), 1u);
  EXPECT_EQ(a["collectives"][0]["kind"], "all-reduce");
  EXPECT_EQ(a["collectives"][0]["per_launch"], 1.0);
  EXPECT_TRUE(a["collectives"][0]["bytes"].is_null());
  ASSERT_TRUE(a["collective_share"].is_number());
  EXPECT_GT(a["collective_share"].get<double>(), 0.0);
  EXPECT_LT(a["collective_share"].get<double>(), 1.0);
  const json& p0 = a["ranks"][0];
  const json& p1 = a["ranks"][1];
  EXPECT_EQ(p1["wait_per_launch_ns"], 0.0) << "the fastest rank in the collective waits for no one";
  EXPECT_DOUBLE_EQ(p0["wait_per_launch_ns"].get<double>(),
                   p0["collective_per_launch_ns"].get<double>() - p1["collective_per_launch_ns"].get<double>());
  EXPECT_GT(p0["wait_per_launch_ns"].get<double>(), 0.0);
  EXPECT_EQ(a["slowest_rank"], 0) << "its span grew by waiting";
  // ... but not its work: outside the collective both ranks' launches take about as long (medians
  // of span and collective time are taken apart, so not exactly).
  EXPECT_NEAR(p0["outside_collectives_per_launch_ns"].get<double>(), p1["outside_collectives_per_launch_ns"].get<double>(),
              0.25 * p1["collective_per_launch_ns"].get<double>());
  ASSERT_EQ(v["collectives"].size(), 2u);
  EXPECT_EQ(v["collectives"][0]["in_graphs"], 20) << "one per launch, 20 launches";
  EXPECT_GT(v["ranks"][0]["collective_wait_ns"].get<double>(), 0.0);
  EXPECT_EQ(v["ranks"][1]["collective_wait_ns"], 0.0);
  // The capture both ranks broke, in a job with NCCL: the NCCL capture advice.
  ASSERT_EQ(v["trouble"].size(), 1u) << v["trouble"].dump();
  EXPECT_EQ(v["trouble"][0]["kind"], "capture_failed_with_collectives");
  EXPECT_NE(v["trouble"][0]["hint"].get<std::string>().find("thread_local"), std::string::npos);
}

// The busiest rank is the one with the most GPU time outside collectives, not the longest span.
TEST(CrossRankView, BusiestRankIsTheOneWithMostWorkOutsideCollectives) {
  auto proc = [](int rank, double span, double coll) {
    return json{{"process", rank + 1},
                {"rank", {{"rank", rank}, {"world_size", 2}}},
                {"graphs", json::array({json{{"graph", 1}, {"exec", 2}, {"nodes", 3}, {"signature", "s"}, {"launches", 10},
                                              {"gpu_span", {{"median_ns", span}, {"total_ns", 10 * span}}},
                                              {"collective_per_launch", {{"median_ns", coll}}},
                                              {"kernel_time_ns", 10 * span},
                                              {"collectives", json::array({json{{"kind", "all-reduce"}, {"count", 10},
                                                                                {"total_ns", 10 * coll}, {"per_launch", 1}}})}}})}};
  };
  // Rank 0 computes 50 us and waits 40 us in the all-reduce; rank 1 computes 80 us and waits 10 us.
  const json v = cross_rank_view(json::array({proc(0, 100e3, 50e3), proc(1, 100e3, 20e3)}));
  const json& g = v["graphs"][0];
  EXPECT_EQ(g["busiest_rank"], 1);
  EXPECT_EQ(g["skew_ns"], 0.0);
  EXPECT_EQ(g["ranks"][0]["wait_per_launch_ns"], 30e3);
  EXPECT_EQ(g["ranks"][1]["wait_per_launch_ns"], 0.0);
  EXPECT_DOUBLE_EQ(g["collective_share"].get<double>(), (500e3 + 200e3) / 2000e3);
  EXPECT_EQ(v["ranks"][0]["collective_wait_ns"], 300e3);
}

TEST(CrossRankView, MatchedByCallSiteAndShape) {
  auto proc = [](int rank, const std::string& signature) {
    auto graph = [&](const char* where, const std::string& sig) {
      return json{{"graph", 1}, {"nodes", 3}, {"signature", sig}, {"launches", 5},
                  {"capture_site", {{"where", where}, {"from", "python"}}}};
    };
    return json{{"process", rank + 1},
                {"rank", {{"rank", rank}, {"world_size", 2}}},
                {"graphs", json::array({graph("serve.py:57 in step", "s"), graph("serve.py:90 in tail", signature)})}};
  };
  const json v = cross_rank_view(json::array({proc(0, "t"), proc(1, "u")}));
  ASSERT_EQ(v["graphs"].size(), 3u) << "step matched; tail has another shape on rank 1";
  EXPECT_EQ(v["graphs"][0]["matched_by"], "call site");
  EXPECT_EQ(v["graphs"][0]["call_site"], "serve.py:57 in step");
  EXPECT_TRUE(v["graphs"][0]["missing_on"].empty());
  ASSERT_EQ(v["trouble"].size(), 1u);
  EXPECT_EQ(v["trouble"][0]["kind"], "graph_differs");
}

TEST(CrossRankView, CollectiveCapturedOnOneRankOnly) {
  ProcessRecords r0 = as_rank(0, "h"), r1 = as_rank(1, "h");
  for (auto& k : r0.trace.kernels)
    if (k.graph_id == 3 && k.name.find("k_add") != std::string::npos) k.name = kNcclAllReduce;  // renamed, as above
  const json v = view_of({r0, r1});
  bool found = false;
  for (const auto& t : v["trouble"])
    if (t["kind"] == "collective_on_some_ranks") {
      found = true;
      EXPECT_NE(t["detail"].get<std::string>().find("all-reduce"), std::string::npos) << t["detail"];
      EXPECT_NE(t["hint"].get<std::string>().find("order"), std::string::npos);
    }
  EXPECT_TRUE(found) << v["trouble"].dump();
}

TEST(CrossRankView, SameRankOnTwoHostsIsTrouble) {
  const json v = view_of({as_rank(0, "a"), as_rank(0, "b")});
  ASSERT_FALSE(v["trouble"].empty());
  EXPECT_EQ(v["trouble"][0]["kind"], "duplicate_rank");
}

TEST(CrossRankView, HostileValuesDoNotThrow) {
  json procs = json::array({json{{"rank", {{"rank", 0}, {"world_size", 1e300}}}},
                            json{{"rank", {{"rank", 1}}}, {"graphs", json::array({json{{"gpu_span", "x"}, {"nodes", "y"}}})}},
                            json{{"rank", "zero"}}, json(42)});
  json v;
  ASSERT_NO_THROW(v = cross_rank_view(procs));
  EXPECT_EQ(v["ranks"].size(), 2u);
  EXPECT_NO_THROW(format_cross_rank_summary(v));
}

// ---------------------------------------------------------------------------------------------
// merge by rank

Report report_of(const ProcessRecords& r) {
  Report out;
  view_of({r}, &out);
  out.git_revision = "abc";
  return out;
}

TEST(RankMerge, JoinsTheNodesReportsByRank) {
  const Report a = report_of(as_rank(0, "node-a")), b = report_of(as_rank(1, "node-b"));
  ASSERT_TRUE(are_rank_profiles({a, b}));
  const Report m = merge_rank_profiles({a, b}, {"a.json", "b.json"});
  const json p = to_json(*m.results.front().sections.profile);
  ASSERT_EQ(p["processes"].size(), 2u);
  EXPECT_EQ(p["processes"][1]["process"], 2);
  EXPECT_EQ(p["processes"][1]["report"], "b.json");
  const json& v = p["cross_rank"];
  EXPECT_EQ(v["hosts"], json::array({"node-a", "node-b"}));
  EXPECT_EQ(v["graphs"].size(), 2u);
  EXPECT_TRUE(v["graphs"][0]["missing_on"].empty());
  EXPECT_EQ(m.results.size(), 1u + 2 + 2) << "the application and each rank's two graphs";
  std::size_t second = 0;
  for (const auto& r : m.results)
    if (r.params.count("process") && r.params.at("process") == "2") ++second;
  EXPECT_EQ(second, 2u) << "rank 1's graph results renumbered to process 2";
  EXPECT_NE(format_profile_summary(m).find("cross-rank view: 2 ranks of world size 2 on 2 hosts"), std::string::npos);
}

TEST(RankMerge, RefusesADuplicateGlobalRank) {
  const Report a = report_of(as_rank(0, "node-a")), b = report_of(as_rank(0, "node-b"));
  ASSERT_TRUE(are_rank_profiles({a, b}));
  try {
    merge_rank_profiles({a, b}, {"a.json", "b.json"});
    FAIL() << "merged a duplicate rank";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput);
    const std::string what = e.what();
    EXPECT_NE(what.find("b.json: global rank 0 (host 'node-b') is also in a.json (host 'node-a')"), std::string::npos) << what;
  }
}

TEST(RankMerge, RepeatedProfilesOfOneJobArePooledNotJoined) {
  const Report a = report_of(as_rank(0, "node-a"));
  EXPECT_FALSE(are_rank_profiles({a, a})) << "same ranks on the same hosts: repetitions";
  EXPECT_FALSE(are_rank_profiles({report_of(read_process_records(kRanksApp)), a})) << "a report without ranks";
}

}  // namespace
}  // namespace gp
