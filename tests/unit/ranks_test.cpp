// merge_ranks: the reports of the processes of a multi-GPU run become one, with every rank's
// results kept and one "all" result per workload/mode in which the slowest rank decides.
#include <gtest/gtest.h>

#include "graphprof/core/error.hpp"
#include "graphprof/core/ranks.hpp"
#include "graphprof/report/reporter.hpp"

#include <sstream>

namespace gp {
namespace {

ModeResult result(const std::string& mode, int rank, double gpu_ns, const std::string& checksum = "abc") {
  ModeResult r;
  r.workload = "allreduce";
  r.mode = mode_from_string(mode).value();
  r.params = {{"bytes", "4096"}, {"nranks", "2"}, {"rank", std::to_string(rank)}, {kRendezvousParam, "/tmp/x"}};
  r.checksum = checksum;
  Metric m;
  m.unit = "ns";
  m.repetitions = {{gpu_ns, gpu_ns * 1.01, gpu_ns * 0.99}};
  m.resummarize();
  r.metrics["gpu_time_per_iter"] = m;
  return r;
}

Report rank_report(int rank, double eager_ns, double graph_ns, const std::string& checksum = "abc") {
  Report rep;
  rep.git_revision = "rev";
  rep.environment.gpu = GpuInfo{};
  rep.environment.gpu->name = "NVIDIA H200";
  rep.environment.gpu->ordinal = rank;
  rep.results = {result("eager", rank, eager_ns, checksum), result("graph", rank, graph_ns, checksum)};
  return rep;
}

const ModeResult* find(const Report& r, const std::string& mode, const std::string& rank) {
  for (const auto& x : r.results)
    if (to_string(x.mode) == mode && x.params.at("rank") == rank) return &x;
  return nullptr;
}

TEST(MergeRanks, KeepsEveryRankAndTheSlowestDecides) {
  const Report merged = merge_ranks({rank_report(0, 100, 50), rank_report(1, 120, 40)});
  ASSERT_EQ(merged.results.size(), 6u);  // 2 ranks x 2 modes + 2 "all"
  for (const auto& r : merged.results) EXPECT_EQ(r.params.count(kRendezvousParam), 0u) << "run-specific path kept";
  const ModeResult* eager_all = find(merged, "eager", "all");
  const ModeResult* graph_all = find(merged, "graph", "all");
  ASSERT_NE(eager_all, nullptr);
  ASSERT_NE(graph_all, nullptr);
  EXPECT_DOUBLE_EQ(eager_all->metrics.at("gpu_time_per_iter").summary.median, 120);  // rank 1 slower
  EXPECT_DOUBLE_EQ(graph_all->metrics.at("gpu_time_per_iter").summary.median, 50);   // rank 0 slower
  ASSERT_TRUE(graph_all->sections.ranks);
  EXPECT_EQ(graph_all->sections.ranks->count, 2u);
  EXPECT_EQ(graph_all->sections.ranks->slowest_rank.at("gpu_time_per_iter"), "0");
  EXPECT_EQ(graph_all->sections.ranks->median_per_rank.at("gpu_time_per_iter"), (std::vector<double>{50, 40}));
  EXPECT_TRUE(graph_all->sections.ranks->same_output_on_every_rank);
  EXPECT_TRUE(graph_all->sections.other.empty()) << graph_all->sections.other.dump();
  // Speedup of the combined graph result against the combined eager one: 120 / 50.
  EXPECT_NEAR(graph_all->derived.at("speedup_gpu_time_vs_eager"), 2.4, 1e-9);
  EXPECT_EQ(merged.settings.ranks.value_or(-1), 2);
}

TEST(MergeRanks, DifferentOutputsAndFailuresAreVisible) {
  Report r1 = rank_report(1, 120, 40, "def");
  r1.results[1].status = Status::kFailed;
  r1.results[1].reason = "ncclAllReduce returned unhandled cuda error";
  r1.results[1].metrics.clear();
  const Report merged = merge_ranks({rank_report(0, 100, 50), r1});
  const ModeResult* eager_all = find(merged, "eager", "all");
  ASSERT_NE(eager_all, nullptr);
  EXPECT_EQ(eager_all->checksum, "differs between ranks");
  ASSERT_TRUE(eager_all->sections.ranks);
  EXPECT_FALSE(eager_all->sections.ranks->same_output_on_every_rank);
  const ModeResult* graph_all = find(merged, "graph", "all");
  ASSERT_NE(graph_all, nullptr);
  EXPECT_EQ(graph_all->status, Status::kFailed);
  EXPECT_NE(graph_all->reason.find("rank 1"), std::string::npos);
}

TEST(MergeRanks, TheSuiteSummaryTellsTheRankRowsApart) {
  std::ostringstream out;
  RunConsoleReporter().write(merge_ranks({rank_report(0, 100, 50), rank_report(1, 120, 40)}), out);
  const std::string text = out.str();
  for (const char* row : {"allreduce [rank=0]", "allreduce [rank=1]", "allreduce [rank=all]"})
    EXPECT_NE(text.find(row), std::string::npos) << row << "\n" << text;
}

TEST(MergeRanks, RefusesReportsOfAnotherGpuModel) {
  Report other = rank_report(1, 1, 1);
  other.environment.gpu->name = "NVIDIA A100";
  EXPECT_THROW(merge_ranks({rank_report(0, 1, 1), other}), Error);
}

}  // namespace
}  // namespace gp
