// Terminal rendering of a Comparison: where the inputs came from, what makes them hard to
// compare, one table row per verdict worth reading, and the result line.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "graphprof/report/compare_report.hpp"
#include "graphprof/core/name_match.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp {

namespace {

const char* kReset = "\033[0m";
constexpr std::size_t kMaxConsoleColumns = 160;

std::string clip(const std::string& s, std::size_t max);

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

struct Row {
  std::vector<std::string> cells;
  const char* colour = "";  // applied to the first cell after padding, so widths stay right
};

// Table rows never exceed kMaxConsoleColumns (the last column, the note, is cut to fit). A row's
// detail line follows it where `show` says so, and wherever its note was cut: the detail then
// holds the note's full text (nothing is cut without being shown whole).
void print_table(std::ostream& out, const std::vector<std::string>& header, std::vector<Row> rows, bool colour,
                 std::size_t right_from, std::size_t right_to, std::vector<std::string> details, std::vector<bool> show) {
  for (auto& r : rows)
    for (auto& cell : r.cells) cell = one_line(cell);
  for (auto& d : details) d = one_line(d);
  std::vector<std::size_t> w(header.size(), 0);
  for (std::size_t i = 0; i < header.size(); ++i) w[i] = display_width(header[i]);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.cells.size(); ++i) w[i] = std::max(w[i], display_width(r.cells[i]));
  std::size_t fixed = 0;
  for (std::size_t i = 0; i + 1 < w.size(); ++i) fixed += w[i] + 2;
  if (fixed + w.back() > kMaxConsoleColumns) {
    w.back() = std::max<std::size_t>(kMaxConsoleColumns > fixed ? kMaxConsoleColumns - fixed : 1, display_width(header.back()));
    for (std::size_t i = 0; i < rows.size(); ++i) {
      std::string& note = rows[i].cells.back();
      const std::string cut = clip(note, w.back());
      if (cut == note) continue;
      show[i] = true;
      if (details[i].find(note) == std::string::npos) details[i] = note + (details[i].empty() ? "" : "; " + details[i]);
      note = cut;
    }
  }
  auto line = [&](const std::vector<std::string>& cells, const char* col) {
    std::string s;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      const bool last = i + 1 == cells.size();
      const std::string pad = padding(cells[i], w[i]);
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
  out << std::string(std::min<std::size_t>(total, kMaxConsoleColumns), '-') << "\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    line(rows[i].cells, rows[i].colour);
    if (show[i] && !details[i].empty()) out << "    " << details[i] << "\n";
  }
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
  add(plural(i.runs, "run", "runs") + ", " + plural(i.repetitions, "repetition", "repetitions"));
  return s + " (" + detail + ")";
}

// Keeps a cell to `max` display columns, cutting in the middle of long parameter lists.
std::string clip(const std::string& s, std::size_t max) { return clip_columns(s, max, "~"); }

// A line of running text kept to kMaxConsoleColumns by wrapping it at spaces, never cut: each
// further line is indented by `indent` columns (a word longer than a line stays whole).
void print_wrapped(std::ostream& out, const std::string& text, std::size_t indent) {
  std::string line = one_line(text);
  while (display_width(line) > kMaxConsoleColumns) {
    std::size_t cut = std::string::npos;
    for (std::size_t p = line.find(' ', indent + 1); p != std::string::npos && display_width(line.substr(0, p)) <= kMaxConsoleColumns;
         p = line.find(' ', p + 1))
      cut = p;
    if (cut == std::string::npos) cut = line.find(' ', indent + 1);
    if (cut == std::string::npos) break;
    std::string head = line.substr(0, cut);
    while (!head.empty() && head.back() == ' ') head.pop_back();
    out << head << "\n";
    const std::size_t next = line.find_first_not_of(' ', cut);
    if (next == std::string::npos) return;
    line = std::string(indent, ' ') + line.substr(next);
  }
  out << line << "\n";
}

// Per workload, the parameters whose values differ between the listed rows: they tell the rows
// apart, so a name too long for its column keeps them and drops the ones all rows share.
std::map<std::string, std::set<std::string>> telling_params(const std::vector<const MetricComparison*>& rows) {
  std::map<std::string, std::size_t> rows_of;
  std::map<std::string, std::map<std::string, std::pair<std::size_t, std::set<std::string>>>> seen;
  for (const MetricComparison* r : rows) {
    ++rows_of[r->workload];
    for (const auto& [k, v] : r->params) {
      auto& s = seen[r->workload][k];
      ++s.first;
      s.second.insert(v);
    }
  }
  std::map<std::string, std::set<std::string>> out;
  for (const auto& [workload, keys] : seen)
    for (const auto& [k, s] : keys)
      if (s.second.size() > 1 || s.first < rows_of[workload]) out[workload].insert(k);
  return out;
}

