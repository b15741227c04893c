// Real dumps of the allreduce workload on two H200s (rank 0, bytes=1 MiB, kernels=4, steps=4;
// evidence/allreduce-2gpu): the NCCL kernels show in the graph, as plain kernel nodes when the
// iteration is stream-captured and inside child graphs when the graph is built explicitly.
#include <gtest/gtest.h>

#include <string>

#include "graphprof/graph/graph_model.hpp"

namespace gp {
namespace {

struct Counts {
  int work_kernels = 0, nccl_kernels = 0, child_graphs = 0, nccl_in_child = 0;
};

Counts count(const GraphModel& m) {
  Counts c;
  for (const auto& n : m.nodes) {
    if (n.kind == NodeKind::kChildGraph) ++c.child_graphs;
    if (n.kind != NodeKind::kKernel) continue;
    const bool nccl = n.short_name.rfind("ncclDevKernel_AllReduce", 0) == 0;
    (nccl ? c.nccl_kernels : c.work_kernels)++;
    if (nccl && m.clusters.size() > 1) {
      for (const auto& cl : m.clusters)
        if (cl.parent_node && n.graph_id == cl.graph_id) ++c.nccl_in_child;
    }
  }
  return c;
}

TEST(AllreduceDot, CapturedIterationHoldsTheNcclKernels) {
  const GraphModel m = load_dot(std::string(GRAPHPROF_TEST_DATA) + "/dot/allreduce_2ranks_capture.dot");
  const Counts c = count(m);
  EXPECT_EQ(c.work_kernels, 16);  // steps x kernels
  EXPECT_EQ(c.nccl_kernels, 4);   // one ring all-reduce kernel per step
  EXPECT_EQ(c.child_graphs, 0);
}

TEST(AllreduceDot, ExplicitGraphHoldsEachAllReduceInAChildGraph) {
  for (const char* f : {"allreduce_2ranks_graph.dot", "allreduce_2ranks_graph_verbose.dot"}) {
    SCOPED_TRACE(f);
    const GraphModel m = load_dot(std::string(GRAPHPROF_TEST_DATA) + "/dot/" + f);
    const Counts c = count(m);
    EXPECT_EQ(c.work_kernels, 16);
    EXPECT_EQ(c.child_graphs, 4);
    EXPECT_EQ(c.nccl_kernels, 4);
    EXPECT_EQ(c.nccl_in_child, 4);
    EXPECT_EQ(m.clusters.size(), 5u);  // the top level and one child graph per all-reduce
  }
}

}  // namespace
}  // namespace gp
