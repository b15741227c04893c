// The trace pass of one (workload, mode): a fresh workload, stream and graph, built while CUPTI
// records (so the graph-node callbacks see the graph being made and instantiated), a short
// warm-up, then `iterations` replays queued back to back with a CUDA event between iterations,
// in batches of the timing passes' size (pass_context.hpp), exactly like the untraced GPU pass, so
// the two per-iteration figures compare directly.
#include "graphprof/cuda/trace_pass.hpp"

#include <chrono>
#include "graphprof/graph/dot_graph_info.hpp"
#include "graphprof/core/run_outcome.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "graphprof/core/atomic_file.hpp"
#include "graphprof/cuda/handles.hpp"
#include "graphprof/core/stats.hpp"
#include "graphprof/trace/trace_analysis.hpp"
#include "graphprof/trace/nvtx_range.hpp"
#include "graphprof/trace/cupti_session.hpp"
#include "event_batch.hpp"
#include "pass_context.hpp"

namespace gp {

namespace {

struct PassOutput {
  std::string status = "ok";  // "ok" | "unavailable"
  std::string reason;
  TraceData data;
  std::vector<double> traced_gpu_ns;  // event time per iteration while tracing
};

PassOutput trace_once(const WorkloadEntry& entry, Mode mode, const Params& params, const MeasureOptions& opt,
                      std::size_t buffer_bytes, double iteration_seconds) {
  PassOutput out;
  PassContext pc(entry, mode, params);

  TraceSession session(opt.trace.level, buffer_bytes, opt.trace.detach_after_each_pass);
  if (!session.ok()) {
    out.status = "unavailable";
    out.reason = session.reason();
    return out;
  }
  {
    NvtxRange r("prepare (traced)");
    OneOffSamples ignored;
    pc.prepare(mode == Mode::kEager ? 0 : 1, ignored);
  }
  pc.reset();

  auto one_iteration = [&] { pc.iteration(); };
  // The timing passes' batch rule (pass_context.hpp), so the queue looks the same to the GPU; the
  // untraced iteration time, when known, stands for this iteration's.
  IterationShape shape = pc.time_one_iteration();
  shape.seconds = iteration_seconds;
  const int batch = batch_size(shape, opt.rule.budget_seconds);
  {
    NvtxRange r("warm-up (traced)");
    int warm = std::max(batch, 5);
    if (iteration_seconds > 0) warm = std::min(warm, static_cast<int>(std::max(1.0, opt.rule.budget_seconds / iteration_seconds)));
    // Traced iterations run slower than the untraced time says: the warm-up stops at a quarter of
    // the budget whatever its count.
    const auto w0 = std::chrono::steady_clock::now();
    for (int i = 0; i < warm; ++i) {
      one_iteration();
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count() > opt.rule.budget_seconds / 4) break;
    }
    pc.synchronize();
  }

  EventBatch events(batch);
  // The budget bounds this pass too: no more replays than fit in it at the untraced iteration time.
  std::size_t wanted = static_cast<std::size_t>(std::max(1, opt.trace.iterations));
  if (iteration_seconds > 0)
    wanted = std::min(wanted, static_cast<std::size_t>(std::max(1.0, opt.rule.budget_seconds / iteration_seconds)));
  std::vector<IterationWindow> windows;
  windows.reserve(wanted + static_cast<std::size_t>(batch));
  {
    NvtxRange r("launch loop (traced)");
    // At most half the budget for the traced replays: collecting and joining their records takes
    // about as long again for a workload of many kernels (--time-limit gives this pass what is left).
    const auto loop0 = std::chrono::steady_clock::now();
    while (windows.size() < wanted) {
      if (!windows.empty() &&
          std::chrono::duration<double>(std::chrono::steady_clock::now() - loop0).count() > opt.rule.budget_seconds / 2)
        break;
      // The last batch is cut short so exactly `wanted` replays are recorded.
      const int n = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(batch), wanted - windows.size()));
      events.enqueue(pc.stream(), n, [&] {
        const std::uint64_t t0 = TraceSession::now_ns();
        one_iteration();
        const std::uint64_t t1 = TraceSession::now_ns();
        windows.push_back(IterationWindow{t0, t1});
      });
      events.wait();
      events.append_times(out.traced_gpu_ns);
    }
  }
  // CUPTI's flush does not wait for the GPU.
  GP_CUDA_CHECK(cudaDeviceSynchronize());
  out.data = session.collect();
  out.data.windows = std::move(windows);
  return out;
}

}  // namespace

