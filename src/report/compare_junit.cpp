// JUnit XML rendering of a Comparison for CI test dashboards: one testsuite per benchmark
// (workload, params, mode), one testcase per metric. Regressions and newly failing modes are
// <failure>s, rows that make the comparison untrustworthy are <error>s, inconclusive and added
// rows are <skipped>; the numbers go into <system-out> so a dashboard shows them on click.
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "graphprof/report/compare_report.hpp"
#include "graphprof/core/text_format.hpp"

namespace gp {

namespace {

// markup_escape, after blanking the control characters XML 1.0 forbids (a report field should
// not carry them).
std::string xml(std::string s) {
  for (char& ch : s)
    if (static_cast<unsigned char>(ch) < 0x20 && ch != '\n' && ch != '\t') ch = ' ';
  return markup_escape(s);
}

// Jenkins and GitLab split a classname at its last '.' into package and class, so a parameter
// such as tolerance=0.001 would tear the name apart: dots inside names become '_', and the
// one intended dot separates the tool from the benchmark.
std::string dotless(std::string s) {
  for (char& ch : s)
    if (ch == '.') ch = '_';
  return s;
}

enum class JunitOutcome { kPass, kFailure, kError, kSkipped };

JunitOutcome outcome_of(const MetricComparison& r) {
  if (r.effect == GateEffect::kFail) return JunitOutcome::kFailure;
  if (r.effect == GateEffect::kUntrusted) return JunitOutcome::kError;
  // Only rows a reader may act on are skipped; an informational metric that is merely noisy passes.
  if ((r.verdict == Verdict::kInconclusive && r.rule.gating) || r.verdict == Verdict::kAdded) return JunitOutcome::kSkipped;
  return JunitOutcome::kPass;
}

std::string details(const MetricComparison& r) {
  std::ostringstream o;
  o << "verdict: " << to_string(r.verdict) << (r.rule.gating ? "" : " (informational)") << "\n";
  o << "reason: " << r.reason << "\n";
  if (r.base && r.cand) {
    o << "baseline: " << format_value(r.base->center, r.unit) << " (" << r.base->reps.size() << " runs, spread "
      << format_spread(*r.base) << ")\n";
    o << "candidate: " << format_value(r.cand->center, r.unit) << " (" << r.cand->reps.size() << " runs, spread "
      << format_spread(*r.cand) << ")\n";
  }
  if (r.has_estimate) {
    o << "change: " << format_change(r.ratio) << "; gate interval: " << format_interval(r.ci_gate)
      << "; method: " << r.method << "\n";
  }
  if (r.base && r.cand) o << "threshold: " << threshold_explained(r.rule, r.unit) << "\n";
  for (const auto& n : r.notes) o << "note: " << n << "\n";
  return o.str();
}

}  // namespace

std::string render_compare_junit(const Comparison& c) {
  // Group rows by benchmark, in the Comparison's (sorted) order.
  std::vector<std::string> order;
  std::map<std::string, std::vector<const MetricComparison*>> groups;
  for (const auto& r : c.rows) {
    const std::string b = r.benchmark();
    if (groups.find(b) == groups.end()) order.push_back(b);
    groups[b].push_back(&r);
  }
  std::size_t tests = 0, failures = 0, errors = 0;
  std::ostringstream suites;
  // The environment is a test of its own: a different GPU is an error a dashboard must show.
  {
    const bool bad = !c.environment.comparable;
    ++tests;
    if (bad) ++errors;
    suites << "  <testsuite name=\"environment\" tests=\"1\" failures=\"0\" errors=\"" << (bad ? 1 : 0)
           << "\" skipped=\"0\">\n";
    suites << "    <testcase classname=\"graphprof.compare\" name=\"environment\" time=\"0\">\n";
    std::string text;
    for (const auto& w : c.environment.warnings) text += w + "\n";
    for (const auto& b : c.banners) text += b + "\n";
    if (bad) suites << "      <error type=\"not_comparable\" message=\"" << xml(c.outcome_reason) << "\">" << xml(text) << "</error>\n";
    else if (!text.empty()) suites << "      <system-out>" << xml(text) << "</system-out>\n";
    suites << "    </testcase>\n  </testsuite>\n";
  }
  if (!c.drift.empty()) {
    const bool fails = c.thresholds.fail_on_drift;
    tests += c.drift.size();
    if (fails) failures += c.drift.size();
    suites << "  <testsuite name=\"structure\" tests=\"" << c.drift.size() << "\" failures=\""
           << (fails ? c.drift.size() : 0) << "\" errors=\"0\" skipped=\"0\">\n";
    for (const auto& d : c.drift) {
      suites << "    <testcase classname=\"graphprof." << xml(dotless(d.benchmark)) << "\" name=\"" << xml(dotless(d.what))
             << "\" time=\"0\">\n";
      if (fails) suites << "      <failure type=\"drift\" message=\"" << xml(d.what) << "\"/>\n";
      else suites << "      <system-out>" << xml(d.what) << "</system-out>\n";
      suites << "    </testcase>\n";
    }
    suites << "  </testsuite>\n";
  }
  for (const auto& b : order) {
    std::size_t f = 0, e = 0, s = 0;
    std::ostringstream cases;
    for (const MetricComparison* r : groups[b]) {
      const JunitOutcome out = outcome_of(*r);
      const std::string msg = verdict_label(*r) + ": " + r->reason;
      cases << "    <testcase classname=\"graphprof." << xml(dotless(b)) << "\" name=\""
            << xml(dotless(r->metric == "*" ? "(mode)" : r->metric)) << "\" time=\"0\">\n";
      switch (out) {
        case JunitOutcome::kFailure:
          ++f;
          cases << "      <failure type=\"" << to_string(r->verdict) << "\" message=\"" << xml(msg) << "\">"
                << xml(details(*r)) << "</failure>\n";
          break;
        case JunitOutcome::kError:
          ++e;
          cases << "      <error type=\"" << to_string(r->verdict) << "\" message=\"" << xml(msg) << "\">"
                << xml(details(*r)) << "</error>\n";
          break;
        case JunitOutcome::kSkipped:
          ++s;
          cases << "      <skipped message=\"" << xml(msg) << "\"/>\n";
          cases << "      <system-out>" << xml(details(*r)) << "</system-out>\n";
          break;
        case JunitOutcome::kPass: cases << "      <system-out>" << xml(details(*r)) << "</system-out>\n"; break;
      }
      cases << "    </testcase>\n";
    }
    const std::size_t n = groups[b].size();
    tests += n;
    failures += f;
    errors += e;
    suites << "  <testsuite name=\"" << xml(b) << "\" tests=\"" << n << "\" failures=\"" << f << "\" errors=\"" << e
           << "\" skipped=\"" << s << "\">\n"
           << cases.str() << "  </testsuite>\n";
  }
  std::ostringstream doc;
  doc << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  // No `skipped` here: the common JUnit schema allows it on <testsuite> only.
  doc << "<testsuites name=\"graphprof compare\" tests=\"" << tests << "\" failures=\"" << failures << "\" errors=\""
      << errors << "\">\n";
  doc << suites.str();
  doc << "</testsuites>\n";
  return doc.str();
}

}  // namespace gp
