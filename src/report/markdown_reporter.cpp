// Markdown view of a run report: one summary table per (workload, parameters), for PR comments,
// job summaries and notes.
#include <cmath>

#include "graphprof/core/metric_catalog.hpp"
#include "graphprof/core/params.hpp"
#include "graphprof/core/text_format.hpp"
#include "graphprof/report/reporter.hpp"

namespace gp {

namespace {

std::string ci_text(const ModeResult& r, const char* key) {
  auto it = r.metrics.find(key);
  if (it == r.metrics.end()) return "-";
  const Summary& s = it->second.summary;
  return format_ns(s.median) + " " + ci_percent_cell(s) + " (n=" + std::to_string(s.n) + ")" +
         (it->second.converged ? "" : " noisy");
}

}  // namespace

void MarkdownReporter::write(const Report& report, std::ostream& out) const {
  out << "## graphprof run";
  if (report.environment.gpu) out << " on " << report.environment.gpu->name;
  out << "\n\ngraphprof " << report.tool_version << " (" << report.git_revision << "), " << report.created_utc << "\n";
  std::vector<const ModeResult*> heads;
  for (const auto& r : report.results) {
    bool seen = false;
    for (const auto* h : heads) seen = seen || (h->workload == r.workload && h->params == r.params);
    if (!seen) heads.push_back(&r);
  }
  for (const auto* h : heads) {
    out << "\n### " << h->workload;
    const std::string ps = params_text(h->params, ", ");
    if (!ps.empty()) out << " (" << ps << ")";
    out << "\n\n| mode | GPU time / iter | latched / iter | launch call CPU | CPU submit / iter | one-off | "
           "speedup | break-even | output |\n|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& r : report.results) {
      if (r.workload != h->workload || r.params != h->params) continue;
      if (r.status != Status::kOk) {
        out << "| " << to_string(r.mode) << " | " << to_string(r.status) << ": " << r.reason << " | | | | | | | |\n";
        continue;
      }
      const bool g = r.mode != Mode::kEager;
      const std::string speed = speedup_cell(r), be = break_even_cell(r);
      out << "| " << to_string(r.mode) << " | " << ci_text(r, metric_key::kGpuTimePerIter) << " | "
          << format_ns(median_or_nan(r, metric_key::kGpuTimePerIterLatched)) << " | " << ci_text(r, metric_key::kLaunchCpuPerCall) << " | "
          << format_ns(median_or_nan(r, metric_key::kLaunchCpuPerIter)) << " | "
          << (g ? format_ns(derived_or_nan(r, "one_off_total_ns")) : "-") << " | " << speed << " | " << be << " | "
          << (r.checksum_matches_eager ? (*r.checksum_matches_eager ? "same" : "**DIFFERENT**") : "?") << " |\n";
    }
  }
}

}  // namespace gp
