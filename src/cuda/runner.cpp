// The measurement passes of one (workload, mode). Order per repetition:
//   prepare (one-off costs) -> verify (checksum) -> warm-up -> GPU pass (CUDA events)
//   -> launch pass (host clock around each launch call, back to back) -> latency pass
//      (host clock around launch + synchronize, one iteration at a time)
// GPU and host figures come from separate passes so no timer measures the other's overhead.
#include "graphprof/cuda/runner.hpp"

#include <algorithm>
#include <cctype>
#include <tuple>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <vector>

#include "graphprof/cuda/handles.hpp"
#include "graphprof/cuda/trace_pass.hpp"
#include "graphprof/core/derived.hpp"
#include "graphprof/core/metric_catalog.hpp"
#include "graphprof/core/cuda_error_text.hpp"
#include "graphprof/core/run_outcome.hpp"
#include "graphprof/trace/nvtx_range.hpp"
#include "device_probe.hpp"
#include "event_batch.hpp"
#include "latch.hpp"
#include "mode_runner.hpp"
#include "pass_context.hpp"

namespace gp {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
double ns_between(Clock::time_point a, Clock::time_point b) {
  return static_cast<double>(std::chrono::duration_cast<std::chrono::nanoseconds>(b - a).count());
}

// The usual fix for the errors users meet when capturing (shared with `profile`'s capture trouble).
std::string hint_for(cudaError_t e, const std::string& api) { return capture_error_hint(static_cast<int>(e), api); }

struct PassResult {
  std::vector<double> samples;
  bool converged = false;
  bool cut_short = false;  // the budget ended the pass before it had min_samples
};

// Runs `batch` (which appends samples) until the stopping rule is satisfied, `*abandon` turns
// true, or the budget is spent: the pass stops as soon as one more batch (as long as the longest
// so far) would end past the budget, so one slow iteration means fewer samples, not a longer
// pass. A pass that yields no sample at all gives up after three budgets.
template <typename Batch>
PassResult sample_until_stable(const StoppingRule& rule, Batch&& batch, const bool* abandon = nullptr,
                               int min_batches = 1) {
  PassResult r;
  const auto t0 = Clock::now();
  double longest_batch = 0;
  for (int batches = 1;; ++batches) {
    const auto b0 = Clock::now();
    batch(r.samples);
    longest_batch = std::max(longest_batch, seconds_since(b0));
    if (abandon != nullptr && *abandon) return r;
    const double elapsed = seconds_since(t0);
    const StopDecision d = should_stop(rule, r.samples, elapsed);
    if (d.stop && batches >= min_batches) {
      r.converged = d.converged;
      r.cut_short = r.samples.size() < rule.min_samples;
      return r;
    }
    if ((!r.samples.empty() && elapsed + longest_batch > rule.budget_seconds) || elapsed > 3 * rule.budget_seconds) {
      r.cut_short = r.samples.size() < rule.min_samples;
      return r;
    }
  }
}

// Passes the budget ended before they had min_samples, and the iteration time that explains it:
// sections.budget of the result (docs/methodology.md).
BudgetSection& budget_of(ModeResult& res) {
  return res.sections.budget ? *res.sections.budget : res.sections.budget.emplace();
}

void mark_cut_short(ModeResult& res, const std::string& pass) {
  std::vector<std::string>& list = budget_of(res).passes_cut_short;
  if (std::find(list.begin(), list.end(), pass) == list.end()) list.push_back(pass);
}

Metric make_metric(const char* unit, Direction dir, const char* description) {
  Metric m;
  m.unit = unit;
  m.direction = dir;
  m.description = description;
  return m;
}

void add_repetition(ModeResult& res, const std::string& key, const char* unit, const char* description,
                    PassResult pass) {
  if (pass.cut_short) mark_cut_short(res, key);
  auto it = res.metrics.find(key);
  if (it == res.metrics.end())
    it = res.metrics.emplace(key, make_metric(unit, Direction::kLowerIsBetter, description)).first;
  it->second.repetitions.push_back(std::move(pass.samples));
  it->second.converged = it->second.converged && pass.converged;
}

// DOT dump of the replayed graph (default and verbose forms); paths go into sections.graph.
void dump_graph(cudaGraph_t g, const std::string& dir, ModeResult& res) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string stem = res.workload;
  for (const auto& [k, v] : res.params) stem += "_" + k + "-" + v;
  stem += std::string("_") + to_string(res.mode);
  // Parameter values may hold any text (a folder, for --ranks): keep the name one plain file name.
  for (char& c : stem)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.')) c = '_';
  const std::string plain = (std::filesystem::path(dir) / (stem + ".dot")).string();
  const std::string verbose = (std::filesystem::path(dir) / (stem + "_verbose.dot")).string();
  GraphDumpSection& dump = res.sections.graph ? *res.sections.graph : res.sections.graph.emplace();
  // A dump that cannot be written is noted; the measurement goes on.
  for (const auto& [path, flags, field] : {std::tuple{plain, 0u, &GraphDumpSection::dot},
                                           std::tuple{verbose, static_cast<unsigned>(cudaGraphDebugDotFlagsVerbose),
                                                      &GraphDumpSection::dot_verbose}}) {
    const cudaError_t e = cudaGraphDebugDotPrint(g, path.c_str(), flags);
    if (e == cudaSuccess) {
      dump.*field = path;
    } else {
      (void)cudaGetLastError();
      dump.dot_error = std::string("cudaGraphDebugDotPrint(") + path + ") returned " + cudaGetErrorName(e);
    }
  }
}