void run_trace_pass(const WorkloadEntry& entry, Mode mode, const Params& params, const MeasureOptions& opt,
                    ModeResult& res) {
  if (opt.trace.level == TraceLevel::kNone) return;
  TraceSection sec;
  sec.level = to_string(opt.trace.level);
  PassOutput out;
  std::optional<NodeJoin> join;
  // Measured by the timing passes (sections.budget.iteration_seconds); 0 when unknown.
  const double iteration_seconds =
      res.sections.budget && std::isfinite(res.sections.budget->iteration_seconds) ? res.sections.budget->iteration_seconds : 0;
  try {
    NvtxRange range("trace pass");
    // A pass that lost records runs once more with bigger buffers.
    constexpr std::size_t kMaxBuffer = std::size_t{64} << 20;
    std::size_t buffer = opt.trace.buffer_bytes;
    int attempts = 0;
    for (;;) {
      ++attempts;
      out = trace_once(entry, mode, params, opt, buffer, iteration_seconds);
      if (out.status != "ok" || out.data.dropped_records == 0 || attempts >= 2 || buffer >= kMaxBuffer) break;
      buffer = std::min(kMaxBuffer, buffer * 4);
    }
    if (out.status != "ok") {
      sec.status = out.status;
      sec.reason = out.reason;
      res.sections.trace = sec;
      return;
    }

    // The dump the report points at names the nodes (sections.graph.dot, written by the runner).
    DotGraphInfo dot;
    bool have_dot = false;
    std::string dot_warning;
    if (res.sections.graph && !res.sections.graph->dot.empty()) {
      try {
        dot = dot_graph_info(load_dot(res.sections.graph->dot));
        have_dot = dot.found;
      } catch (const Error& e) {
        dot_warning = e.what();
      }
    }
    join = NodeJoin::build(out.data, have_dot ? &dot : nullptr);
    const TraceSummary summary = summarize_trace(out.data, *join, have_dot ? &dot : nullptr);
    sec = to_section(summary);
    sec.dot_warning = dot_warning;
    sec.dropped_records = out.data.dropped_records;
    sec.attempts = attempts;
    sec.cupti_buffer_count = out.data.buffers;
    sec.cupti_buffer_largest_bytes = out.data.largest_buffer_bytes;
    add_timing_checks(sec, res, summary, out.traced_gpu_ns);
    if (out.data.dropped_records > 0)
      sec.reason = std::to_string(out.data.dropped_records) +
                      " records were dropped even with bigger buffers: per-node counts may be short";
  } catch (const CudaError& e) {
    if (is_environment_error(e.cuda_code())) throw;
    sec.status = "failed";
    sec.reason = e.api() + " returned " + e.error_name() + " during the trace pass";
    // The same recovery as a failed mode's (pass_context.hpp).
    const bool lost = recover_from_cuda_error(e);
    res.sections.trace = sec;
    if (lost) res.sections.cuda_context_lost = true;
    return;
  } catch (const Error& e) {
    if (e.code() == ExitCode::kUsage || e.code() == ExitCode::kEnvironment) throw;
    sec.status = "failed";
    sec.reason = std::string(e.what()) + " (during the trace pass)";
    res.sections.trace = sec;
    return;
  }
  res.sections.trace = sec;
  if (opt.observer != nullptr) opt.observer->trace_recorded(res, out.data, *join);
}

}  // namespace gp
