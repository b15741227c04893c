// The cross-rank view and `merge` by rank replayed on real 2-rank recordings of one H200
// (tests/data/profile/ranks/README.md says how each was made): two ranks of tests/apps/rank_app.cu
// under one `graphprof profile`, and two single-rank profiles with Slurm's variables of two
// "hosts". No NCCL ran in them (NCCL refuses two ranks on one GPU): their graphs have no
// collectives. The counts asserted are what the H200 recorded.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "graphprof/core/error.hpp"
#include "graphprof/profile/profile.hpp"
#include "graphprof/report/profile_text.hpp"
#include "graphprof/profile/profile_ranks.hpp"

namespace gp {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const fs::path kRanks = fs::path(GRAPHPROF_TEST_DATA) / "profile" / "ranks";

// The processes of one recorded profile folder, analysed as `graphprof profile` does.
Report profile_of_folder(const fs::path& dir) {
  std::vector<ProcessRecords> records;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".jsonl") records.push_back(read_process_records(e.path().string()));
  std::sort(records.begin(), records.end(), [](const ProcessRecords& a, const ProcessRecords& b) { return a.begin_ns < b.begin_ns; });
  std::vector<ProcessProfile> procs;
  for (const auto& r : records) procs.push_back(analyze_process(r));
  ProfileRun run;
  run.program = "graphprof_rank_app";
  Report r = profile_report(run, procs);
  r.git_revision = "fixture";
  return r;
}

json profile_json(const Report& r) { return to_json(*r.results.front().sections.profile); }

TEST(RankFixtures, TwoRanksOnOneGpu) {
  const Report r = profile_of_folder(kRanks / "one_gpu_two_ranks");
  const json& p = profile_json(r);
  ASSERT_EQ(p["processes"].size(), 2u);
  for (int k = 0; k < 2; ++k) {
    const json& proc = p["processes"][k];
    EXPECT_EQ(proc["rank"]["rank"], k);
    EXPECT_EQ(proc["rank"]["local_rank"], k);
    EXPECT_EQ(proc["rank"]["world_size"], 2);
    EXPECT_EQ(proc["rank"]["from"], "RANK");
    EXPECT_EQ(proc["host_from"], "gethostname");
    ASSERT_EQ(proc["gpus"].size(), 1u);
    EXPECT_EQ(proc["gpus"][0]["ordinal"], 0);
    EXPECT_EQ(proc["gpus"][0]["uuid"].get<std::string>().rfind("GPU-", 0), 0u);
    ASSERT_EQ(proc["graphs"].size(), 2u);
    EXPECT_EQ(proc["graphs"][0]["capture_mode"], "thread-local");
    EXPECT_EQ(proc["graphs"][0]["launches"], 30);
  }
  EXPECT_EQ(p["processes"][0]["gpus"][0]["pci_bus_id"], p["processes"][1]["gpus"][0]["pci_bus_id"]) << "one GPU";
  const json& v = p["cross_rank"];
  ASSERT_EQ(v["ranks"].size(), 2u);
  EXPECT_EQ(v["world_size"], 2);
  EXPECT_EQ(v["hosts"].size(), 1u);
  EXPECT_TRUE(v["missing_ranks"].empty());
  // step: 4 k_work on both ranks, matched; rank 1 ran twice the iterations per element.
  ASSERT_EQ(v["graphs"].size(), 3u) << v["graphs"].dump();
  const json& step = v["graphs"][0];
  EXPECT_EQ(step["nodes"], 4);
  EXPECT_EQ(step["kernels_per_launch"], 4);
  EXPECT_TRUE(step["missing_on"].empty());
  EXPECT_EQ(step["slowest_rank"], 1);
  EXPECT_EQ(step["fastest_rank"], 0);
  // 21.4 us vs 30.8 us per launch (+43.9 %): twice the iterations per element, not twice the time.
  EXPECT_GT(step["skew"].get<double>(), 0.3) << step.dump();
  EXPECT_LT(step["skew"].get<double>(), 1.0) << step.dump();
  EXPECT_TRUE(step["collectives"].empty());
  // tail: k_work -> k_finish on rank 0, k_work -> k_extra -> k_finish on rank 1.
  EXPECT_EQ(v["graphs"][1]["missing_on"], json::array({1}));
  EXPECT_TRUE(v["graphs"][1]["skew_ns"].is_null()) << "one rank: nothing to compare";
  EXPECT_TRUE(v["ranks"][0]["collective_ns"].is_null()) << "no collective in the job: not measured, not 0";
  EXPECT_EQ(v["graphs"][2]["missing_on"], json::array({0}));
  ASSERT_EQ(v["trouble"].size(), 1u) << v["trouble"].dump();
  EXPECT_EQ(v["trouble"][0]["kind"], "graph_differs");
  EXPECT_NE(v["trouble"][0]["detail"].get<std::string>().find("only here: k_extra x1"), std::string::npos) << v["trouble"][0]["detail"];
  const std::string text = format_profile_summary(r);
  EXPECT_NE(text.find("cross-rank view: 2 ranks of world size 2 on 1 host"), std::string::npos) << text;
  EXPECT_NE(text.find("a graph differs across ranks"), std::string::npos) << text;
}

TEST(RankFixtures, TwoHostsMergedByRank) {
  const Report a = profile_of_folder(kRanks / "two_hosts" / "node-a"), b = profile_of_folder(kRanks / "two_hosts" / "node-b");
  EXPECT_EQ(profile_json(a)["processes"][0]["host"], "node-a");
  EXPECT_EQ(profile_json(a)["processes"][0]["host_from"], "SLURMD_NODENAME");
  EXPECT_EQ(profile_json(a)["processes"][0]["rank"]["from"], "SLURM_PROCID");
  EXPECT_EQ(profile_json(a)["cross_rank"]["missing_ranks"], json::array({1})) << "node-a alone holds rank 0 of 2";
  ASSERT_TRUE(are_rank_profiles({a, b}));
  const Report m = merge_rank_profiles({b, a}, {"node-b.json", "node-a.json"});
  const json v = profile_json(m)["cross_rank"];
  ASSERT_EQ(v["ranks"].size(), 2u);
  EXPECT_EQ(v["ranks"][0]["rank"], 0) << "by global rank, whatever the merge order";
  EXPECT_EQ(v["ranks"][0]["host"], "node-a");
  EXPECT_EQ(v["ranks"][1]["host"], "node-b");
  EXPECT_TRUE(v["missing_ranks"].empty());
  ASSERT_EQ(v["graphs"].size(), 2u) << "step and tail matched on both hosts";
  for (const auto& g : v["graphs"]) EXPECT_TRUE(g["missing_on"].empty());
  EXPECT_EQ(v["graphs"][0]["slowest_rank"], 1) << "node-b's rank ran 96 iterations per element, node-a's 64";
  EXPECT_TRUE(v["trouble"].empty()) << v["trouble"].dump();
}

TEST(RankFixtures, MergeRefusesARankOnTwoHosts) {
  // The one-GPU profile holds ranks 0 and 1 (this machine's name); node-b's holds rank 1 again.
  const Report both = profile_of_folder(kRanks / "one_gpu_two_ranks"), b = profile_of_folder(kRanks / "two_hosts" / "node-b");
  ASSERT_TRUE(are_rank_profiles({both, b}));
  try {
    merge_rank_profiles({both, b}, {"job.json", "node-b.json"});
    FAIL() << "merged rank 1 twice";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ExitCode::kBadInput);
    EXPECT_NE(std::string(e.what()).find("node-b.json: global rank 1 (host 'node-b') is also in job.json"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace gp