void record_graph_shape(cudaGraph_t g, ModeResult& res) {
  std::size_t nodes = 0, edges = 0;
  GP_CUDA_CHECK(cudaGraphGetNodes(g, nullptr, &nodes));
  GP_CUDA_CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges));
  GraphDumpSection& dump = res.sections.graph ? *res.sections.graph : res.sections.graph.emplace();
  dump.nodes = static_cast<int>(nodes);
  dump.edges = static_cast<int>(edges);
  // Roots and sinks: the nodes no edge ends at / starts from.
  std::vector<cudaGraphNode_t> all(nodes), from(edges), to(edges);
  if (nodes > 0) GP_CUDA_CHECK(cudaGraphGetNodes(g, all.data(), &nodes));
  if (edges > 0) GP_CUDA_CHECK(cudaGraphGetEdges(g, from.data(), to.data(), nullptr, &edges));
  std::sort(from.begin(), from.end());
  std::sort(to.begin(), to.end());
  for (cudaGraphNode_t n : all) {
    if (!std::binary_search(to.begin(), to.end(), n)) ++dump.roots;
    if (!std::binary_search(from.begin(), from.end(), n)) ++dump.sinks;
  }
}

// sections.device_probe: the device's kernel-to-kernel step by both device methods
// (device_probe.hpp) right before this result's timing passes, around its two device passes
// (`points`) and after the last pass, so a reader can tell in which state the device ran each
// device figure, and whether it changed meanwhile. A probe that fails is noted; the measurement goes on.
enum class ProbeAt { kBeforePasses, kBeforeLatched, kAfterLatched, kAfterPasses };

void record_device_probe(ModeResult& res, ProbeAt at) {
  if (!res.sections.device_probe) res.sections.device_probe.emplace();
  DeviceProbeSection& probe = *res.sections.device_probe;
  probe.chain_kernels = kDeviceProbeKernels;
  DeviceProbeReading r;
  try {
    r = measure_device_probe();
  } catch (const CudaError& e) {
    if (is_environment_error(e.cuda_code()) || is_sticky_error(e.cuda_code())) throw;
    probe.error = e.api() + " returned " + e.error_name();
    (void)cudaGetLastError();
    return;
  }
  switch (at) {
    case ProbeAt::kBeforePasses:
      probe.ns_per_kernel = r.back_to_back_ns;
      probe.latched_ns_per_kernel = r.latched_ns;
      probe.points.push_back({"before GPU pass", r});
      break;
    case ProbeAt::kBeforeLatched: probe.points.push_back({"before latched pass", r}); break;
    case ProbeAt::kAfterLatched: probe.points.push_back({"after latched pass", r}); break;
    case ProbeAt::kAfterPasses:
      probe.ns_per_kernel_after = r.back_to_back_ns;
      probe.latched_ns_per_kernel_after = r.latched_ns;
      break;
  }
}

