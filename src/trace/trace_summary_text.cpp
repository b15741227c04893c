// Console text of the trace sections (see trace_report.hpp).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>
#include <vector>

#include "graphprof/reporters.hpp"
#include "graphprof/trace_report.hpp"

namespace gp {

using nlohmann::json;

namespace {

double num(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : std::numeric_limits<double>::quiet_NaN();
}

std::string ns_with_ci(const json& p, const char* median_key, const char* ci_key) {
  std::string s = format_ns(num(p, median_key));
  if (p.contains(ci_key) && p[ci_key].is_array() && p[ci_key].size() == 2 && p[ci_key][0].is_number() &&
      p[ci_key][1].is_number())
    s += " [" + format_ns(p[ci_key][0].get<double>()) + ", " + format_ns(p[ci_key][1].get<double>()) + "]";
  return s;
}

std::string ratio_text(const json& p) {
  const double r = num(p, "ratio");
  if (!std::isfinite(r)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2fx", r);
  std::string s = buf;
  if (p.contains("ratio_range") && p["ratio_range"].is_array() && p["ratio_range"].size() == 2) {
    std::snprintf(buf, sizeof buf, " [%.2f, %.2f]", p["ratio_range"][0].get<double>(), p["ratio_range"][1].get<double>());
    s += buf;
  }
  return s;
}

void print_table(std::ostream& out, const std::vector<std::vector<std::string>>& rows) {
  std::vector<std::size_t> width;
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], r[i].size());
    }
  for (const auto& r : rows) {
    out << " ";
    for (std::size_t i = 0; i < r.size(); ++i) {
      out << " " << r[i];
      if (i + 1 < r.size()) out << std::string(width[i] - r[i].size() + 1, ' ');
    }
    out << "\n";
  }
}

}  // namespace

std::string format_trace_summary(const Report& report) {
  std::ostringstream out;
  std::vector<std::vector<std::string>> rows{{"workload", "mode", "trace", "untraced GPU/iter [95% CI]",
                                              "traced GPU/iter [95% CI]", "traced/untraced", "replays", "dropped",
                                              "unattributed"}};
  bool any = false;
  for (const auto& r : report.results) {
    if (!r.sections.contains("trace")) continue;
    any = true;
    const json& t = r.sections["trace"];
    const std::string status = t.value("status", "?");
    if (status != "ok") {
      rows.push_back({r.workload, r.mode, status + ": " + t.value("reason", ""), "", "", "", "", "", ""});
      continue;
    }
    const json p = t.value("perturbation", json::object());
    rows.push_back({r.workload, r.mode, t.value("level", "?"), ns_with_ci(p, "untraced_gpu_time_per_iter_ns", "untraced_ci_ns"),
                    ns_with_ci(p, "traced_gpu_time_per_iter_ns", "traced_ci_ns"), ratio_text(p),
                    std::to_string(t.value("replays", 0)), std::to_string(t.value("dropped_records", 0)),
                    std::to_string(t.value("unattributed_records", 0))});
  }
  if (!any) return {};
  out << "\nTrace pass (CUPTI, after the timing passes): GPU time per iteration untraced vs traced\n";
  print_table(out, rows);

  for (const auto& r : report.results) {
    if (!r.sections.contains("trace")) continue;
    const json& t = r.sections["trace"];
    if (t.value("status", "") != "ok") continue;
    out << "\n" << r.workload << " " << r.mode << " (traced):";
    if (t.contains("graph_span_median_ns") && t["graph_span_median_ns"].is_number())
      out << " graph span " << format_ns(t["graph_span_median_ns"].get<double>()) << ",";
    if (t.contains("iteration_span_median_ns") && t["iteration_span_median_ns"].is_number())
      out << " GPU busy span per iteration " << format_ns(t["iteration_span_median_ns"].get<double>());
    out << "\n";
    const json c = t.value("launch_api_check", json::object());
    if (std::isfinite(num(c, "cupti_per_call_median_ns")))
      out << "  launch calls: " << format_ns(num(c, "cupti_per_call_median_ns")) << " per call (CUPTI, traced) vs "
          << format_ns(num(c, "host_clock_per_call_median_ns")) << " (host clock, untraced launch pass)\n";
    // The slowest nodes, or the kernels by name when there are no nodes (eager, graph level).
    const json nodes = t.value("nodes", json::array());
    if (!nodes.empty()) {
      std::vector<json> sorted(nodes.begin(), nodes.end());
      std::sort(sorted.begin(), sorted.end(),
                [](const json& a, const json& b) { return num(a, "median_ns") > num(b, "median_ns"); });
      std::vector<std::vector<std::string>> nrows{{"node", "kind", "name", "median", "p10", "p90", "gap before"}};
      for (std::size_t i = 0; i < sorted.size() && i < 5; ++i) {
        const json& n = sorted[i];
        nrows.push_back({n.value("dot_name", ""), n.value("kind", ""), n.value("name", ""), format_ns(num(n, "median_ns")),
                         format_ns(num(n, "p10_ns")), format_ns(num(n, "p90_ns")), format_ns(num(n, "gap_before_median_ns"))});
      }
      out << "  slowest nodes (" << nodes.size() << " attributed):\n";
      print_table(out, nrows);
    } else {
      const json kernels = t.value("kernels", json::array());
      if (!kernels.empty()) {
        std::vector<std::vector<std::string>> krows{{"name", "kind", "count", "median", "p90", "per iteration"}};
        for (std::size_t i = 0; i < kernels.size() && i < 5; ++i) {
          const json& k = kernels[i];
          krows.push_back({k.value("name", ""), k.value("kind", ""), std::to_string(k.value("count", 0)),
                           format_ns(num(k, "median_ns")), format_ns(num(k, "p90_ns")), format_ns(num(k, "per_iter_ns"))});
        }
        out << "  GPU work by name:\n";
        print_table(out, krows);
      }
    }
  }
  out << "\n(Traced figures include CUPTI's own cost; the timing tables above were measured without it.)\n";
  return out.str();
}

}  // namespace gp
