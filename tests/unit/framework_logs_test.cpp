// PyTorch's log lines of why it ran without CUDA graphs (src/profile/framework_logs.cpp): the
// skip reason with the user code it names, re-records on new sizes, and lines it must ignore.
#include <gtest/gtest.h>

#include <sstream>

#include "graphprof/profile/framework_logs.hpp"

namespace gp {
namespace {

FrameworkLog parse(const std::string& text) {
  std::istringstream in(text);
  return parse_torch_log(in);
}

// The shape TORCH_LOGS_OUT files have: a header (level, date, time, pid, the logging file:line),
// the compile id and artifact, the message; a multi-line message goes on without headers.
const char* const kSkip =
    "V1205 08:27:13.123000 4242 torch/_inductor/cudagraph_utils.py:55] [0/0] [__perf_hints] skipping cudagraphs due to "
    "mutated inputs (1 instances). Found from : \n"
    "   File \"/app/compile_skip.py\", line 21, in step\n"
    "    x.add_(1)\n"
    "\n";

TEST(FrameworkLogs, ASkipReasonWithTheCodeItNames) {
  const FrameworkLog log = parse(kSkip);
  EXPECT_EQ(log.records, 1u);
  ASSERT_EQ(log.entries.size(), 1u);
  const FrameworkLogEntry& e = log.entries[0];
  EXPECT_EQ(e.pid, 4242);
  EXPECT_EQ(e.kind, "skip");
  EXPECT_EQ(e.reason, "mutated inputs (1 instances)");
  EXPECT_EQ(e.file, "/app/compile_skip.py");
  EXPECT_EQ(e.line, 21);
  EXPECT_EQ(e.function, "step");
}

TEST(FrameworkLogs, AReasonWithoutCodeAndARankPrefix) {
  const FrameworkLog log = parse(
      "[rank1]:W1205 08:27:13.5 777 torch/_inductor/compile_fx.py:700] [2/1] [__perf_hints] skipping cudagraphs due to "
      "cpu device (arg0_1)\n");
  ASSERT_EQ(log.entries.size(), 1u);
  EXPECT_EQ(log.entries[0].pid, 777);
  EXPECT_EQ(log.entries[0].reason, "cpu device (arg0_1)");
  EXPECT_TRUE(log.entries[0].file.empty());
}

TEST(FrameworkLogs, ReRecordsOnNewSizes) {
  const FrameworkLog log = parse(
      "W1205 08:27:14.000000 4242 torch/_inductor/cudagraph_trees.py:2300] [1/0] [__perf_hints] CUDAGraph supports dynamic "
      "shapes by recording a new graph for each distinct input size. Recording too many CUDAGraphs may lead to extra overhead. "
      "We have observed 9 distinct sizes. Please consider the following options for better performance\n");
  ASSERT_EQ(log.entries.size(), 1u);
  EXPECT_EQ(log.entries[0].kind, "re-record");
  EXPECT_EQ(log.entries[0].reason, "a new graph for each new input size: 9 distinct sizes");
}

TEST(FrameworkLogs, LinesThatGiveNoReasonAreIgnored) {
  const std::string text =
      std::string("I1205 08:27:13.100000 4242 torch/_inductor/cudagraph_trees.py:400] [0/0] [__cudagraphs] Recording function 0 of graph recording id 0\n") +
      "skipping cudagraphs due to something the program printed itself\n"  // no header: not PyTorch's log
      "V1205 08:27:13.200000 4242 torch/_dynamo/x.py:1] [0/0] [__perf_hints] a hint about\n"
      "   skipping cudagraphs due to nothing (a continuation line is not a record's first)\n"
      "V1205 8:27:13.200000 4242 torch/_dynamo/x.py:1] skipping cudagraphs due to a malformed time\n" +
      kSkip;
  const FrameworkLog log = parse(text);
  EXPECT_EQ(log.records, 3u);
  ASSERT_EQ(log.entries.size(), 1u);
  EXPECT_EQ(log.entries[0].reason, "mutated inputs (1 instances)");
}

// PyTorch 2.11's graph partitions (lines as a torch.compile(mode="reduce-overhead") function with
// a CPU op logged them on an H100): the op split out of the graph, its reason, the code in the next
// record; a second compile of the same function logs it again.
const char* const kPartition =
    "V1205 18:42:36.709000 31962 torch/_inductor/scheduler.py:6545] [1/0] [__cudagraphs] Created 2 graph partitions: 1 cudagraphable, 1 non-cudagraphable\n"
    "V1205 18:42:36.709000 31962 torch/_inductor/scheduler.py:6552] [1/0] [__cudagraphs]   Partition 0: 1 nodes, non-cudagraphable, inputs=1, outputs=1\n"
    "V1205 18:42:36.709000 31962 torch/_inductor/scheduler.py:6580] [1/0] [__cudagraphs]     op1: reason=cpu ops, ir=ComputedBuffer, fx=aten.add.Tensor(arg2_1, 1)\n"
    "V1205 18:42:36.709000 31962 torch/_inductor/scheduler.py:6587] [1/0] [__cudagraphs]          File \"/work/app/compile_skip.py\", line 49, in update_cache\n"
    "V1205 18:42:36.709000 31962 torch/_inductor/scheduler.py:6587] [1/0] [__cudagraphs]              return cache * 0.5 + h.sum(dim=0), counts + 1\n"
    "V1205 18:42:36.709000 31962 torch/_inductor/scheduler.py:6552] [1/0] [__cudagraphs]   Partition 1: 1 nodes, cudagraphable, inputs=2, outputs=1\n"
    "I1205 18:43:29.113000 31962 torch/_inductor/cudagraph_trees.py:423] [__cudagraphs] Recording cudagraph tree for graph without symints\n";

TEST(FrameworkLogs, AnOpSplitOutOfTheGraphWithTheCodeItNames) {
  const FrameworkLog log = parse(kPartition);
  ASSERT_EQ(log.entries.size(), 1u);
  const FrameworkLogEntry& e = log.entries[0];
  EXPECT_EQ(e.pid, 31962);
  EXPECT_EQ(e.kind, "partition");
  EXPECT_EQ(e.reason, "cpu ops (aten.add.Tensor)");
  EXPECT_EQ(e.file, "/work/app/compile_skip.py");
  EXPECT_EQ(e.line, 49);
  EXPECT_EQ(e.function, "update_cache");
}

TEST(FrameworkLogs, ACodeLineWithoutAnOpBeforeItIsNotAReason) {
  // A frame record alone, or one after a reason that already has its code, adds nothing.
  const std::string frame =
      "V1205 18:42:36.709000 31962 torch/_inductor/scheduler.py:6587] [1/0] [__cudagraphs]          File \"/x.py\", line 3, in f\n";
  EXPECT_TRUE(parse(frame).entries.empty());
  const FrameworkLog log = parse(std::string(kPartition) + frame);
  ASSERT_EQ(log.entries.size(), 1u);
  EXPECT_EQ(log.entries[0].line, 49);
}

TEST(FrameworkLogs, AMissingFileIsAnEmptyLog) {
  const FrameworkLog log = read_torch_log("/nonexistent/graphprof/torch-logs.txt");
  EXPECT_EQ(log.records, 0u);
  EXPECT_TRUE(log.entries.empty());
}

}  // namespace
}  // namespace gp