// One full repetition. Throws CudaError on failure; run_mode() records it.
// The passes of one repetition, the trace pass after them included: with --time-limit, each pass
// starts with the share of the time left that rule_within_time_left gives it.
constexpr int kPassesPerMode = 7;  // one-off, warm-up, GPU, latched, launch, latency, trace

MeasureOptions share_of_time_left(const MeasureOptions& base, int passes_left) {
  if (!base.deadline) return base;
  MeasureOptions o = base;
  o.rule = rule_within_time_left(base.rule, seconds_left(*base.deadline), passes_left);
  o.warmup_seconds = std::min(o.warmup_seconds, o.rule.budget_seconds);
  return o;
}

// One repetition's passes in the order they run (run_repetition below), sharing the workload's
// context, the options of the pass under way (each pass starts with its share of the time left)
// and what the first passes learnt: the batch size, the events.
class Repetition {
 public:
  Repetition(const WorkloadEntry& entry, Mode mode, const Params& params, const MeasureOptions& base, int rep,
             ModeResult& res)
      : mode_(mode), base_(base), rep_(rep), res_(res), pc_(entry, mode, params), opt_(share_of_time_left(base, passes_left_)) {}

  void run() {
    one_off_pass();
    verify_and_size_batches();
    warm_up();
    gpu_pass();
    latched_pass();
    launch_pass();
    latency_pass();
    if (rep_ == 0)
      for (const auto& [k, v] : pc_.workload().extra_metrics()) res_.sections.workload[k] = v;
    if (rep_ == std::max(1, opt_.repetitions) - 1) record_device_probe(res_, ProbeAt::kAfterPasses);
  }

 private:
  // The next pass: its share of the time left, its NVTX range, the observer told.
  void next_pass(const char* what) {
    opt_ = share_of_time_left(base_, --passes_left_);
    note(what);
  }
  void note(const char* what) {
    phase_.emplace(what);
    if (opt_.observer != nullptr) opt_.observer->pass_started(res_, what);
  }
  void one_iteration() { pc_.iteration(); }

  // Prepare: the one-off costs (capture, instantiate, upload), the graph's shape and DOT dump.
  void one_off_pass() {
    note("prepare");
    OneOffSamples costs;
    if (mode_ == Mode::kEager) {
      pc_.prepare(0, costs);
    } else {
      // One sequence at a time, so the budget bounds the one-off pass too (at least two are needed:
      // the first instantiate and upload of a graph in a repetition cost more than later ones, and
      // are kept apart as instantiate_time_first, upload_time_first, upload_call_time_first).
      const auto t0 = Clock::now();
      const int wanted = std::max(kMinOneOffSequences, opt_.one_off_samples);
      int done = 0;
      do {
        pc_.prepare(1, costs);
      } while (++done < wanted && (done < kMinOneOffSequences || seconds_since(t0) < opt_.rule.budget_seconds));
      if (done < wanted) mark_cut_short(res_, "one-off");
      split_first_one_off(costs);
    }
    for (auto& [name, samples] : costs)
      add_repetition(res_, name, "ns", "one-off cost (host clock, includes synchronisation where the step needs it)",
                     PassResult{std::move(samples), true});
    if (rep_ == 0 && pc_.runner().graph() != nullptr) {
      record_graph_shape(pc_.runner().graph(), res_);
      if (!opt_.dot_dir.empty()) dump_graph(pc_.runner().graph(), opt_.dot_dir, res_);
    }
  }

