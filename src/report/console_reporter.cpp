// Console tables for `graphprof run`.
#include <algorithm>
#include <cmath>
#include <map>
#include <iomanip>
#include <sstream>
#include <vector>

#include "graphprof/core/metric_catalog.hpp"
#include "graphprof/core/params.hpp"
#include "graphprof/report/reporter.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/report/trace_summary_text.hpp"

namespace gp {

namespace {

std::string value_of(const Metric& m, double v) { return m.unit == "ns" ? format_ns(v) : strf("%.4g", v); }

void print_mode_table(const ModeResult& r, std::ostream& out) {
  out << "\n" << r.workload << " [" << params_text(r.params, " ") << "] mode=" << to_string(r.mode) << ": " << to_string(r.status);
  if (!r.checksum.empty()) out << ", checksum " << r.checksum;
  if (r.checksum_matches_eager) out << (*r.checksum_matches_eager ? " (matches eager)" : " (DIFFERS FROM EAGER)");
  out << "\n";
  if (r.status != Status::kOk) {
    out << "  reason: " << r.reason << "\n";
    if (r.failure && !r.failure->hint.empty()) out << "  fix:    " << r.failure->hint << "\n";
    return;
  }
  std::vector<std::pair<std::string, const Metric*>> ms;
  for (const auto& [k, m] : r.metrics) ms.emplace_back(k, &m);
  // Catalogue order (per-iteration figures first, then one-off costs), unknown keys by name after them.
  std::sort(ms.begin(), ms.end(), [](const auto& a, const auto& b) {
    const int ra = metric_order(a.first), rb = metric_order(b.first);
    return ra != rb ? ra < rb : a.first < b.first;
  });
  TextTable t({"metric", "median", "p10", "p90", "p99", "CI95", "n", ""});
  for (const auto& [k, m] : ms) {
    const Summary& s = m->summary;
    t.add({metric_label(k), value_of(*m, s.median), value_of(*m, s.p10), value_of(*m, s.p90), value_of(*m, s.p99),
           ci_percent_cell(s), std::to_string(s.n), m->converged ? "" : "noisy"});
  }
  out << t.str();
}

const ModeResult* find_mode(const Report& rep, const ModeResult& like, Mode mode) {
  for (const auto& x : rep.results)
    if (x.workload == like.workload && x.params == like.params && x.mode == mode) return &x;
  return nullptr;
}

// The parameters that differ between results (what a sweep varies).
std::vector<std::string> varying_params(const Report& rep) {
  std::vector<std::string> keys;
  if (rep.results.empty()) return keys;
  for (const auto& [k, v] : rep.results.front().params)
    for (const auto& r : rep.results) {
      auto it = r.params.find(k);
      if (it != r.params.end() && it->second != v) {
        keys.push_back(k);
        break;
      }
    }
  return keys;
}

}  // namespace

std::string speedup_cell(const ModeResult& r) {
  if (r.mode == Mode::kEager) return "1.00x";
  const double v = derived_or_nan(r, "speedup_gpu_time_vs_eager");
  return std::isfinite(v) ? strf("%.2fx", v) : "-";
}

std::string break_even_cell(const ModeResult& r) {
  // Absent: no eager baseline. Present but not finite: the graph never pays its one-off cost back
  // (infinity in memory, null once written to JSON).
  if (r.mode == Mode::kEager || !r.derived.count("break_even_replays")) return "-";
  const double v = derived_or_nan(r, "break_even_replays");
  return std::isfinite(v) ? strf("%.0f", v) : "never";
}

namespace {
// One side of an interval in percent: two significant figures, never "0.00" for a real spread.
std::string percent_figure(double p) {
  if (!(p > 0)) return "0";
  if (p < 0.01) return "<0.01";
  return strf(p < 1 ? "%.2f" : p < 10 ? "%.1f" : "%.0f", p);
}
}  // namespace

std::string ci_percent_cell(const Summary& s) {
  if (s.n < 2 || !(s.median > 0) || !std::isfinite(s.ci_low) || !std::isfinite(s.ci_high)) return "-";
  const std::string up = percent_figure(100.0 * (s.ci_high - s.median) / s.median);
  const std::string down = percent_figure(100.0 * (s.median - s.ci_low) / s.median);
  if (up == down) return "±" + up + "%";
  return "+" + up + "/−" + down + "%";
}

std::string progress_line(const ModeResult& r) {
  std::string s = r.workload + " " + to_string(r.mode) + ": " + to_string(r.status);
  if (r.status == Status::kOk) s += ", GPU/iter " + format_ns(median_or_nan(r, metric_key::kGpuTimePerIter));
  else s += " (" + r.reason + ")";
  return s;
}

void RunConsoleReporter::write(const Report& report, std::ostream& out) const {
  if (report.environment.gpu) {
    const GpuInfo& g = *report.environment.gpu;
    out << "GPU " << g.ordinal << ": " << g.name << " (sm_" << g.cc_major << g.cc_minor << ", " << g.sm_count
        << " SMs), driver " << g.driver_version / 1000 << "." << (g.driver_version % 1000) / 10 << ", runtime "
        << g.runtime_version / 1000 << "." << (g.runtime_version % 1000) / 10 << "\n";
  }
  const auto& pr = report.environment.probes;
  if (pr.count("cpu_loop_ns_start") && pr.count("cuda_api_ns_start"))
    out << "host probes (start): CPU loop " << format_ns(pr.at("cpu_loop_ns_start")) << ", cudaStreamQuery "
        << format_ns(pr.at("cuda_api_ns_start")) << "\n";
  for (const auto& r : report.results) print_mode_table(r, out);

  // Summary across modes, one block per (workload, params).
  std::vector<const ModeResult*> seen;
  for (const auto& r : report.results) {
    bool dup = false;
    for (const auto* s : seen) dup = dup || (s->workload == r.workload && s->params == r.params);
    if (dup) continue;
    seen.push_back(&r);
    out << "\nsummary: " << r.workload << " [" << params_text(r.params, " ") << "]\n";
    TextTable t({"mode", "GPU/iter", "wall/iter", "launch/call", "CPU submit/iter", "speedup (GPU)", "one-off",
             "break-even", "output"});
    for (const auto& x : report.results) {
      if (x.workload != r.workload || x.params != r.params) continue;
      if (x.status != Status::kOk) {
        t.add({to_string(x.mode), to_string(x.status), "", "", "", "", "", "", ""});
        continue;
      }
      const bool graph_mode = x.mode != Mode::kEager;
      const std::string be = break_even_cell(x);
      t.add({to_string(x.mode), format_ns(median_or_nan(x, metric_key::kGpuTimePerIter)), format_ns(median_or_nan(x, metric_key::kWallTimePerIter)),
             format_ns(median_or_nan(x, metric_key::kLaunchCpuPerCall)), format_ns(median_or_nan(x, metric_key::kLaunchCpuPerIter)),
             speedup_cell(x), graph_mode ? format_ns(derived_or_nan(x, "one_off_total_ns")) : "-",
             be == "-" || be == "never" ? be : be + " replays",
             x.checksum_matches_eager ? (*x.checksum_matches_eager ? "same" : "DIFFERENT") : "?"});
    }
    out << t.str();
  }
  if (seen.size() > 1) {
    out << "\nsuite summary (median GPU time per iteration; speedup against eager)\n";
    TextTable t({"workload", "eager", "capture", "graph", "capture speedup", "graph speedup", "break-even (capture)",
             "outputs"});
    // A workload measured with several parameter sets (the ranks of --ranks, a multi-workload
    // sweep) gets the parameters that tell its rows apart.
    auto label = [&seen](const ModeResult& r) {
      std::string extra;
      for (const auto& [k, v] : r.params)
        for (const auto* o : seen)
          if (o->workload == r.workload && o->params.count(k) && o->params.at(k) != v) {
            extra += (extra.empty() ? "" : " ") + k + "=" + v;
            break;
          }
      return extra.empty() ? r.workload : r.workload + " [" + extra + "]";
    };
    for (const auto* r : seen) {
      const ModeResult* e = find_mode(report, *r, Mode::kEager);
      const ModeResult* c = find_mode(report, *r, Mode::kCapture);
      const ModeResult* g = find_mode(report, *r, Mode::kGraph);
      auto cell = [](const ModeResult* x) {
        if (x == nullptr) return std::string("-");
        if (x->status != Status::kOk) return std::string(to_string(x->status));
        return format_ns(median_or_nan(*x, metric_key::kGpuTimePerIter));
      };
      auto speed = [](const ModeResult* x) {
        return x == nullptr || x->status != Status::kOk ? std::string("-") : speedup_cell(*x);
      };
      const std::string be = c != nullptr && c->status == Status::kOk ? break_even_cell(*c) : "-";
      bool all_same = true, any = false;
      for (const ModeResult* x : {c, g})
        if (x != nullptr && x->checksum_matches_eager) {
          any = true;
          all_same = all_same && *x->checksum_matches_eager;
        }
      t.add({label(*r), cell(e), cell(c), cell(g), speed(c), speed(g), be,
             any ? (all_same ? "same" : "DIFFERENT") : "-"});
    }
    out << t.str();
  }
  out << format_trace_summary(report);
}

void SweepConsoleReporter::write(const Report& report, std::ostream& out) const {
  const std::vector<std::string> keys = varying_params(report);
  std::vector<std::string> header = keys;
  for (const char* h : {"mode", "GPU/iter", "latched/iter", "latched per node", "launch/call", "CPU submit/iter",
                        "instantiate", "speedup", "break-even", "status"})
    header.emplace_back(h);
  TextTable t(header);
  for (const auto& r : report.results) {
    std::vector<std::string> row;
    for (const auto& k : keys) row.push_back(r.params.count(k) ? r.params.at(k) : "-");
    row.push_back(to_string(r.mode));
    if (r.status != Status::kOk) {
      for (int i = 0; i < 8; ++i) row.emplace_back("");
      row.push_back(std::string(to_string(r.status)) + ": " + r.reason);
      t.add(row);
      continue;
    }
    const bool graph_mode = r.mode != Mode::kEager;
    const double per = derived_or_nan(r, graph_mode ? "gpu_time_per_node_latched_ns" : "gpu_time_per_call_latched_ns");
    row.push_back(format_ns(median_or_nan(r, metric_key::kGpuTimePerIter)));
    row.push_back(format_ns(median_or_nan(r, metric_key::kGpuTimePerIterLatched)));
    row.push_back(format_ns(per));
    row.push_back(format_ns(median_or_nan(r, metric_key::kLaunchCpuPerCall)));
    row.push_back(format_ns(median_or_nan(r, metric_key::kLaunchCpuPerIter)));
    row.push_back(graph_mode ? format_ns(median_or_nan(r, metric_key::kInstantiateTime)) : "-");
    row.push_back(speedup_cell(r));
    row.push_back(break_even_cell(r));
    row.push_back("ok");
    t.add(row);
  }
  out << "sweep: " << (report.results.empty() ? std::string("(nothing ran)") : report.results.front().workload) << "\n";
  out << t.str();
}

}  // namespace gp
