// What a caller of the measurement sees while it runs: one observer for the passes of each
// (workload, mode), its trace records, and each finished result (progress lines, trace files).
#pragma once

namespace gp {

struct ModeResult;
struct TraceData;
class NodeJoin;

class MeasureObserver {
 public:
  virtual ~MeasureObserver() = default;
  // A pass of res's (workload, mode) starts: "prepare", "verify", "warm-up", "launch loop: GPU pass", ...
  virtual void pass_started(const ModeResult& res, const char* pass) {
    (void)res;
    (void)pass;
  }
  // A trace pass succeeded: its records and their join to the graph's nodes. May throw gp::Error;
  // that error ends the run.
  virtual void trace_recorded(const ModeResult& res, const TraceData& data, const NodeJoin& join) {
    (void)res;
    (void)data;
    (void)join;
  }
  // A (workload, mode) is done (measured, failed or unsupported) and appended to the report.
  virtual void result_finished(const ModeResult& res) { (void)res; }
};

}  // namespace gp