  void verify_and_size_batches() {
    note("verify");
    // Verify: same input state, same number of iterations in every mode.
    pc_.reset();
    for (int i = 0; i < opt_.verify_iterations; ++i) one_iteration();
    pc_.synchronize();
    const std::string checksum = pc_.workload().checksum(pc_.stream());
    if (rep_ == 0) res_.checksum = checksum;
    else if (checksum != res_.checksum)
      throw Error(ExitCode::kInternal, "checksum differs between repetitions (" + res_.checksum + " vs " + checksum +
                                           "): the workload is not deterministic");

    // How many launch calls an iteration makes, and how long one takes, decide the batch sizes
    // (pass_context.hpp), so a batch never blocks on a full launch queue and the passes below can
    // stop on time.
    const IterationShape shape = pc_.time_one_iteration();
    iteration_seconds_ = shape.seconds;
    calls_per_iter_ = shape.calls_per_iter;
    res_.derived["launch_calls_per_iter"] = static_cast<double>(calls_per_iter_);
    batch_ = batch_size(shape, opt_.rule.budget_seconds);
    if (rep_ == 0) budget_of(res_).iteration_seconds = iteration_seconds_;
  }

  void warm_up() {
    next_pass("warm-up");
    // Warm-up: at least warmup_iterations and warmup_seconds, but never past the budget.
    const auto warm0 = Clock::now();
    for (int i = 0; i < opt_.warmup_iterations || seconds_since(warm0) < opt_.warmup_seconds; ++i) {
      if (i > 0 && seconds_since(warm0) + iteration_seconds_ > opt_.rule.budget_seconds) {
        mark_cut_short(res_, "warm-up");
        break;
      }
      one_iteration();
      if (i % batch_ == batch_ - 1) pc_.synchronize();
    }
    pc_.synchronize();
    // After the warm-up, so the clocks have ramped up as for the passes that follow.
    if (rep_ == 0) record_device_probe(res_, ProbeAt::kBeforePasses);
  }

  void gpu_pass() {
    next_pass("launch loop: GPU pass");
    // GPU pass: an event between consecutive iterations queued back to back. The host clock over
    // each whole batch is an independent cross-check of the events' per-iteration figure.
    events_.emplace(std::max(batch_, 32));
    cudaStream_t stream = pc_.stream();
    std::vector<double> host_per_iter;
    PassResult gpu = sample_until_stable(opt_.rule, [&](std::vector<double>& out) {
      const auto t0 = Clock::now();
      events_->enqueue(stream, batch_, [&] { one_iteration(); });
      events_->wait();
      host_per_iter.push_back(ns_between(t0, Clock::now()) / batch_);
      events_->append_times(out);
    }, nullptr, /*min_batches=*/3);  // several batches, so the host-clock cross-check sees batch-to-batch spread
    add_repetition(res_, "gpu_time_per_iter", "ns",
                   "time of one iteration between CUDA events, iterations queued back to back", std::move(gpu));
    add_repetition(res_, "host_time_per_iter_batched", "ns",
                   "host clock over a whole GPU-pass batch (launches to event sync) divided by its iterations; "
                   "cross-check of gpu_time_per_iter",
                   PassResult{std::move(host_per_iter), true});
  }

  void latched_pass() {
    if (rep_ == 0) record_device_probe(res_, ProbeAt::kBeforeLatched);
    next_pass("launch loop: latched pass");
    // Latched pass: one iteration queued behind the latch (latch.hpp) between two events, then
    // released, so the device runs it with host submission hidden and after an idle stream, as NVIDIA's
    // cudaGraphsPerfScaling times its repeat launch: a replay that follows the previous replay of a
    // short graph with several roots or sinks costs more (the GPU pass measures that steady state;
    // docs/methodology.md). A batch is `lbatch` such holds, so a pass samples as long as before.
    cudaStream_t stream = pc_.stream();
    Latch latch;
    const int lbatch = latched_batch_size(batch_, calls_per_iter_);
    bool abandoned = false;
    PassResult latched = sample_until_stable(
        opt_.rule,
        [&](std::vector<double>& out) {
          for (int i = 0; i < lbatch; ++i) {
            latch.hold(stream, 0.25);
            events_->enqueue(stream, 1, [&] { one_iteration(); });
            latch.release();
            events_->wait();
            // A timeout means the iteration waits for the host (a synchronize, a host-driven loop)
            // or filled the launch queue (thousands of launches): it was not pre-queued, so the
            // figure would be meaningless.
            if (latch.timed_out()) {
              abandoned = true;
              return;
            }
            events_->append_times(out);
          }
        },
        &abandoned);
    if (abandoned) {
      res_.sections.latched = "skipped: an iteration could not be queued behind the latch within 0.25 s (it waits for the host, "
                              "or it has more launches than the launch queue holds)";
    } else {
      add_repetition(res_, "gpu_time_per_iter_latched", "ns",
                     "device time of one iteration queued alone behind a latch, between two events, after an idle stream (host "
                     "submission hidden; the repeat-launch method of NVIDIA's cudaGraphsPerfScaling)", std::move(latched));
    }
  }