// The benchmark cell: the whole name when it fits; otherwise the parameters that tell the listed
// rows apart and "~" for the rest ("scaling[length=100,~]/capture"), cut later by benchmark_column.
// What "~" stands for (the same in every listed row of the workload) goes into `shared`, by
// workload, for the line under the table.
std::string benchmark_cell(const MetricComparison& r, const std::set<std::string>* telling, std::size_t max,
                           std::map<std::string, std::string>& shared) {
  const std::string full = r.benchmark();
  if (display_width(full) <= max || telling == nullptr) return full;
  std::string kept, dropped;
  for (const auto& [k, v] : r.params) {
    std::string& to = telling->count(k) > 0 ? kept : dropped;
    to += (to.empty() ? "" : ",") + k + "=" + v;
  }
  if (!dropped.empty()) {
    kept += kept.empty() ? "~" : ",~";
    shared.emplace(r.workload, dropped);
  }
  return r.workload + "[" + kept + "]/" + r.mode;
}

// The column of benchmark cells, each at most `max` columns with its "/mode" whole: the names
// before it are cut in the middle and apart (clip_names_apart), so rows that differ only in a
// long parameter, such as the graph label of a profile comparison ("[graph=#4/4 main in app (14
// nodes)]"), stay apart.
std::vector<std::string> benchmark_column(const std::vector<std::string>& cells, std::size_t max) {
  std::vector<std::string> heads, tails;
  std::size_t tail_width = 0;
  for (const std::string& c : cells) {
    const auto slash = c.rfind('/');
    const bool split = slash != std::string::npos && display_width(c) > max && c.size() - slash + 8 <= max;
    heads.push_back(split ? c.substr(0, slash) : c);
    tails.push_back(split ? c.substr(slash) : "");
    if (display_width(c) > max) tail_width = std::max(tail_width, display_width(tails.back()));
  }
  const std::vector<std::string> cut = clip_names_apart(heads, max - tail_width);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < cells.size(); ++i)
    out.push_back(display_width(cells[i]) <= max ? cells[i] : cut[i] + tails[i]);
  return out;
}

// The short "note" column: what to do about a row (the full reason is under --verbose and in JSON).
std::string short_note(const MetricComparison& r) {
  if (r.not_enough_runs) return "not enough runs";
  if (r.verdict == Verdict::kInconclusive && r.runs_needed > 0)
    return r.runs_needed >= 1000 ? "needs >1000 runs" : "needs ~" + std::to_string(r.runs_needed) + " runs";
  if (r.verdict == Verdict::kMinor && std::fabs(r.abs_change) < r.rule.abs_floor) return "below abs floor";
  if (!r.has_estimate || r.verdict == Verdict::kNotComparable) return r.reason;  // cut to fit by the table
  return "";
}

}  // namespace

