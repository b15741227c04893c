// Terminal rendering of a Comparison: where the inputs came from, what makes them hard to
// compare, one table row per verdict worth reading, and the result line.
#include <algorithm>
#include <string>
#include <vector>

#include "graphprof/compare_report.hpp"

namespace gp {

namespace {

const char* kReset = "\033[0m";

const char* colour_of(Verdict v) {
  switch (v) {
    case Verdict::kRegression:
    case Verdict::kFailed: return "\033[1;31m";
    case Verdict::kMissing:
    case Verdict::kInvalid:
    case Verdict::kNotComparable: return "\033[33m";
    case Verdict::kImprovement: return "\033[32m";
    case Verdict::kInconclusive: return "\033[35m";
    case Verdict::kSame: return "\033[2m";
    default: return "";
  }
}

// UTF-8 aware width (µ is two bytes, one column).
std::size_t width(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

struct Row {
  std::vector<std::string> cells;
  const char* colour = "";  // applied to the first cell after padding, so widths stay right
};

void print_table(std::ostream& out, const std::vector<std::string>& header, const std::vector<Row>& rows, bool colour,
                 std::size_t right_from, std::size_t right_to) {
  std::vector<std::size_t> w(header.size(), 0);
  for (std::size_t i = 0; i < header.size(); ++i) w[i] = width(header[i]);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.cells.size(); ++i) w[i] = std::max(w[i], width(r.cells[i]));
  auto line = [&](const std::vector<std::string>& cells, const char* col) {
    std::string s;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const bool last = i + 1 == cells.size();
      const std::string pad(w[i] - width(cells[i]), ' ');
      std::string cell = (i >= right_from && i <= right_to) ? pad + cells[i] : cells[i] + (last ? "" : pad);
      if (i == 0 && colour && col[0] != '\0') cell = std::string(col) + cells[i] + kReset + pad;
      s += (i ? "  " : "") + cell;
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out << s << "\n";
  };
  line(header, "");
  std::size_t total = 0;
  for (std::size_t i = 0; i < w.size(); ++i) total += w[i] + (i ? 2 : 0);
  out << std::string(std::min<std::size_t>(total, 120), '-') << "\n";
  for (const auto& r : rows) line(r.cells, r.colour);
}

std::string side_line(const InputInfo& i) {
  std::string s = i.label;
  std::string detail;
  auto add = [&](const std::string& x) {
    if (!x.empty()) detail += (detail.empty() ? "" : ", ") + x;
  };
  if (!i.git_revision.empty()) add("rev " + i.git_revision);
  if (!i.created_utc.empty()) add(i.created_utc);
  if (i.gpu) add(i.gpu->name);
  add(std::to_string(i.repetitions) + (i.repetitions == 1 ? " repetition" : " repetitions") +
      (i.reports > 1 ? " from " + std::to_string(i.reports) + " pooled reports" : ""));
  return s + " (" + detail + ")";
}

}  // namespace

void print_compare_console(const Comparison& c, std::ostream& out, const CompareConsoleOptions& o) {
  out << "baseline:  " << side_line(c.baseline) << "\n";
  out << "candidate: " << side_line(c.candidate) << "\n";
  const Thresholds& t = c.thresholds;
  std::string gates;
  for (const auto& g : t.gate_patterns) gates += (gates.empty() ? "" : ", ") + g;
  out << "rules:     change >= " << format_change(1 + t.threshold) << " with the " << static_cast<int>(t.gate_level * 100)
      << "% CI beyond " << format_change(1 + t.noise_floor) << "; gating metrics: " << (gates.empty() ? "(none)" : gates)
      << "\n";
  for (const auto& w : c.environment.warnings) out << "warning: " << w << "\n";
  for (const auto& b : c.banners) out << "note: " << b << "\n";
  if (!c.drift.empty()) {
    out << "structure drift" << (t.fail_on_drift ? " (fails with --fail-on-drift)" : "") << ":\n";
    for (const auto& d : c.drift) out << "  " << d.benchmark << ": " << d.what << "\n";
  }

  // Without --all: every gating row that is not "same", and the informational rows that
  // say something (a change or a data problem), not the ones that are merely noisy.
  auto worth_showing = [](const MetricComparison& r) {
    if (r.verdict == Verdict::kSame) return false;
    if (r.rule.gating) return true;
    return r.verdict != Verdict::kInconclusive && r.verdict != Verdict::kMinor;
  };
  std::vector<Row> rows;
  std::size_t hidden_same = 0, hidden_info = 0;
  for (const MetricComparison* r : rows_by_severity(c)) {
    if (!o.show_all && !worth_showing(*r)) {
      ++(r->verdict == Verdict::kSame ? hidden_same : hidden_info);
      continue;
    }
    Row row;
    row.colour = colour_of(r->verdict);
    const bool stats = r->base && r->cand;
    std::string why = r->reason;
    for (const auto& n : r->notes) why += "; " + n;
    row.cells = {verdict_label(*r),
                 r->benchmark(),
                 r->metric,
                 stats ? format_value(r->base->center, r->unit) : "-",
                 stats ? format_value(r->cand->center, r->unit) : "-",
                 r->has_estimate ? format_change(r->ratio) : "-",
                 r->has_estimate ? format_interval(r->ci_gate) : "-",
                 stats ? format_spread(*r->base) + "/" + format_spread(*r->cand) : "-",
                 why};
    rows.push_back(std::move(row));
  }
  out << "\n";
  if (!rows.empty()) {
    print_table(out, {"verdict", "benchmark", "metric", "baseline", "candidate", "change", "99% CI", "spread b/c", "why"},
                rows, o.color, 3, 7);
  }
  if (hidden_same + hidden_info > 0) {
    out << "not listed (--all lists them): " << hidden_same << " the same within the threshold";
    if (hidden_info > 0) out << ", " << hidden_info << " informational inconclusive or minor";
    out << "\n";
  }
  std::string geo;
  for (const auto& g : c.geomeans)
    if (g.gating) geo += (geo.empty() ? "" : ", ") + g.metric + " " + format_change(g.ratio) + " (n=" + std::to_string(g.n) + ")";
  if (!geo.empty()) out << "geomean:       " << geo << "\n";
  out << "gating:        " << verdict_counts(c, true) << "\n";
  out << "informational: " << verdict_counts(c, false) << "\n";
  const std::string head = result_line(c);
  if (o.color) {
    const char* col = c.exit_code == ExitCode::kOk ? "\033[1;32m" : (c.exit_code == ExitCode::kRegression ? "\033[1;31m" : "\033[1;33m");
    out << col << head << kReset << "\n";
  } else {
    out << head << "\n";
  }
}

}  // namespace gp