  void launch_pass() {
    if (rep_ == 0) record_device_probe(res_, ProbeAt::kAfterLatched);
    next_pass("launch loop: launch pass");
    // Launch pass: host clock around each launch API call, calls back to back (queue busy).
    LaunchContext& ctx = pc_.launch_context();
    std::vector<double> per_iter_submit;
    PassResult launch = sample_until_stable(opt_.rule, [&](std::vector<double>& out) {
      for (int i = 0; i < batch_; ++i) {
        const std::size_t before = out.size();
        ctx.record_calls_into(&out);
        one_iteration();
        ctx.record_calls_into(nullptr);
        double sum = 0;
        for (std::size_t k = before; k < out.size(); ++k) sum += out[k];
        per_iter_submit.push_back(sum);
      }
      pc_.synchronize();
    });
    add_repetition(res_, "launch_cpu_per_call", "ns",
                   "host time of one launch API call (cudaLaunchKernel etc. in eager, cudaGraphLaunch in graph modes), "
                   "calls back to back",
                   std::move(launch));
    add_repetition(res_, "launch_cpu_per_iter", "ns", "host time of all launch API calls of one iteration, back to back",
                   PassResult{std::move(per_iter_submit), true});
  }

  void latency_pass() {
    next_pass("launch loop: latency pass");
    // Latency pass: one iteration at a time from an idle GPU: launch, then synchronize.
    LaunchContext& ctx = pc_.launch_context();
    std::vector<double> isolated;
    std::vector<double> call_sink;
    PassResult wall = sample_until_stable(opt_.rule, [&](std::vector<double>& out) {
      for (int i = 0; i < std::min(batch_, 8); ++i) {
        call_sink.clear();
        ctx.record_calls_into(&call_sink);
        const auto t0 = Clock::now();
        one_iteration();
        pc_.synchronize();
        const auto t1 = Clock::now();
        ctx.record_calls_into(nullptr);
        out.push_back(ns_between(t0, t1));
        if (!call_sink.empty()) isolated.push_back(call_sink.front());
      }
    });
    add_repetition(res_, "wall_time_per_iter", "ns",
                   "host clock from the first launch call of one iteration to the end of cudaStreamSynchronize",
                   std::move(wall));
    add_repetition(res_, "launch_cpu_isolated", "ns", "host time of the first launch call of an iteration after a synchronize",
                   PassResult{std::move(isolated), true});
  }

  const Mode mode_;
  const MeasureOptions& base_;
  const int rep_;
  ModeResult& res_;
  PassContext pc_;
  int passes_left_ = kPassesPerMode;
  MeasureOptions opt_;
  std::optional<NvtxRange> phase_;  // names each pass in Nsight Systems (graphprof domain)
  double iteration_seconds_ = 0;
  std::size_t calls_per_iter_ = 0;
  int batch_ = 1;
  std::optional<EventBatch> events_;  // made by the GPU pass, used by the latched pass too
};

void run_repetition(const WorkloadEntry& entry, Mode mode, const Params& params, const MeasureOptions& base,
                    int rep, ModeResult& res) {
  Repetition(entry, mode, params, base, rep, res).run();
}

}  // namespace