namespace {

// The result line, coloured by the outcome with --color.
void print_console_result(const Comparison& c, ExitCode exit, std::ostream& out, bool colour) {
  const std::string head = one_line(result_line(c, exit));
  const char* head_colour = c.outcome == CompareOutcome::kPass         ? "\033[1;32m"
                            : c.outcome == CompareOutcome::kRegression ? "\033[1;31m"
                                                                        : "\033[1;33m";
  if (colour) out << head_colour << head << kReset << "\n";
  else out << head << "\n";
}

// The two inputs, the rule rows are judged by, warnings, notes and structure drift.
void print_console_preamble(const Comparison& c, std::ostream& out) {
  out << "baseline:  " << one_line(side_line(c.baseline)) << "\n";
  out << "candidate: " << one_line(side_line(c.candidate)) << "\n";
  const Thresholds& t = c.thresholds;
  std::string gates;
  for (const auto& g : t.gate_patterns) gates += (gates.empty() ? "" : ", ") + g;
  const std::vector<std::string> profile_rule = profile_rule_lines(c);
  if (!profile_rule.empty()) {
    out << "rules:     " << join(profile_rule, "\n           ") << "\n";
    if (!gates.empty()) out << "           also gating: " << gates << "\n";
  } else {
    out << "rules:     a device-class series regresses when it changes by its row's threshold, " << threshold_rule_text(t)
        << ",\n           and its interval clears " << format_change(1 + t.noise_floor) << " (" << false_alarm_text(c) << ")\n";
    out << "           "
        << (gates.empty() ? "host-class series are reported, not gated (--gate METRIC gates one)" : "also gating: " + gates)
        << "\n";
  }
  for (const auto& w : c.environment.warnings) out << "warning: " << one_line(w) << "\n";
  for (const auto& b : c.banners) out << "note: " << one_line(b) << "\n";
  if (!c.drift.empty()) {
    out << "structure drift" << (t.fail_on_drift ? " (fails with --fail-on-drift)" : "") << ":\n";
    for (const auto& d : c.drift) out << "  " << one_line(d.benchmark + ": " + d.what) << "\n";
  }
}

// The rows the table lists, in reading order, and how many it leaves out.
struct ListedRows {
  std::vector<const MetricComparison*> rows;
  std::size_t hidden_same = 0, hidden_info = 0;
};

// Without --all: every gating row that is not "same", and the informational rows that
// say something (a change or a data problem), not the ones that are merely noisy.
ListedRows rows_to_list(const Comparison& c, bool show_all) {
  auto worth_showing = [](const MetricComparison& r) {
    if (r.verdict == Verdict::kSame) return false;
    if (r.rule.gating) return true;
    return r.verdict != Verdict::kInconclusive && r.verdict != Verdict::kMinor;
  };
  ListedRows l;
  for (const MetricComparison* r : rows_by_severity(c)) {
    if (!show_all && !worth_showing(*r)) ++(r->verdict == Verdict::kSame ? l.hidden_same : l.hidden_info);
    else l.rows.push_back(r);
  }
  return l;
}

// The table's rows, each one's detail line, whether that line is shown, and what "~" stands for.
struct ConsoleTable {
  std::vector<Row> rows;
  std::vector<std::string> details;
  std::vector<bool> show;
  std::map<std::string, std::string> shared;  // workload -> the parameters "~" stands for
};

Row console_row(const MetricComparison& r, const std::set<std::string>* telling, std::map<std::string, std::string>& shared) {
  Row row;
  row.colour = colour_of(r.verdict);
  const bool stats = r.base && r.cand;
  row.cells = {verdict_label(r),
               benchmark_cell(r, telling, 30, shared),
               clip(r.metric, 26),
               stats ? format_value(r.base->center, r.unit) : "-",
               stats ? format_value(r.cand->center, r.unit) : "-",
               // A share in % (coverage) moves in points, as its threshold is given.
               r.unit == "%" && stats ? strf("%+.1f pts", r.abs_change) : r.has_estimate ? format_change(r.ratio) : "-",
               r.has_estimate ? format_interval(r.ci_gate) : "-",
               stats ? threshold_cell(r.rule, r.unit) : "-",
               stats ? std::to_string(r.base->reps.size()) + "/" + std::to_string(r.cand->reps.size()) : "-",
               short_note(r)};
  return row;
}

// A row's detail line (its reason and notes, named by what the columns could not hold) into
// `details`, and whether it is shown without --verbose into `show`.
void add_console_detail(const MetricComparison& r, bool verbose, std::vector<std::string>& details, std::vector<bool>& show) {
  std::string why = r.reason;
  for (const auto& n : r.notes) why += "; " + n;
  auto named = [&why](const std::string& name) { why = name + (why.empty() ? "" : ": " + why); };
  // A row by call site (two profiles) names its site here: the benchmark column cannot hold it.
  const auto site = r.params.find("site");
  if (site != r.params.end()) named("at " + site->second);
  // A graph whose label the benchmark column had to cut is named whole on the line under it.
  const auto graph = r.params.find("graph");
  const bool graph_cut = graph != r.params.end() && display_width(r.benchmark()) > 30;
  if (graph_cut) named("graph " + graph->second);
  const bool metric_cut = display_width(r.metric) > 26;  // the metric column's width
  if (metric_cut) named(r.metric);
  details.push_back(why);
  // A newly failing mode's error is what a CI log reader acts on: shown whole, --verbose or not;
  // so is the site of a regression by call site.
  const bool site_regression = site != r.params.end() && r.verdict == Verdict::kRegression;
  show.push_back(verbose || r.verdict == Verdict::kFailed || site_regression || (graph_cut && r.verdict != Verdict::kSame) ||
                 metric_cut);
}

// The benchmark cells cut to the column (benchmark_column); names are shown whole: one the
// column had to cut is named on the line under its row (a site or a graph as above, any other by
// its full name).
void fit_benchmark_column(ConsoleTable& table, const std::vector<const MetricComparison*>& listed) {
  std::vector<std::string> cells;
  for (const Row& row : table.rows) cells.push_back(row.cells[1]);
  cells = benchmark_column(cells, 30);
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    if (cells[i] == table.rows[i].cells[1]) continue;
    const MetricComparison& r = *listed[i];
    if (r.params.count("site") == 0 && r.params.count("graph") == 0)
      table.details[i] = r.benchmark() + (table.details[i].empty() ? "" : ": " + table.details[i]);
    table.show[i] = true;
    table.rows[i].cells[1] = cells[i];
  }
}

