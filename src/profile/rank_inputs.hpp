// What the cross-rank view needs from one process's analysis (profile_analysis.cpp calls these):
// each graph's kernel signature, capture mode and NCCL collectives, and the process's identity
// and eager collectives.
#pragma once
#include "graphprof/profile/profile.hpp"

namespace gp {

// `exec_records`: the records of this exec only (its kernels and launch calls, as the node
// statistics use them); `dot`: its dump when one was read (the signature's source without kernel
// records).
void describe_graph_for_ranks(GraphProfile& g, const TraceData& exec_records, const DotGraphInfo* dot,
                              const std::vector<CaptureCall>& captures);

void describe_process_for_ranks(ProcessProfile& out, const ProcessRecords& p);

}  // namespace gp