std::unique_ptr<ModeRunner> make_mode_runner(Mode m) {
  switch (m) {
    case Mode::kEager: return make_eager_runner();
    case Mode::kCapture: return make_capture_runner();
    case Mode::kGraph: return make_graph_runner();
    case Mode::kApp: break;
  }
  throw Error(ExitCode::kInternal, std::string("no runner for mode ") + to_string(m));
}

ModeResult run_mode(const WorkloadEntry& entry, Mode mode, const Params& params, const MeasureOptions& opt) {
  ModeResult res;
  res.workload = entry.info.name;
  res.mode = mode;
  res.params = params.values();
  if (entry.plugin) {
    const PluginOrigin& p = *entry.plugin;
    PluginSection& plugin = res.sections.plugin.emplace();
    plugin.library = p.library;
    plugin.name = p.name;
    plugin.version = p.version;
    plugin.file_fnv1a64 = p.file_fnv1a64;
    plugin.api_version = std::to_string(p.api_major) + "." + std::to_string(p.api_minor);
  }
  const NvtxRange mode_range(res.workload + " " + to_string(mode));

  {
    // Ask a throwaway instance whether it supports the mode before doing any GPU work.
    std::unique_ptr<Workload> probe = entry.create();
    std::string why = probe->unsupported_reason(mode);
    if (why.empty() && mode == Mode::kGraph && !entry.provides_graph) why = kGraphNotProvided;
    if (!why.empty()) {
      res.status = Status::kUnsupported;
      res.reason = why;
      return res;
    }
  }

  try {
    // An error left behind by an earlier mode's cleanup (seen with NCCL after a failed mode on the
    // H200) would otherwise be reported by this mode's first checked launch.
    (void)cudaGetLastError();
    // The device probe's exec is made before the first workload's, so it is the process's oldest
    // (device_probe.hpp). A failure here is recorded by the probe itself (record_device_probe).
    try {
      make_device_probe();
    } catch (const CudaError& e) {
      if (is_environment_error(e.cuda_code()) || is_sticky_error(e.cuda_code())) throw;
      (void)cudaGetLastError();
    }
    for (int rep = 0; rep < std::max(1, opt.repetitions); ++rep) {
      if (rep > 0 && opt.deadline && seconds_left(*opt.deadline) <= 0) {
        mark_cut_short(res, "repetitions");  // --time-limit: the repetitions measured so far are kept
        break;
      }
      run_repetition(entry, mode, params, opt, rep, res);
    }
    for (auto& [k, m] : res.metrics) m.resummarize();
    derive_within_mode(res);
  } catch (const CudaError& e) {
    if (is_environment_error(e.cuda_code())) throw;
    res.status = Status::kFailed;
    res.metrics.clear();
    res.failure = Failure{e.api(), e.error_name(), e.what(), hint_for(e.cuda_code(), e.api())};
    res.reason = e.api() + " returned " + e.error_name();
    // A failed mode must not poison the next one. A sticky error (an illegal address in a kernel,
    // ...) leaves the context unusable: every later call fails with it. The suite stops after this
    // result (graphprof/core/run_outcome.hpp).
    if (recover_from_cuda_error(e)) {
      res.sections.cuda_context_lost = true;
      res.failure->hint = "the CUDA context is unusable after this error, so graphprof stopped here; run this "
                          "workload and mode alone under compute-sanitizer to find the faulting access";
    }
  } catch (const Error& e) {
    if (e.code() == ExitCode::kUsage || e.code() == ExitCode::kEnvironment) throw;
    res.status = Status::kFailed;
    res.metrics.clear();
    res.reason = e.what();
  }
  // After every timing pass, so those ran without CUPTI attached. It records its own failures in
  // sections.trace; what it throws (environment errors, output errors) ends the run.
  if (res.status == Status::kOk) run_trace_pass(entry, mode, params, share_of_time_left(opt, 1), res);
  return res;
}


}  // namespace gp