ConsoleTable console_table(const std::vector<const MetricComparison*>& listed, bool verbose) {
  // A workload whose listed rows share every parameter: none tells them apart ("update[~]/graph").
  static const std::set<std::string> kNoParams;
  const auto telling = telling_params(listed);
  ConsoleTable table;
  for (const MetricComparison* r : listed) {
    const auto tell = telling.find(r->workload);
    table.rows.push_back(console_row(*r, tell == telling.end() ? &kNoParams : &tell->second, table.shared));
    add_console_detail(*r, verbose, table.details, table.show);
  }
  fit_benchmark_column(table, listed);
  return table;
}

// What the threshold column's "σ" and "set" mean, when a listed row has one.
void print_threshold_legend(const std::vector<const MetricComparison*>& listed, const Thresholds& t, std::ostream& out) {
  bool noise_rows = false, set_rows = false;
  for (const MetricComparison* r : listed) {
    noise_rows = noise_rows || (r->has_estimate && r->rule.threshold_basis == ThresholdBasis::kNoise);
    set_rows = set_rows || (r->has_estimate && r->rule.threshold_basis == ThresholdBasis::kFixed);
  }
  if (noise_rows || set_rows) {
    std::string legend = "threshold: ";
    if (noise_rows)
      legend += strf("%g", t.noise_multiple) + "σ = " + strf("%g", t.noise_multiple) +
                " x the between-run sd of the series' runs, where that is above the " + strf("%g%%", 100.0 * t.threshold) + " floor";
    if (set_rows) legend += std::string(noise_rows ? "; " : "") + "set = --metric-threshold";
    print_wrapped(out, legend, 11);
  }
}

// The geomeans and the verdict counts of gating and informational rows.
void print_console_totals(const Comparison& c, std::ostream& out) {
  std::string geo;
  for (const auto& g : c.geomeans)
    if (g.gating) geo += (geo.empty() ? "" : ", ") + g.metric + " " + format_change(g.ratio) + " (n=" + std::to_string(g.n) + ")";
  if (!geo.empty()) print_wrapped(out, "geomean:       " + geo, 15);
  print_wrapped(out, "gating:        " + verdict_counts(c, true), 15);
  print_wrapped(out, "informational: " + verdict_counts(c, false), 15);
}

}  // namespace

void print_compare_console(const Comparison& c, ExitCode exit, std::ostream& out, const CompareConsoleOptions& o) {
  print_console_result(c, exit, out, o.color);
  print_console_preamble(c, out);
  const ListedRows listed = rows_to_list(c, o.show_all);
  const ConsoleTable table = console_table(listed.rows, o.verbose);
  out << "\n";
  if (!table.rows.empty()) {
    print_table(out, {"verdict", "benchmark", "metric", "baseline", "candidate", "change", "interval", "threshold", "runs", "note"},
                table.rows, o.color, 3, 8, table.details, table.show);
    // What "~" stands for in the names above, whole.
    for (const auto& [workload, params] : table.shared)
      out << one_line("~ in " + workload + "[...]: " + params + " (the same in every listed row)") << "\n";
  }
  if (listed.hidden_same + listed.hidden_info > 0) {
    out << "not listed (--all lists them): " << listed.hidden_same << " the same within the threshold";
    if (listed.hidden_info > 0) out << ", " << listed.hidden_info << " informational inconclusive or minor";
    out << "\n";
  }
  print_threshold_legend(listed.rows, c.thresholds, out);
  if (!o.verbose && !table.rows.empty()) out << "why each row reads as it does: --verbose, or --json\n";
  print_console_totals(c, out);
  print_console_result(c, exit, out, o.color);
}

}  // namespace gp
