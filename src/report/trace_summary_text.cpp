// Console text of the trace sections (see trace_summary_text.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <vector>

#include "graphprof/report/reporter.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/report/trace_summary_text.hpp"

namespace gp {

namespace {

std::string ns_with_ci(double median, double lo, double hi) {
  std::string s = format_ns(median);
  if (std::isfinite(lo) && std::isfinite(hi)) s += " [" + format_ns(lo) + ", " + format_ns(hi) + "]";
  return s;
}

std::string ratio_text(const TracePerturbation& p) {
  if (!std::isfinite(p.ratio)) return "-";
  std::string s = strf("%.2fx", p.ratio);
  if (p.ratio_range) s += strf(" [%.2f, %.2f]", p.ratio_range->first, p.ratio_range->second);
  return s;
}

std::string fmt_runs(double runs) { return strf(runs == std::floor(runs) ? "%.0f" : "%.1f", runs); }

}  // namespace

std::string format_trace_summary(const Report& report) {
  std::ostringstream out;
  TextTable rows({"workload", "mode", "trace", "untraced GPU/iter [95% CI]", "traced GPU/iter [95% CI]",
                  "traced/untraced", "replays", "dropped", "unattributed"},
                 TextTable::Layout::kText);
  bool any = false;
  for (const auto& r : report.results) {
    if (!r.sections.trace) continue;
    any = true;
    const TraceSection& t = *r.sections.trace;
    if (t.status != "ok") {
      rows.add({r.workload, to_string(r.mode), t.status + ": " + t.reason, "", "", "", "", "", ""});
      continue;
    }
    const TracePerturbation& p = t.perturbation;
    const TraceSpread untraced = p.untraced.value_or(TraceSpread{});
    rows.add({r.workload, to_string(r.mode), t.level.empty() ? "?" : t.level,
              ns_with_ci(untraced.median_ns, untraced.ci_low_ns, untraced.ci_high_ns),
              ns_with_ci(p.traced.median_ns, p.traced.ci_low_ns, p.traced.ci_high_ns), ratio_text(p),
              std::to_string(t.replays), std::to_string(t.dropped_records), std::to_string(t.unattributed_records)});
  }
  if (!any) return {};
  out << "\nTrace pass (CUPTI, after the timing passes): GPU time per iteration untraced vs traced\n";
  out << rows.str();

  for (const auto& r : report.results) {
    if (!r.sections.trace || r.sections.trace->status != "ok") continue;
    const TraceSection& t = *r.sections.trace;
    out << "\n" << r.workload << " " << to_string(r.mode) << " (traced):";
    if (t.graph_span && std::isfinite(t.graph_span->median_ns))
      out << " graph span " << format_ns(t.graph_span->median_ns) << ",";
    if (t.iteration_span && std::isfinite(t.iteration_span->median_ns))
      out << " GPU busy span per iteration " << format_ns(t.iteration_span->median_ns);
    out << "\n";
    // Work CUPTI does not record (graphs launched from the device, work a kernel starts itself)
    // shows as a traced span far shorter than the GPU time the events measured.
    const double measured = median_or_nan(r, "gpu_time_per_iter");
    const double seen = t.iteration_span && std::isfinite(t.iteration_span->median_ns) ? t.iteration_span->median_ns
                        : t.graph_span && std::isfinite(t.graph_span->median_ns)          ? t.graph_span->median_ns
                                                                                          : NAN;
    if (std::isfinite(measured) && std::isfinite(seen) && seen < 0.5 * measured)
      out << "  not in CUPTI's records: " << format_ns(measured - seen) << " of the " << format_ns(measured)
          << " GPU time per iteration (events, untraced) ran in work CUPTI does not record (graphs launched "
             "from the device, work a kernel starts itself); the per-node figures below miss it\n";
    const LaunchApiCheck& c = t.launch_api_check;
    if (std::isfinite(c.cupti_per_call_median_ns))
      out << "  launch calls: " << format_ns(c.cupti_per_call_median_ns) << " per call (CUPTI, traced) vs "
          << format_ns(c.host_clock_per_call_median_ns) << " (host clock, untraced launch pass)\n";
    // The slowest nodes, or the kernels by name when there are no nodes (eager, graph level).
    if (!t.nodes.empty()) {
      // Nodes that run several times per replay (a WHILE body) rank by their time per replay,
      // with two more columns; without such nodes the table is as it always was.
      auto runs = [](const TraceNodeTime& n) { return std::isfinite(n.runs_per_replay) ? n.runs_per_replay : 1.0; };
      auto per_replay = [&](const TraceNodeTime& n) {
        return runs(n) != 1 && std::isfinite(n.per_replay_median_ns) ? n.per_replay_median_ns : n.median_ns;
      };
      bool loops = false;
      for (const auto& n : t.nodes) loops = loops || runs(n) != 1;
      std::vector<const TraceNodeTime*> sorted;
      for (const auto& n : t.nodes) sorted.push_back(&n);
      std::stable_sort(sorted.begin(), sorted.end(),  // ties keep node order: the same text everywhere
                       [&](const TraceNodeTime* a, const TraceNodeTime* b) { return per_replay(*a) > per_replay(*b); });
      std::vector<std::string> header{"node", "kind", "name", "median", "p10", "p90", "gap before"};
      if (loops) header.insert(header.begin() + 3, {"per replay", "runs/replay"});
      TextTable nrows(std::move(header), TextTable::Layout::kText);
      for (std::size_t i = 0; i < sorted.size() && i < 5; ++i) {
        const TraceNodeTime& n = *sorted[i];
        std::vector<std::string> row{n.dot_name, n.kind, n.name, format_ns(n.median_ns), format_ns(n.p10_ns),
                                     format_ns(n.p90_ns), format_ns(n.gap_before_median_ns)};
        if (loops) row.insert(row.begin() + 3, {format_ns(per_replay(n)), fmt_runs(runs(n))});
        nrows.add(std::move(row));
      }
      out << "  slowest nodes (" << t.nodes.size() << " attributed):\n" << nrows.str();
    } else if (!t.kernels.empty()) {
      TextTable krows({"name", "kind", "count", "median", "p90", "per iteration"}, TextTable::Layout::kText);
      for (std::size_t i = 0; i < t.kernels.size() && i < 5; ++i) {
        const TraceKernelTime& k = t.kernels[i];
        krows.add({k.name, k.kind, std::to_string(k.count), format_ns(k.median_ns), format_ns(k.p90_ns),
                   format_ns(k.per_iter_ns)});
      }
      out << "  GPU work by name:\n" << krows.str();
    }
  }
  out << "\n(Traced figures include CUPTI's own cost; the timing tables above were measured without it.)\n";
  return out.str();
}

}  // namespace gp
