// Console tables for `graphprof run`.
#include <algorithm>
#include <cmath>
#include <map>
#include <iomanip>
#include <sstream>
#include <vector>

#include "graphprof/core/device_level.hpp"
#include "graphprof/core/metric_catalog.hpp"
#include "graphprof/core/params.hpp"
#include "graphprof/report/reporter.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/report/trace_summary_text.hpp"

namespace gp {

namespace {

std::string value_of(const Metric& m, double v) {
  if (m.unit == "ns") return format_ns(v);
  return format_count(v);  // 30,000, not 3e+04
}

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

bool any_device_probe(const Report& report) {
  for (const auto& r : report.results)
    if (r.sections.device_probe) return true;
  return false;
}

// Under the tables: one line per result whose two device methods disagree, saying why
// (device_methods_note); with `legend`, what the level column and the two device figures mean.
void device_method_notes(const Report& report, std::ostream& out, bool legend) {
  for (const auto& r : report.results) {
    const std::string note = device_methods_note(r);
    if (note.empty()) continue;
    out << "  " << r.workload << " [" << params_text(r.params, " ") << "] " << to_string(r.mode) << ": " << note << "\n";
  }
  if (legend && any_device_probe(report))
    out << "  level: the device probe, ns per kernel of a 256-kernel chain, back to back/latched, before the passes"
           " (→ the highest reading after, when it moved >10 %); GPU/iter = CUDA events between iterations queued back"
           " to back, latched = one iteration at a time queued behind "
        << latch_description(report) << "\n";
}

// The verbose sweep table: one row per grid point and mode.
void print_sweep_rows(const Report& report, const std::vector<std::string>& keys, std::ostream& out) {
  std::vector<std::string> header = keys;
  // Reports with the device probe get the level beside the device figures.
  const bool levels = any_device_probe(report);
  for (const char* h : {"mode", "GPU/iter", "latched/iter", "latched per node", "level", "launch/call",
                        "CPU submit/iter", "instantiate", "speedup", "break-even", "status"})
    if (levels || std::string(h) != "level") header.emplace_back(h);
  TextTable t(header);
  for (const auto& r : report.results) {
    std::vector<std::string> row;
    for (const auto& k : keys) row.push_back(r.params.count(k) ? r.params.at(k) : "-");
    row.push_back(to_string(r.mode));
    if (r.status != Status::kOk) {
      for (int i = 0; i < (levels ? 9 : 8); ++i) row.emplace_back("");
      row.push_back(std::string(to_string(r.status)) + ": " + r.reason);
      t.add(row);
      continue;
    }
    const bool graph_mode = r.mode != Mode::kEager;
    const double per = derived_or_nan(r, graph_mode ? "gpu_time_per_node_latched_ns" : "gpu_time_per_call_latched_ns");
    row.push_back(format_ns(median_or_nan(r, metric_key::kGpuTimePerIter)));
    row.push_back(format_ns(median_or_nan(r, metric_key::kGpuTimePerIterLatched)));
    row.push_back(format_ns(per));
    if (levels) row.push_back(device_level_cell(r));
    row.push_back(format_ns(median_or_nan(r, metric_key::kLaunchCpuPerCall)));
    row.push_back(format_ns(median_or_nan(r, metric_key::kLaunchCpuPerIter)));
    row.push_back(graph_mode ? format_ns(median_or_nan(r, metric_key::kInstantiateTime)) : "-");
    row.push_back(speedup_cell(r));
    row.push_back(break_even_cell(r));
    row.push_back("ok");
    t.add(row);
  }
  out << t.str();
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

namespace {

// One summary table per (workload, params): its modes side by side.
void print_workload_summary(const Report& report, const ModeResult& r, std::ostream& out) {
  out << "\nsummary: " << r.workload << " [" << params_text(r.params, " ") << "]\n";
  // Reports with the device probe get the latched figure and the level beside the GPU figure.
  const bool levels = any_device_probe(report);
  std::vector<std::string> head{"mode", "GPU/iter"};
  if (levels) head.insert(head.end(), {"latched/iter", "level"});
  head.insert(head.end(), {"wall/iter", "launch/call", "CPU submit/iter", "speedup (GPU)", "one-off", "break-even", "output"});
  TextTable t(head);
  for (const auto& x : report.results) {
    if (x.workload != r.workload || x.params != r.params) continue;
    if (x.status != Status::kOk) {
      std::vector<std::string> row{to_string(x.mode), to_string(x.status)};
      row.resize(head.size());
      t.add(row);
      continue;
    }
    const bool graph_mode = x.mode != Mode::kEager;
    const std::string be = break_even_cell(x);
    std::vector<std::string> row{to_string(x.mode), format_ns(median_or_nan(x, metric_key::kGpuTimePerIter))};
    if (levels)
      row.insert(row.end(), {format_ns(median_or_nan(x, metric_key::kGpuTimePerIterLatched)), device_level_cell(x)});
    row.insert(row.end(), {format_ns(median_or_nan(x, metric_key::kWallTimePerIter)),
                           format_ns(median_or_nan(x, metric_key::kLaunchCpuPerCall)),
                           format_ns(median_or_nan(x, metric_key::kLaunchCpuPerIter)), speedup_cell(x),
                           graph_mode ? format_ns(derived_or_nan(x, "one_off_total_ns")) : "-",
                           be == "-" || be == "never" ? be : be + (be == "1" ? " replay" : " replays"),
                           x.checksum_matches_eager ? (*x.checksum_matches_eager ? "same" : "DIFFERENT") : "?"});
    t.add(row);
  }
  out << t.str();
}

// One row per (workload, params): GPU time per mode, speedups, break-even, outputs.
void print_suite_summary(const Report& report, const std::vector<std::pair<std::string, const ModeResult*>>& groups,
                         std::ostream& out) {
  out << "\nsuite summary (median GPU time per iteration; speedup against eager)\n";
  TextTable t({"workload", "eager", "capture", "graph", "capture speedup", "graph speedup", "break-even (capture)",
               "outputs"});
  for (const auto& [label, r] : groups) {
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
    t.add({label, cell(e), cell(c), cell(g), speed(c), speed(g), be, any ? (all_same ? "same" : "DIFFERENT") : "-"});
  }
  out << t.str();
}

// Without --verbose: each mode that did not run ok, with its reason (the tables that say it are
// verbose only), and one line on the trace pass.
void print_brief_notes(const Report& report, std::ostream& out) {
  bool first = true;
  for (const auto& r : report.results) {
    if (r.status == Status::kOk) continue;
    out << (first ? "\n" : "") << r.workload << " " << to_string(r.mode) << ": " << to_string(r.status) << ": "
        << r.reason << "\n";
    if (r.failure && !r.failure->hint.empty()) out << "  fix: " << r.failure->hint << "\n";
    first = false;
  }
  std::size_t traced = 0, not_ok = 0;
  for (const auto& r : report.results) {
    if (!r.sections.trace) continue;
    ++traced;
    if (r.sections.trace->status != "ok") ++not_ok;
  }
  if (traced > 0) {
    std::string line = "trace pass: " + plural(traced, "result", "results") + " traced";
    if (not_ok > 0) line += " (" + std::to_string(not_ok) + " not ok)";
    line += "; traced vs untraced GPU time and the slowest nodes with --verbose, every node in the report";
    out << "\n" << wrap_clauses(line, kSentenceWidth);
  }
}

}  // namespace

void RunConsoleReporter::write(const Report& report, std::ostream& out) const {
  if (report.environment.gpu) {
    const GpuInfo& g = *report.environment.gpu;
    out << "GPU " << g.ordinal << ": " << g.name << " (sm_" << g.cc_major << g.cc_minor << ", " << g.sm_count
        << " SMs), driver " << g.driver_version / 1000 << "." << (g.driver_version % 1000) / 10 << ", runtime "
        << g.runtime_version / 1000 << "." << (g.runtime_version % 1000) / 10 << "\n";
  }
  const auto groups = result_groups(report, {});
  if (verbose_) {
    const auto& pr = report.environment.probes;
    if (pr.count("cpu_loop_ns_start") && pr.count("cuda_api_ns_start"))
      out << "host probes (start): CPU loop " << format_ns(pr.at("cpu_loop_ns_start")) << ", cudaStreamQuery "
          << format_ns(pr.at("cuda_api_ns_start")) << "\n";
    for (const auto& r : report.results) print_mode_table(r, out);
    out << format_trace_summary(report);
    for (const auto& [label, r] : groups) print_workload_summary(report, *r, out);
  } else if (groups.size() == 1) {
    print_workload_summary(report, *groups.front().second, out);
  }
  if (groups.size() > 1) print_suite_summary(report, groups, out);
  device_method_notes(report, out, verbose_ || groups.size() == 1);
  if (!verbose_) print_brief_notes(report, out);
  const std::string answer = run_answer(report);
  if (!answer.empty()) out << "\n" << answer;
}

void SweepConsoleReporter::write(const Report& report, std::ostream& out) const {
  const std::vector<std::string> keys = varying_params(report);
  out << "sweep: " << (report.results.empty() ? std::string("(nothing ran)") : report.results.front().workload) << "\n";
  if (verbose_) {
    print_sweep_rows(report, keys, out);
  } else {
    // One row per grid point: each mode's GPU time, the faster graph mode's speedup and break-even.
    std::vector<std::string> header = keys;
    for (const char* h : {"eager", "capture", "graph", "speedup", "break-even", "outputs"}) header.emplace_back(h);
    TextTable t(header);
    for (const auto& [label, r] : result_groups(report, keys)) {
      std::vector<std::string> row;
      for (const auto& k : keys) row.push_back(r->params.count(k) ? r->params.at(k) : "-");
      const ModeResult* best = nullptr;
      bool all_same = true, any = false;
      for (const Mode m : {Mode::kEager, Mode::kCapture, Mode::kGraph}) {
        const ModeResult* x = find_mode(report, *r, m);
        row.push_back(x == nullptr ? "-" : x->status != Status::kOk ? std::string(to_string(x->status))
                                                                    : format_ns(median_or_nan(*x, metric_key::kGpuTimePerIter)));
        if (x == nullptr || x->status != Status::kOk || m == Mode::kEager) continue;
        if (x->checksum_matches_eager) {
          any = true;
          all_same = all_same && *x->checksum_matches_eager;
        }
        const double s = derived_or_nan(*x, "speedup_gpu_time_vs_eager");
        if (std::isfinite(s) && (best == nullptr || s > derived_or_nan(*best, "speedup_gpu_time_vs_eager"))) best = x;
      }
      row.push_back(best == nullptr ? "-" : speedup_cell(*best) + " (" + to_string(best->mode) + ")");
      row.push_back(best == nullptr ? "-" : break_even_cell(*best));
      row.push_back(any ? (all_same ? "same" : "DIFFERENT") : "-");
      t.add(row);
    }
    out << t.str();
    for (const auto& r : report.results)
      if (r.status != Status::kOk)
        out << params_text(r.params, " ") << " " << to_string(r.mode) << ": " << to_string(r.status) << ": " << r.reason << "\n";
  }
  device_method_notes(report, out, verbose_);
  const std::string answer = sweep_answer(report, keys);
  if (!answer.empty()) out << "\n" << answer;
}

}  // namespace gp
