// Markdown rendering of a Comparison for PR comments and GitHub job summaries: the verdict in
// the first line, then regressions and failures, then everything else, under a byte cap (a PR
// comment holds 65536 characters) that drops whole rows, last sections first, and says so. The
// folded sections (same, informational) are listed only while the page stays short; past that
// they are counted, so a few regressions never come with 50 KB of rows that do not gate.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "graphprof/core/text_format.hpp"
#include "graphprof/report/compare_report.hpp"

namespace gp {

namespace {

// Table cells: a '|' would end the cell and a newline the row.
std::string cell(std::string s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n' || ch == '\r') out += ' ';
    else out += ch;
  }
  return out;
}

// An inline code span of `s` (a table cell too): its backtick fence is longer than any run of
// backticks inside, and a space pads a backtick at either end (CommonMark strips one each side),
// so a name with a backtick stays one span.
std::string code(const std::string& s) {
  std::size_t longest = 0, run = 0;
  for (char ch : s) {
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const std::string pad = !s.empty() && (s.front() == '`' || s.back() == '`') ? " " : "";
  return fence + pad + cell(s) + pad + fence;
}

std::string icon(Verdict v) {
  switch (v) {
    case Verdict::kRegression: return "🔴";
    case Verdict::kFailed: return "❌";
    case Verdict::kMissing:
    case Verdict::kInvalid:
    case Verdict::kNotComparable: return "⚠️";
    case Verdict::kInconclusive: return "❔";
    case Verdict::kMinor: return "🔸";
    case Verdict::kImprovement: return "🟢";
    case Verdict::kAdded: return "🆕";
    case Verdict::kSame: return "⚪";
  }
  return "";
}

std::string row_line(const MetricComparison& r) {
  const bool stats = r.base && r.cand;
  std::string why = r.reason;
  for (const auto& n : r.notes) why += "; " + n;
  return "| " + icon(r.verdict) + " " + verdict_label(r) + " | " + code(r.benchmark()) + " | " + cell(r.metric) +
         " | " + (stats ? format_value(r.base->center, r.unit) : "-") + " | " +
         (stats ? format_value(r.cand->center, r.unit) : "-") + " | " + (r.has_estimate ? format_change(r.ratio) : "-") +
         " | " + (r.has_estimate ? format_interval(r.ci_gate) : "-") + " | " +
         (stats ? threshold_cell(r.rule, r.unit) : "-") + " | " + (stats ? std::to_string(r.base->reps.size()) + " / " + std::to_string(r.cand->reps.size()) : "-") + " | " +
         cell(why) + " |\n";
}

const char* kTableHead =
    "| Verdict | Benchmark | Metric | Baseline | Candidate | Change | Interval | Threshold | Runs b/c | Why |\n"
    "|---|---|---|--:|--:|--:|--:|--:|--:|---|\n";

// The few rows that make the verdict: gating regressions, failures, untrusted rows and
// improvements, at most kShortRows of them, right under the verdict line.
constexpr std::size_t kShortRows = 10;
std::string short_table(const Comparison& c) {
  std::string out;
  std::size_t n = 0, more = 0;
  for (const MetricComparison* r : rows_by_severity(c)) {
    const bool counts = r->effect != GateEffect::kPass || (r->rule.gating && r->verdict == Verdict::kImprovement);
    if (!counts) continue;
    if (n == kShortRows) {
      ++more;
      continue;
    }
    out += "| " + icon(r->verdict) + " " + verdict_label(*r) + " | " + code(r->benchmark()) + " | " + cell(r->metric) +
           " | " + (r->has_estimate ? format_change(r->ratio) : "-") + " | " +
           (r->base && r->cand ? threshold_cell(r->rule, r->unit) : "-") + " |\n";
    ++n;
  }
  if (out.empty()) return "";
  out = "| Verdict | Benchmark | Metric | Change | Threshold |\n|---|---|---|--:|--:|\n" + out;
  if (more > 0) out += "\n_and " + std::to_string(more) + " more below_\n";
  return out + "\n";
}

struct Section {
  std::string title;
  bool folded = false;  // inside <details>
  std::vector<const MetricComparison*> rows;
};

// Above this size the folded sections are counted rather than listed: a page a reviewer scrolls
// through (about 60 rows) is the most a PR comment should be when nothing in them gates.
constexpr std::size_t kListFoldedBelowBytes = 16384;

std::string side_text(const InputInfo& i) {
  std::string s = code(i.label);
  std::string d;
  if (!i.git_revision.empty()) d += "rev " + code(i.git_revision);
  if (i.gpu) d += (d.empty() ? "" : ", ") + cell(i.gpu->name);
  d += (d.empty() ? "" : ", ") + plural(i.runs, "run", "runs");
  return s + " (" + d + ")";
}

}  // namespace

namespace {

// The rule rows are judged by, with the metrics --gate added.
std::string markdown_rule_line(const Comparison& c) {
  const Thresholds& t = c.thresholds;
  std::string head;
  const std::vector<std::string> profile_rule = profile_rule_lines(c);
  if (!profile_rule.empty())
    head += "Rule: " + cell(join(profile_rule, " "));
  else
    head += "Regression = a device-class series changed by at least its row's threshold, " + cell(threshold_rule_text(t)) +
            ", with an interval beyond " + format_change(1 + t.noise_floor) + " (" + cell(false_alarm_text(c)) + ")";
  if (!t.gate_patterns.empty()) {
    head += "; also gating:";
    for (const auto& g : t.gate_patterns) head += " " + code(g);
  }
  head += "\n";
  return head;
}

// The geomeans, the warnings and notes, and the structure drift (a bounded list).
std::string markdown_notices(const Comparison& c) {
  const Thresholds& t = c.thresholds;
  std::string head;
  std::string geo;
  for (const auto& g : c.geomeans)
    if (g.gating)
      geo += (geo.empty() ? "" : " · ") + cell(g.metric) + " **" + format_change(g.ratio) + "** (n=" + std::to_string(g.n) + ")";
  if (!geo.empty()) head += "Geometric mean, candidate vs baseline: " + geo + "\n";
  if (!c.environment.warnings.empty() || !c.banners.empty()) {
    head += "\n> [!WARNING]\n";
    for (const auto& w : c.environment.warnings) head += "> " + cell(w) + "  \n";
    for (const auto& b : c.banners) head += "> " + cell(b) + "  \n";
  }
  if (!c.drift.empty()) {
    head += std::string("\n**Structure drift**") + (t.fail_on_drift ? " (fails with `--fail-on-drift`)" : "") + ":\n";
    // A bounded list: a graph rewrite can touch every benchmark, and the rows matter more.
    const std::size_t listed = std::min<std::size_t>(c.drift.size(), 20);
    for (std::size_t i = 0; i < listed; ++i)
      head += "- " + code(c.drift[i].benchmark) + ": " + cell(c.drift[i].what) + "\n";
    if (listed < c.drift.size()) head += "- ... and " + std::to_string(c.drift.size() - listed) + " more\n";
  }
  return head;
}

// Everything above the sections: the verdict line, the short table, the counts, the inputs, the
// rule and the notices.
std::string markdown_head(const Comparison& c, ExitCode exit) {
  const char* mark = c.outcome == CompareOutcome::kPass ? "✅" : (c.outcome == CompareOutcome::kRegression ? "❌" : "⚠️");
  std::string head = "<!-- graphprof-compare:v1 -->\n";
  head += std::string("### ") + mark + " graphprof compare: " + cell(result_line(c, exit)) + "\n\n";
  head += short_table(c);
  head += "**Gating series:** " + verdict_counts(c, true) + " · **informational:** " + verdict_counts(c, false) +
          "  \n";
  head += "Baseline " + side_text(c.baseline) + " → candidate " + side_text(c.candidate) + "  \n";
  head += markdown_rule_line(c);
  head += markdown_notices(c);
  return head;
}

// The rows by section, in reading order; the last section holds every informational row.
std::vector<Section> markdown_sections(const Comparison& c) {
  std::vector<Section> sections{{"Regressions and failures", false, {}},
                                {"Needs attention", false, {}},
                                {"Improvements", false, {}},
                                {"Minor changes", false, {}},
                                {"Added", false, {}},
                                {"Same", true, {}},
                                {"Informational metrics (do not gate)", true, {}}};
  for (const MetricComparison* r : rows_by_severity(c)) {
    if (!r->rule.gating && r->verdict != Verdict::kAdded) {
      sections[6].rows.push_back(r);
      continue;
    }
    switch (r->verdict) {
      case Verdict::kRegression:
      case Verdict::kFailed: sections[0].rows.push_back(r); break;
      case Verdict::kMissing:
      case Verdict::kInvalid:
      case Verdict::kNotComparable:
      case Verdict::kInconclusive: sections[1].rows.push_back(r); break;
      case Verdict::kImprovement: sections[2].rows.push_back(r); break;
      case Verdict::kMinor: sections[3].rows.push_back(r); break;
      case Verdict::kAdded: sections[4].rows.push_back(r); break;
      case Verdict::kSame: sections[5].rows.push_back(r); break;
    }
  }
  return sections;
}

// Would listing every row make a long page? Then the folded sections are counted, not listed:
// their rows are dropped (and taken off `total_rows`), and the line that counts them is returned
// ("" when every row stays listed).
std::string count_folded_sections(std::vector<Section>& sections, std::size_t page_bytes, std::size_t max_bytes,
                                  std::size_t& total_rows) {
  std::size_t listed_bytes = page_bytes;
  for (const auto& s : sections)
    for (const MetricComparison* r : s.rows) listed_bytes += row_line(*r).size();
  const bool count_folded = listed_bytes > std::min(max_bytes, kListFoldedBelowBytes);
  std::vector<std::string> unlisted;
  for (auto& s : sections) {
    if (!s.folded || !count_folded || s.rows.empty()) continue;
    unlisted.push_back(group_digits(s.rows.size()) + (&s == &sections.back() ? " informational" : " same gating") +
                       (s.rows.size() == 1 ? " row" : " rows"));
    total_rows -= s.rows.size();
    s.rows.clear();
  }
  return unlisted.empty() ? std::string()
                          : "\n_Not listed, to keep this page short: " + join(unlisted, " and ") +
                                " (counted above); the console with `--all` and the JSON list every row._\n";
}

// Many warnings under a small cap: keep the first lines (the result comes first) whole.
void shorten_markdown_head(std::string& head, std::size_t max_bytes, std::size_t reserve) {
  if (head.size() + reserve > max_bytes && max_bytes > reserve) {
    const std::string note = "\n_(header shortened to fit the Markdown limit)_\n";
    const std::size_t keep = max_bytes - reserve - std::min(max_bytes - reserve, note.size());
    const std::size_t cut = head.rfind('\n', keep);
    head = head.substr(0, cut == std::string::npos ? 0 : cut + 1) + note;
  }
}

// The sections as tables, whole rows while they fit in `budget` bytes; `shown` counts the rows.
std::string markdown_section_tables(const std::vector<Section>& sections, std::size_t budget, std::size_t& shown) {
  std::string body;
  bool full = false;
  for (const auto& s : sections) {
    if (s.rows.empty() || full) continue;
    const std::string title = s.title + " (" + std::to_string(s.rows.size()) + ")";
    const std::string open = s.folded ? "\n<details><summary>" + title + "</summary>\n\n" : "\n#### " + title + "\n\n";
    const std::string close = s.folded ? "\n</details>\n" : "";
    if (body.size() + open.size() + std::string(kTableHead).size() + close.size() > budget) {
      full = true;
      break;
    }
    std::string part = open + kTableHead;
    std::size_t added = 0;
    for (const MetricComparison* r : s.rows) {
      const std::string line = row_line(*r);
      if (body.size() + part.size() + line.size() + close.size() > budget) {
        full = true;
        break;
      }
      part += line;
      ++added;
    }
    if (added == 0) break;
    body += part + close;
    shown += added;
  }
  return body;
}

}  // namespace

std::string render_compare_markdown(const Comparison& c, ExitCode exit, std::size_t max_bytes) {
  std::string head = markdown_head(c, exit);
  std::vector<Section> sections = markdown_sections(c);

  std::string foot = "\n<sub>Reproduce with " + code(c.command.empty() ? "graphprof compare BASELINE CANDIDATE" : c.command) +
                     "; `--json` writes every number behind every verdict.</sub>\n";
  std::size_t total_rows = 0, shown = 0;
  for (const auto& s : sections) total_rows += s.rows.size();
  const std::string counted = count_folded_sections(sections, head.size() + foot.size(), max_bytes, total_rows);
  // Room for the footer, the "not shown" line and the counts.
  const std::size_t reserve = foot.size() + 200 + counted.size();
  shorten_markdown_head(head, max_bytes, reserve);
  const std::size_t budget = max_bytes > head.size() + reserve ? max_bytes - head.size() - reserve : 0;
  std::string body = markdown_section_tables(sections, budget, shown);
  if (shown < total_rows) {
    body += "\n_" + std::to_string(total_rows - shown) + " more rows not shown (Markdown limit of " +
            std::to_string(max_bytes) + " bytes); the console and JSON outputs list every row._\n";
  }
  body += counted;
  return head + body + foot;
}

}  // namespace gp
